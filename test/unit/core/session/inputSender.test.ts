/**
 * `send`'s sender (src/core/session/inputSender.ts, docs/design.md §3.2) on a real headless
 * emulator, on fake timers: text and keys typed as one write, keys in the cursor mode the
 * program set, bracketed paste only where the program turned it on (and never escaped from
 * inside), SECRET_PROMPT at an echo-off prompt (§2.6), and a result that shows only what appeared
 * after typing, with the session's status.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { Emulator, loadEmulator } from '../../../../src/core/emulation/emulator.js';
import { EventEmitter } from '../../../../src/core/event.js';
import { InputSender } from '../../../../src/core/session/inputSender.js';
import type { SessionStatus } from '../../../../src/core/session/sessionReader.js';
import type { SendRequest } from '../../../../src/core/types.js';

beforeAll(async () => {
  await loadEmulator();
});
beforeEach(() => {
  vi.useFakeTimers();
});
const disposables: { dispose(): void }[] = [];
afterEach(() => {
  for (const item of disposables.splice(0)) item.dispose();
  vi.useRealTimers();
});

interface Setup {
  sender: InputSender;
  typed: string[];
  /** Output from the program, parsed on return. */
  output(text: string): Promise<void>;
  session: { status: SessionStatus; secretPrompt: boolean };
}

function setup(allowSecretInput = false): Setup {
  const emulator = new Emulator({ cols: 40, rows: 6, scrollback: 100, nonce: 'n0nce', headLines: 50 });
  const exit = new EventEmitter<void>();
  const awaitInput = new EventEmitter<void>();
  disposables.push(emulator, exit, awaitInput);
  let bytes = 0;
  let lastOutputAt = Date.now();
  const typed: string[] = [];
  const session = { status: { state: 'running', exit_code: null } as SessionStatus, secretPrompt: false };
  const sender = new InputSender({
    id: 'k3f9q2',
    allowSecretInput,
    emulator,
    assertWritable: () => {},
    atSecretPrompt: () => session.secretPrompt,
    type: (data) => typed.push(typeof data === 'string' ? data : Buffer.from(data).toString('latin1')),
    resize: (size, client) => typed.push(`<resize ${size.cols}x${size.rows} by ${client}>`),
    waitSources: (since) => ({
      watchExit: () => ({ promise: new Promise(() => {}), dispose: () => {} }),
      onDidFinishCommand: emulator.tracker.onDidFinishCommand,
      onDidParse: emulator.onDidParse,
      onDidAwaitInput: awaitInput.event,
      lastOutputAt: () => lastOutputAt,
      text: () => emulator.linesSince(since).lines.join('\n'),
      screen: () => emulator.screenLines().join('\n'),
      parsing: () => emulator.backlog > 0,
    }),
    status: () => session.status,
  });
  return {
    sender,
    typed,
    session,
    output: async (text) => {
      const chunk = Buffer.from(text);
      emulator.write(chunk, bytes, bytes + chunk.length);
      bytes += chunk.length;
      lastOutputAt = Date.now();
      await emulator.whenParsed();
    },
  };
}

/** Sends, lets the default settle (300 ms quiet) pass on the fake clock, and returns what was typed for it. */
async function typedFor(s: Setup, request: Omit<SendRequest, 'clientId'>): Promise<string[]> {
  const before = s.typed.length;
  const sending = s.sender.send({ clientId: 'a', ...request });
  await vi.advanceTimersByTimeAsync(300);
  await sending;
  return s.typed.slice(before);
}

