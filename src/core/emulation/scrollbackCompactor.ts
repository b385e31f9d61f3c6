import type { IBuffer, IBufferCell, IBufferLine, Terminal as HeadlessTerminal } from '@xterm/headless';
import type { Disposable } from '../event.js';
import {
  BLANK_CELL_CONTENT,
  CELL_WORDS,
  cells,
  cleanupRowMemory,
  isWrapped,
  ownMaps,
  rowLength,
  rowStore,
  setCells,
  shareEmptyMaps,
  type RowStore,
  type XtermRow,
} from './xtermInternals.js';

/**
 * Rows of the scrollback give back the blank cells at their end.
 *
 * xterm keeps every row as `cols` cells of 12 bytes, in a typed array of its own: at 120
 * columns, 1 440 bytes plus the bookkeeping (backing store, `ArrayBuffer`, view), whatever
 * the row holds. Most output is far narrower than the terminal (`seq` prints 6 columns, source
 * code averages ~40), so most of a full scrollback is blank cells. Once a row has scrolled off
 * the screen nothing writes to it again (the cursor never leaves the screen), so as it enters
 * the scrollback its trailing default cells go, and what is left is copied into a shared slab
 * (one `ArrayBuffer` for many rows, instead of a backing store per row). A row full to its last
 * column moves too (it saves the backing store), and a row without combining characters or
 * extended attributes gives up its two empty maps for one shared by all (`shareEmptyMaps`).
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
 * It works on xterm's private row store, through xtermInternals.ts; `enabled` is false when
 * that does not look as expected (another xterm version), and nothing is compacted.
 */
export class ScrollbackCompactor implements Disposable {
  private readonly rows: RowStore | undefined;
  private readonly listeners: Disposable[] = [];
  private slab = new Uint32Array(0);
  /** Every slab's buffer, to tell slab rows from xterm's own (also views, after a narrowing resize). */
  private readonly slabs = new WeakSet<ArrayBufferLike>();
  private slabUsed = 0;

  constructor(private readonly terminal: HeadlessTerminal) {
    this.rows = rowStore(terminal);
    if (!this.rows) return;
    // Fires once per row scrolled (xterm's BufferService.scroll), after the row moved up.
    this.listeners.push(terminal.onScroll(() => this.rowScrolled()));
  }

  get enabled(): boolean {
    return this.rows !== undefined;
  }

  /**
   * Gives every compacted row its own full-width array back; call right before
   * `terminal.resize`. Its reflow assumes rows `cols` wide, and `BufferLine.resize` grows a row
   * from the start of its buffer, which for a slab row is another row's.
   */
  beforeResize(): void {
    const rows = this.rows;
    if (!rows) return;
    const cols = this.terminal.cols;
    for (let index = 0; index < rows.rowCount(); index++) release(rows.row(index), cols);
  }

  /** Compacts the rows the resize left in the scrollback; call right after `terminal.resize`. */
  afterResize(): void {
    const rows = this.rows;
    if (!rows) return;
    this.compactScrollback();
    // A resize that left most rows under half their arrays queues xterm's memory cleanup,
    // which copies each such row into an array of its own, and a slab row is always one: it
    // would undo the compaction just done. The scrollback needs no cleanup now; the rest
    // (the screen's rows) is cleaned here instead.
    rows.cancelMemoryCleanup();
    for (let index = 0; index < rows.rowCount(); index++) {
      const row = rows.row(index);
      if (row && !this.slabs.has(cells(row).buffer)) cleanupRowMemory(row);
    }
  }

  dispose(): void {
    for (const listener of this.listeners.splice(0)) listener.dispose();
  }

  /** Every row of the scrollback (rows compacted already find nothing to drop). */
  private compactScrollback(): void {
    const rows = this.rows!;
    for (let index = 0; index < rows.scrollbackLength(); index++) this.compactRow(index);
  }

  /**
   * The row just above the screen entered the scrollback (or, for a scroll inside margins or
   * on the alternate screen, is one already compacted: compacting it again finds nothing).
   */
  private rowScrolled(): void {
    const rows = this.rows!;
    const top = rows.scrollbackLength();
    if (!rows.normalIsActive() || top === 0) return;
    const row = rows.row(top - 1);
    if (!row) return;
    const data = cells(row);
    const cols = this.terminal.cols;
    const moved = this.compactRow(top - 1);
    // xterm recycles the oldest row of a full buffer for the next new one, copying the blank
    // row into it: in place if it has `cols` cells, into a new array if not. Give a compacted
    // oldest row the array just freed instead; past its kept cells that array is blank already.
    const oldest = rows.isFull() ? rows.row(0) : undefined;
    if (moved && oldest && !ownsRow(oldest, cols) && data.length === cols * CELL_WORDS) release(oldest, cols, data, rowLength(row));
  }

  /** Compacts scrollback row `index` of the normal buffer; whether it moved into a slab. */
  private compactRow(index: number): boolean {
    const rows = this.rows!;
    const row = rows.row(index);
    if (!row) return false;
    const data = cells(row);
    const length = rowLength(row);
    let keep = length;
    // A row that wraps onto the next keeps its blanks: they are part of the logical line.
    const next = rows.row(index + 1);
    if (!next || !isWrapped(next)) {
      // The last cell that is not blank (content, foreground, background all default), found
      // without a branch per word: this loop is most of the cost.
      let at = (length - 1) * CELL_WORDS;
      while (at >= 0 && ((data[at]! ^ BLANK_CELL_CONTENT) | data[at + 1]! | data[at + 2]!) === 0) at -= CELL_WORDS;
      keep = Math.min(at / CELL_WORDS + 2, length);
    }
    // A row with nothing to drop moves too: in a slab it costs its cells and a view, without
    // the ArrayBuffer and backing store of its own. A row in a slab already stays where it is,
    // and so does one too wide to share a slab.
    shareEmptyMaps(row);
    if (keep === length && (this.slabs.has(data.buffer) || data.length >= SLAB_WORDS)) return false;
    setCells(row, this.store(data, keep * CELL_WORDS), keep);
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

/**
 * 64 KiB slabs: ~45 compacted rows of 120 columns, or hundreds of short ones. Rows enter and
 * leave the scrollback in order, so a slab is freed once its last row is recycled.
 */
const SLAB_WORDS = 16 * 1024;

/** Whether `data` is a whole array, not a view on a slab (or on a larger array xterm narrowed). */
function ownsArray(data: Uint32Array): boolean {
  return data.byteOffset === 0 && data.byteLength === data.buffer.byteLength;
}

/** Whether `row` is `cols` cells wide in an array of its own, as xterm expects of the rows it writes and resizes. */
function ownsRow(row: XtermRow, cols: number): boolean {
  return rowLength(row) === cols && ownsArray(cells(row));
}

/**
 * Makes a compacted row one xterm may write again: maps of its own, and its own full-width
 * array, its blank cells back: a new array, or `into`, a free full-width array whose cells
 * from `blankFrom` on are blank.
 */
function release(row: XtermRow | undefined, cols: number, into?: Uint32Array, blankFrom = 0): void {
  if (!row) return;
  ownMaps(row);
  const length = rowLength(row);
  if (length > cols || ownsRow(row, cols)) return;
  const data = into ?? new Uint32Array(cols * CELL_WORDS);
  data.set(cells(row));
  const blankTo = into ? Math.max(length, blankFrom) : cols;
  for (let at = length * CELL_WORDS; at < blankTo * CELL_WORDS; at += CELL_WORDS) {
    data[at] = BLANK_CELL_CONTENT;
    data[at + 1] = 0;
    data[at + 2] = 0;
  }
  setCells(row, data, cols);
}
