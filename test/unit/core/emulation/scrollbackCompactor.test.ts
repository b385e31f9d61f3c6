/**
 * Compacted scrollback rows (src/core/emulation/scrollbackCompactor.ts): rows that scrolled off the
 * screen drop their blank cells, and nothing anyone reads changes. Each case feeds the same
 * bytes to a terminal that compacts and to a bare xterm, and compares every row's text and
 * cells (characters, widths, colours, attributes), what a viewer hydrated from each one's
 * serialization shows, and all of it again after resizes that reflow the scrollback.
 *
 * The serializations are compared through a viewer rather than byte for byte: for the blank
 * cells at a row's end the serializer sometimes emits an erase in a style left over from an
 * earlier row (`ESC[7m ESC[12X`), which shows nothing, and a compacted row has no such cells.
 */
import headless from '@xterm/headless';
import serializeAddon from '@xterm/addon-serialize';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Emulator, loadEmulator } from '../../../../src/core/emulation/emulator.js';
import { paddedRows, ScrollbackCompactor } from '../../../../src/core/emulation/scrollbackCompactor.js';
import { cells as rowCells, maps, rowStore, type RowStore, type XtermRow } from '../../../../src/core/emulation/xtermInternals.js';

const COLS = 40;
const ROWS = 10;
const SCROLLBACK = 60;

beforeAll(() => loadEmulator());

interface Pair {
  compacting: headless.Terminal;
  /** The compacting terminal's rows, read through xtermInternals.ts. */
  rows: RowStore;
  compactor: ScrollbackCompactor;
  bare: headless.Terminal;
  serialize(terminal: headless.Terminal): string;
}

const open: { dispose(): void }[] = [];
afterEach(() => {
  for (const d of open.splice(0)) d.dispose();
});

function terminal(cols = COLS, rows = ROWS): headless.Terminal {
  const t = new headless.Terminal({ cols, rows, scrollback: SCROLLBACK, allowProposedApi: true });
  open.push(t);
  return t;
}

function pair(): Pair {
  const compacting = terminal();
  const rows = rowStore(compacting)!;
  const compactor = new ScrollbackCompactor(compacting);
  open.push(compactor);
  const bare = terminal();
  const addons = new Map<headless.Terminal, serializeAddon.SerializeAddon>();
  for (const t of [compacting, bare]) {
    const addon = new serializeAddon.SerializeAddon();
    if (t === compacting) addon.activate(paddedRows(t) as unknown as Parameters<serializeAddon.SerializeAddon['activate']>[0]);
    else t.loadAddon(addon);
    addons.set(t, addon);
  }
  return { compacting, rows, compactor, bare, serialize: (t) => addons.get(t)!.serialize() };
}

function write(t: headless.Terminal, data: string): Promise<void> {
  return new Promise((resolve) => t.write(data, resolve));
}

async function feed(p: Pair, data: string): Promise<void> {
  await Promise.all([write(p.compacting, data), write(p.bare, data)]);
}

/** Every row of the normal buffer: text with and without trailing blanks trimmed, and its wrap flag. */
function rows(t: headless.Terminal): string[] {
  const buffer = t.buffer.normal;
  const out: string[] = [];
  for (let row = 0; row < buffer.length; row++) {
    const line = buffer.getLine(row)!;
    out.push(`${line.isWrapped ? '+' : ' '}${line.translateToString(true)}`);
  }
  return out;
}

/** Cells held by each row of the scrollback (xterm's `IBufferLine.length`). */
function scrollbackCells(t: headless.Terminal): number[] {
  const buffer = t.buffer.normal;
  const cells: number[] = [];
  for (let row = 0; row < buffer.baseY; row++) cells.push(buffer.getLine(row)!.length);
  return cells;
}

const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0);

/**
 * What each scrollback row of an uncompacted terminal should shrink to: up to its last cell
 * that is not a default blank, plus one blank; whole if the next row continues it.
 */
function compactedCells(t: headless.Terminal): number[] {
  const buffer = t.buffer.normal;
  const cells: number[] = [];
  for (let row = 0; row < buffer.baseY; row++) {
    const line = buffer.getLine(row)!;
    let used = line.length;
    for (; used > 0; used--) {
      const c = line.getCell(used - 1)!;
      if (c.getChars() !== '' || c.getWidth() !== 1 || !c.isAttributeDefault() || !c.isFgDefault() || !c.isBgDefault()) break;
    }
    cells.push(buffer.getLine(row + 1)?.isWrapped ? line.length : Math.min(used + 1, line.length));
  }
  return cells;
}

