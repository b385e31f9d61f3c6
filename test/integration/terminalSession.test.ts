import * as fs from 'node:fs';
import * as path from 'node:path';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { SwitchboardError } from '../../src/core/errors.js';
import type { SessionManager } from '../../src/core/session/sessionManager.js';
import type { TerminalSession } from '../../src/core/session/terminalSession.js';
import { agent, managersPerTest } from './helpers/core.js';
import { openFdCount, processExists } from './helpers/processState.js';
import { shellPath } from './helpers/shells.js';

const { manager } = managersPerTest();

function run(session: TerminalSession, command: string, timeoutMs = 10_000, maxLines = 200): ReturnType<TerminalSession['execute']> {
  return session.execute({ command, timeoutMs, maxLines });
}

/** Resolves when the session reaches `state`, or rejects after `timeoutMs`. */
function whenState(session: TerminalSession, state: string, timeoutMs = 5_000): Promise<void> {
  return new Promise((resolve, reject) => {
    if (session.state === state) return resolve();
    const timer = setTimeout(() => {
      subscription.dispose();
      reject(new Error(`session did not become ${state} within ${timeoutMs} ms (is ${session.state})`));
    }, timeoutMs);
    const subscription = session.onDidChange(() => {
      if (session.state !== state) return;
      clearTimeout(timer);
      subscription.dispose();
      resolve();
    });
  });
}

const SHELLS = ['bash', 'zsh', 'fish', 'sh'] as const;

describe.each(SHELLS)('execute boundaries in %s', (name) => {
  const shell = (): string => shellPath(name);

  it('runs a multi-line command whole and waits for all of it', async () => {
    const session = await manager({ shell: shell() }).manager.open({ creator: agent });
    const result = await run(session, 'echo one\nsleep 0.3\necho two');
    expect(result.status).toBe('completed');
    expect(result.output).toBe('one\ntwo');
    expect(result.exit_code).toBe(0);
    const next = await run(session, 'echo three');
    expect(next.output).toBe('three');
    expect(next.command_seq).toBe(result.command_seq + 1);
  });

  it('returns output without a final newline, and a progress bar as its final state', async () => {
    const session = await manager({ shell: shell() }).manager.open({ creator: agent });
    expect((await run(session, 'printf abc')).output).toBe('abc');
    const bar = await run(session, "printf '\\r33%%'; sleep 0.05; printf '\\r66%%'; sleep 0.05; printf '\\r99%%\\n'");
    expect(bar.output).toBe('99%');
    expect(bar.total_lines).toBe(1);
  });

  it('is not ended early by a program printing a fake finished mark', async () => {
    const session = await manager({ shell: shell() }).manager.open({ creator: agent });
    const result = await run(session, "printf '\\033]133;D;0\\007'; sleep 0.3; echo real-end");
    expect(result.status).toBe('completed');
    expect(result.output).toBe('real-end');
  });

  it('returns what the screen shows after clear inside a command', async () => {
    const session = await manager({ shell: shell(), env: { TERM: 'xterm-256color' } }).manager.open({ creator: agent });
    const result = await run(session, 'echo before; clear; echo after');
    expect(result.output).toBe('after');
    expect(result.exit_code).toBe(0);
  });
});