describe('InputSender: what it types', () => {
  it('types text and keys as one write, keys in the cursor mode the program set', async () => {
    const s = setup();
    expect(await typedFor(s, { text: 'ls', keys: ['enter'] })).toEqual(['ls\r']);
    expect(await typedFor(s, { keys: ['up', 'ctrl+c'] })).toEqual(['\x1b[A\x03']);
    await s.output('\x1b[?1h'); // application cursor keys (vim, less)
    expect(await typedFor(s, { keys: ['up'] })).toEqual(['\x1bOA']);
    expect(await typedFor(s, { text: '' })).toEqual([]);
  });

  it('pastes multi-line text as a bracketed paste only where the program turned it on, and never lets the text end the paste', async () => {
    const s = setup();
    expect(await typedFor(s, { text: 'a\nb' })).toEqual(['a\nb']);
    await s.output('\x1b[?2004h');
    expect(await typedFor(s, { text: 'a\nb' })).toEqual(['\x1b[200~a\nb\x1b[201~']);
    expect(await typedFor(s, { text: 'one line' })).toEqual(['one line']);
    expect(await typedFor(s, { text: 'a\nb', paste: false })).toEqual(['a\nb']);
    expect(await typedFor(s, { text: 'x\x1b[201~; rm -rf ~\ny' })).toEqual(['\x1b[200~x; rm -rf ~\ny\x1b[201~']);
  });

  it('resizes before typing, named for the client that asked', async () => {
    const s = setup();
    expect(await typedFor(s, { resize: { rows: 30, cols: 100 }, clientName: 'host 1.0', text: 'stty size', keys: ['enter'] })).toEqual([
      '<resize 100x30 by host 1.0>',
      'stty size\r',
    ]);
    expect(await typedFor(s, { resize: { rows: 24, cols: 80 } })).toEqual(['<resize 80x24 by unknown client>']);
  });

  it('refuses agents at an echo-off prompt with SECRET_PROMPT, typing nothing, unless the setting allows it', async () => {
    const s = setup();
    s.session.secretPrompt = true;
    await expect(s.sender.send({ clientId: 'a', text: 'hunter2', keys: ['enter'] })).rejects.toMatchObject({
      code: 'SECRET_PROMPT',
      message: expect.stringContaining('Session k3f9q2 is at a password prompt'),
    });
    expect(s.typed).toEqual([]);

    const allowed = setup(true);
    allowed.session.secretPrompt = true;
    expect(await typedFor(allowed, { text: 'hunter2', keys: ['enter'] })).toEqual(['hunter2\r']);
  });
});

describe('InputSender: the mouse', () => {
  it('sends a mouse action after the text and keys, in the same write, in the modes output parsed before it set', async () => {
    const s = setup();
    await s.output('\x1b[?1000h\x1b[?1006h');
    expect(await typedFor(s, { text: 'ab', keys: ['enter'], mouse: { action: 'click', row: 2, col: 3 } })).toEqual(['ab\r\x1b[<0;3;2M\x1b[<0;3;2m']);
  });

  it('refuses a mouse action the program would not get, typing nothing of the call', async () => {
    const s = setup();
    await expect(s.sender.send({ clientId: 'a', text: 'ab', mouse: { action: 'click', row: 2, col: 3 } })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(s.typed).toEqual([]);
  });
});

describe('InputSender: what it says', () => {
  it('shows what appeared after typing (not what was there before), the screen, how the wait ended and the status', async () => {
    const s = setup();
    await s.output('old output\r\n>>> ');
    const sending = s.sender.send({ clientId: 'a', text: '1+1', keys: ['enter'], wait: { pattern: '^2$', timeout_ms: 5_000 } });
    await vi.advanceTimersByTimeAsync(10);
    s.session.status = { state: 'awaiting_input', exit_code: null, secret: false };
    await s.output('1+1\r\n2\r\n>>> ');
    await vi.advanceTimersByTimeAsync(100);
    const result = await sending;
    expect(result).toEqual({
      output: '1+1\n2\n>>>',
      screen: 'old output\n>>> 1+1\n2\n>>>',
      state: 'awaiting_input',
      exit_code: null,
      waited: 'pattern',
      secret: false,
    });
    expect(Object.keys(result)).toEqual(['output', 'screen', 'state', 'exit_code', 'waited', 'secret']);
  });

  it('settles by default once output has been quiet for 300 ms, and names no secret when no prompt waits', async () => {
    const s = setup();
    const sending = s.sender.send({ clientId: 'a', text: 'x' });
    await vi.advanceTimersByTimeAsync(299);
    let done = false;
    void sending.then(() => (done = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const result = await sending;
    expect(result.waited).toBe('idle');
    expect('secret' in result).toBe(false);
  });
});
