import type { SerializeAddon as HeadlessSerializeAddon } from '@xterm/addon-serialize';
import type { IMarker, Terminal as HeadlessTerminal } from '@xterm/headless';
import { CommandTracker, type TrackedCommand } from '../shell/commandTracker.js';
import { lastTextLine, readLines } from '../output/bufferText.js';
import { EventEmitter, type Disposable, type Event } from '../event.js';
import { FeedScheduler } from './feedScheduler.js';
import { FloodSignal } from './floodSignal.js';
import type { OutputLines } from '../output/outputWindow.js';
import { paddedRows, ScrollbackCompactor } from './scrollbackCompactor.js';
import type { MouseEncoding, MouseState } from './mouseEncoding.js';
import { mouseEncoding } from './xtermInternals.js';
import type { StyledRow, StyledScreen } from '../types.js';
import { logicalLineStarts, styledLines, styledRow } from './styledScreen.js';
import { cursorHidden } from './xtermInternals.js';

interface Xterm {
  Terminal: typeof HeadlessTerminal;
  SerializeAddon: typeof HeadlessSerializeAddon;
}

let xterm: Xterm | undefined;
let xtermLoading: Promise<Xterm> | undefined;

/**
 * Loads `@xterm/headless` and its serialize addon, once. They are the largest code the core
 * holds, and a hub without sessions never needs them: the first emulator loads them
 * (`Emulator.create`, or `loadEmulator()` ahead of time).
 */
export function loadEmulator(): Promise<void> {
  xtermLoading ??= Promise.all([import('@xterm/headless'), import('@xterm/addon-serialize')]).then(([headless, serialize]) => {
    xterm = { Terminal: headless.default.Terminal, SerializeAddon: serialize.default.SerializeAddon };
    return xterm;
  });
  return xtermLoading.then(() => undefined);
}

/** A point in the output (a tracked row and a column), for "what appeared since". */
export interface OutputPosition {
  marker: IMarker | undefined;
  col: number;
  alternate: boolean;
}

export interface EmulatorOptions {
  cols: number;
  rows: number;
  scrollback: number;
  nonce: string;
  /** Head lines kept per command, beyond the scrollback. */
  headLines: number;
  /** Keep head lines from this line index on (replays). */
  headFrom?: number;
  /** Skip parsing flood output that scrolls out anyway (fastForward.ts); off for replays. Default on. */
  fastForward?: boolean;
  /** Says whether the output floods (tests: one on a clock of their own). Default: a new FloodSignal. */
  flood?: FloodSignal;
  /**
   * During a flood, the rows a skip keeps are parsed at least this often (ms), so the screen is
   * brought up to date; in between they wait for the next batch (feedScheduler.ts,
   * `deferKeptRows`). Default 500.
   */
  floodScreenRefreshMs?: number;
  /**
   * Compact rows entering the scrollback (scrollbackCompactor.ts). Default on; off for scratch
   * emulators read once and dropped (replays), where it would only cost time.
   */
  compactScrollback?: boolean;
}

/**
 * The session's `@xterm/headless` mirror and its command tracker: the single source of truth
 * for what the screen shows (docs/design.md §2.4). It answers every question about the screen
 * (lines, cursor, modes, serialized snapshots, a command's output, positions in the output);
 * when and how the output's bytes reach xterm is its FeedScheduler's (feedScheduler.ts).
 * Everything the rest of the core asks of the screen goes through this class, so it can move
 * into a worker thread without its callers changing.
 */
export class Emulator {
  private readonly terminal: HeadlessTerminal;
  private readonly serializer: HeadlessSerializeAddon;
  /** Scrollback rows drop their blank cells (most of a full scrollback's memory). */
  private readonly compactor: ScrollbackCompactor | undefined;
  readonly tracker: CommandTracker;
  /** Whether the output floods (floodSignal.ts): fed and read by the feed scheduler. */
  readonly flood: FloodSignal;
  /** Decides when the output reaches xterm: holds it, batches and fast-forwards floods. */
  private readonly feeder: FeedScheduler;
  private disposed = false;

