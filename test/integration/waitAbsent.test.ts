/**
 * `wait.absent` (docs/design.md §3.3) on real programs: a spinner that draws "Loading…" and
 * replaces it (python3 clearing the line, bash overwriting it after `\r`) ends a `read` or `send`
 * wait with `absent` and the text that replaced it; a screen without the text ends it at once; a
 * spinner that never stops is a `timeout`; a bad or runaway regex is INVALID_ARGUMENT.
 */
import { describe, expect, it } from 'vitest';
import type { TerminalSession } from '../../src/core/session/terminalSession.js';
import type { ReadRequest } from '../../src/core/types.js';
import { agent, managersPerTest } from './helpers/core.js';
import { within } from './helpers/within.js';

const { manager } = managersPerTest();

/**
 * Spins "Loading… |/-\" on one line until a key arrives (cbreak, no echo), then clears the line
 * and says what it loaded. It sleeps afterwards: neither an exit nor a read of the terminal may
 * end the wait before the spinner's absence does.
 */
const PYTHON_SPINNER = String.raw`
import select, sys, time, tty
fd = sys.stdin.fileno()
tty.setcbreak(fd)
print('Fetching packages')
i = 0
while not select.select([fd], [], [], 0.05)[0]:
    sys.stdout.write('\rLoading\u2026 ' + '|/-\\'[i % 4]); sys.stdout.flush(); i += 1
sys.stdin.read(1)
sys.stdout.write('\r\x1b[2KDone: 42 packages\n'); sys.stdout.flush()
time.sleep(600)
`;

/**
 * The same in bash, overwriting the spinner after a carriage return (no clear-line). It looks
 * for the key with `read -t 0` (no timer) between frames, in cbreak so a lone key counts: bash
 * 5.2's `read -rsn1 -t 0.05` hung, spinning outside any syscall, about once in 800 runs here when
 * the key came as its timeout ran out (seen in a full run; a node-pty loop without the hub shows it).
 */
const BASH_SPINNER =
  "stty -icanon -echo; s='|/-\\'; i=0; until read -t 0; do printf '\\rLoading... %s' \"${s:i++%4:1}\"; sleep 0.05; done; read -rsn1; printf '\\rReady, 42 items.\\n'; sleep 600";

function read(session: TerminalSession, request: Partial<ReadRequest>): ReturnType<TerminalSession['read']> {
  return session.read({ clientId: 'test', view: 'screen', format: 'plain', ...request });
}

async function spinner(program: 'python3' | 'bash'): Promise<TerminalSession> {
  const args = program === 'python3' ? ['-c', PYTHON_SPINNER] : ['-c', BASH_SPINNER];
  const session = await manager().manager.open({ creator: agent, program, args });
  const shown = await read(session, { wait: { pattern: 'Loading', timeout_ms: 10_000 } });
  expect(shown.waited).toBe('pattern');
  return session;
}

describe('wait.absent', () => {
  it('read: python3 clears its "Loading…" line → waited absent, the screen shows what replaced it', async () => {
    const session = await spinner('python3');
    const waiting = read(session, { wait: { absent: 'Loading', timeout_ms: 15_000 } });
    await session.send({ clientId: 'test', keys: ['q'], wait: { idle_ms: 50, timeout_ms: 200 } });
    const result = await waiting;
    expect(result.waited).toBe('absent');
    expect(result.content).toContain('Done: 42 packages');
    expect(result.content).not.toContain('Loading');
  });

  it('send: bash overwrites "Loading..." after \\r once a key is pressed → waited absent, with the new text', async () => {
    const session = await spinner('bash');
    const result = await session.send({ clientId: 'test', keys: ['q'], wait: { absent: 'Loading\\.\\.\\.', timeout_ms: 15_000 } });
    expect(result.waited).toBe('absent');
    expect(result.screen).toContain('Ready, 42 items.');
    expect(result.screen).not.toContain('Loading');
  });

  it('answers absent from its first look when the text is not on the screen, not at its timeout', async () => {
    const session = await manager().manager.open({ creator: agent });
    // Nothing runs and nothing is drawn: only the first check can answer before the 10-minute bound.
    const result = await within(read(session, { wait: { absent: 'Loading', timeout_ms: 600_000 } }), 10_000, 'an absent wait on a screen without the text');
    expect(result.waited).toBe('absent');
  });

  it('a spinner that never stops is a timeout, not an error, and is still on the screen', async () => {
    const session = await spinner('python3');
    const result = await read(session, { wait: { absent: 'Loading', timeout_ms: 800 } });
    expect(result.waited).toBe('timeout');
    expect(result.content).toContain('Loading');
  });

  it('a pattern and an absent pattern: whichever comes first (pattern shows first here)', async () => {
    const session = await spinner('python3');
    const result = await read(session, { wait: { absent: 'Loading', pattern: '[|/\\\\-]', timeout_ms: 10_000 } });
    expect(result.waited).toBe('pattern');
  });

  it('rejects an invalid regex and cuts off a catastrophic one, naming wait.absent', async () => {
    const session = await manager().manager.open({ creator: agent });
    await expect(read(session, { wait: { absent: '(unclosed' } })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/^wait\.absent: /),
    });
    await session.execute({ command: 'python3 -c "print(\'a\' * 30000)"', timeoutMs: 5_000, maxLines: 10 });
    await expect(read(session, { wait: { absent: '(a+)+c', timeout_ms: 5_000 } })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/^wait\.absent: .*catastrophic backtracking/),
    });
  });
});
