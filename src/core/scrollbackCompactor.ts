import type { IBuffer, IBufferCell, IBufferLine, Terminal as HeadlessTerminal } from '@xterm/headless';
import type { Disposable } from './event.js';

/**
 * Rows of the scrollback give back the blank cells at their end.
 *
 * xterm keeps every row as `cols` cells of 12 bytes, in a typed array of its own: at 120
 * columns, 1 440 bytes plus ~520 of bookkeeping (backing store, `ArrayBuffer`, view), whatever
 * the row holds. Most output is far narrower than the terminal (`seq` prints 6 columns, source
 * code averages ~40), so most of a full scrollback is blank cells. Once a row has scrolled off
 * the screen nothing writes to it again (the cursor never leaves the screen), so as it enters
 * the scrollback its trailing default cells go, and what is left is copied into a shared slab
 * (one `ArrayBuffer` for many rows, instead of a backing store per row). A row full to its last
 * column moves too (it saves the backing store), and a row without combining characters or
 * extended attributes gives up its two empty maps for one shared by all (`SHARED_EMPTY`).
 *
 * Only cells that are exactly xterm's blank (no character, width 1, default colours and
 * attributes) are dropped, and one is kept to stand for them, so nothing is lost: a row's
 * cells, its text and its serialization stay the same. A row that wraps onto the next keeps
 * all its cells (its blanks are part of the logical line that `readLines` joins).
 *
 * Per row this costs a scan, a small copy and a view, and no backing store: the row's
 * full-width array goes to the oldest row of a full scrollback, which xterm recycles for the
 * next new row (and would otherwise reallocate, its length having changed). It needs no pause
 * during a flood: fast-forward (fastForward.ts) keeps most of a flood's rows from being parsed
 * at all, so the rows that scroll are few.
 *
 * Two readers need the blank cells back. xterm's resize assumes every row is `cols` wide (and
 * would grow a row over its slab neighbours), so `Emulator.resize` widens the rows first
 * (`beforeResize`) and compacts them again after (`afterResize`, which also stops xterm's
 * memory cleanup from copying them out of their slabs). The serializer counts a
 * row's trailing blanks to erase them in the right colour (a viewer's new rows take the colour
 * in effect, BCE), so it reads the terminal through `paddedRows`, where a compacted row reads
 * `cols` wide again.
 *
 * This reaches into xterm's private row store (`_core`, `BufferLine._data`, `_combined`,
 * `_extendedAttrs`); `enabled` is
 * false when it does not look as expected (another xterm version), and nothing is compacted.
 */
export class ScrollbackCompactor implements Disposable {
  private readonly buffers: CoreBuffers | undefined;
  private readonly listeners: Disposable[] = [];
  private slab = new Uint32Array(0);
  /** Every slab's buffer, to tell slab rows from xterm's own (also views, after a narrowing resize). */
  private readonly slabs = new WeakSet<ArrayBufferLike>();
  private slabUsed = 0;

  constructor(private readonly terminal: HeadlessTerminal) {
    this.buffers = coreBuffers(terminal);
    if (!this.buffers) return;
    // Fires once per row scrolled (xterm's BufferService.scroll), after the row moved up.
    this.listeners.push(terminal.onScroll(() => this.rowScrolled()));
  }

  get enabled(): boolean {
    return this.buffers !== undefined;
  }

  /**
   * Gives every compacted row its own full-width array back; call right before
   * `terminal.resize`. Its reflow assumes rows `cols` wide, and `BufferLine.resize` grows a row
   * from the start of its buffer, which for a slab row is another row's.
   */
  beforeResize(): void {
    const normal = this.buffers?.normal;
    if (!normal) return;
    const cols = this.terminal.cols;
    for (let row = 0; row < normal.lines.length; row++) release(normal.lines.get(row), cols);
  }

  /** Compacts the rows the resize left in the scrollback; call right after `terminal.resize`. */
  afterResize(): void {
    if (!this.buffers) return;
    this.compactScrollback();
    // A resize that left most rows under half their arrays queues xterm's memory cleanup,
    // which copies each such row into an array of its own, and a slab row is always one: it
    // would undo the compaction just done. The scrollback needs no cleanup now; the rest
    // (the screen's rows) is cleaned here instead.
    const normal = this.buffers.normal;
    normal._memoryCleanupQueue?.clear();
    for (let row = 0; row < normal.lines.length; row++) {
      const line = normal.lines.get(row);
      if (line && !this.slabs.has(line._data.buffer)) line.cleanupMemory?.();
    }
  }

  dispose(): void {
    for (const listener of this.listeners.splice(0)) listener.dispose();
  }

  /** Every row of the scrollback (rows compacted already find nothing to drop). */
  private compactScrollback(): void {
    const normal = this.buffers!.normal;
    for (let row = 0; row < normal.ybase; row++) this.compactRow(row);
  }