  /** Fires with the backlog (in bytes) each time a written chunk has been parsed. */
  readonly onDidParse: Event<number>;
  private readonly onDidChangeTitleEmitter = new EventEmitter<string>();
  readonly onDidChangeTitle: Event<string> = this.onDidChangeTitleEmitter.event;

  /** An emulator, loading xterm first if no emulator was made before. */
  static async create(options: EmulatorOptions): Promise<Emulator> {
    await loadEmulator();
    return new Emulator(options);
  }

  /** Only once xterm is loaded (`create`, or after `loadEmulator()` resolved). */
  constructor(options: EmulatorOptions) {
    if (!xterm) throw new Error('Emulator: xterm is not loaded yet; use Emulator.create or await loadEmulator() first.');
    this.serializer = new xterm.SerializeAddon();
    this.terminal = new xterm.Terminal({
      cols: options.cols,
      rows: options.rows,
      scrollback: options.scrollback,
      allowProposedApi: true,
    });
    this.compactor = (options.compactScrollback ?? true) ? new ScrollbackCompactor(this.terminal) : undefined;
    // A mark is located in the transcript by the output xterm parses it from.
    this.tracker = new CommandTracker({
      nonce: options.nonce,
      headLines: options.headLines,
      headFrom: options.headFrom,
      chunkStart: () => this.feeder.parsingStart,
      chunkEnd: () => this.feeder.parsingEnd,
    });
    this.flood = options.flood ?? new FloodSignal();
    this.feeder = new FeedScheduler({
      terminal: this.terminal,
      tracker: this.tracker,
      flood: this.flood,
      fastForward: (options.fastForward ?? true) && options.headFrom === undefined,
      floodScreenRefreshMs: options.floodScreenRefreshMs,
    });
    this.onDidParse = this.feeder.onDidParse;
    this.terminal.loadAddon(this.tracker);
    // Not loadAddon: the serializer reads compacted rows whole (scrollbackCompactor.ts). Its
    // typings name the browser's Terminal; it reads only what the headless one has too.
    this.serializer.activate(paddedRows(this.terminal) as unknown as Parameters<HeadlessSerializeAddon['activate']>[0]);
    this.terminal.onTitleChange((title) => this.onDidChangeTitleEmitter.fire(title));
  }

  /** Bytes fast-forwarded rather than parsed so far (fastForward.ts), for tests. */
  get skippedBytes(): number {
    return this.feeder.skippedBytes;
  }

  /** Bytes written but not yet parsed (or skipped), for flow control (docs/design.md §5.4). */
  get backlog(): number {
    return this.feeder.backlog;
  }

  get bracketedPasteMode(): boolean {
    return this.terminal.modes.bracketedPasteMode;
  }

  get cols(): number {
    return this.terminal.cols;
  }

  get rows(): number {
    return this.terminal.rows;
  }

  /**
   * Feeds output: the raw bytes of transcript range [byteStart, byteEnd) as the PTY gave them
   * (a string is taken as its UTF-8 bytes). A character split across chunks stays whole; bytes
   * that are not UTF-8 show as U+FFFD.
   */
  write(data: Uint8Array | string, byteStart: number, byteEnd: number): void {
    this.feeder.write(data, byteStart, byteEnd);
  }

  /** The output ended at transcript offset `byteEnd`: a character left incomplete shows as U+FFFD. */
  end(byteEnd: number): void {
    this.feeder.end(byteEnd);
  }

  /** Resolves once everything written so far has been parsed. */
  whenParsed(): Promise<void> {
    return this.feeder.whenParsed();
  }

  /**
   * The serialized terminal once everything written before this call has been parsed, taken in
   * the parser's own callback: xterm parses writes in order and may go on with later ones before
   * any promise continuation runs, so serializing later could include newer output. Unlike
   * whenParsed, an endless flood cannot starve it.
   */
  serializeWhenParsed(scrollback?: number): Promise<string> {
    if (this.disposed || this.feeder.backlog === 0) return Promise.resolve(this.serialize(scrollback));
    return new Promise((resolve) => this.feeder.afterParsed(() => resolve(this.serialize(scrollback))));
  }

