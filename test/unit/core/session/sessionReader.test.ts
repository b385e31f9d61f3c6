/**
 * `read` (src/core/session/sessionReader.ts, docs/design.md §3.2) on a real headless emulator fed
 * bytes as a PTY gives them: each client's own cursor for view `new` (plain and ansi share it; a
 * read arriving while another is still reading output.log starts where that one ended), the
 * limit, loss said rather than silent, errors that name the session, and reads that dispose
 * waits for. The views' paging from the transcript is the integration tests' part
 * (readCommand.test.ts, agentScrollback.test.ts).
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Emulator, loadEmulator } from '../../../../src/core/emulation/emulator.js';
import { EventEmitter } from '../../../../src/core/event.js';
import { CommandRecords } from '../../../../src/core/session/commandRecords.js';
import { SessionReader, type SessionStatus } from '../../../../src/core/session/sessionReader.js';
import { RecentOutput, type RecentText } from '../../../../src/core/transcript/recentOutput.js';
import type { ReadRequest } from '../../../../src/core/types.js';

beforeAll(async () => {
  await loadEmulator();
});

const disposables: { dispose(): void }[] = [];
afterEach(() => {
  for (const item of disposables.splice(0)) item.dispose();
});

interface Setup {
  reader: SessionReader;
  emulator: Emulator;
  /** Output from the program: to the emulator and the recent output, as OutputPipe hands it on; parsed on return. */
  output(text: string): Promise<void>;
  status: SessionStatus;
}

function setup(options: { rows?: number; scrollback?: number; recent?: Pick<RecentOutput, 'since' | 'end'> } = {}): Setup {
  const emulator = new Emulator({ cols: 40, rows: options.rows ?? 5, scrollback: options.scrollback ?? 100, nonce: 'n0nce', headLines: 50 });
  const exit = new EventEmitter<void>();
  const awaitInput = new EventEmitter<void>();
  disposables.push(emulator, exit, awaitInput);
  const recent = new RecentOutput(null);
  let bytes = 0;
  let lastOutputAt = Date.now();
  const setup: Setup = {
    emulator,
    status: { state: 'running', exit_code: null },
    reader: new SessionReader({
      id: 'k3f9q2',
      nonce: 'n0nce',
      emulator,
      transcript: null,
      recent: options.recent ?? recent,
      records: new CommandRecords(null),
      status: () => setup.status,
      ended: () => null,
      waitSources: () => ({
        watchExit: () => ({ promise: new Promise(() => {}), dispose: () => {} }),
        onDidFinishCommand: emulator.tracker.onDidFinishCommand,
        onDidParse: emulator.onDidParse,
        onDidAwaitInput: awaitInput.event,
        lastOutputAt: () => lastOutputAt,
        text: () => emulator.screenLines().join('\n'),
        screen: () => emulator.screenLines().join('\n'),
        parsing: () => emulator.backlog > 0,
      }),
    }),
    output: async (text) => {
      const chunk = Buffer.from(text);
      emulator.write(chunk, bytes, bytes + chunk.length);
      bytes += chunk.length;
      lastOutputAt = Date.now();
      recent.append(chunk);
      await emulator.whenParsed();
    },
  };
  return setup;
}

const readNew = (reader: SessionReader, clientId: string, extra: Partial<ReadRequest> = {}): ReturnType<SessionReader['read']> =>
  reader.read({ clientId, view: 'new', format: 'plain', ...extra });

