/**
 * Fast-forward through floods (src/core/emulation/fastForward.ts): skipping output that scrolls out
 * anyway must leave the emulator exactly as a full parse does. Each case feeds the same bytes
 * to an emulator that may skip and to one that may not, and compares the screen, scrollback,
 * attributes (serialized), and what the tracker reports for the command.
 *
 * Every emulator here measures the output's rate on the test's clock (`now`), which moves only
 * when a test moves it: writes in one burst arrive in one instant, so a flood is a flood however
 * fast this machine parses. (On the real clock, a loaded machine parsed the burst's first chunks
 * slower than the flood rate, saw the flood later or not at all, and skipped less.)
 */
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Emulator, loadEmulator, type EmulatorOptions } from '../../../../src/core/emulation/emulator.js';
import { planSkip, scanChunk } from '../../../../src/core/emulation/fastForward.js';
import { FLOOD, FloodSignal } from '../../../../src/core/emulation/floodSignal.js';

const NONCE = 'ff-test';
const C = `\x1b]133;C;nonce=${NONCE}\x07`;
const D = (exit: number): string => `\x1b]133;D;${exit};nonce=${NONCE}\x07`;
const PROMPT = `\x1b]133;A;nonce=${NONCE}\x07$ \x1b]133;B;nonce=${NONCE}\x07`;

beforeAll(() => loadEmulator());

/** The clock every emulator's flood signal reads (ms). */
let now = 0;
beforeEach(() => {
  now = 0;
});

function emulator(fastForward: boolean, options: Partial<EmulatorOptions> = {}): Emulator {
  return new Emulator({ cols: 40, rows: 10, scrollback: 100, nonce: NONCE, headLines: 20, fastForward, flood: new FloodSignal(() => now), ...options });
}

/** Writes `text` (or raw bytes) in chunks of `size` (a burst: a flood to the emulator), then waits for the parse. */
async function feed(target: Emulator, text: string | Buffer, size: number | (() => number) = 4096): Promise<void> {
  for (let offset = 0; offset < text.length;) {
    const chunk = text.slice(offset, offset + (typeof size === 'number' ? size : size()));
    target.write(chunk, offset, offset + chunk.length);
    offset += chunk.length;
  }
  await target.whenParsed();
}

/** Feeds both emulators and expects the same result; returns how much the fast one skipped. */
async function compare(text: string | Buffer, size: number | (() => number) = 4096): Promise<number> {
  const fast = emulator(true);
  const full = emulator(false);
  await Promise.all([feed(fast, text, size), feed(full, text, size)]);
  expect(fast.serialize()).toBe(full.serialize());
  expect(fast.cursor).toEqual(full.cursor);
  const [a, b] = [fast.tracker.lastCommand, full.tracker.lastCommand];
  expect(a?.lineFeeds).toBe(b?.lineFeeds);
  if (a && b) expect(fast.commandOutput(a)).toEqual(full.commandOutput(b));
  expect(full.skippedBytes).toBe(0);
  const skipped = fast.skippedBytes;
  fast.dispose();
  full.dispose();
  return skipped;
}

const lines = (count: number, line: (i: number) => string): string => Array.from({ length: count }, (_, i) => line(i)).join('');

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
    now += FLOOD.windowMs + 1;
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

