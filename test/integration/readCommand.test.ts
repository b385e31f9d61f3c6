/**
 * `read` view `command` gives that command's exit code and duration once it finished
 * (docs/design.md §3.2), so after an `execute` that returned `running`, one `read`
 * with `wait.exit` tells the agent whether it passed. Live sessions, and closed ones read from
 * commands.jsonl. Commands wait on a FIFO the test writes to, so "still running" never depends on
 * timing.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TerminalSession } from '../../src/core/session/terminalSession.js';
import type { ReadRequest } from '../../src/core/types.js';
import { agent, managersPerTest } from './helpers/core.js';
import { shellPath } from './helpers/shells.js';

const { manager } = managersPerTest();

function run(session: TerminalSession, command: string, timeoutMs = 10_000): ReturnType<TerminalSession['execute']> {
  return session.execute({ command, timeoutMs, maxLines: 200 });
}

function commandView(extra: Partial<ReadRequest> = {}): ReadRequest {
  return { clientId: 'test', view: 'command', format: 'plain', ...extra };
}

/** A FIFO in `dir`: a command that reads it runs until the test writes a line into it. */
function fifo(dir: string): { path: string; release: () => Promise<void> } {
  const file = path.join(dir, `gate-${Math.random().toString(36).slice(2)}`);
  execFileSync('mkfifo', [file]);
  // The open waits (on a libuv thread) for the command's own open of the FIFO.
  return { path: file, release: () => fs.promises.writeFile(file, 'go\n') };
}

describe.each(['bash', 'sh'] as const)('read view command in %s', (name) => {
  const shell = shellPath(name);
  it('with wait.exit after execute returned running: that command exit code and duration', async () => {
    const { manager: m, home } = manager({ shell });
    const session = await m.open({ creator: agent, cwd: home });
    const gate = fifo(home);
    const started = await run(session, `echo started; read x < ${gate.path}; false`, 200);
    expect(started).toMatchObject({ status: 'running', exit_code: null });

    // While it runs (its first line is out): no exit code and no duration for it.
    const running = await session.read(commandView({ wait: { pattern: '^started$', timeout_ms: 10_000 } }));
    expect(running).toMatchObject({ waited: 'pattern', seq: started.command_seq, exit_code: null, state: 'running' });
    expect(running.duration_ms).toBeUndefined();

    const read = session.read(commandView({ wait: { exit: true, timeout_ms: 10_000 } }));
    await gate.release();
    const finished = await read;
    expect(finished).toMatchObject({ waited: 'exit', seq: started.command_seq, exit_code: 1, content: 'started', state: 'idle' });
    expect(typeof finished.duration_ms).toBe('number');
    expect(finished.duration_ms).toBeGreaterThan(0);

    // Other views still give the program's exit code: none while the shell lives.
    expect((await session.read({ clientId: 'test', view: 'screen', format: 'plain' })).exit_code).toBeNull();
  });
});

describe('read view command', () => {
  it('by seq after it finished: each command its own exit code, from memory or replayed from the transcript', async () => {
    const { manager: m } = manager({ settings: { scrollback: 500, headLines: 100 } });
    const session = await m.open({ creator: agent });
    const long = await run(session, 'seq 1 3000; (exit 5)');
    const short = await run(session, 'echo two');
    expect(long.exit_code).toBe(5);

    // Not the last command: its record. Past the head lines kept in memory: replayed from disk.
    const tail = await session.read(commandView({ seq: long.command_seq, offset: 2995 }));
    expect(tail).toMatchObject({ seq: long.command_seq, exit_code: 5, content: '2996\n2997\n2998\n2999\n3000', total_lines: 3000 });
    expect(tail.duration_ms).toBeGreaterThanOrEqual(0);
    const head = await session.read(commandView({ seq: long.command_seq, limit: 2 }));
    expect(head).toMatchObject({ exit_code: 5, content: '1\n2', duration_ms: tail.duration_ms });

    // The last command, by default and by seq.
    const last = await session.read(commandView());
    expect(last).toMatchObject({ seq: short.command_seq, exit_code: 0, content: 'two' });
    expect(last.duration_ms).toBeGreaterThanOrEqual(0);
    expect(await session.read(commandView({ seq: short.command_seq }))).toMatchObject({ exit_code: 0, duration_ms: last.duration_ms });

    // The last command read past its head lines (replayed) says the same.
    const longLast = await run(session, 'seq 1 3000; false');
    const page = await session.read(commandView({ offset: 2998 }));
    expect(page).toMatchObject({ seq: longLast.command_seq, exit_code: 1, content: '2999\n3000' });
    expect(page.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('of a command that ended the shell: the shell exit code, once it exited', async () => {
    const { manager: m, home } = manager();
    const session = await m.open({ creator: agent, cwd: home });
    const gate = fifo(home);
    const started = await run(session, `read x < ${gate.path}; exit 3`, 200);
    expect(started.status).toBe('running');
    const read = session.read(commandView({ wait: { exit: true, timeout_ms: 10_000 } }));
    await gate.release();
    const finished = await read;
    expect(finished).toMatchObject({ waited: 'exit', seq: started.command_seq, exit_code: 3, state: 'exited' });
    expect(finished.duration_ms).toBeGreaterThan(0);
  });

  it('of a command whose shell was killed: no exit code (node-pty says 0 for a signal), still a duration; execute agrees', async () => {
    const { manager: m, home } = manager();
    const session = await m.open({ creator: agent, cwd: home });
    const gate = fifo(home);
    const executing = run(session, `echo started; read x < ${gate.path}`);
    const running = await session.read(commandView({ wait: { pattern: '^started$', timeout_ms: 10_000 } }));
    expect(running).toMatchObject({ waited: 'pattern', exit_code: null, state: 'running' });
    const read = session.read(commandView({ wait: { exit: true, timeout_ms: 10_000 } }));
    process.kill(session.pid, 'SIGKILL');
    const finished = await read;
    expect(finished).toMatchObject({ waited: 'exit', seq: running.seq, exit_code: null, state: 'exited', content: 'started' });
    expect(finished.duration_ms).toBeGreaterThan(0);
    expect(await executing).toMatchObject({ status: 'completed', command_seq: running.seq, exit_code: null, output: 'started' });
  });

  it('of a closed session: the same exit code and duration, from commands.jsonl', async () => {
    const { manager: m } = manager();
    const session = await m.open({ creator: agent });
    const first = await run(session, "echo one; sh -c 'exit 6'");
    const second = await run(session, 'echo two');
    const liveFirst = await session.read(commandView({ seq: first.command_seq }));
    const liveSecond = await session.read(commandView());
    await session.close();
    expect(m.list().some((s) => s.id === session.id)).toBe(false);

    const closedFirst = await m.read(session.id, commandView({ seq: first.command_seq }));
    expect(closedFirst).toMatchObject({ state: 'exited', seq: first.command_seq, content: 'one', exit_code: 6, duration_ms: liveFirst.duration_ms });
    const closedLast = await m.read(session.id, commandView());
    expect(closedLast).toMatchObject({ state: 'exited', seq: second.command_seq, content: 'two', exit_code: 0, duration_ms: liveSecond.duration_ms });
    expect(typeof closedLast.duration_ms).toBe('number');
    // Other views of a closed session give the session's own exit code, not a command's.
    const screen = await m.read(session.id, { clientId: 'test', view: 'screen', format: 'plain' });
    expect(screen.exit_code).toBe(m.list(true).find((s) => s.id === session.id)?.exit_code);
    expect(screen.duration_ms).toBeUndefined();
  });
});
