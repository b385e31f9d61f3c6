import type { Terminal } from '@xterm/headless';

/**
 * Everything Switchboard reads or writes of `@xterm/headless` beyond its public API, in one
 * place: the parser's state and the scroll region (emulator.ts: a flood may be fast-forwarded
 * only from a known state), the mouse encoding (mouseEncoding.ts), the rows of the normal buffer
 * (scrollbackCompactor.ts: rows entering the scrollback give back their blank cells), and whether
 * the cursor is hidden (styledScreen's screenshot). Callers get functions, never xterm's
 * objects' fields.
 *
 * package.json pins @xterm/headless to the version this was checked against;
 * test/unit/core/xtermInternals.test.ts fails, naming what changed, when an upgrade changes
 * what is read here. Where a shape is not as expected at run time, `rowStore` returns
 * undefined (nothing is compacted) and the parser's state reads as unknown (nothing is
 * fast-forwarded): a session works as with a bare xterm, only larger or slower.
 */

/** The version these internals were checked against (package.json pins it). */
export const XTERM_HEADLESS_VERSION = '6.0.0';

/** A row of the normal buffer (xterm's private `BufferLine`); read and changed through the functions below. */
export type XtermRow = { readonly __brand: 'XtermRow' };

/** The part of xterm's `BufferLine` used here. */
interface PrivateRow {
  _data: Uint32Array;
  length: number;
  isWrapped: boolean;
  /** Combining sequences and extended attributes (underline style, link) by column, read only for cells flagged to have one. */
  _combined: Record<number, string>;
  _extendedAttrs: Record<number, unknown>;
  /** Copies the cells into an array of their own if the row's is under half used (xterm's cleanup, per row). */
  cleanupMemory?(): number;
}

interface PrivateBuffers {
  active: unknown;
  normal: {
    ybase: number;
    lines: { readonly length: number; readonly isFull: boolean; get(index: number): PrivateRow | undefined };
    /** The idle-time queue of the memory cleanup xterm schedules after a narrowing resize. */
    _memoryCleanupQueue?: { clear(): void; flush(): void };
  };
}

/** xterm's CoreMouseService: the mouse encoding the program turned on, and xterm's own reporting (tests). */
interface PrivateMouseService {
  activeEncoding?: unknown;
  triggerMouseEvent?(event: PrivateMouseEvent): boolean;
}

/** xterm's ICoreMouseEvent: 0-based cell, pixel position, button and action codes (mouseEncoding.ts). */
interface PrivateMouseEvent {
  col: number;
  row: number;
  x: number;
  y: number;
  button: number;
  action: number;
  ctrl: boolean;
  alt: boolean;
  shift: boolean;
}

interface PrivateCore {
  buffers?: PrivateBuffers;
  coreMouseService?: PrivateMouseService;
  /** DECTCEM: whether the program hid the cursor (CSI ? 25 l). */
  coreService?: { isCursorHidden?: unknown };
  /** The active buffer: its scroll region (DECSTBM margins). */
  buffer?: { scrollTop?: unknown; scrollBottom?: unknown };
  _inputHandler?: { _parser?: { currentState?: unknown } };
}

function core(terminal: Terminal): PrivateCore | undefined {
  return (terminal as unknown as { _core?: PrivateCore })._core;
}

const row = (r: XtermRow): PrivateRow => r as unknown as PrivateRow;

/** Three 32-bit words per cell: content (code point | width << 22), foreground, background. */
export const CELL_WORDS = 3;
/** xterm's blank cell's content word: no character, width 1 (its colour words are 0, the defaults). */
export const BLANK_CELL_CONTENT = 1 << 22;
/** xterm's parser between sequences (its EscapeSequenceParser's ParserState.GROUND). */
const PARSER_GROUND = 0;

/** The rows of a terminal's normal buffer. */
export interface RowStore {
  /** Whether the normal buffer is the active one (not the alternate screen). */
  normalIsActive(): boolean;
  /** Rows above the screen: the scrollback's length. */
  scrollbackLength(): number;
  /** Rows held, scrollback and screen. */
  rowCount(): number;
  /** Holds as many rows as it may: the oldest is recycled for the next new row. */
  isFull(): boolean;
  row(index: number): XtermRow | undefined;
  /** Drops the memory cleanup xterm queued after a resize (it copies every row whose array is a view into one of its own). */
  cancelMemoryCleanup(): void;
  /** Runs the memory cleanup xterm queued now rather than when idle (tests). */
  flushMemoryCleanup(): void;
}