/** Every cell of the normal buffer, as much as the public API tells; a row's missing end cells read as blank. */
function cells(t: headless.Terminal): string[] {
  const buffer = t.buffer.normal;
  // xterm's own blank cell, as a fresh row holds it (getNullCell() has width 0).
  const blank = terminal(1, 1).buffer.normal.getLine(0)!.getCell(0)!;
  const out: string[] = [];
  for (let row = 0; row < buffer.length; row++) {
    const line = buffer.getLine(row)!;
    const described: string[] = [];
    for (let col = 0; col < t.cols; col++) {
      const c = line.getCell(col) ?? blank;
      const flags = [c.isBold(), c.isDim(), c.isItalic(), c.isUnderline(), c.isBlink(), c.isInverse(), c.isInvisible(), c.isStrikethrough(), c.isOverline()];
      described.push(
        `${c.getChars()}/${c.getWidth()}/${c.getFgColorMode()}:${c.getFgColor()}/${c.getBgColorMode()}:${c.getBgColor()}/${flags.map(Number).join('')}`,
      );
    }
    out.push(`${line.isWrapped ? '+' : ' '}${described.join(' ')}`);
  }
  return out;
}

/** What a viewer shows once hydrated from `serialized` (a fresh terminal of the same size). */
async function hydrated(serialized: string, like: headless.Terminal): Promise<string[]> {
  const viewer = terminal(like.cols, like.rows);
  await write(viewer, serialized);
  return cells(viewer);
}

async function expectSame(p: Pair): Promise<void> {
  expect(rows(p.compacting)).toEqual(rows(p.bare));
  expect(cells(p.compacting)).toEqual(cells(p.bare));
  expect(p.compacting.buffer.normal.baseY).toBe(p.bare.buffer.normal.baseY);
  // Every row of the scrollback is compacted as far as it can be; but the oldest of a full
  // scrollback may be whole again, ready for xterm to reuse for the next row.
  const held = scrollbackCells(p.compacting);
  const expected = compactedCells(p.bare);
  if (p.bare.buffer.normal.baseY === SCROLLBACK && held[0] === p.compacting.cols) expected[0] = p.compacting.cols;
  expect(held).toEqual(expected);
  const [fromCompacting, fromBare] = await Promise.all([hydrated(p.serialize(p.compacting), p.compacting), hydrated(p.serialize(p.bare), p.bare)]);
  expect(fromCompacting).toEqual(fromBare);
}

/** Output a terminal holds every kind of cell for: blank, coloured, wide, combined, linked, wrapped. */
function variedOutput(round: number): string {
  const parts = [
    `plain line ${round}\r\n`,
    '\r\n',
    `\x1b[31mred\x1b[0m and \x1b[1;44mbold on blue\x1b[0m ${round}\r\n`,
    // Background colour to the end of the row (EL with a colour): cells without text that are not blank.
    `\x1b[42mgreen to the edge\x1b[K\x1b[0m\r\n`,
    `spaces printed at the end   \r\n`,
    `\x1b[4munderlined blanks:      \x1b[0m\r\n`,
    // A wide character that does not fit the last column leaves a blank cell before the wrap.
    `${'x'.repeat(COLS - 1)}中文 wraps here\r\n`,
    `combining e\u0301 and a\u0308 ${round}\r\n`,
    `\x1b]8;;https://example.com/${round}\x07a link\x1b]8;;\x07 after\r\n`,
    `${'long '.repeat(20)}${round}\r\n`,
    `tab\there\tand\there\r\n`,
    `${'e'.repeat(COLS)}\r\n`,
    `far\x1b[30Cright\r\n`,
    `\x1b[7m\x1b[Kinverse blank row\x1b[0m\r\n`,
  ];
  return parts.join('');
}