  resize(cols: number, rows: number): void {
    if (cols === this.terminal.cols && rows === this.terminal.rows) return;
    this.compactor?.beforeResize();
    this.terminal.resize(cols, rows);
    this.compactor?.afterResize();
  }

  /** Whether scrollback rows are compacted (false if off or xterm's internals changed), for tests. */
  get compactsScrollback(): boolean {
    return this.compactor?.enabled ?? false;
  }

  /** The output of a command (running or finished) as the screen renders it. */
  commandOutput(command: TrackedCommand): OutputLines {
    const buffer = this.terminal.buffer.active;
    const endRow = command.end ? (command.end.marker?.line ?? -1) : buffer.baseY + buffer.cursorY;
    const startRow = command.start.marker?.line ?? -1;
    if (startRow >= 0 && endRow >= startRow) {
      const lines = readLines(buffer, startRow, command.start.col, endRow, command.endRowText ?? undefined);
      return { head: lines, tail: [], total: lines.length, complete: true };
    }
    // The start has left the scrollback: the head was kept as it streamed, the tail is on screen.
    const endText = command.endRowText ?? (endRow >= 0 ? buffer.getLine(endRow)?.translateToString(true) : '') ?? '';
    const tail = endRow >= 0 ? readLines(buffer, 0, 0, endRow, endText) : [];
    const endsWithPartialLine = endText.length > 0;
    const total = Math.max(command.lineFeeds + (endsWithPartialLine ? 1 : 0), command.headLines.length);
    return { head: command.headLines, tail, total, complete: false };
  }

  get isAlternateScreen(): boolean {
    return this.terminal.buffer.active.type === 'alternate';
  }

  get modes(): { applicationCursorKeys: boolean; bracketedPaste: boolean } {
    const modes = this.terminal.modes;
    return { applicationCursorKeys: modes.applicationCursorKeysMode, bracketedPaste: modes.bracketedPasteMode };
  }

  /**
   * What a mouse report depends on (docs/design.md §3.3), once everything received before this
   * call has been parsed (the program may have just turned reporting on). Like
   * serializeWhenParsed, an endless flood cannot starve it.
   */
  mouseWhenParsed(): Promise<MouseState> {
    if (this.disposed || this.feeder.backlog === 0) return Promise.resolve(this.mouseState());
    return new Promise((resolve) => this.feeder.afterParsed(() => resolve(this.mouseState())));
  }

  private mouseState(): MouseState {
    const encoding = mouseEncoding(this.terminal);
    return {
      tracking: this.terminal.modes.mouseTrackingMode,
      encoding: encoding === 'DEFAULT' || encoding === 'SGR' || encoding === 'SGR_PIXELS' ? (encoding as MouseEncoding) : undefined,
      alternate: this.isAlternateScreen,
      applicationCursorKeys: this.terminal.modes.applicationCursorKeysMode,
      rows: this.terminal.rows,
      cols: this.terminal.cols,
    };
  }

  /** The cursor on the visible screen (0-based). */
  get cursor(): { row: number; col: number } {
    const buffer = this.terminal.buffer.active;
    return { row: buffer.cursorY, col: buffer.cursorX };
  }

  /** Where the output stands now; dispose the marker when done with it. */
  position(): OutputPosition {
    return { marker: this.terminal.registerMarker(0), col: this.terminal.buffer.active.cursorX, alternate: this.isAlternateScreen };
  }