describe('execute output', () => {
  it('keeps the head of an output that outran the scrollback, and the tail', async () => {
    const session = await manager({ settings: { scrollback: 500 } }).manager.open({ creator: agent });
    const result = await run(session, 'seq 1 5000', 10_000, 20);
    expect(result.exit_code).toBe(0);
    expect(result.total_lines).toBe(5000);
    expect(result.truncated).toBe(true);
    const lines = result.output.split('\n');
    expect(lines.slice(0, 10)).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9', '10']);
    expect(lines.slice(-10)).toEqual(['4991', '4992', '4993', '4994', '4995', '4996', '4997', '4998', '4999', '5000']);
    expect(lines[10]).toMatch(/lines 11–4990 of 5000 omitted.*"view":"command"/);
  });

  it('joins soft-wrapped lines and keeps wide characters', async () => {
    const session = await manager({ settings: { cols: 40 } }).manager.open({ creator: agent });
    const long = 'x'.repeat(95);
    const result = await run(session, `echo ${long}; echo 'héllo 世界 ✓'`);
    expect(result.output).toBe(`${long}\nhéllo 世界 ✓`);
    expect(result.total_lines).toBe(2);
  });

  it('reports a command that ends the shell as completed with its exit code', async () => {
    const { manager: m } = manager();
    const session = await m.open({ creator: agent });
    const result = await run(session, 'exit 3');
    expect(result.status).toBe('completed');
    expect(result.exit_code).toBe(3);
    expect(m.list(true).find((s) => s.id === session.id)?.state).toBe('exited');
  });

  // Keys typed before the prompt is drawn are echoed by the kernel above it. A prompt that takes
  // a while (a command substitution in PS1) leaves a gap after the D mark to type into.
  it('types into sh only once its prompt is drawn, so the echo stays off the output row', async () => {
    // dash has no line editor: the output would start beside the prompt, after the echo.
    const { manager: m } = manager({ shell: shellPath('sh'), rcFiles: { '.shrc': "PS1='$(sleep 0.3)$ '\n" }, env: { ENV: '$HOME/.shrc' } });
    const session = await m.open({ creator: agent });
    expect((await run(session, 'printf abc')).output).toBe('abc');
    const bar = await run(session, "printf '\\r33%%'; printf '\\r99%%\\n'");
    expect(bar.output).toBe('99%');
    expect((await run(session, 'echo done')).output).toBe('done');
  });

  it('types into bash only once its prompt is drawn, so the person sees each command line once', async () => {
    const { manager: m } = manager({ rcFiles: { '.bashrc': "PS1='$(sleep 0.3)$ '\n" } });
    const session = await m.open({ creator: agent });
    await run(session, 'echo one');
    await run(session, 'echo two');
    const screen = await session.read({ clientId: 'test', format: 'plain', view: 'screen' });
    expect((screen.content as string).split('\n').filter((line) => line.includes('echo two'))).toEqual(['$ echo two']);
  });

  it('stops waiting for a prompt that lost its marks, with one warning, and goes on', async () => {
    const warnings: string[] = [];
    const { manager: m } = manager({ shell: shellPath('sh'), onWarning: (message) => warnings.push(message) });
    const session = await m.open({ creator: agent });
    await run(session, "PS1='plain> '");
    for (const word of ['one', 'two', 'three']) expect((await run(session, `echo ${word}`)).output).toBe(word);
    expect(warnings).toEqual([expect.stringContaining('no prompt mark')]);
  });

  it('survives a nested interactive bash and sees the outer command end', async () => {
    const session = await manager().manager.open({ creator: agent });
    const started = await run(session, 'bash --norc --noprofile', 500);
    expect(started.status).toBe('running');
    await session.send({ clientId: 'test', text: 'echo inner-$((40+2))\rexit\r' });
    await whenState(session, 'idle');
    const after = await run(session, 'echo outer-ok');
    expect(after.output).toBe('outer-ok');
    expect(after.command_seq).toBe(started.command_seq + 1);
  });
});

describe('queueing and busy sessions', () => {
  it('runs concurrent calls on one session in order', async () => {
    const { manager: m, home } = manager();
    const session = await m.open({ creator: agent, cwd: home });
    const [first, second] = await Promise.all([run(session, 'sleep 0.3; echo first >> order.txt'), run(session, 'echo second >> order.txt')]);
    expect(first.status).toBe('completed');
    expect(second.status).toBe('completed');
    expect(fs.readFileSync(path.join(home, 'order.txt'), 'utf8')).toBe('first\nsecond\n');
  });

  it('says SESSION_BUSY, naming the command, while an earlier command still runs', async () => {
    const session = await manager().manager.open({ creator: agent });
    const started = await run(session, 'sleep 1', 200);
    expect(started.status).toBe('running');
    await expect(run(session, 'echo nope')).rejects.toMatchObject({ code: 'SESSION_BUSY', message: expect.stringContaining('sleep 1') });
    await whenState(session, 'idle');
    expect((await run(session, 'echo free')).output).toBe('free');
  });
});