describe('ScrollbackCompactor', () => {
  it('takes hold of the installed xterm (its private row store is as expected)', () => {
    const p = pair();
    expect(p.compactor.enabled).toBe(true);
  });

  it('shrinks the scrollback to what its rows hold', async () => {
    const p = pair();
    let data = '';
    for (let n = 1; n <= 200; n++) data += `${n}\r\n`;
    await feed(p, data);
    await expectSame(p);
    // A full scrollback of `seq`: its 3 digits and one blank per row instead of 40 cells.
    expect(p.bare.buffer.normal.baseY).toBe(SCROLLBACK);
    expect(sum(scrollbackCells(p.bare))).toBe(SCROLLBACK * COLS);
    expect(sum(scrollbackCells(p.compacting))).toBe((SCROLLBACK - 1) * 4 + COLS);
  });

  it('changes nothing a reader sees: text, colours, wide and combined characters, links, wraps', async () => {
    const p = pair();
    // The scrollback fills, then its oldest rows are recycled for new ones.
    for (let round = 0; round < 6; round++) {
      await feed(p, variedOutput(round));
      await expectSame(p);
    }
    expect(p.compacting.buffer.normal.baseY).toBe(SCROLLBACK);
    expect(sum(scrollbackCells(p.compacting))).toBeLessThan(sum(scrollbackCells(p.bare)) * 0.75);
  });

  it('keeps every cell of a row that wraps onto the next, blanks included', async () => {
    const p = pair();
    // A row that wraps, then has its end erased: its blanks sit between two parts of one line.
    await feed(p, `${'w'.repeat(COLS)}more\x1b[A\x1b[20G\x1b[K\x1b[B\r\n${'\r\n'.repeat(ROWS)}`);
    const buffer = p.compacting.buffer.normal;
    const wrapping = [...Array(buffer.baseY).keys()].find((row) => buffer.getLine(row + 1)?.isWrapped);
    expect(wrapping).toBeDefined();
    expect(buffer.getLine(wrapping!)!.length).toBe(COLS);
    expect(buffer.getLine(wrapping!)!.translateToString(false)).toBe(`${'w'.repeat(19)}${' '.repeat(COLS - 19)}`);
    await expectSame(p);
  });

  it('gives the same buffer as xterm after resizes that reflow the scrollback, and compacts it again', async () => {
    const p = pair();
    await feed(p, variedOutput(0) + variedOutput(1));
    const sizes: [number, number][] = [
      [60, ROWS],
      [25, ROWS],
      [25, 16],
      [25, 5],
      [COLS, ROWS],
    ];
    for (const [cols, rowCount] of sizes) {
      p.compactor.beforeResize();
      p.compacting.resize(cols, rowCount);
      p.compactor.afterResize();
      p.bare.resize(cols, rowCount);
      await expectSame(p);
      // Rows pulled back onto a taller screen are whole again: the cursor may write anywhere.
      const buffer = p.compacting.buffer.normal;
      for (let row = buffer.baseY; row < buffer.length; row++) expect(buffer.getLine(row)!.length).toBe(cols);
      await feed(p, variedOutput(cols));
      await expectSame(p);
    }
  });

  it('moves rows full to the last column into shared slabs too, and their empty maps into one', async () => {
    const p = pair();
    let data = '';
    for (let n = 1; n <= 200; n++) data += `${String(n).padStart(COLS, '0')}\r\n`;
    await feed(p, data);
    await expectSame(p);
    // Nothing to drop, but the rows no longer hold an ArrayBuffer each: at 40 columns a 64 KiB
    // slab holds 136 of them. The oldest row may have its own array, ready to be recycled.
    const scrollback = privateRows(p.compacting, p.rows).slice(1);
    expect(sum(scrollbackCells(p.compacting))).toBe(SCROLLBACK * COLS);
    expect(new Set(scrollback.map((row) => rowCells(row).buffer)).size).toBeLessThanOrEqual(2);
    // No row has a combining character or an extended attribute: one map stands for all.
    expect(new Set(scrollback.flatMap((row) => maps(row))).size).toBe(1);
  });

  it('keeps the scrollback in slabs through the memory cleanup xterm schedules after a narrowing resize', async () => {
    const p = pair();
    let data = '';
    // Short rows, and full ones that the narrowing reflows onto several rows.
    for (let n = 1; n <= 200; n++) data += n % 3 === 0 ? `${String(n).padStart(COLS, '-')}\r\n` : `${n}\r\n`;
    await feed(p, data);
    // Under half the width: xterm queues a cleanup, which copies every row whose array is a
    // view on a buffer twice its size or more into one of its own. A slab row is always one.
    p.compactor.beforeResize();
    p.compacting.resize(15, ROWS);
    p.compactor.afterResize();
    p.bare.resize(15, ROWS);
    p.rows.flushMemoryCleanup(); // what it queued, now rather than when idle
    await expectSame(p);
    expect(
      new Set(
        privateRows(p.compacting, p.rows)
          .slice(1)
          .map((row) => rowCells(row).buffer),
      ).size,
    ).toBeLessThanOrEqual(2);
  });

  it('gives rows their own maps back before a reflow writes combining characters into them', async () => {
    const p = pair();
    // Two lines, each wrapping a combining sequence onto its second row at column 0. Their
    // first rows hold none, so they share one empty map; widening pulls each sequence up into
    // its first row at the same column, so rows still sharing would read each other's.
    await feed(p, `${'a'.repeat(COLS)}e\u0301\r\n${'b'.repeat(COLS)}u\u0308\r\n${'\r\n'.repeat(ROWS)}`);
    await expectSame(p);
    p.compactor.beforeResize();
    p.compacting.resize(COLS + 10, ROWS);
    p.compactor.afterResize();
    p.bare.resize(COLS + 10, ROWS);
    await expectSame(p);
    expect(rows(p.compacting).filter((row) => row.endsWith('\u0301') || row.endsWith('\u0308'))).toEqual([
      ` ${'a'.repeat(COLS)}e\u0301`,
      ` ${'b'.repeat(COLS)}u\u0308`,
    ]);
  });

  it('follows a reset (RIS) and the alternate screen', async () => {
    const p = pair();
    await feed(p, variedOutput(0));
    await feed(p, '\x1bc');
    await feed(p, variedOutput(1) + variedOutput(2));
    await expectSame(p);
    await feed(p, `\x1b[?1049h${'full screen\r\n'.repeat(30)}\x1b[?1049l`);
    await feed(p, variedOutput(3));
    await expectSame(p);
  });
});