  /**
   * Lines from `from` to the cursor. `complete` is false when the start left the scrollback
   * (or the screen switched buffers): the lines are then what is still there.
   */
  linesSince(from: OutputPosition, maxRows = Number.POSITIVE_INFINITY): { lines: string[]; complete: boolean } {
    const buffer = this.terminal.buffer.active;
    const endRow = buffer.baseY + buffer.cursorY;
    if (from.alternate !== this.isAlternateScreen) return { lines: this.screenLines(), complete: false };
    const startRow = from.marker?.line ?? -1;
    const floor = Math.max(0, endRow - maxRows + 1);
    if (startRow < floor) return { lines: readLines(buffer, floor, 0, endRow), complete: false };
    return { lines: readLines(buffer, startRow, from.col, endRow), complete: true };
  }

  /** Every logical line of the normal buffer (scrollback + screen), for `read history`. */
  historyLines(): string[] {
    return readLines(this.terminal.buffer.normal, 0, 0, this.lastHistoryRow());
  }

  /** The normal buffer's last row with text (0 when none has). */
  private lastHistoryRow(): number {
    const buffer = this.terminal.buffer.normal;
    let last = buffer.length - 1;
    while (last > 0 && (buffer.getLine(last)?.translateToString(true) ?? '') === '') last--;
    return last;
  }

  /**
   * The normal buffer holds as many rows as its scrollback allows: its oldest rows are being
   * dropped, so `historyLines()` no longer starts at the session's first line.
   */
  get historyTrimmed(): boolean {
    return this.terminal.buffer.normal.length >= this.terminal.rows + (this.terminal.options.scrollback ?? 0);
  }

  /**
   * Calls `listener` with each row of the normal buffer as it enters the scrollback (untrimmed
   * text, and whether it continues the row above). A row there never changes again, so a replay
   * can keep every line of a long history as text instead of as cells. Rows are seen only while
   * the buffer is not full: call `dropScrollback()` between writes (replay.ts does).
   */
  onScrollbackRow(listener: (text: string, wrapped: boolean) => void): Disposable {
    const normal = this.terminal.buffer.normal;
    let seen = normal.baseY;
    return this.terminal.onScroll(() => {
      const base = normal.baseY;
      // The scrollback was erased (ED 3 leaves baseY at 0, and may not fire onScroll itself):
      // every row above the screen now came after it.
      if (base < seen) seen = 0;
      for (; seen < base; seen++) {
        const line = normal.getLine(seen);
        listener(line?.translateToString(false) ?? '', line?.isWrapped ?? false);
      }
    });
  }

  /**
   * Erases the normal buffer's scrollback (ED 3), the screen untouched: rows `onScrollbackRow`
   * already reported need not be held. Call it once everything written is parsed
   * (`whenParsed()`): it goes to xterm directly, not behind output the feed scheduler still holds.
   */
  dropScrollback(): void {
    if (this.terminal.buffer.active.type === 'normal' && this.terminal.buffer.normal.baseY > 0) this.terminal.write('\x1b[3J');
  }

  /** The rows of the normal buffer's screen down to the last one with text: untrimmed text, and whether each continues the row above. */
  screenRows(): { text: string; wrapped: boolean }[] {
    const normal = this.terminal.buffer.normal;
    let last = normal.length - 1;
    while (last > normal.baseY && (normal.getLine(last)?.translateToString(true) ?? '') === '') last--;
    const rows: { text: string; wrapped: boolean }[] = [];
    for (let row = normal.baseY; row <= last; row++) {
      const line = normal.getLine(row);
      rows.push({ text: line?.translateToString(false) ?? '', wrapped: line?.isWrapped ?? false });
    }
    return rows;
  }

  /** The visible screen as style runs, with the cursor (`format: styled`; the screenshot). */
  styledScreen(): StyledScreen {
    const buffer = this.terminal.buffer.active;
    const cell = buffer.getNullCell();
    const rows: StyledRow[] = [];
    for (let row = 0; row < this.terminal.rows; row++) rows.push(styledRow(buffer, buffer.baseY + row, cell));
    return {
      rows,
      cols: this.terminal.cols,
      height: this.terminal.rows,
      cursor: { row: buffer.cursorY, col: buffer.cursorX, visible: !cursorHidden(this.terminal) },
    };
  }

