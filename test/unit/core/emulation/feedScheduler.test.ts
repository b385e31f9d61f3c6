/**
 * The feed scheduler alone (src/core/emulation/feedScheduler.ts), on a bare xterm and a stub
 * tracker: when output reaches xterm. Whether a skip leaves the terminal as a full parse does
 * is fastForward.test.ts's; here, that a flood is batched (held until a batch gathers, or the
 * hold ends with nobody waiting), that a batch goes to xterm a slice per event-loop turn, that
 * a callback waiting for the parse runs between what was written before and after it,
 * that disposing releases whoever waits, and that a flood's screen is brought up to date on
 * the flood's clock.
 *
 * The flood signal reads the test's clock (`now`), which moves only when a test moves it: a
 * burst of writes is one instant, so a flood is a flood however fast this machine runs.
 */
import headless from '@xterm/headless';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FeedScheduler, type SkipTracker } from '../../../../src/core/emulation/feedScheduler.js';
import { FloodSignal } from '../../../../src/core/emulation/floodSignal.js';

const ROWS = 10;
const SCROLLBACK = 100;
/** What a skip keeps of a batch: a screen and a scrollback's worth of lines, and one. */
const KEPT_LINES = ROWS + SCROLLBACK + 1;
/** FeedScheduler's FLOOD_BATCH_BYTES, FLOOD_HOLD_MS and FEED_SLICE_BYTES. */
const BATCH_BYTES = 4 * 1024 * 1024;
const HOLD_MS = 100;
const SLICE_BYTES = 32 * 1024;

let now = 0;
const open: { dispose(): void }[] = [];
beforeEach(() => {
  now = 0;
});
afterEach(() => {
  vi.useRealTimers();
  for (const item of open.splice(0).reverse()) item.dispose();
});

interface Fixture {
  scheduler: FeedScheduler;
  terminal: headless.Terminal;
  /** The text handed to xterm, one entry per write (empty writes left out). */
  handed: string[];
  /** Writes `text` as the next output (its transcript range follows the last one's). */
  write(text: string | Buffer): void;
}

function fixture(options: { fastForward?: boolean; floodScreenRefreshMs?: number } = {}): Fixture {
  const terminal = new headless.Terminal({ cols: 40, rows: ROWS, scrollback: SCROLLBACK, allowProposedApi: true });
  const handed: string[] = [];
  const write = terminal.write.bind(terminal);
  vi.spyOn(terminal, 'write').mockImplementation((data, callback) => {
    if (data.length > 0) handed.push(typeof data === 'string' ? data : Buffer.from(data).toString());
    write(data, callback);
  });
  // No command runs: nothing to read from the parse, every line feed may be skipped.
  const tracker: SkipTracker = { headLinesMissing: 0, canSkipLineFeeds: true, skipLineFeeds: () => undefined };
  const flood = new FloodSignal(() => now);
  const scheduler = new FeedScheduler({
    terminal,
    tracker,
    flood,
    fastForward: options.fastForward ?? false,
    floodScreenRefreshMs: options.floodScreenRefreshMs,
  });
  open.push(terminal, flood, scheduler);
  let written = 0;
  return {
    scheduler,
    terminal,
    handed,
    write: (text) => {
      const bytes = typeof text === 'string' ? Buffer.from(text) : text;
      scheduler.write(bytes, written, (written += bytes.length));
    },
  };
}

/** `count` lines of `width` bytes each, CRLF included, numbered from `from`. */
const lines = (count: number, width: number, from = 0): string =>
  Array.from({ length: count }, (_, i) => `${String(from + i).padStart(width - 2, '.')}\r\n`).join('');

/** The last row of the screen with text on it. */
function lastRow(terminal: headless.Terminal): string {
  const buffer = terminal.buffer.active;
  for (let row = ROWS - 1; row >= 0; row--) {
    const text = buffer.getLine(buffer.baseY + row)?.translateToString(true) ?? '';
    if (text !== '') return text;
  }
  return '';
}

/** Starts a flood with one write (2 048 line feeds: a window's worth), parsed before the test goes on. */
async function startFlood(f: Fixture): Promise<void> {
  f.write(lines(2048, 16));
  await f.scheduler.whenParsed();
  f.handed.length = 0;
}