/**
 * The normal buffer's rows, or undefined when they do not look like the ones this was written
 * for (another xterm). Call it on a new terminal: its first row is checked to be blank.
 */
export function rowStore(terminal: Terminal): RowStore | undefined {
  const buffers = core(terminal)?.buffers;
  if (!buffers || rowsProblem(terminal, buffers) !== undefined) return undefined;
  // `normal` is read each time: a reset (RIS) gives the terminal a new normal buffer.
  return {
    normalIsActive: () => buffers.active === buffers.normal,
    scrollbackLength: () => buffers.normal.ybase,
    rowCount: () => buffers.normal.lines.length,
    isFull: () => buffers.normal.lines.isFull,
    row: (index) => buffers.normal.lines.get(index) as unknown as XtermRow | undefined,
    cancelMemoryCleanup: () => buffers.normal._memoryCleanupQueue?.clear(),
    flushMemoryCleanup: () => buffers.normal._memoryCleanupQueue?.flush(),
  };
}

/** The row's cells, CELL_WORDS words each (a view, which may be on a buffer shared with other rows). */
export function cells(r: XtermRow): Uint32Array {
  return row(r)._data;
}

/** Cells the row holds (`cols`, unless it was compacted). */
export function rowLength(r: XtermRow): number {
  return row(r).length;
}

/** Gives the row `length` cells, held in `data` (at least `length * CELL_WORDS` words). */
export function setCells(r: XtermRow, data: Uint32Array, length: number): void {
  row(r)._data = data;
  row(r).length = length;
}

/** Whether the row continues the one above it (a soft wrap). */
export function isWrapped(r: XtermRow): boolean {
  return row(r).isWrapped;
}

/**
 * The one empty map rows without combining characters or extended attributes hold instead of
 * two of their own. xterm reads a row's maps only for cells flagged to have an entry, and
 * writes them only when it writes the row, which it does to a scrollback row only in a resize
 * (`ownMaps` first) or when recycling it (its `copyFrom` assigns new maps). Not frozen: a write
 * would then throw inside xterm's parser.
 */
const SHARED_EMPTY: Record<number, never> = {};

/** Empty maps of the row become the shared one. */
export function shareEmptyMaps(r: XtermRow): void {
  const p = row(r);
  if (p._combined !== SHARED_EMPTY && isEmpty(p._combined)) p._combined = SHARED_EMPTY;
  if (p._extendedAttrs !== SHARED_EMPTY && isEmpty(p._extendedAttrs)) p._extendedAttrs = SHARED_EMPTY;
}

/** The row gets maps of its own again, so that xterm may write into them. */
export function ownMaps(r: XtermRow): void {
  const p = row(r);
  if (p._combined === SHARED_EMPTY) p._combined = {};
  if (p._extendedAttrs === SHARED_EMPTY) p._extendedAttrs = {};
}

/** The row's two maps (tests: whether rows share one). */
export function maps(r: XtermRow): [combined: object, extendedAttrs: object] {
  return [row(r)._combined, row(r)._extendedAttrs];
}

/** xterm's own per-row memory cleanup: cells copied into an array of their own if the row's is under half used. */
export function cleanupRowMemory(r: XtermRow): void {
  row(r).cleanupMemory?.();
}

function isEmpty(map: object): boolean {
  for (const _ in map) return false;
  return true;
}

/** Whether xterm's parser is between sequences; false where that cannot be read. */
export function parserIsInGround(terminal: Terminal): boolean {
  return core(terminal)?._inputHandler?._parser?.currentState === PARSER_GROUND;
}

/**
 * The mouse encoding the program turned on (`DEFAULT`, `SGR`, `SGR_PIXELS`, as xterm names
 * them; docs/design.md §3.3); undefined where it cannot be read. Not public: xterm's API has
 * the tracking mode (`modes.mouseTrackingMode`) but not the encoding.
 */
export function mouseEncoding(terminal: Terminal): string | undefined {
  const encoding = core(terminal)?.coreMouseService?.activeEncoding;
  return typeof encoding === 'string' ? encoding : undefined;
}

