/**
 * The hold on a session's terminal (src/core/session/terminalHold.ts, docs/design.md §2.3): the
 * slave side of a real PTY is held open from the start, and let go only once output has been
 * quiet for the quiet time *and* the program is gone *and* one poll phase brought no more
 * output — or at release, never while close is terminating. Typing stops before the slave closes.
 *
 * The terminal is a real PTY (the hold opens its slave); the session's output is a stand-in with
 * the two numbers the hold reads, on fake timers (nothing here waits on the clock).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { spawnPty, type HostedPty } from '../../../../src/core/pty/spawnPty.js';
import { TerminalHold, type HeldOutput } from '../../../../src/core/session/terminalHold.js';

let terminal: HostedPty;
let ttyPath: string;
/** A process that has exited and been reaped: "the program is gone". */
let gonePid: number;

beforeAll(() => {
  terminal = spawnPty('/bin/sh', ['-c', 'sleep 60'], {
    name: 'xterm-256color',
    cols: 80,
    rows: 24,
    cwd: '/',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  });
  if (!terminal.ptsName) throw new Error('this platform gives no slave path');
  ttyPath = terminal.ptsName;
  gonePid = spawnSync('true').pid!;
});
afterAll(() => {
  terminal.kill('SIGKILL');
});

const holds: TerminalHold[] = [];
afterEach(() => {
  vi.useRealTimers();
  for (const hold of holds.splice(0)) hold.release();
});

/** A hold on the real terminal; `events` records typing stopping, and whether the slave was still held then. */
function holdTerminal(options: { pid: number; output?: HeldOutput; path?: string | undefined }): {
  hold: TerminalHold;
  output: { lastOutputAt: number; byteCount: number };
  events: string[];
} {
  const events: string[] = [];
  const output = (options.output ?? { lastOutputAt: Date.now(), byteCount: 0 }) as { lastOutputAt: number; byteCount: number };
  const hold: TerminalHold = new TerminalHold({
    ttyPath: 'path' in options ? options.path : ttyPath,
    pid: options.pid,
    output,
    stopTyping: () => events.push(`stop typing (held: ${hold.held})`),
  });
  holds.push(hold);
  return { hold, output, events };
}

/** Fake clock for the hold's timers; the PTY beside it keeps its own real ones, and the event loop its poll phases. */
function fakeClock(): void {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
}

/** One turn of the real event loop: its poll phase, then the immediates. */
const pollPhase = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Our own descriptors open on the terminal's slave (Linux). */
function slaveDescriptors(): number {
  let count = 0;
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    try {
      if (fs.readlinkSync(`/proc/self/fd/${fd}`) === ttyPath) count++;
    } catch {
      // closed meanwhile (readdir's own descriptor)
    }
  }
  return count;
}

describe('TerminalHold', () => {
  it.runIf(process.platform === 'linux')('holds the real terminal slave open from the start, and closes it at release, typing stopped first', async () => {
    const before = slaveDescriptors();
    const { hold, events } = holdTerminal({ pid: terminal.pid });
    expect(hold.held).toBe(true);
    expect(slaveDescriptors()).toBe(before + 1);
    hold.release();
    expect(hold.held).toBe(false);
    expect(events).toEqual(['stop typing (held: true)']);
    await vi.waitFor(() => expect(slaveDescriptors()).toBe(before)); // fs.close is asynchronous
    hold.release();
    expect(events).toHaveLength(1); // once
  });

  it('does not let go while the program lives, however long output has been quiet', async () => {
    fakeClock();
    const { hold, events } = holdTerminal({ pid: terminal.pid });
    hold.noteOutput();
    await vi.advanceTimersByTimeAsync(10_000);
    await pollPhase();
    expect(hold.held).toBe(true);
    expect(events).toEqual([]);
  });

  it('lets go once output has been quiet for 25 ms and the program is gone, after one more poll phase', async () => {
    fakeClock();
    const { hold, events } = holdTerminal({ pid: gonePid });
    hold.noteOutput();
    await vi.advanceTimersByTimeAsync(24);
    await pollPhase();
    expect(hold.held).toBe(true);
    vi.advanceTimersByTime(1);
    expect(hold.held).toBe(true); // output already waiting is read first
    await pollPhase();
    expect(hold.held).toBe(false);
    expect(events).toEqual(['stop typing (held: true)']);
  });

  it('counts the quiet time from the last output, not from when the check was armed', async () => {
    fakeClock();
    const { hold, output } = holdTerminal({ pid: gonePid });
    hold.noteOutput(); // armed at 0
    await vi.advanceTimersByTimeAsync(20);
    output.lastOutputAt = Date.now(); // more output at 20; the armed check is not re-armed by it
    await vi.advanceTimersByTimeAsync(24);
    await pollPhase();
    expect(hold.held).toBe(true); // 44: only 24 ms quiet
    await vi.advanceTimersByTimeAsync(1);
    await pollPhase();
    expect(hold.held).toBe(false);
  });

  it('keeps holding when output came in the poll phase before letting go, and checks again at the next output', async () => {
    fakeClock();
    let bytes = 0;
    // Every look at the byte count finds more: output keeps arriving between the check and the release.
    const output = {
      lastOutputAt: Date.now(),
      get byteCount() {
        return bytes++;
      },
    };
    const { hold } = holdTerminal({ pid: gonePid, output });
    hold.noteOutput();
    await vi.advanceTimersByTimeAsync(1_000);
    await pollPhase();
    expect(hold.held).toBe(true);
    // Output stops: the next check, armed by the next output, lets go.
    Object.defineProperty(output, 'byteCount', { value: bytes });
    hold.noteOutput();
    await vi.advanceTimersByTimeAsync(25);
    await pollPhase();
    expect(hold.held).toBe(false);
  });

  it('never lets go while close terminates what is left, and does after', async () => {
    const { hold, events } = holdTerminal({ pid: gonePid });
    await hold.whileTerminating(async () => {
      hold.release();
      expect(hold.held).toBe(true);
    });
    expect(events).toEqual([]);
    await expect(
      hold.whileTerminating(async () => {
        throw new Error('kill failed');
      }),
    ).rejects.toThrow('kill failed');
    hold.release();
    expect(hold.held).toBe(false);
  });

  it('says the terminal may be open until the master closed and the slave was let go', () => {
    const { hold } = holdTerminal({ pid: gonePid });
    expect(hold.ttyOpen).toBe(true);
    hold.masterDidClose();
    expect(hold.ttyOpen).toBe(true); // our slave still holds it
    hold.release();
    expect(hold.ttyOpen).toBe(false);
  });

  it('holds nothing without a terminal path, or when the terminal cannot be opened, and stops no typing', () => {
    for (const path of [undefined, '/nonexistent/pts/99']) {
      const { hold, events } = holdTerminal({ pid: gonePid, path });
      expect(hold.held).toBe(false);
      expect(hold.ttyOpen).toBe(true);
      hold.release();
      expect(events).toEqual([]);
    }
  });
});
