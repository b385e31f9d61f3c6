/** Sessions and records as the hub sends them, for the renderer's unit tests. */
import type { UiCommandRecord, UiSession } from '../../../src/ui-protocol/index.js';
import type { SessionEntry } from '../../../renderer/src/sessionFormat.js';

export function agentSession(id: string, over: Partial<UiSession> = {}): UiSession {
  return {
    id,
    name: null,
    creator: { kind: 'agent', client: 'claude-code 1.2.3' },
    controller: 'agent',
    state: 'idle',
    cwd: '/home/ada/src/app',
    command: null,
    running_ms: null,
    last_exit_code: null,
    exit_code: null,
    rows: 24,
    cols: 80,
    pid: 100,
    program: '/bin/bash',
    title: 'bash',
    created_at: '2026-01-01T00:00:00.000Z',
    ...over,
  };
}

export function personSession(id: string, over: Partial<UiSession> = {}): UiSession {
  return agentSession(id, { creator: { kind: 'user' }, controller: 'user', ...over });
}

export function entry(info: UiSession, receivedAt = 0): SessionEntry {
  return { info, receivedAt };
}

export function record(seq: number, over: Partial<UiCommandRecord> = {}): UiCommandRecord {
  return {
    seq,
    command: `command-${seq}`,
    cwd: '/home/ada',
    started_at: 1_000 * seq,
    ended_at: 1_000 * seq + 10,
    exit_code: 0,
    output_start_byte: 100 * seq,
    output_end_byte: 100 * seq + 50,
    total_lines: 1,
    ...over,
  };
}