/**
 * Has xterm's own CoreMouseService report a mouse event (0-based cell, xterm's button and action
 * codes) through the terminal's onData/onBinary, as a browser's mouse would; returns whether the
 * tracking mode reported it. For the test that proves mouseEncoding.ts sends the same bytes.
 */
export function xtermReportsMouseEvent(terminal: Terminal, event: Omit<PrivateMouseEvent, 'x' | 'y'>): boolean {
  const service = core(terminal)?.coreMouseService;
  if (typeof service?.triggerMouseEvent !== 'function') throw new Error('xterm has no _core.coreMouseService.triggerMouseEvent()');
  return service.triggerMouseEvent({ ...event, x: 0, y: 0 });
}

/** Whether the active buffer's scroll region spans the screen (no DECSTBM margins); false where that cannot be read. */
export function scrollRegionIsFullScreen(terminal: Terminal): boolean {
  const buffer = core(terminal)?.buffer;
  return buffer?.scrollTop === 0 && buffer.scrollBottom === terminal.rows - 1;
}

/** Whether the program hid the cursor (DECTCEM, `CSI ? 25 l`); false where that cannot be read. */
export function cursorHidden(terminal: Terminal): boolean {
  return core(terminal)?.coreService?.isCursorHidden === true;
}

/** Why the normal buffer's rows are not as expected, or undefined. Read on a terminal with a blank first row. */
function rowsProblem(terminal: Terminal, buffers: PrivateBuffers | undefined): string | undefined {
  if (!buffers) return '_core.buffers is missing';
  const lines = buffers.normal?.lines;
  if (typeof buffers.normal?.ybase !== 'number') return '_core.buffers.normal.ybase is not a number';
  if (typeof lines?.isFull !== 'boolean' || typeof lines.get !== 'function') return '_core.buffers.normal.lines is not a circular list with isFull and get()';
  const first = lines.get(0);
  if (!first) return 'the normal buffer has no first row';
  if (!(first._data instanceof Uint32Array)) return 'a row (BufferLine) has no _data Uint32Array';
  if (first.length !== terminal.cols) return `a row's length is ${String(first.length)}, not the terminal's ${terminal.cols} columns`;
  if (first._data.length !== first.length * CELL_WORDS)
    return `a row's _data holds ${first._data.length} words for ${first.length} cells, not ${CELL_WORDS} a cell`;
  if (first._data[0] !== BLANK_CELL_CONTENT)
    return `a blank cell's content word is ${String(first._data[0])}, not ${BLANK_CELL_CONTENT} (no character, width 1)`;
  if (typeof first._combined !== 'object' || typeof first._extendedAttrs !== 'object') return 'a row has no _combined and _extendedAttrs maps';
  return undefined;
}

/**
 * What does not look as this module expects (empty when all is as expected), each problem
 * naming the private field: for the test that guards an upgrade. Pass a fresh terminal.
 */
export function shapeProblems(terminal: Terminal): string[] {
  const problems: string[] = [];
  const c = core(terminal);
  if (!c) return ['Terminal._core is missing'];
  const rows = rowsProblem(terminal, c.buffers);
  if (rows) problems.push(rows);
  if (typeof c.buffers?.normal?._memoryCleanupQueue?.clear !== 'function') problems.push('_core.buffers.normal._memoryCleanupQueue.clear() is missing');
  if (typeof c._inputHandler?._parser?.currentState !== 'number') problems.push('_core._inputHandler._parser.currentState is not a number');
  if (typeof c.coreService?.isCursorHidden !== 'boolean') problems.push('_core.coreService.isCursorHidden is not a boolean');
  if (typeof c.buffer?.scrollTop !== 'number' || typeof c.buffer.scrollBottom !== 'number')
    problems.push('_core.buffer.scrollTop/scrollBottom are not numbers');
  if (c.coreMouseService?.activeEncoding !== 'DEFAULT')
    problems.push(`_core.coreMouseService.activeEncoding is ${String(c.coreMouseService?.activeEncoding)}, not 'DEFAULT' on a fresh terminal`);
  if (typeof c.coreMouseService?.triggerMouseEvent !== 'function') problems.push('_core.coreMouseService.triggerMouseEvent() is missing');
  return problems;
}
