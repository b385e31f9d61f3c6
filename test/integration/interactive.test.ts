import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TerminalSession } from '../../src/core/session/terminalSession.js';
import type { ReadRequest } from '../../src/core/types.js';
import { SessionManager as Manager } from '../../src/core/session/sessionManager.js';
import { agent, managersPerTest, testSettings } from './helpers/core.js';
import { within } from './helpers/within.js';

const { manager, track } = managersPerTest();

function read(session: TerminalSession, request: Partial<ReadRequest> & Pick<ReadRequest, 'view'>): ReturnType<TerminalSession['read']> {
  return session.read({ clientId: 'test', format: 'plain', ...request });
}

describe('interactive programs', () => {
  it('drives a python3 REPL with send and a pattern wait', async () => {
    const repl = await manager().manager.open({ creator: agent, program: 'python3', args: ['-q'] });
    await read(repl, { view: 'screen', wait: { pattern: '>>> ', timeout_ms: 10_000 } });
    const result = await repl.send({ clientId: 'test', text: '6*7', keys: ['enter'], wait: { pattern: '^42$', timeout_ms: 5_000 } });
    expect(result.waited).toBe('pattern');
    expect(result.output).toContain('42');
  });

  it('keeps typed input whole and in order while the program does not read: 200 KB, then Ctrl-D', async () => {
    const { manager: m, home } = manager();
    const out = path.join(home, 'typed.txt');
    // The terminal takes a few KB of input while \`sleep\` runs; the rest waits (EAGAIN) in node-pty's write queue.
    const session = await m.open({ creator: agent, program: 'sh', args: ['-c', `sleep 0.5; exec cat > ${out}`], cwd: home });
    const lines = Array.from({ length: 2_000 }, (_, i) => `${String(i).padStart(5, '0')} ${'x'.repeat(94)}`);
    await session.send({ clientId: 'test', text: `${lines.join('\n')}\n`, paste: false, wait: { idle_ms: 50, timeout_ms: 200 } });
    await session.send({ clientId: 'test', keys: ['ctrl+d'], wait: { idle_ms: 50, timeout_ms: 200 } });
    const end = await read(session, { view: 'screen', wait: { exit: true, timeout_ms: 30_000 } });
    expect(end.state).toBe('exited');
    expect(end.exit_code).toBe(0);
    const typed = fs.readFileSync(out, 'utf8').split('\n');
    expect(typed.length).toBe(lines.length + 1);
    expect(typed.slice(0, -1)).toEqual(lines);
  });

  it('edits a file in vim: screen with cursor, insert, :wq, exit code 0', async () => {
    const { manager: m, home } = manager();
    const file = path.join(home, 'notes.txt');
    fs.writeFileSync(file, 'first line\n');
    const vim = await m.open({ creator: agent, program: 'vim', args: ['-N', '-u', 'NONE', file], cwd: home });
    const screen = await read(vim, { view: 'screen', wait: { pattern: 'first line', timeout_ms: 10_000 } });
    expect(screen.content).toContain('first line');
    expect(screen.cursor).toEqual({ row: 0, col: 0 });
    await vim.send({ clientId: 'test', keys: ['shift+g', 'o'], wait: { pattern: '-- INSERT --' } });
    await vim.send({ clientId: 'test', text: 'added by agent', wait: { pattern: 'added by agent' } });
    // Escape alone: followed at once by more keys, a program can't tell it from Alt+key.
    const normal = await vim.send({ clientId: 'test', keys: ['escape'], wait: { idle_ms: 200 } });
    expect(normal.screen).not.toContain('-- INSERT --');
    const exited = await vim.send({ clientId: 'test', text: ':wq', keys: ['enter'], wait: { exit: true, timeout_ms: 5_000 } });
    expect(exited.waited).toBe('exit');
    expect(exited.state).toBe('exited');
    expect(exited.exit_code).toBe(0);
    expect(fs.readFileSync(file, 'utf8')).toBe('first line\nadded by agent\n');
  });

  it('never loses the last line of a program that prints and exits (50 runs)', async () => {
    const { manager: m } = manager();
    for (let run = 0; run < 50; run++) {
      const session = await m.open({ creator: agent, program: 'seq', args: ['1', '100000'] });
      const result = await read(session, { view: 'history', limit: 1, wait: { exit: true, timeout_ms: 10_000 } });
      expect(result.state).toBe('exited');
      expect(result.content).toBe('100000');
    }
  });
});