describe('session manager', () => {
  it('refuses sessions past the limit with LIMIT_REACHED naming the setting', async () => {
    const { manager: m } = manager({ settings: { maxSessions: 2 } });
    await Promise.all([m.open({ creator: agent }), m.open({ creator: agent })]);
    await expect(m.open({ creator: agent })).rejects.toMatchObject({ code: 'LIMIT_REACHED', message: expect.stringContaining('maxSessions') });
    expect(m.list()).toHaveLength(2);
  });

  it('gives agent sessions pagers that never wait and no secrets, and never the nonce', async () => {
    const { manager: m } = manager({ env: { MY_TOKEN: 'tok-123', APP_SECRET_VALUE: 'secret-value-9q7', PLAIN: 'visible' } });
    const agentSession = await m.open({ creator: agent });
    const env = (await run(agentSession, 'env | sort')).output;
    expect(env).toContain('PAGER=cat');
    expect(env).toContain('GIT_PAGER=cat');
    expect(env).toContain('PLAIN=visible');
    expect(env).not.toContain('tok-123');
    // A value no session id can contain by chance (an id like f4pds3 once held the old 's3').
    expect(env).not.toContain('secret-value-9q7');
    expect(env).not.toContain('SWITCHBOARD_NONCE');
    const userSession = await m.open({ creator: { kind: 'user' } });
    userSession.handBack(); // the person hands their session to agents
    expect((await run(userSession, 'echo $MY_TOKEN')).output).toBe('tok-123');
  });

  it('refuses a cwd that does not exist and an agent LD_PRELOAD, spawning nothing', async () => {
    const { manager: m } = manager();
    await expect(m.open({ creator: agent, cwd: '/does/not/exist' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(m.open({ creator: agent, env: { LD_PRELOAD: '/tmp/x.so' } })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(m.list(true)).toHaveLength(0);
  });

  it('releases every process and file descriptor on dispose', async () => {
    const fdsBefore = openFdCount();
    const { manager: m } = manager();
    const sessions = await Promise.all([m.open({ creator: agent }), m.open({ creator: agent }), m.open({ creator: agent })]);
    await Promise.all(sessions.map((s) => run(s, 'sleep 1000 &')));
    const pids = sessions.map((s) => s.pid);
    expect(pids.map(processExists)).toEqual([true, true, true]); // the probe sees them while they live
    expect(openFdCount()).toBeGreaterThan(fdsBefore); // …and the count sees the terminals
    await m.dispose();
    expect(pids.map(processExists)).toEqual([false, false, false]); // not even a zombie
    expect(openFdCount()).toBeLessThanOrEqual(fdsBefore);
  });

  it('lets go of each finished call: nothing of it stays alive until the session ends', async () => {
    // A wait chained onto the session-long exit promise kept its timer, closure and the caller's
    // AbortSignal for the session's whole life (~3 KB per execute in a long-lived hub).
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const session = await manager().manager.open({ creator: agent });
    const signals: WeakRef<AbortSignal>[] = [];
    for (let i = 0; i < 20; i++) {
      const controller = new AbortController();
      signals.push(new WeakRef(controller.signal));
      await session.execute({ command: 'true', timeoutMs: 10_000, maxLines: 10, signal: controller.signal });
      await session.read({ clientId: 'test', view: 'screen', format: 'plain', wait: { exit: true, timeout_ms: 10_000 }, signal: controller.signal });
    }
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    expect(signals.filter((ref) => ref.deref() !== undefined).length).toBeLessThanOrEqual(1);
  });

  it('writes the raw transcript and a command log under the state dir', async () => {
    const { manager: m, stateDir } = manager();
    const session = await m.open({ creator: agent });
    await run(session, 'echo transcript-check');
    await session.close();
    const dir = path.join(stateDir, 'sessions', session.id);
    expect(fs.readFileSync(path.join(dir, 'output.log'), 'utf8')).toContain('transcript-check');
    const commands = fs
      .readFileSync(path.join(dir, 'commands.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { command: string; exit_code: number });
    expect(commands.at(-1)).toMatchObject({ command: 'echo transcript-check', exit_code: 0 });
  });
});

// Keys and resizes go to the terminal in the order they were made.
describe('the PTY', () => {
  it('runs commands exactly, and a command typed right after a resize sees the new size', async () => {
    const session = await manager().manager.open({ creator: agent });
    expect(await run(session, 'echo one; (exit 4)')).toMatchObject({ output: 'one', exit_code: 4 });
    session.resize(101, 37);
    expect((await run(session, 'stty size')).output).toBe('37 101');
    session.resize(90, 20);
    expect((await run(session, 'stty size; tput cols')).output).toBe('20 90\n90');
  });

  it('keeps every byte of a flood and ends the command at its own D mark', async () => {
    const session = await manager().manager.open({ creator: agent });
    const result = await run(session, 'seq 1 300000; echo done', 30_000, 10);
    expect(result).toMatchObject({ status: 'completed', exit_code: 0, total_lines: 300_001 });
    expect(result.output.split('\n').slice(-2)).toEqual(['300000', 'done']);
    expect((await run(session, 'echo after')).output).toBe('after');
  });
});

describe('opening programs', () => {
  /** The error `open` refuses `program` with, or 'opened' (a session would not print usefully). */
  const refusal = (m: SessionManager, program: string): Promise<{ code: string; message: string } | 'opened'> =>
    m.open({ creator: agent, program }).then(
      async (session) => {
        await session.close();
        return 'opened' as const;
      },
      (error: SwitchboardError) => ({ code: error.code, message: error.message }),
    );

  it('refuses a program that does not exist with SPAWN_FAILED, opening nothing', async () => {
    const { manager: m } = manager();
    expect(await refusal(m, 'no-such-program-xyz')).toMatchObject({ code: 'SPAWN_FAILED', message: expect.stringContaining('no-such-program-xyz') });
    expect(await refusal(m, '/no/such/program')).toMatchObject({ code: 'SPAWN_FAILED' });
    expect(m.list(true)).toHaveLength(0);
  });

  it('refuses a script whose interpreter is missing, naming it; a script whose interpreter exists runs', async () => {
    const { manager: m, home } = manager();
    const script = (name: string, text: string): string => {
      const file = path.join(home, name);
      fs.writeFileSync(file, text, { mode: 0o755 });
      return file;
    };
    const missing = script('missing.sh', '#!/no/such/interpreter -x\necho never\n');
    expect(await refusal(m, missing)).toMatchObject({
      code: 'SPAWN_FAILED',
      message: expect.stringContaining('is a script for /no/such/interpreter, which was not found'),
    });
    const viaEnv = script('via-env.sh', '#!/usr/bin/env no-such-interpreter-xyz\necho never\n');
    expect(await refusal(m, viaEnv)).toMatchObject({
      code: 'SPAWN_FAILED',
      message: expect.stringContaining('no-such-interpreter-xyz (through /usr/bin/env)'),
    });
    expect(m.list(true)).toHaveLength(0);

    const fine = await m.open({ creator: agent, program: script('fine.sh', '#!/usr/bin/env sh\necho ran-fine\nexit 4\n') });
    const result = await fine.read({ clientId: 'test', view: 'screen', format: 'plain', wait: { exit: true, timeout_ms: 10_000 } });
    expect(result.state).toBe('exited');
    expect(result.exit_code).toBe(4);
    expect(result.content).toContain('ran-fine');
  });
});