describe('SessionReader: view new', () => {
  it("keeps each client's own cursor: a first read gets everything held, the next only what came since", async () => {
    const { reader, output } = setup();
    await output('one\r\ntwo\r\n');
    const first = await readNew(reader, 'claude#1');
    expect(first.content).toBe('one\ntwo');
    expect(first).toMatchObject({ state: 'running', exit_code: null, waited: null });
    await output('three\r\n');
    expect((await readNew(reader, 'claude#1')).content).toBe('three');
    expect((await readNew(reader, 'claude#1')).content).toBe('');
    // Another client (another connection of the same host, too) reads from its own start.
    expect((await readNew(reader, 'claude#2')).content).toBe('one\ntwo\nthree');
  });

  it('gives ansi reads the bytes since the last read as the PTY gave them, on the same cursor as plain reads', async () => {
    const { reader, output } = setup();
    await output('before\r\n');
    await readNew(reader, 'a');
    await output('\x1b[31mred\x1b[0m\r\n');
    const ansi = await readNew(reader, 'a', { format: 'ansi' });
    expect(ansi.content).toBe('\x1b[31mred\x1b[0m\r\n');
    expect(ansi.truncated).toBe(false);
    await output('plain\r\n');
    expect((await readNew(reader, 'a')).content).toBe('plain');
  });

  it('starts a read that comes in while another still reads output.log where that one ended, not where it began', async () => {
    const asked: number[] = [];
    let end = 100;
    const answers: ((text: RecentText) => void)[] = [];
    const answer = (text: string): void => answers.shift()!({ text, skipped: 0, notKept: null, end });
    const recent = {
      get end() {
        return end;
      },
      since: (from: number) => {
        asked.push(from);
        return new Promise<RecentText>((resolve) => answers.push(resolve));
      },
    };
    const { reader } = setup({ recent });
    const slow = readNew(reader, 'a', { format: 'ansi' });
    end = 160; // more output while output.log is read
    const next = readNew(reader, 'a', { format: 'ansi' });
    expect(asked).toEqual([0, 100]);
    answer('x');
    expect((await slow).content).toBe('x');
    answer('y');
    expect((await next).content).toBe('y');
    const last = readNew(reader, 'a', { format: 'ansi' });
    answer('');
    await last;
    expect(asked).toEqual([0, 100, 160]);
  });

  it('returns the last `limit` lines, saying how many there were', async () => {
    const { reader, output } = setup();
    await output(Array.from({ length: 10 }, (_, i) => `line ${i}\r\n`).join(''));
    const page = await readNew(reader, 'a', { limit: 3 });
    expect(page).toMatchObject({ content: 'line 7\nline 8\nline 9', lines: 3, total_lines: 10, truncated: true });
  });

  it('says so when what came since the last read no longer fits the scrollback, never silently', async () => {
    const { reader, output } = setup({ rows: 5, scrollback: 10 });
    await output('start\r\n');
    await readNew(reader, 'a');
    await output(Array.from({ length: 50 }, (_, i) => `line ${i}\r\n`).join(''));
    const read = await readNew(reader, 'a');
    expect(read.truncated).toBe(true);
    expect(
      (read.content as string).startsWith("[… earlier output since your last read is no longer held here; a command's whole output: read view=command]\n"),
    ).toBe(true);
    expect(read.content).toContain('line 49');
    expect(read.content).not.toContain('line 0\n');
  });
});

describe('SessionReader: other views, waits and errors', () => {
  it('reads the screen with its cursor and the session status of the moment', async () => {
    const setupped = setup();
    await setupped.output('Password: ');
    setupped.status = { state: 'awaiting_input', exit_code: null, secret: true };
    const screen = await setupped.reader.read({ clientId: 'a', view: 'screen', format: 'plain' });
    expect(screen).toMatchObject({ content: 'Password:', state: 'awaiting_input', secret: true, cursor: { row: 0, col: 10 }, truncated: false });
  });

  it('refuses view command before any command ran, naming the session', async () => {
    const { reader } = setup();
    await expect(reader.read({ clientId: 'a', view: 'command', format: 'plain' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('session k3f9q2 has run no command yet'),
    });
  });

  it('waits as asked, then reads; a read in progress is one dispose waits for', async () => {
    const { reader, output } = setup();
    const reading = reader.read({ clientId: 'a', view: 'new', format: 'plain', wait: { pattern: 'ready', timeout_ms: 10_000 } });
    let readsDone = false;
    void reader.whenReadsDone().then(() => (readsDone = true));
    await output('loading\r\n');
    expect(readsDone).toBe(false);
    await output('ready\r\n');
    const read = await reading;
    expect(read.waited).toBe('pattern');
    expect(read.content).toContain('ready');
    await reader.whenReadsDone();
    expect(readsDone).toBe(true);
  });
});
