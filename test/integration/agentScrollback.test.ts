/**
 * Agent sessions keep a short in-memory scrollback (setting agentScrollback), the person's
 * sessions the longer one (scrollback); `read` still reaches every line: view `history` from the
 * transcript once the page lies beyond what memory holds, view `command` of a running command
 * from the transcript once its output outgrew the scrollback and the head lines.
 */
import { describe, expect, it } from 'vitest';
import type { TerminalSession } from '../../src/core/session/terminalSession.js';
import type { ReadRequest } from '../../src/core/types.js';
import { agent, managersPerTest } from './helpers/core.js';

const { manager } = managersPerTest();
const person = { kind: 'user' } as const;
/** Short enough that `seq 1 3000` leaves it many times over; the person's holds it all. */
const settings = { scrollback: 5_000, agentScrollback: 200, headLines: 200 };

async function run(session: TerminalSession, command: string): Promise<void> {
  const result = await session.execute({ command, timeoutMs: 20_000, maxLines: 50 });
  expect(result.status).toBe('completed');
}

function read(session: TerminalSession, request: Partial<ReadRequest>): ReturnType<TerminalSession['read']> {
  return session.read({ clientId: 'test', view: 'history', format: 'plain', ...request });
}

/** A 250-character line (it wraps over three rows at 100 columns), then 3 000 numbered lines. */
const COMMAND = "printf 'w%.0s' {1..250}; echo; seq 1 3000";

describe('agent sessions: short scrollback, full history', () => {
  it('read history of an agent session returns every line, from disk, the same as a person session holds in memory', async () => {
    const { manager: sessions } = manager({ settings });
    const agentSession = await sessions.open({ creator: agent });
    const personSession = await sessions.open({ creator: person });
    personSession.handBack(); // so the test can type into it; it keeps the person's scrollback
    await run(agentSession, COMMAND);
    await run(personSession, COMMAND);

    const fromMemory = await read(personSession, { limit: 100_000 });
    const fromDisk = await read(agentSession, { limit: 100_000 });
    const lines = (fromDisk.content as string).split('\n');
    expect(lines).toContain('w'.repeat(250));
    const numbers = lines.filter((line) => /^\d+$/.test(line)).map(Number);
    expect(numbers).toEqual(Array.from({ length: 3000 }, (_, i) => i + 1));
    // Rendered the same way: the transcript replay is the in-memory history the person's session has.
    expect(fromDisk.content).toBe(fromMemory.content);
    expect(fromDisk.total_lines).toBe(fromMemory.total_lines);

    // Paging back across the in-memory boundary gives the same pages as memory does.
    for (const offset of [0, 150, 195, 1_000, 2_990]) {
      const disk = await read(agentSession, { offset, limit: 20 });
      const memory = await read(personSession, { offset, limit: 20 });
      expect(disk.content, `offset ${offset}`).toBe(memory.content);
      expect(disk.truncated).toBe(true);
    }
    // The last page from memory still says there is more (on disk).
    const recent = await read(agentSession, { limit: 10 });
    expect((recent.content as string).split('\n')).toHaveLength(10);
    expect(recent.truncated).toBe(true);
  });

  it('pages the output of a running command past its head lines and the scrollback, from disk', async () => {
    const { manager: sessions } = manager({ settings });
    const session = await sessions.open({ creator: agent });
    const started = await session.execute({ command: 'seq 1 3000; sleep 30', timeoutMs: 200, maxLines: 50 });
    expect(started.status).toBe('running');
    await read(session, { view: 'new', wait: { pattern: '^3000$', timeout_ms: 15_000 } });
    const page = await read(session, { view: 'command', offset: 2_000, limit: 5 });
    expect(page.content).toBe('2001\n2002\n2003\n2004\n2005');
    expect(page.total_lines).toBeGreaterThanOrEqual(3000);
    await session.kill('SIGINT');
  });
});