describe('fast-forward leaves the emulator as a full parse does', () => {
  it('coloured CRLF lines in a command: same screen, attributes, counts, head and tail', async () => {
    const flood = lines(30_000, (i) => `\x1b[3${i % 8}mline ${i}\x1b[0m \x1b[1;4mbold\x1b[m\r\n`);
    const skipped = await compare(`${PROMPT}cat\r\n${C}${flood}tail without newline${D(0)}${PROMPT}`);
    // All but what came before the flood was seen, the head lines and the rows that stay.
    expect(skipped).toBeGreaterThan(flood.length * 0.8);
  });

  it('starts mid-line with attributes set, wraps long and wide lines', async () => {
    const flood = lines(20_000, (i) => `${'界'.repeat(i % 30)}${'x'.repeat(i % 97)}\r\n`);
    const skipped = await compare(`\x1b[41mhalf a line ${flood}`);
    expect(skipped).toBeGreaterThan(Buffer.byteLength(flood) * 0.8);
  });

  it('bytes that are not text (random bytes, C1 controls as UTF-8) among CJK, NBSP and SGR lines: same terminal', async () => {
    // A fixed pseudo-random sequence, so a failure replays.
    let state = 12345;
    const random = (): number => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const parts: Buffer[] = [];
    for (let i = 0; i < 60_000; i++) {
      const r = random();
      if (r < 0.0002) parts.push(Buffer.from(Array.from({ length: 40 }, () => Math.floor(random() * 256))));
      else if (r < 0.0004) parts.push(Buffer.from(`\u009b3${i % 8}m\u00a0x\r\n`));
      else if (r < 0.02) parts.push(Buffer.from(`界 é ${i} \x1b[3${i % 8}mcol\x1b[0m\r\n`));
      else parts.push(Buffer.from(`line ${i} ${'abc'.repeat(i % 30)}\r\n`));
    }
    // Each stop (a random byte, a C1 control) has a slice past it parsed: most is still skipped.
    const text = Buffer.concat(parts);
    expect(await compare(text)).toBeGreaterThan(text.length * 0.5);
  });

  it('a batch that starts inside an escape sequence (a read cut it) is parsed, not skipped as text', async () => {
    const [fast, full] = [emulator(true), emulator(false)];
    // The first write ends inside `ESC [ 3 1 m` and is parsed before the flood is seen; the
    // flood's first batch starts with `1m`, which sets red in a full parse, and no later SGR
    // changes it: skipped as text, every kept row would come out uncoloured. (No command is
    // running: one collecting its head lines would have them parsed first.)
    const head = 'x\x1b[3';
    const flood = `1m${lines(40_000, (i) => `line ${i}\r\n`)}`;
    for (const target of [fast, full]) {
      target.write(head, 0, head.length);
      target.write(flood, head.length, head.length + flood.length);
    }
    await Promise.all([fast.whenParsed(), full.whenParsed()]);
    expect(full.serialize()).toContain('\x1b[31m');
    expect(fast.serialize()).toBe(full.serialize());
    fast.dispose();
    full.dispose();
  });

  it('a batch that starts inside a character (a read cut it) is parsed to its first line feed, the rest skipped', async () => {
    const [fast, full] = [emulator(true), emulator(false)];
    const cut = Buffer.from('x界');
    const head = cut.subarray(0, 2); // `x` and the first byte of 界
    const flood = Buffer.concat([cut.subarray(2), Buffer.from(lines(40_000, (i) => `行 ${i}\r\n`))]);
    for (const target of [fast, full]) {
      target.write(head, 0, head.length);
      target.write(flood, head.length, head.length + flood.length);
    }
    await Promise.all([fast.whenParsed(), full.whenParsed()]);
    expect(fast.serialize()).toBe(full.serialize());
    expect(fast.skippedBytes).toBeGreaterThan(flood.length * 0.9);
    fast.dispose();
    full.dispose();
  });

  it('plans again after an escape sequence that stops a skip: the output after it is skipped too', async () => {
    // `ESC [ 2 A` (cursor up) is not skipped; the flood before and after it is, but for a
    // slice parsed past it (32 KiB) and the rows parsed before the flood was seen. Planned
    // only from the batch's start, less than half would be skipped.
    const before = lines(20_000, (i) => `line ${i}\r\n`);
    const after = lines(20_000, (i) => `more ${i}\r\n`);
    const skipped = await compare(`${before}\x1b[2Aup\r\n${after}`);
    expect(skipped).toBeGreaterThan((before.length + after.length) * 0.8);
  });

  it('skips erase in line with the text (grep and gcc colours), also at a pending wrap and at the first column', async () => {
    // grep --color=always: `ESC [ K` after every coloured span; rows exactly 40 columns wide
    // (a wrap pending when the EL comes); EL 1 and 2 at the start of a row.
    const grep = lines(20_000, (i) => `\x1b[35m\x1b[Kfile.c\x1b[m\x1b[K:\x1b[32m\x1b[K${i}\x1b[m\x1b[K: a \x1b[01;31m\x1b[Kmatch\x1b[m\x1b[K here\r\n`);
    const full = lines(10_000, (i) => `${String(i).padStart(40, '=')}\x1b[K\r\n\x1b[1K\x1b[2Kx\r\n`);
    const text = `${PROMPT}grep\r\n${C}${grep}${full}${D(0)}${PROMPT}`;
    expect(await compare(text)).toBeGreaterThan(text.length * 0.8);
  });

  it('random colours, resets and erases in line, cut anywhere by reads of random sizes: same terminal', async () => {
    let state = 4242;
    const random = (n: number): number => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return state % n;
    };
    // Colours change often, resets and italic, underline and inverse rarely; from line 20 000
    // on no reset and no "off": italic, underline and inverse, set there in the skipped output,
    // show in the rows that stay, so a replay that dropped or misordered an SGR would differ.
    const pieces = [
      'text ',
      '界',
      '\t',
      'é',
      '\x1b[K',
      '\x1b[1K',
      '\x1b[2K',
      '\x1b[01;3$m',
      '\x1b[3$m',
      '\x1b[4$m',
      '\x1b[1m',
      '\x1b[22m',
      '\x1b[38;5;$$m',
      '\x1b[1;4$m',
    ];
    const rare = ['\x1b[m', '\x1b[0m', '\x1b[0;3$m', '\x1b[;4$m', '\x1b[3m', '\x1b[23m', '\x1b[4m', '\x1b[24m', '\x1b[7m', '\x1b[27m'];
    const one = (list: string[]): string => list[random(list.length)]!.replaceAll('$', () => String(random(8)));
    let text = '';
    for (let line = 0; line < 25_000; line++) {
      for (let count = random(8); count > 0; count--) text += one(pieces);
      if (line < 20_000 && random(300) === 0) text += one(rare);
      if (line === 20_000) text += '\x1b[3m\x1b[4m\x1b[7m';
      text += random(50) === 0 ? `${'w'.repeat(40)}\x1b[K\r\n` : '\r\n';
    }
    const skipped = await compare(`${PROMPT}cat\r\n${C}${text}${D(0)}${PROMPT}`, () => 1 + random(5000));
    expect(skipped).toBeGreaterThan(Buffer.byteLength(text.slice(0, text.indexOf('\x1b[3m\x1b[4m\x1b[7m')))); // past where they are set
  });

  it('skips `ESC ( B` (tput sgr0) and sets G0 back to ASCII after the skip, also when a read cut it', async () => {
    // Line drawing first (`ESC ( 0`: parsed, it ends a skip), then `tput sgr0` lines: `q` is a
    // line in line drawing and a `q` in ASCII, so the rows that stay show which is in force.
    const sgr0 = lines(20_000, (i) => `\x1b[1mline ${i}\x1b(B\x1b[m q\r\n`);
    const text = `\x1b(0${lines(50, () => 'q\r\n')}${sgr0}${lines(200, () => 'q\r\n')}`;
    expect(await compare(text)).toBeGreaterThan(sgr0.length * 0.8);
    expect(await compare(text, 4099)).toBeGreaterThan(sgr0.length * 0.8); // cut in other places
    // One `ESC ( B` well past the slice parsed after the `ESC ( 0` (32 KiB), in the skipped
    // output: only its replay puts the rows that stay back in ASCII.
    const once = `\x1b(0${lines(10_000, (i) => `qq ${i}\r\n`)}\x1b(B${lines(10_000, (i) => `ascii q ${i}\r\n`)}${lines(200, () => 'q\r\n')}`;
    expect(await compare(once)).toBeGreaterThan(once.length / 2);
  });

  it('replays an SGR a read cut in two: colours that carry from line to line come out the same', async () => {
    // No reset: each line's colour holds until the next. Chunks of 7, 97 and 997 bytes cut
    // SGRs and erases everywhere.
    const flood = lines(30_000, (i) => `\x1b[3${i % 8};4${(i >> 3) % 8}m${i}\x1b[K ${i % 3 === 0 ? '\x1b[1m' : ''}x\r\n`);
    for (const size of [7, 97, 997]) expect(await compare(`${PROMPT}cat\r\n${C}${flood}${D(0)}${PROMPT}`, size)).toBeGreaterThan(flood.length * 0.5);
    // Italic, set once in the skipped output by an SGR a read cut in two, and never again:
    // every kept row is italic only if that SGR is replayed.
    const [fast, full] = [emulator(true), emulator(false)];
    const text = Buffer.from(`${lines(20_000, (i) => `a ${i}\r\n`)}\x1b[3mitalic\r\n${lines(20_000, (i) => `b ${i}\r\n`)}`);
    const cut = text.indexOf('\x1b[3m') + 2;
    for (const target of [fast, full]) {
      for (let at = 0; at < text.length;) {
        const end = at < cut && cut < at + 4096 ? cut : Math.min(text.length, at + 4096);
        target.write(text.subarray(at, end), at, end);
        at = end;
      }
    }
    await Promise.all([fast.whenParsed(), full.whenParsed()]);
    expect(full.serialize()).toContain('\x1b[3m');
    expect(fast.serialize()).toBe(full.serialize());
    expect(fast.skippedBytes).toBeGreaterThan(cut);
    fast.dispose();
    full.dispose();
  });

  it('skips nothing inside a scroll region (DECSTBM), and still matches', async () => {
    const flood = lines(30_000, (i) => `row ${i}\r\n`);
    expect(await compare(`\x1b[2;8r\x1b[5;1H${flood}`)).toBe(0);
  });

  it('skips nothing when lines end in a bare LF (the column carries over), and still matches', async () => {
    const flood = lines(30_000, (i) => `lf ${i}\n`);
    expect(await compare(flood)).toBe(0);
  });

  it('skips nothing while a command still collects its head lines', async () => {
    const fast = emulator(true, { headLines: 100_000 });
    await feed(fast, `${C}${lines(30_000, (i) => `line ${i}\r\n`)}`);
    expect(fast.skippedBytes).toBe(0);
    expect(fast.tracker.runningCommand?.headLines).toHaveLength(30_000);
    fast.dispose();
  });
});