describe('Emulator with compacted scrollback', () => {
  it('compacts the rows a fast-forwarded flood leaves in the scrollback', async () => {
    const emulator = new Emulator({ cols: COLS, rows: ROWS, scrollback: SCROLLBACK, nonce: 'n', headLines: 20 });
    open.push(emulator);
    const flood = 'flood line\r\n'.repeat(40_000);
    // One write: one rate window sees all of it, so it is a flood on any machine.
    emulator.write(flood, 0, flood.length);
    await emulator.whenParsed();
    expect(emulator.skippedBytes).toBeGreaterThan(0);
    // Every row but the oldest (kept whole for xterm to recycle) holds its 10 characters and one blank.
    const buffer = (emulator as unknown as { terminal: headless.Terminal }).terminal.buffer.normal; // the emulator's own terminal (a private field of ours)
    expect(buffer.baseY).toBe(SCROLLBACK);
    const cells = Array.from({ length: SCROLLBACK - 1 }, (_, row) => buffer.getLine(row + 1)!.length);
    expect(new Set(cells)).toEqual(new Set([11]));
  });

  it('serializes, reads history and resizes as a bare xterm does', async () => {
    const emulator = new Emulator({ cols: COLS, rows: ROWS, scrollback: SCROLLBACK, nonce: 'n', headLines: 20 });
    open.push(emulator);
    expect(emulator.compactsScrollback).toBe(true);
    const bare = terminal();
    const addon = new serializeAddon.SerializeAddon();
    bare.loadAddon(addon);
    const data = variedOutput(0) + variedOutput(1) + variedOutput(2);
    emulator.write(data, 0, Buffer.byteLength(data));
    await Promise.all([emulator.whenParsed(), write(bare, data)]);
    expect(await hydrated(emulator.serialize(), bare)).toEqual(await hydrated(addon.serialize(), bare));
    expect(emulator.historyLines()).toEqual(historyOf(bare));
    emulator.resize(30, 14);
    bare.resize(30, 14);
    expect(await hydrated(emulator.serialize(), bare)).toEqual(await hydrated(addon.serialize(), bare));
    expect(emulator.historyLines()).toEqual(historyOf(bare));
  });
});

/** Logical lines of a bare terminal's normal buffer, trailing blanks trimmed (as `historyLines`). */
function historyOf(t: headless.Terminal): string[] {
  const buffer = t.buffer.normal;
  const lines: string[] = [];
  let last = buffer.length - 1;
  while (last > 0 && buffer.getLine(last)!.translateToString(true) === '') last--;
  for (let row = 0; row <= last; row++) {
    const line = buffer.getLine(row)!;
    const text = line.translateToString(!buffer.getLine(row + 1)?.isWrapped);
    if (line.isWrapped && lines.length > 0) lines[lines.length - 1] += text;
    else lines.push(text);
  }
  return lines.map((line) => line.trimEnd());
}

/** The scrollback's rows as xterm holds them (private: what the compactor changes), through xtermInternals.ts. */
function privateRows(t: headless.Terminal, store: RowStore): XtermRow[] {
  return [...Array(t.buffer.normal.baseY).keys()].map((row) => store.row(row)!);
}
