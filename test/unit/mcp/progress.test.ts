/**
 * Progress notifications (src/mcp/progress.ts, docs/design.md §3.4): what a message says, when
 * it goes out (every interval, and at once when the call starts waiting for input or for the
 * person), and that nothing is read without a progress token. Through real clients:
 * test/integration/clientMatrix.test.ts.
 */
import type { ServerContext } from '@modelcontextprotocol/server';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EventEmitter, type SessionInfo, type TerminalSession } from '../../../src/core/index.js';
import { progressMessage, startProgress, type ProgressHost } from '../../../src/mcp/progress.js';
import type { PendingApproval } from '../../../src/mcp/toolHost.js';

interface Note {
  progressToken: string | number;
  progress: number;
  message: string;
}

function context(token: string | undefined): { ctx: ServerContext; notes: Note[]; abort: AbortController } {
  const notes: Note[] = [];
  const abort = new AbortController();
  const ctx = {
    mcpReq: {
      _meta: token === undefined ? {} : { progressToken: token },
      signal: abort.signal,
      notify: async (notification: { params: Note }) => {
        notes.push(notification.params);
      },
    },
  } as unknown as ServerContext;
  return { ctx, notes, abort };
}

class FakeSession {
  readonly id = 'k3f9q2';
  readonly awaitInput = new EventEmitter<{ secret: boolean; kind: 'line' | 'secret' | 'screen' }>();
  readonly onDidAwaitInput = this.awaitInput.event;
  state: SessionInfo['state'] = 'running';
  inputKind: SessionInfo['input_kind'];
  command: string | null = 'npm test';
  line = 'PASS src/a.test.ts';
  reads = 0;
  info(): Partial<SessionInfo> {
    this.reads++;
    return { id: this.id, state: this.state, command: this.command, ...(this.inputKind ? { input_kind: this.inputKind } : {}) };
  }
  lastOutputLine(): string {
    this.reads++;
    return this.line;
  }
  asSession(): TerminalSession {
    return this as unknown as TerminalSession;
  }
}

class FakeGate {
  readonly changes = new EventEmitter<string>();
  readonly onDidChange = this.changes.event;
  readonly pendingBySession = new Map<string, PendingApproval>();
  pending(session: string): PendingApproval | undefined {
    return this.pendingBySession.get(session);
  }
  ask(session: string, rule: PendingApproval['rule']): void {
    this.pendingBySession.set(session, { id: 'ap-1', session, command: 'git push --force', rule, reason: 'rule asks', asked_at: new Date().toISOString() });
    this.changes.fire(session);
  }
}

const INTERVAL = 5_000;

describe('progressMessage', () => {
  it('names a running command, the whole seconds since the call started and its last line', () => {
    expect(progressMessage({ label: 'npm test', elapsedMs: 41_900, state: 'running', command: 'npm test', lastLine: 'PASS src/a.test.ts' })).toBe(
      'npm test · 41 s · PASS src/a.test.ts',
    );
  });

  it('says awaiting input with its kind, and awaiting approval with the rule that asked', () => {
    expect(progressMessage({ label: 'x', elapsedMs: 12_000, state: 'awaiting_input', inputKind: 'secret', lastLine: 'Password:' })).toBe(
      'awaiting input (secret) · 12 s · Password:',
    );
    expect(progressMessage({ label: 'x', elapsedMs: 3_200, approval: { rule: { index: 2, match: 'git push --force*' }, reason: 'r' } })).toBe(
      'awaiting approval · 3 s · rule 2 git push --force*',
    );
    expect(progressMessage({ label: 'x', elapsedMs: 0, approval: { rule: null, reason: 'the line does not parse' } })).toBe(
      'awaiting approval · 0 s · the line does not parse',
    );
  });

  it('leaves out an empty line, names a long or multi-line command by its start', () => {
    expect(progressMessage({ label: 'waiting', elapsedMs: 5_000, state: 'idle', command: null, lastLine: '' })).toBe('waiting · 5 s');
    const long = `./build.sh ${'--flag '.repeat(20)}`;
    const [named] = progressMessage({ label: long, elapsedMs: 5_000 }).split(' · ');
    expect(named).toHaveLength(60);
    expect(named!.endsWith('…')).toBe(true);
    expect(progressMessage({ label: 'set -e\nmake\nmake test', elapsedMs: 0 })).toBe('set -e … · 0 s');
  });
});