describe('planSkip', () => {
  /** The plan for `text` cut into chunks of `size` bytes (as the PTY delivers them). */
  const plan = (text: string, keep: number, size = 4096): ReturnType<typeof planSkip> => {
    const bytes = Buffer.from(text);
    const chunks: Buffer[] = [];
    for (let offset = 0; offset < bytes.length; offset += size) chunks.push(bytes.subarray(offset, offset + size));
    return planSkip(chunks, keep);
  };

  it('keeps the given number of line feeds and replays SGR in order', () => {
    expect(plan('\x1b[31ma\r\nb\x1b[1m\r\nc\r\nd\r\n', 2)).toEqual({ bytes: 'x[31ma\r\nbx[1m\r\n'.length, lineFeeds: 2, sgr: '\x1b[31m\x1b[1m' });
  });

  it('replays the SGRs from the last that resets every attribute on, in order', () => {
    expect(plan('\x1b[1ma\r\n\x1b[0;31mb\x1b[4m\r\nc\r\nd\r\n', 1)?.sgr).toBe('\x1b[0;31m\x1b[4m');
    expect(plan('\x1b[1ma\r\n\x1b[01;32mb\r\nc\r\nd\r\n', 1)?.sgr).toBe('\x1b[1m\x1b[01;32m'); // 01 is bold
    expect(plan('\x1b[1ma\x1b[m\r\n\x1b[;4mb\r\nc\x1b[7m\r\nd\r\n', 1)?.sgr).toBe('\x1b[;4m\x1b[7m');
    expect(plan('\x1b[1ma\x1b[m\r\n\x1b[;4mb\r\nc\x1b[7m\r\nd\r\n', 2)?.sgr).toBe('\x1b[;4m'); // c's is kept: parsed
    // Across chunks: a reset in one, more after it in the next.
    expect(planSkip([Buffer.from('\x1b[1ma\x1b[0m\x1b[2m\r\n'), Buffer.from('\x1b[3mb\r\nc\r\nd\r\n')], 1)?.sgr).toBe('\x1b[0m\x1b[2m\x1b[3m');
  });

  it('passes `ESC ( B` and replays it once, after the SGRs; other designations stop', () => {
    expect(plan('a\x1b(B\x1b[m\r\nb\x1b[1m\r\nc\r\nd\r\n', 1)?.sgr).toBe('\x1b[m\x1b[1m\x1b(B');
    expect(planSkip([Buffer.from('a\r\n\x1b('), Buffer.from('Bb\r\nc\r\nd\r\n')], 1)).toEqual({
      bytes: 'a\r\n\x1b(Bb\r\nc\r\n'.length,
      lineFeeds: 3,
      sgr: '\x1b(B',
    });
    expect(plan('a\r\nb\r\n\x1b(0c\r\n', 1)).toEqual({ bytes: 'a\r\n'.length, lineFeeds: 1, sgr: '' });
    expect(plan('a\r\nb\r\nc\r\n\x1b(Bd\r\n', 1)?.sgr).toBe(''); // after the skip: parsed
  });

  it('reads an SGR or erase in line a read cut in two as one, and replays the SGR', () => {
    expect(planSkip([Buffer.from('a\r\n\x1b[3'), Buffer.from('1mb\r\nc\r\nd\r\n')], 1)).toEqual({
      bytes: 'a\r\n\x1b[31mb\r\nc\r\n'.length,
      lineFeeds: 3,
      sgr: '\x1b[31m',
    });
    expect(planSkip([Buffer.from('a\x1b'), Buffer.from('[Kb\r\nc\r\nd\r\n')], 1)).toEqual({ bytes: 'a\x1b[Kb\r\nc\r\n'.length, lineFeeds: 2, sgr: '' });
    // Not an SGR or erase once whole (cursor up): the run ends where it starts.
    const stop = { chunk: -1 };
    expect(planSkip([Buffer.from('a\r\nb\r\nc\r\n\x1b['), Buffer.from('2Ad\r\n')], 1, stop)).toEqual({ bytes: 'a\r\nb\r\n'.length, lineFeeds: 2, sgr: '' });
    expect(stop.chunk).toBe(0);
  });

  it('stops at anything but text, tab, backspace, CR, LF, SGR and erase in line', () => {
    expect(plan('a\r\nb\r\n\x1b[2Jc\r\nd\r\ne\r\n', 1)).toEqual({ bytes: 'a\r\n'.length, lineFeeds: 1, sgr: '' });
    expect(plan('a\x1b[K\r\nb\x1b[1;31m\x1b[2K\r\nc\x1b[0K\r\nd\r\n', 1)).toEqual({
      bytes: 'a\x1b[K\r\nb\x1b[1;31m\x1b[2K\r\nc\x1b[0K\r\n'.length,
      lineFeeds: 3,
      sgr: '\x1b[1;31m',
    });
    expect(plan('a\r\nb\r\n\x1b[?25lc\r\n', 1)).toEqual({ bytes: 'a\r\n'.length, lineFeeds: 1, sgr: '' });
    expect(plan('a\r\nb\r\n\x1b[1:2Kc\r\n', 1)).toEqual({ bytes: 'a\r\n'.length, lineFeeds: 1, sgr: '' });
    expect(plan('a\r\n\x07b\r\nc\r\n', 1)).toBeNull();
    expect(plan('a\r\nb\x7f\r\nc\r\n', 1)).toBeNull();
    expect(plan('a\r\nb\r\n', 2)).toBeNull();
  });

  it('reads UTF-8: C1 controls stop it, other characters pass', () => {
    // U+009B (CSI as one code) is C2 9B in UTF-8; U+00A0 (C2 A0) and 界 are text.
    expect(plan('a\r\n\x9bb\r\nc\r\n', 0)).toEqual({ bytes: 3, lineFeeds: 1, sgr: '' });
    expect(plan('a\u00a0\r\n界\r\nc\r\n', 1)).toEqual({ bytes: Buffer.byteLength('a\u00a0\r\n界\r\n'), lineFeeds: 2, sgr: '' });
    // A C2 lead at the end of a chunk is judged by the next chunk's first byte; at the end of
    // the last one it cannot be judged yet: the run ends there.
    expect(plan('ab\r\nc\u00a0\r\nd\r\n', 1, 'ab\r\nc'.length + 1)).toEqual({ bytes: Buffer.byteLength('ab\r\nc\u00a0\r\n'), lineFeeds: 2, sgr: '' });
    expect(plan('ab\r\nc\u0085\r\nd\r\n', 0, 'ab\r\nc'.length + 1)).toEqual({ bytes: 4, lineFeeds: 1, sgr: '' });
    const stop = { chunk: -1 };
    expect(planSkip([Buffer.from('ab\r\nc\r\n\rd'), Buffer.from([0xc2])], 0, stop)).toEqual({ bytes: 7, lineFeeds: 2, sgr: '' });
    expect(stop.chunk).toBe(1);
    // Output that starts inside a character continues one already parsed: nothing is skipped.
    expect(planSkip([Buffer.from('界\r\nb\r\nc\r\n').subarray(1)], 0)).toBeNull();
  });

  it('finds a control anywhere in a long chunk, at any alignment, and across chunks', () => {
    const line = 'The quick brown fox jumps over the lazy dog 0123456789\r\n';
    const text = line.repeat(200);
    for (const at of [0, 1, 2, 3, 57, 4097, text.length - 5]) {
      const bad = `${text.slice(0, at)}\x0e${text.slice(at)}`;
      const linesBefore = text.slice(0, at).split('\n').length - 1;
      for (const offset of [0, 1, 2, 3]) {
        // The same bytes at each offset of their backing memory (the word scan reads aligned words).
        const bytes = Buffer.concat([Buffer.alloc(offset), Buffer.from(bad)]).subarray(offset);
        const result = planSkip([bytes.subarray(0, 1000), bytes.subarray(1000)], 1);
        // Keeping one line feed before the SO: the skip ends two line feeds before it.
        if (linesBefore < 2) expect(result).toBeNull();
        else expect(result?.lineFeeds).toBe(linesBefore - 1);
      }
    }
  });
  it('stops at a control, DEL or ESC in any byte of a word, whatever the bytes beside it (UTF-8 ones carry)', () => {
    // The scan reads aligned words: a stop must be seen whatever an addition carries into its
    // byte from the one before. Neighbours: printable ASCII, CR, LF, bytes of UTF-8 sequences.
    const neighbours = [0x20, 0x61, 0x7e, 0x0a, 0x0d, 0x80, 0x9f, 0xa0, 0xbf, 0xe7, 0xff];
    const stops = [...Array.from({ length: 0x20 }, (_, byte) => byte).filter((byte) => ![0x08, 0x09, 0x0a, 0x0d].includes(byte)), 0x7f];
    const chunk = Buffer.alloc(24, 0x61); // not from the pool: word-aligned
    let checked = 0;
    for (const stop of stops) {
      for (let lane = 0; lane < 4; lane++) {
        for (const a of neighbours)
          for (const b of neighbours)
            for (const c of neighbours) {
              const word = [a, b, c];
              word.splice(lane, 0, stop);
              chunk.set(word, 8);
              const expected = 8 + lane;
              const found = scanChunk(chunk).plain;
              if (found !== expected) expect(found, `stop ${stop} at ${lane} among ${word.join(',')}`).toBe(expected);
              checked++;
            }
      }
    }
    expect(checked).toBe(stops.length * 4 * neighbours.length ** 3);
  });

  it('agrees with a byte-by-byte reading of random plain output, at every alignment and cut', () => {
    // Pieces a flood is made of: short and long lines (`yes`, `seq`, text), tabs, backspaces,
    // UTF-8 (U+00A0 is C2 A0: a C2 at a chunk's end ends the run), a bare LF, a stop (SO).
    const pieces = ['y\r\n', '7\r\n', '42\r\n', 'The quick brown fox\r\n', '\t', '\b', 'é', '界', '\u00a0', 'ab', '\n', '\r'];
    let seed = 0x5eed;
    const random = (n: number): number => {
      seed = (Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
      return seed % n;
    };
    let plans = 0;
    for (let round = 0; round < 400; round++) {
      let text = '';
      const length = 50 + random(3000);
      while (text.length < length) text += pieces[random(pieces.length)];
      if (random(3) === 0) {
        const at = random(text.length);
        text = `${text.slice(0, at)}\x0e${text.slice(at)}`;
      }
      const offset = random(4);
      const bytes = Buffer.concat([Buffer.alloc(offset), Buffer.from(text)]).subarray(offset);
      const chunks: Buffer[] = [];
      for (let at = 0; at < bytes.length;) {
        const size = 1 + random(700);
        chunks.push(bytes.subarray(at, at + size));
        at += size;
      }
      const keep = random(6);
      const expected = byteByByte(chunks, keep);
      expect(planSkip(chunks, keep), `round ${round}: ${JSON.stringify(text)}`).toEqual(expected);
      if (expected) plans++;
    }
    expect(plans).toBeGreaterThan(200); // most rounds do skip: the comparison is not vacuous
  });

  it('plans the same from scans made as the chunks arrived, and ignores a scan of other bytes', () => {
    // Ten lines a chunk, so no SGR is cut in two (a cut one ends the plain run).
    const chunks = Array.from({ length: 30 }, (_, i) => Buffer.from(`\x1b[3${i % 8}mok\x1b[${i % 2}m line\r\n`.repeat(10)));
    chunks.push(Buffer.from(`\x1b[2J${'after\r\n'.repeat(20)}`));
    const scans = chunks.map((chunk) => scanChunk(chunk));
    const stop = { chunk: -1 };
    const scannedStop = { chunk: -1 };
    const expected = planSkip(chunks, 3, stop);
    expect(expected?.sgr).toMatch(/^\x1b\[0m\x1b\[3\dm\x1b\[1m/); // from the last reset (an even chunk's) on
    expect(planSkip(chunks, 3, scannedStop, scans)).toEqual(expected);
    expect(scannedStop).toEqual(stop);
    // A chunk cut after it was scanned is a new Buffer: its old scan (which says the whole
    // chunk is plain) must not be read for the cut piece, which now holds the ED.
    expect(stop.chunk).toBe(30);
    const stale = scans.slice();
    stale[30] = scanChunk(Buffer.from('after\r\n'.repeat(23)));
    expect(planSkip(chunks, 3, { chunk: -1 }, stale)).toEqual(expected);
  });
});

/**
 * The plan for plain output (no ESC) read one byte at a time: the run ends at the first byte
 * that is neither text, tab, backspace, CR nor LF, or at a C2 not followed by A0–BF (in its
 * chunk or the next); the skip ends `keep` + 1 line feeds before that, if the line after it has a CR.
 */
function byteByByte(chunks: Buffer[], keep: number): ReturnType<typeof planSkip> {
  const all = Buffer.concat(chunks);
  let stop = all.length;
  let at = 0;
  find: for (const chunk of chunks) {
    for (let i = 0; i < chunk.length; i++, at++) {
      const byte = chunk[i]!;
      const text = (byte >= 0x20 && byte < 0x7f) || [0x08, 0x09, 0x0a, 0x0d].includes(byte) || (byte >= 0x80 && byte !== 0xc2);
      const nbsp = byte === 0xc2 && (all[at + 1] ?? 0) >= 0xa0; // in this chunk or the next
      if (!text && !nbsp) {
        stop = at;
        break find;
      }
    }
  }
  const lineFeeds: number[] = [];
  for (let i = 0; i < stop; i++) if (all[i] === 0x0a) lineFeeds.push(i);
  if (lineFeeds.length < keep + 1) return null;
  const end = lineFeeds[lineFeeds.length - 1 - keep]!;
  const rest = all.subarray(end + 1);
  const cr = rest.indexOf(0x0d);
  const lf = rest.indexOf(0x0a);
  if (cr < 0 || (lf >= 0 && lf < cr)) return null;
  return { bytes: end + 1, lineFeeds: lineFeeds.length - keep, sgr: '' };
}
