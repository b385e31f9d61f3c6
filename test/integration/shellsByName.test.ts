/**
 * "A shell is a shell however it is opened" (docs/design.md §2.5): `open` with
 * `program` bash, zsh, fish, sh or dash — by name or by path, with -l or -i — gets the same shell
 * integration as the configured shell, so `execute` returns exact output and exit codes. Any
 * other argument (`-c`, a script, `--norc`) leaves a program that is typed into with `send`.
 * Real shells in real PTYs.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionManager } from '../../src/core/session/sessionManager.js';
import type { TerminalSession } from '../../src/core/session/terminalSession.js';
import { agent, managersPerTest } from './helpers/core.js';
import { shellPath } from './helpers/shells.js';

const { manager } = managersPerTest();

function run(session: TerminalSession, command: string): ReturnType<TerminalSession['execute']> {
  return session.execute({ command, timeoutMs: 10_000, maxLines: 200 });
}

/**
 * A manager (configured shell: bash) whose HOME's login files set SB_LOGIN=yes, so a command
 * can tell whether its shell started as a login shell; nothing else sets it.
 */
function managerWithLoginMarker(): { manager: SessionManager; home: string } {
  const created = manager();
  const { home } = created;
  const loginLine = 'SB_LOGIN=yes; export SB_LOGIN\n';
  fs.writeFileSync(path.join(home, '.profile'), loginLine); // bash, sh and dash as login shells
  fs.writeFileSync(path.join(home, '.zprofile'), loginLine);
  fs.mkdirSync(path.join(home, '.config', 'fish'), { recursive: true });
  fs.writeFileSync(path.join(home, '.config', 'fish', 'config.fish'), 'if status is-login; set -gx SB_LOGIN yes; end\n');
  // Keeps fish's first-start update of completions from writing into HOME after the test.
  fs.writeFileSync(path.join(home, '.config', 'fish', 'fish_variables'), 'SETUVAR __fish_initialized:3400\n');
  return { manager: created.manager, home };
}

const SHELLS = ['bash', 'zsh', 'fish', 'sh', 'dash'] as const;
const HOOKED = new Set(['bash', 'zsh', 'fish']);

/** How each shell is opened: by name or by its path (found on PATH), with the login and interactive flags. */
const OPENINGS = [
  { how: 'by name', byPath: false, args: [], login: false },
  { how: 'by name with -l', byPath: false, args: ['-l'], login: true },
  { how: 'by path with -i', byPath: true, args: ['-i'], login: false },
  { how: 'by path with --login --interactive', byPath: true, args: ['--login', '--interactive'], login: true },
];

describe.each(SHELLS)('%s opened as a program', (shell) => {
  it.each(OPENINGS)('$how: execute returns exact output and exit codes', async ({ byPath, args, login }) => {
    const { manager: m } = managerWithLoginMarker();
    const program = byPath ? shellPath(shell) : shell;
    const session = await m.open({ creator: agent, program, args });

    // Reported like a shell session: at its prompt, the shell that runs named by its path.
    const opened = m.list().find((s) => s.id === session.id)!;
    expect(opened).toMatchObject({ state: 'idle', command: null, last_exit_code: null });
    expect(path.isAbsolute(opened.program)).toBe(true);
    expect(fs.realpathSync(opened.program)).toBe(fs.realpathSync(shellPath(shell)));

    const printed = await run(session, "printf 'a\\nb'");
    expect(printed).toMatchObject({ status: 'completed', output: 'a\nb', exit_code: 0, total_lines: 2 });
    expect(printed.detection).toBe(HOOKED.has(shell) ? 'shell_integration' : 'command_wrapper');

    const failed = await run(session, 'false');
    expect(failed).toMatchObject({ status: 'completed', output: '', exit_code: 1, command_seq: printed.command_seq + 1 });
    expect(await run(session, "echo hi; sh -c 'exit 3'")).toMatchObject({ status: 'completed', output: 'hi', exit_code: 3 });

    // The login flag made it a login shell (its profile ran); without it, it is not one.
    expect((await run(session, 'echo "login=$SB_LOGIN"')).output).toBe(login ? 'login=yes' : 'login=');
    expect(m.list().find((s) => s.id === session.id)).toMatchObject({ state: 'idle', last_exit_code: 0 });
  });
});

describe('a shell opened with other arguments stays a program', () => {
  it('bash -c runs its command: execute is refused naming -c, send drives it', async () => {
    const { manager: m } = manager();
    const session = await m.open({ creator: agent, program: 'bash', args: ['-c', 'read line; echo "got $line"; exit 4'] });
    expect(session.info()).toMatchObject({ state: 'running', program: 'bash' });
    await expect(run(session, 'echo nope')).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/runs bash, not as a shell: it was opened with "-c" .*use send/),
    });
    const answered = await session.send({ clientId: 'test', text: 'hello', keys: ['enter'], wait: { exit: true, timeout_ms: 10_000 } });
    expect(answered).toMatchObject({ state: 'exited', exit_code: 4 });
    expect(answered.output).toContain('got hello');
  });

  it('sh with a script and bash --norc are programs too', async () => {
    const { manager: m, home } = manager();
    const script = path.join(home, 'wait.sh');
    fs.writeFileSync(script, 'read line\n');
    const scripted = await m.open({ creator: agent, program: '/usr/bin/sh', args: [script] });
    await expect(run(scripted, 'echo nope')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining(JSON.stringify(script)) });
    const norc = await m.open({ creator: agent, program: 'bash', args: ['--norc'] });
    expect(norc.info().state).toBe('running');
    await expect(run(norc, 'echo nope')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('"--norc"') });
  });
});

describe('execute without session', () => {
  it('picks the configured shell, never a shell an agent opened by name', async () => {
    const { manager: m } = manager();
    const zsh = await m.open({ creator: agent, program: 'zsh' });
    expect(zsh.state).toBe('idle');
    expect(m.findIdleShell(agent.client, undefined)).toBeUndefined();
    const configured = await m.open({ creator: agent });
    expect(m.findIdleShell(agent.client, undefined)?.id).toBe(configured.id);
  });
});
