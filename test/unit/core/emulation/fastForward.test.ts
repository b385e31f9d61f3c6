/**
 * Fast-forward through floods (src/core/emulation/fastForward.ts): skipping output that scrolls out
 * anyway must leave the emulator exactly as a full parse does. Each case feeds the same bytes
 * to an emulator that may skip and to one that may not, and compares the screen, scrollback,
 * attributes (serialized), and what the tracker reports for the command; and how a chunk's skip is
 * planned (`planSkip`). Holding a flood for batches is floodBatches.test.ts. The emulators run on
 * the test's clock (floodEmulators.ts).
 */
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadEmulator } from '../../../../src/core/emulation/emulator.js';
import { planSkip, scanChunk } from '../../../../src/core/emulation/fastForward.js';
import { C, clock, compare, D, emulator, feed, lines, PROMPT } from './floodEmulators.js';

beforeAll(() => loadEmulator());
beforeEach(() => {
  clock.now = 0;
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