  /** Lines [from, to) of `historyLines()` as style runs. */
  styledHistory(from: number, to: number): StyledRow[] {
    const buffer = this.terminal.buffer.normal;
    const last = this.lastHistoryRow();
    const starts = logicalLineStarts(buffer, last);
    if (from >= Math.min(to, starts.length)) return [];
    const endRow = to < starts.length ? starts[to]! - 1 : last;
    return styledLines(buffer, starts[from]!, 0, endRow);
  }

  /** `linesSince` as style runs. */
  styledSince(from: OutputPosition): { rows: StyledRow[]; complete: boolean } {
    const buffer = this.terminal.buffer.active;
    const endRow = buffer.baseY + buffer.cursorY;
    if (from.alternate !== this.isAlternateScreen) return { rows: this.styledScreen().rows, complete: false };
    const startRow = from.marker?.line ?? -1;
    if (startRow < 0) return { rows: styledLines(buffer, 0, 0, endRow), complete: false };
    return { rows: styledLines(buffer, startRow, from.col, endRow), complete: true };
  }

  /** A command's output as style runs while the buffer still holds all of it, else null. */
  styledCommandOutput(command: TrackedCommand): StyledRow[] | null {
    const buffer = this.terminal.buffer.active;
    const endRow = command.end ? (command.end.marker?.line ?? -1) : buffer.baseY + buffer.cursorY;
    const startRow = command.start.marker?.line ?? -1;
    if (startRow < 0 || endRow < startRow) return null;
    // Finished: its last row ends at the D mark, before the prompt drawn after it.
    return styledLines(buffer, startRow, command.start.col, endRow, command.end ? command.end.col : undefined);
  }

  /** The screen with colours and cursor as escape sequences (`format: ansi`). */
  serializeScreen(): string {
    return this.serializer.serialize({ scrollback: 0 });
  }

  /** Scrollback (all of it, or its last `scrollback` rows) and screen as escape sequences, to hydrate a viewer. */
  serialize(scrollback?: number): string {
    return this.serializer.serialize(scrollback === undefined ? undefined : { scrollback });
  }

  /** The visible screen, one string per row, trailing blanks trimmed. */
  screenLines(): string[] {
    const buffer = this.terminal.buffer.active;
    const lines: string[] = [];
    for (let row = 0; row < this.terminal.rows; row++) {
      lines.push((buffer.getLine(buffer.baseY + row)?.translateToString(true) ?? '').trimEnd());
    }
    return lines;
  }

  /**
   * The last line with text of the output since `from` (a command's start), else of the screen,
   * cut to `maxChars`: what a progress message quotes. Reads a few rows, never the whole screen
   * (bufferText.ts `lastTextLine`); a full-screen program's is its lowest row with text.
   */
  lastTextLine(maxChars: number, from?: { marker: IMarker | undefined; col: number }): string {
    const buffer = this.terminal.buffer.active;
    const rows = this.terminal.rows;
    if (this.isAlternateScreen) return lastTextLine(buffer, buffer.baseY + rows - 1, buffer.baseY, 0, maxChars, rows);
    const startRow = from?.marker?.line ?? -1;
    // A start that left the scrollback bounds nothing: the scan is bounded anyway.
    const [floorRow, floorCol] = from && startRow >= 0 ? [startRow, from.col] : [0, 0];
    return lastTextLine(buffer, buffer.baseY + buffer.cursorY, floorRow, floorCol, maxChars, rows);
  }

  /** The last non-empty rows of the screen, for results that show "where it stopped". */
  lastScreenLines(count: number): string[] {
    const lines = this.screenLines();
    while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    return lines.slice(-count);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    // First: a snapshot still waiting for the parse is taken while the terminal is there.
    this.feeder.dispose();
    this.tracker.dispose();
    this.compactor?.dispose();
    this.serializer.dispose();
    this.terminal.dispose();
    this.onDidChangeTitleEmitter.dispose();
    this.flood.dispose();
  }
}