  /**
   * The row just above the screen entered the scrollback (or, for a scroll inside margins or
   * on the alternate screen, is one already compacted: compacting it again finds nothing).
   */
  private rowScrolled(): void {
    const buffers = this.buffers!;
    const normal = buffers.normal;
    if (buffers.active !== normal || normal.ybase === 0) return;
    const row = normal.lines.get(normal.ybase - 1);
    const data = row?._data;
    const cols = this.terminal.cols;
    const moved = this.compactRow(normal.ybase - 1);
    // xterm recycles the oldest row of a full buffer for the next new one, copying the blank
    // row into it: in place if it has `cols` cells, into a new array if not. Give a compacted
    // oldest row the array just freed instead; past its kept cells that array is blank already.
    const oldest = normal.lines.isFull ? normal.lines.get(0) : undefined;
    if (moved && oldest && !ownsRow(oldest, cols) && data?.length === cols * CELL_SIZE) release(oldest, cols, data, row!.length);
  }

  /** Compacts scrollback row `index` of the normal buffer; whether it moved into a slab. */
  private compactRow(index: number): boolean {
    const lines = this.buffers!.normal.lines;
    const row = lines.get(index);
    if (!row) return false;
    const data = row._data;
    let keep = row.length;
    // A row that wraps onto the next keeps its blanks: they are part of the logical line.
    if (!lines.get(index + 1)?.isWrapped) {
      // The last cell that is not blank (content, foreground, background all default); without
      // branches per word this runs ~2x faster, and it is most of the cost.
      let at = (row.length - 1) * CELL_SIZE;
      while (at >= 0 && ((data[at]! ^ BLANK_CONTENT) | data[at + 1]! | data[at + 2]!) === 0) at -= CELL_SIZE;
      keep = Math.min(at / CELL_SIZE + 2, row.length);
    }
    // A row with nothing to drop moves too: in a slab it costs its cells and a view, without
    // the ~200 bytes of its own `ArrayBuffer` and backing store (a tenth of a full 120-column
    // row). A row in a slab already stays where it is, and so does one too wide to share a slab.
    shareEmptyMaps(row);
    if (keep === row.length && (this.slabs.has(data.buffer) || data.length >= SLAB_WORDS)) return false;
    row._data = this.store(data, keep * CELL_SIZE);
    row.length = keep;
    return true;
  }

  /** A copy of the first `words` of `data` in the current slab (a new slab when it is full). */
  private store(data: Uint32Array, words: number): Uint32Array {
    if (this.slabUsed + words > this.slab.length) {
      this.slab = new Uint32Array(Math.max(SLAB_WORDS, words));
      this.slabs.add(this.slab.buffer);
      this.slabUsed = 0;
    }
    const view = this.slab.subarray(this.slabUsed, this.slabUsed + words);
    // A loop beats set() (and the subarray it needs) for the short rows that are most rows.
    if (words <= 64) for (let i = 0; i < words; i++) view[i] = data[i]!;
    else view.set(data.subarray(0, words));
    this.slabUsed += words;
    return view;
  }
}

/**
 * The terminal with each compacted row of its normal buffer reading `cols` wide again (the
 * blank it kept stands for the ones dropped), for readers that count trailing blanks: the
 * serializer. Everything else is the terminal itself.
 */