describe('FeedScheduler', () => {
  it('hands a batch to xterm a slice per event-loop turn, so the PTY is read between slices', async () => {
    const f = fixture();
    await startFlood(f);
    // Held during the flood: 24 chunks of 4 KiB, then someone waits for the parse.
    const chunks = Array.from({ length: 24 }, (_, i) => lines(128, 32, i * 128));
    for (const chunk of chunks) f.write(chunk);
    expect(f.handed).toEqual([]);
    const parsed = f.scheduler.whenParsed();
    // This turn: one slice, not the batch.
    expect(f.handed.join('').length).toBe(SLICE_BYTES);
    await parsed;
    expect(f.handed.join('')).toBe(chunks.join(''));
    expect(lastRow(f.terminal)).toBe(chunks[23]!.slice(-32, -2));
  });

  it('holds a flood until the hold ends, then parses it though nobody waits', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const f = fixture();
    f.write(lines(2048, 8)); // a flood from its first write (and less than a slice)
    f.write(lines(10, 16, 2048));
    expect(f.handed).toEqual([]);
    await vi.advanceTimersByTimeAsync(HOLD_MS - 1);
    expect(f.handed).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(f.handed).toEqual([lines(2048, 8), lines(10, 16, 2048)]);
    await vi.runAllTimersAsync(); // xterm's own (faked too): it parses what follows its first write on one
    expect(f.scheduler.backlog).toBe(0);
    expect(lastRow(f.terminal)).toBe(`${'.'.repeat(10)}2057`);
  });

  it("takes a flood's batch as soon as it is full, without waiting out the hold", () => {
    const f = fixture();
    const chunk = lines(2048, 32); // 64 KiB, a flood by its line feeds
    for (let i = 0; i < BATCH_BYTES / chunk.length - 1; i++) f.write(chunk);
    expect(f.handed).toEqual([]);
    f.write(chunk);
    // Taken in this turn: its first slice went to xterm.
    expect(f.handed).toEqual([chunk]);
  });

  it('runs a callback waiting for the parse after what was written before it, before what was written after, and goes on', async () => {
    const f = fixture();
    await startFlood(f);
    // More than a slice before the callback: xterm still parses it when more output comes.
    for (let i = 0; i < 24; i++) f.write(lines(128, 32, i * 128));
    let seen: string | undefined;
    f.scheduler.afterParsed(() => (seen = lastRow(f.terminal)));
    f.write(lines(100, 32, 3072));
    expect(seen).toBeUndefined(); // in xterm's parse callback, not in this turn
    // The callback ends its batch, alone in the last slice: the output written after it is
    // still parsed, with no more output to set it going.
    await f.scheduler.whenParsed();
    expect(seen).toBe(`${'.'.repeat(26)}3071`);
    expect(lastRow(f.terminal)).toBe(`${'.'.repeat(26)}3171`);
  });

  it('on dispose, runs the callbacks and resolves the waits still pending, and takes no more output', async () => {
    const f = fixture();
    await startFlood(f);
    // More than a slice: the callback still waits its turn when the scheduler is disposed.
    for (let i = 0; i < 24; i++) f.write(lines(128, 32, i * 128));
    let ran = false;
    f.scheduler.afterParsed(() => (ran = true));
    const parsed = f.scheduler.whenParsed();
    expect(ran).toBe(false);
    f.scheduler.dispose();
    expect(ran).toBe(true);
    await parsed;
    const backlog = f.scheduler.backlog;
    f.write(lines(10, 16));
    expect(f.scheduler.backlog).toBe(backlog);
  });

  it("brings a flood's screen up to date once floodScreenRefreshMs passed on the flood's clock", async () => {
    const f = fixture({ fastForward: true, floodScreenRefreshMs: 500 });
    // One batch: over 4 MiB of 100-byte lines, so it is taken as it is written.
    const batch = Buffer.from(lines(43_000, 100));
    expect(batch.length).toBeGreaterThan(BATCH_BYTES);
    /** Writes a batch at `at` ms; whether the rows its skip kept went to xterm in this turn. */
    const keptRowsParsed = async (at: number): Promise<boolean> => {
      now = at;
      f.handed.length = 0;
      f.write(batch);
      if (f.handed.length === 0) return false;
      // xterm may parse them on a timer; the next batch is planned once it has.
      if (f.scheduler.backlog > 0)
        await new Promise<void>((resolve) => {
          const listener = f.scheduler.onDidParse((backlog) => {
            if (backlog > 0) return;
            listener.dispose();
            resolve();
          });
        });
      return true;
    };
    expect(await keptRowsParsed(0)).toBe(true); // the flood's first batch: the screen was never up to date
    expect(await keptRowsParsed(100)).toBe(false); // held with the next batch, which scrolls them out
    expect(await keptRowsParsed(499)).toBe(false);
    expect(await keptRowsParsed(500)).toBe(true);
    // Parsed: the rows the first and the last batch kept; the others' were skipped with the next.
    expect(f.scheduler.skippedBytes).toBe(4 * batch.length - 2 * KEPT_LINES * 100);
  });
});