describe('startProgress', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('without a progress token sends nothing and never reads the session', () => {
    const { ctx, notes } = context(undefined);
    const session = new FakeSession();
    const progress = startProgress(ctx, { settings: { progressIntervalMs: INTERVAL } }, 'npm test');
    progress.watch(session.asSession());
    session.awaitInput.fire({ secret: false, kind: 'line' });
    vi.advanceTimersByTime(INTERVAL * 3);
    progress.dispose();
    expect(notes).toEqual([]);
    expect(session.reads).toBe(0);
  });

  it('every interval: the state, the time and the latest line, with progress increasing', () => {
    const { ctx, notes } = context('tok');
    const session = new FakeSession();
    const progress = startProgress(ctx, { settings: { progressIntervalMs: INTERVAL } }, 'npm test');
    vi.advanceTimersByTime(INTERVAL);
    expect(notes).toEqual([{ progressToken: 'tok', progress: INTERVAL, message: 'npm test · 5 s' }]); // no session yet: the call's own label
    progress.watch(session.asSession());
    vi.advanceTimersByTime(INTERVAL);
    session.line = 'PASS src/b.test.ts';
    vi.advanceTimersByTime(INTERVAL);
    expect(notes.map((n) => n.message)).toEqual(['npm test · 5 s', 'npm test · 10 s · PASS src/a.test.ts', 'npm test · 15 s · PASS src/b.test.ts']);
    expect(notes.map((n) => n.progress)).toEqual([5_000, 10_000, 15_000]);
    progress.dispose();
    vi.advanceTimersByTime(INTERVAL * 3);
    expect(notes).toHaveLength(3);
  });

  it('tells at once, not at the next tick, when the session starts waiting for input', () => {
    const { ctx, notes } = context('tok');
    const session = new FakeSession();
    const progress = startProgress(ctx, { settings: { progressIntervalMs: INTERVAL } }, 'read -p "Password: " pw');
    progress.watch(session.asSession());
    vi.advanceTimersByTime(1_200);
    session.state = 'awaiting_input';
    session.inputKind = 'line';
    session.line = 'Password:';
    session.awaitInput.fire({ secret: false, kind: 'line' });
    expect(notes).toEqual([{ progressToken: 'tok', progress: 1_200, message: 'awaiting input (line) · 1 s · Password:' }]);
    progress.dispose();
    session.awaitInput.fire({ secret: false, kind: 'line' });
    expect(notes).toHaveLength(1);
  });

  it("tells at once when the person is asked about this session's command, not about another one", () => {
    const { ctx, notes } = context('tok');
    const session = new FakeSession();
    const gate = new FakeGate();
    const host: ProgressHost = { settings: { progressIntervalMs: INTERVAL }, gate };
    const progress = startProgress(ctx, host, 'git push --force');
    progress.watch(session.asSession());
    gate.ask('other1', null);
    expect(notes).toEqual([]);
    vi.advanceTimersByTime(3_000);
    gate.ask(session.id, { index: 2, match: 'git push --force*' });
    expect(notes.map((n) => n.message)).toEqual(['awaiting approval · 3 s · rule 2 git push --force*']);
    // Two notes in the same millisecond still increase.
    gate.ask(session.id, { index: 2, match: 'git push --force*' });
    expect(notes.map((n) => n.progress)).toEqual([3_000, 3_001]);
    progress.dispose();
    gate.ask(session.id, null);
    expect(notes).toHaveLength(2);
  });

  it('stops when the request is cancelled', () => {
    const { ctx, notes, abort } = context('tok');
    const progress = startProgress(ctx, { settings: { progressIntervalMs: INTERVAL } }, 'sleep 60');
    vi.advanceTimersByTime(INTERVAL);
    abort.abort();
    vi.advanceTimersByTime(INTERVAL * 3);
    expect(notes).toHaveLength(1);
    progress.dispose();
  });
});
