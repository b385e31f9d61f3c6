/**
 * Holding a flood for batches (src/core/emulation/emulator.ts with fastForward.ts): while output
 * floods, plain output is held and parsed in batches, a command's end mark is handed over at once,
 * and only the head lines and the rows that stay are parsed. The emulators run on the test's
 * clock (floodEmulators.ts); fast-forward's equivalence to a full parse is fastForward.test.ts.
 */
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadEmulator, type Emulator } from '../../../../src/core/emulation/emulator.js';
import { FLOOD } from '../../../../src/core/emulation/floodSignal.js';
import { C, clock, compare, D, emulator, feed, lines, PROMPT } from './floodEmulators.js';

beforeAll(() => loadEmulator());
beforeEach(() => {
  clock.now = 0;
});

describe('holding a flood for batches', () => {
  it("holds plain flood output, but hands a command's end mark to xterm at once", async () => {
    // The clock stands still: the flood goes on however long the parse below takes (on the real
    // clock it would end once output stopped for a window).
    const e = emulator(true);
    const flood = `${PROMPT}cat\r\n${C}${lines(40_000, (i) => `line ${i}\r\n`)}`;
    await feed(e, flood, flood.length);
    // Still flooding: more plain output is held for a batch, not parsed on this turn…
    e.write('more\r\n', 0, 6);
    expect(e.backlog).toBe(6);
    await e.whenParsed();
    // …but output with the D mark is parsed as it is written (the hold would be 40 ms).
    e.write(`${D(3)}${PROMPT}`, 6, 60);
    expect(e.backlog).toBe(0);
    expect(e.tracker.runningCommand).toBeNull();
    expect(e.tracker.lastCommand?.exitCode).toBe(3);
    e.dispose();
  });

  it('counts rows as well as bytes: short lines flood at a few KB, and are skipped like long ones', async () => {
    // `yes` prints 2 bytes a row: a window under the byte threshold still scrolls far more
    // rows than anyone reads, each one parsed, scrolled and compacted.
    const e = emulator(true);
    await feed(e, `${PROMPT}yes\r\n${C}${'y\r\n'.repeat(1_000)}`);
    // 1 000 rows in a window: parsed as written, not held.
    e.write('y\r\n', 0, 3);
    expect(e.backlog).toBe(0);
    // 2 048 and more in a window: a flood, held for a batch. (A window later, so these rows
    // are all its window holds.)
    clock.now += FLOOD.windowMs + 1;
    const rows = 'y\r\n'.repeat(2_100);
    e.write(rows, 0, rows.length);
    expect(e.backlog).toBe(rows.length);
    e.dispose();
    // 60 000 rows, 180 KB (under the 256 KiB a flood of long lines needs): skipped but for the
    // head and what stays in the buffer, leaving the terminal as a full parse does. Counting
    // bytes only, all 60 000 were parsed. The command's start comes first, as a shell writes it;
    // then 16 KiB chunks, each a flood of rows on its own.
    const flood = 'y\r\n'.repeat(60_000);
    const start = `${PROMPT}yes\r\n${C}`;
    const sizes = [start.length];
    expect(await compare(`${start}${flood}`, () => sizes.pop() ?? 16 * 1024)).toBeGreaterThan(flood.length - 3 * 2_500);
  });

  it("parses a flooding command's head lines, and skips the rest of the same batch", async () => {
    // More head lines than are parsed before the flood is detected: the first held batch is
    // still collecting them when it is planned.
    const make = (fastForward: boolean): Emulator => emulator(fastForward, { headLines: 30_000 });
    const [fast, full] = [make(true), make(false)];
    const flood = lines(200_000, (i) => `line ${i}\r\n`);
    const text = `${PROMPT}cat\r\n${C}${flood}`;
    await Promise.all([feed(fast, text), feed(full, text)]);
    expect(fast.tracker.runningCommand?.headLines).toEqual(Array.from({ length: 30_000 }, (_, i) => `line ${i}`));
    expect(fast.serialize()).toBe(full.serialize());
    expect(fast.tracker.runningCommand?.lineFeeds).toBe(full.tracker.runningCommand?.lineFeeds);
    // The rest of that batch was skipped, not parsed because the head was not in yet.
    expect(fast.skippedBytes).toBeGreaterThan(flood.length * 0.5);
    fast.dispose();
    full.dispose();
  });

  it('parses only the head lines out of one large chunk, and skips the rest', async () => {
    const [fast, full] = [emulator(true), emulator(false)];
    // Written as a PTY delivers it, each chunk with its own transcript range.
    let written = 0;
    const deliver = async (text: string, size: number): Promise<void> => {
      const bytes = Buffer.from(text);
      for (let offset = 0; offset < bytes.length; offset += size) {
        const chunk = bytes.subarray(offset, offset + size);
        fast.write(chunk, written, written + chunk.length);
        full.write(chunk, written, written + chunk.length);
        written += chunk.length;
      }
      await Promise.all([fast.whenParsed(), full.whenParsed()]);
    };
    await deliver(`${PROMPT}yes\r\n${C}`, 4096);
    expect(fast.tracker.runningCommand?.headLines).toEqual([]);
    const flood = 'y\r\n'.repeat(400_000);
    await deliver(flood, 256 * 1024);
    // All but the head (20 lines) and what stays in the buffer (110 rows) is skipped, even
    // out of the chunk that completes the head; cutting whole chunks parsed its 87 000 rows.
    expect(fast.skippedBytes).toBeGreaterThan(flood.length - 1_000);
    expect(fast.tracker.runningCommand?.headLines).toEqual(Array.from({ length: 20 }, () => 'y'));
    expect(fast.tracker.runningCommand?.lineFeeds).toBe(full.tracker.runningCommand?.lineFeeds);
    expect(fast.serialize()).toBe(full.serialize());
    // A chunk cut after the head keeps its transcript range apart: a mark in the rest is
    // located by the chunk it came in (its end), as without the cut.
    await deliver(`${D(0)}${PROMPT}yes\r\n${C}`, 4096);
    await deliver(`${flood}${D(1)}${PROMPT}`, 2 * 1024 * 1024);
    const end = written;
    expect(fast.skippedBytes).toBeGreaterThan(2 * flood.length - 2_000);
    expect(full.tracker.lastCommand?.endByte).toBe(end);
    expect(fast.tracker.lastCommand?.endByte).toBe(end);
    expect(fast.tracker.lastCommand?.exitCode).toBe(1);
    expect(fast.tracker.lastCommand?.lineFeeds).toBe(full.tracker.lastCommand?.lineFeeds);
    fast.dispose();
    full.dispose();
  });

  /**
   * Three batches of a flood, each planned on its own, then the command's end: the bytes the
   * fast emulator parsed, after checking it ends as a full parse does.
   */
  async function floodInBatches(floodScreenRefreshMs: number): Promise<{ parsed: number; backlogBeforeEnd: number }> {
    const fast = emulator(true, { floodScreenRefreshMs });
    const full = emulator(false);
    let written = 0;
    const write = (text: string | Buffer): void => {
      const bytes = typeof text === 'string' ? Buffer.from(text) : text;
      for (const target of [fast, full]) target.write(bytes, written, written + bytes.length);
      written += bytes.length;
    };
    /** Resolves once `fast` has skipped part of a batch (planned it). */
    const skipped = (): Promise<void> => {
      const before = fast.skippedBytes;
      return new Promise((resolve) => {
        const listener = fast.onDidParse(() => {
          if (fast.skippedBytes === before) return;
          listener.dispose();
          resolve();
        });
      });
    };
    write(`${PROMPT}cat\r\n${C}`);
    await fast.whenParsed();
    // Rows of 100 bytes; each batch (one write, over the 4 MiB a batch gathers) is planned on
    // its own. The buffer keeps 111 rows (11 100 bytes) of a batch.
    // Made first: the next batch is written in the turn the last one was planned in, before a
    // hold's timer (100 ms) could parse the kept rows however slow the machine.
    const batches = [0, 43_000, 86_000].map((from) => Buffer.from(lines(43_000, (i) => `${String(from + i).padStart(98, '.')}\r\n`)));
    for (const batch of batches) {
      const planned = skipped();
      write(batch);
      await planned;
    }
    const backlogBeforeEnd = fast.backlog;
    write(`${D(0)}${PROMPT}`);
    await Promise.all([fast.whenParsed(), full.whenParsed()]);
    expect(fast.serialize()).toBe(full.serialize());
    expect(fast.tracker.lastCommand?.lineFeeds).toBe(full.tracker.lastCommand?.lineFeeds);
    expect(fast.commandOutput(fast.tracker.lastCommand!)).toEqual(full.commandOutput(full.tracker.lastCommand!));
    const parsed = written - fast.skippedBytes;
    fast.dispose();
    full.dispose();
    return { parsed, backlogBeforeEnd };
  }

  it('holds the rows a batch kept with the next batch while the flood goes on, and parses them at its end', async () => {
    const { parsed, backlogBeforeEnd } = await floodInBatches(60_000);
    // While the flood goes on, the last batch's kept rows wait for the next batch: not parsed.
    expect(backlogBeforeEnd).toBeGreaterThanOrEqual(111 * 100);
    // Parsed: the command's start, its 20 head lines, the first batch's kept rows (planned
    // while the head was coming in) and the last batch's. The second batch's kept rows were
    // skipped with the third batch.
    expect(parsed).toBeLessThan(200 + 21 * 100 + 2 * 111 * 100 + 5_000);
  });

  it("parses the kept rows of a flood's batch once the screen was last brought up to date floodScreenRefreshMs ago", async () => {
    // 0: every batch's kept rows are parsed, as for a screen read during a long flood.
    const { parsed } = await floodInBatches(0);
    expect(parsed).toBeGreaterThan(200 + 21 * 100 + 3 * 111 * 100 - 1_000);
  });
});