export function paddedRows(terminal: HeadlessTerminal): HeadlessTerminal {
  const padded = (buffer: IBuffer): IBuffer =>
    new Proxy(buffer, {
      get: (target, property) => (property === 'getLine' ? (y: number) => padRow(target.getLine(y), terminal.cols) : Reflect.get(target, property)),
    });
  const buffers = {
    get active(): IBuffer {
      return terminal.buffer.active.type === 'normal' ? padded(terminal.buffer.normal) : terminal.buffer.active;
    },
    get normal(): IBuffer {
      return padded(terminal.buffer.normal);
    },
    get alternate(): IBuffer {
      return terminal.buffer.alternate;
    },
    onBufferChange: terminal.buffer.onBufferChange,
  };
  return new Proxy(terminal, {
    get: (target, property) => {
      if (property === 'buffer') return buffers;
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

function padRow(line: IBufferLine | undefined, cols: number): IBufferLine | undefined {
  if (!line || line.length >= cols || line.length === 0) return line;
  const last = line.length - 1;
  return {
    isWrapped: line.isWrapped,
    length: cols,
    getCell: (x: number, cell?: IBufferCell) => (x < 0 || x >= cols ? undefined : line.getCell(Math.min(x, last), cell)),
    translateToString: (trimRight?: boolean, startColumn = 0, endColumn = cols) => {
      const text = line.translateToString(trimRight, startColumn, Math.min(endColumn, line.length));
      return trimRight ? text : text + ' '.repeat(Math.max(0, Math.min(endColumn, cols) - Math.max(startColumn, line.length)));
    },
  };
}

/** The part of xterm's `BufferLine` this touches (private in xterm 6). */
interface Row {
  _data: Uint32Array;
  length: number;
  isWrapped: boolean;
  /** Combining sequences and extended attributes (underline style, link) by column, read only for cells flagged to have one. */
  _combined: Record<number, string>;
  _extendedAttrs: Record<number, unknown>;
  /** Copies the cells into an array of their own if the row's is under half used (xterm's cleanup, per row). */
  cleanupMemory?(): number;
}

/**
 * The one empty map every scrollback row without combining characters or extended attributes
 * holds instead of two of its own (~110 bytes a row, as much as a short row's cells). xterm
 * reads a row's maps only for cells flagged to have an entry, and writes them only when it
 * writes the row, which it does to a scrollback row only in a resize (`beforeResize` gives
 * rows maps of their own again first) or when recycling it (its `copyFrom` assigns new maps).
 * Not frozen: a write would then throw inside xterm's parser.
 */
const SHARED_EMPTY: Record<number, never> = {};

function shareEmptyMaps(row: Row): void {
  if (row._combined !== SHARED_EMPTY && isEmpty(row._combined)) row._combined = SHARED_EMPTY;
  if (row._extendedAttrs !== SHARED_EMPTY && isEmpty(row._extendedAttrs)) row._extendedAttrs = SHARED_EMPTY;
}

function isEmpty(map: object): boolean {
  for (const _ in map) return false;
  return true;
}

interface CoreBuffers {
  active: unknown;
  normal: {
    ybase: number;
    lines: { readonly length: number; readonly isFull: boolean; get(index: number): Row | undefined };
    /** The idle-time queue of the memory cleanup xterm schedules after a narrowing resize. */
    _memoryCleanupQueue?: { clear(): void };
  };
}

/** Three 32-bit words per cell: content (code point | width << 22), foreground, background. */
const CELL_SIZE = 3;
/** xterm's blank cell: no character, width 1; its colours are 0 (the defaults). */
const BLANK_CONTENT = 1 << 22;
/**
 * 64 KiB slabs: ~45 compacted rows of 120 columns, or hundreds of short ones. Rows enter and
 * leave the scrollback in order, so a slab is freed once its last row is recycled.
 */
const SLAB_WORDS = 16 * 1024;

/** The buffers of xterm's core, if their rows look like the ones this was written for. */
function coreBuffers(terminal: HeadlessTerminal): CoreBuffers | undefined {
  const buffers = (terminal as unknown as { _core?: { buffers?: CoreBuffers } })._core?.buffers;
  const lines = buffers?.normal?.lines;
  const row = lines?.get(0);
  if (!buffers || typeof buffers.normal.ybase !== 'number' || typeof lines?.isFull !== 'boolean' || !row) return undefined;
  const looksRight =
    row._data instanceof Uint32Array &&
    row.length === terminal.cols &&
    row._data.length === row.length * CELL_SIZE &&
    row._data[0] === BLANK_CONTENT &&
    typeof row._combined === 'object' &&
    typeof row._extendedAttrs === 'object';
  return looksRight ? buffers : undefined;
}

/** Whether `data` is a whole array, not a view on a slab (or on a larger array xterm narrowed). */
function ownsArray(data: Uint32Array): boolean {
  return data.byteOffset === 0 && data.byteLength === data.buffer.byteLength;
}

/** Whether `row` is `cols` cells wide in an array of its own, as xterm expects of the rows it writes and resizes. */
function ownsRow(row: Row, cols: number): boolean {
  return row.length === cols && ownsArray(row._data);
}

/**
 * Makes a compacted row one xterm may write again: maps of its own, and its own full-width
 * array, its blank cells back: a new array, or `into`, a free full-width array whose cells
 * from `blankFrom` on are blank.
 */
function release(row: Row | undefined, cols: number, into?: Uint32Array, blankFrom = 0): void {
  if (!row) return;
  if (row._combined === SHARED_EMPTY) row._combined = {};
  if (row._extendedAttrs === SHARED_EMPTY) row._extendedAttrs = {};
  if (row.length > cols || ownsRow(row, cols)) return;
  const data = into ?? new Uint32Array(cols * CELL_SIZE);
  data.set(row._data);
  const blankTo = into ? Math.max(row.length, blankFrom) : cols;
  for (let at = row.length * CELL_SIZE; at < blankTo * CELL_SIZE; at += CELL_SIZE) {
    data[at] = BLANK_CONTENT;
    data[at + 1] = 0;
    data[at + 2] = 0;
  }
  row._data = data;
  row.length = cols;
}