describe('awaiting input', () => {
  it('returns awaiting_input for a read, then send answers it', async () => {
    const session = await manager().manager.open({ creator: agent });
    // Waiting out the timeout would answer `running`: `awaiting_input` is the detection itself
    // (the read seen blocked on the terminal after the quiet spell), not the clock.
    const result = await session.execute({ command: 'read -r x; echo "got:$x"', timeoutMs: 10_000, maxLines: 50 });
    expect(result.status).toBe('awaiting_input');
    expect(result.secret).toBe(false);
    const answered = await session.send({ clientId: 'test', text: 'abc', keys: ['enter'], wait: { exit: true } });
    expect(answered.output).toContain('got:abc');
    expect(answered.state).toBe('idle');
  });

  it('probes a quiet command once per quiet spell, not back to back, and still sees a read that comes later', async () => {
    const session = await manager().manager.open({ creator: agent });
    let probes = 0;
    session.onDidProbeInput(() => probes++);
    // Quiet for 2.5 s (quietMs is 500 here), then a read: about five probes find nothing first.
    const result = await session.execute({ command: 'sleep 2.5; read -r x; echo "got:$x"', timeoutMs: 10_000, maxLines: 50 });
    expect(result.status).toBe('awaiting_input');
    // Back to back, a probe every few hundred microseconds, it was thousands.
    expect(probes).toBeGreaterThan(1);
    expect(probes).toBeLessThan(20);
    const answered = await session.send({ clientId: 'test', text: 'late', keys: ['enter'], wait: { exit: true } });
    expect(answered.output).toContain('got:late');
  });

  it('marks an echo-off prompt secret and refuses agent keystrokes with SECRET_PROMPT', async () => {
    const session = await manager().manager.open({ creator: agent });
    const result = await session.execute({ command: "python3 -c 'import getpass; getpass.getpass()'", timeoutMs: 10_000, maxLines: 50 });
    expect(result.status).toBe('awaiting_input');
    expect(result.secret).toBe(true);
    await expect(session.send({ clientId: 'test', text: 'hunter2', keys: ['enter'] })).rejects.toMatchObject({ code: 'SECRET_PROMPT' });
    expect((await read(session, { view: 'screen' })).state).toBe('awaiting_input');
  });

  it('kill stops a command that runs in the shell itself (a builtin read, a busy loop) with Ctrl-C, and the shell lives on', async () => {
    const session = await manager().manager.open({ creator: agent });
    const prompt = await session.execute({ command: 'read -s -p "Password: " pw', timeoutMs: 10_000, maxLines: 50 });
    expect(prompt).toMatchObject({ status: 'awaiting_input', secret: true });
    expect(await session.kill()).toEqual({ ended_by: 'SIGINT', state: 'idle' });

    const loop = await session.execute({ command: 'while :; do :; done', timeoutMs: 300, maxLines: 50 });
    expect(loop.status).toBe('running');
    expect(await session.kill('SIGKILL')).toEqual({ ended_by: 'SIGINT', state: 'idle' });

    const after = await session.execute({ command: 'echo still here', timeoutMs: 10_000, maxLines: 50 });
    expect(after).toMatchObject({ status: 'completed', exit_code: 0, output: 'still here' });
  });

  it('a program ended by a signal reports 128 + the signal, as $? does, never 0', async () => {
    const session = await manager().manager.open({ creator: agent, program: 'sleep', args: ['300'] });
    const exited = new Promise<number | null>((resolve) => session.onDidExit(resolve));
    await session.kill('SIGKILL');
    expect(await within(exited, 10_000, 'sleep to exit after SIGKILL')).toBe(137);
    expect(session.info()).toMatchObject({ state: 'exited', exit_code: 137 });
  });
});

describe('read views', () => {
  it('returns each line of new output once per client', async () => {
    const session = await manager().manager.open({ creator: agent });
    await session.execute({ command: 'echo alpha-1', timeoutMs: 5_000, maxLines: 10 });
    const first = await session.read({ clientId: 'a', view: 'new', format: 'plain' });
    expect(first.content).toContain('alpha-1');
    await session.execute({ command: 'echo beta-2', timeoutMs: 5_000, maxLines: 10 });
    const second = await session.read({ clientId: 'a', view: 'new', format: 'plain' });
    expect(second.content).toContain('beta-2');
    expect(second.content).not.toContain('alpha-1');
    const other = await session.read({ clientId: 'b', view: 'new', format: 'plain' });
    expect(other.content).toContain('alpha-1');
    expect(other.content).toContain('beta-2');
    const raw = await session.read({ clientId: 'c', view: 'new', format: 'ansi' });
    expect(raw.content).toContain('\x1b]133;'); // ansi is the stream as the terminal received it
  });

  it('pages history back from the end', async () => {
    const session = await manager().manager.open({ creator: agent });
    await session.execute({ command: 'seq 1 300', timeoutMs: 5_000, maxLines: 10 });
    const all = await read(session, { view: 'history', limit: 100_000, wait: { idle_ms: 200 } }); // the prompt is drawn
    const lines = (all.content as string).split('\n');
    const last = lines.lastIndexOf('300');
    const offset = lines.length - 1 - last; // lines after `300`: the new prompt
    const page = await read(session, { view: 'history', offset, limit: 5 });
    expect((page.content as string).split('\n')).toEqual(['296', '297', '298', '299', '300']);
    expect(page.truncated).toBe(true);
    const back = await read(session, { view: 'history', offset: offset + 5, limit: 5 });
    expect((back.content as string).split('\n')).toEqual(['291', '292', '293', '294', '295']);
  });

  it('pages a 200 000-line command output fully, beyond the scrollback', async () => {
    const session = await manager({ settings: { scrollback: 1_000 } }).manager.open({ creator: agent });
    const result = await session.execute({ command: 'seq 1 200000', timeoutMs: 30_000, maxLines: 20 });
    expect(result.total_lines).toBe(200000);
    let seen = 0;
    for (let offset = 0; offset < 200000; offset += 50000) {
      const page = await read(session, { view: 'command', seq: result.command_seq, offset, limit: 50000 });
      const lines = (page.content as string).split('\n');
      expect(lines[0]).toBe(String(offset + 1));
      expect(lines.at(-1)).toBe(String(offset + 50000));
      expect(page.total_lines).toBe(200000);
      seen += lines.length;
    }
    expect(seen).toBe(200000);
  });

  it('reads an earlier command by seq from the transcript', async () => {
    const session = await manager().manager.open({ creator: agent });
    const first = await session.execute({ command: 'printf "one\\ntwo\\nthree"', timeoutMs: 5_000, maxLines: 10 });
    await session.execute({ command: 'echo later', timeoutMs: 5_000, maxLines: 10 });
    const page = await read(session, { view: 'command', seq: first.command_seq, offset: 1, limit: 5 });
    expect(page.content).toBe('two\nthree');
    expect(page.total_lines).toBe(3);
  });

  it('rejects an invalid regex and cuts off a catastrophic one', async () => {
    const session = await manager().manager.open({ creator: agent });
    await expect(read(session, { view: 'screen', wait: { pattern: '(unclosed' } })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await session.execute({ command: 'python3 -c "print(\'a\' * 30000)"', timeoutMs: 5_000, maxLines: 10 });
    // The wait's own timeout would answer `waited: timeout`, not reject: the rejection naming
    // catastrophic backtracking is the matcher's time budget cutting the pattern off.
    await expect(read(session, { view: 'screen', wait: { pattern: '(a+)+c', timeout_ms: 5_000 } })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('catastrophic backtracking'),
    });
  });
});

describe('closed sessions', () => {
  it('stay readable from their transcript after the hub restarts', async () => {
    const { manager: m, stateDir, home } = manager();
    const session = await m.open({ creator: agent });
    const first = await session.execute({ command: 'seq 1 3000', timeoutMs: 10_000, maxLines: 10 });
    await session.execute({ command: 'echo last-words', timeoutMs: 5_000, maxLines: 10 });
    await session.close();
    await m.dispose();

    const restarted = new Manager({ settings: testSettings(), stateDir, baseEnv: { PATH: process.env.PATH, HOME: home }, onWarning: () => {} });
    track(restarted);
    expect(restarted.list(true).find((s) => s.id === session.id)?.state).toBe('exited');
    const page = await restarted.read(session.id, { clientId: 'x', view: 'command', format: 'plain', seq: first.command_seq, offset: 2990, limit: 20 });
    expect((page.content as string).split('\n')).toEqual(['2991', '2992', '2993', '2994', '2995', '2996', '2997', '2998', '2999', '3000']);
    expect(page.total_lines).toBe(3000);
    const history = await restarted.read(session.id, { clientId: 'x', view: 'history', format: 'plain', limit: 50 });
    expect(history.content).toContain('last-words');
    expect(history.state).toBe('exited');
  });
});
