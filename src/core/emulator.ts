import serializeAddon from '@xterm/addon-serialize';
import xtermHeadless from '@xterm/headless';
import type { IMarker, Terminal as HeadlessTerminal } from '@xterm/headless';
import { CommandTracker, type TrackedCommand } from './commandTracker.js';
import { readLines } from './bufferText.js';
import { EventEmitter, type Event } from './event.js';
import type { OutputLines } from './outputWindow.js';

const { Terminal } = xtermHeadless;
const { SerializeAddon } = serializeAddon;

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
}

/**
 * The session's `@xterm/headless` mirror and its command tracker: the single source of truth
 * for what the screen shows (DESIGN §2). Everything the rest of the core asks of it goes
 * through this class, so it can move into a worker thread without its callers changing.
 */
export class Emulator {
  private readonly terminal: HeadlessTerminal;
  private readonly serializer = new SerializeAddon();
  readonly tracker: CommandTracker;
  /** Characters written but not yet parsed: the emulator's backlog, for flow control. */
  private pending = 0;
  /**
   * Transcript byte ranges of the chunks written and not yet parsed, oldest first: xterm
   * parses chunks in order, so the head is the chunk a mark is being parsed from.
   */
  private readonly chunkRanges: [start: number, end: number][] = [];
  private parsedWaiters: (() => void)[] = [];
  private disposed = false;

  private readonly onDidParseEmitter = new EventEmitter<number>();
  /** Fires with the backlog (in characters) each time a written chunk has been parsed. */
  readonly onDidParse: Event<number> = this.onDidParseEmitter.event;
  private readonly onDidChangeTitleEmitter = new EventEmitter<string>();
  readonly onDidChangeTitle: Event<string> = this.onDidChangeTitleEmitter.event;

  constructor(options: EmulatorOptions) {
    this.terminal = new Terminal({
      cols: options.cols,
      rows: options.rows,
      scrollback: options.scrollback,
      allowProposedApi: true,
    });
    this.tracker = new CommandTracker({
      nonce: options.nonce,
      headLines: options.headLines,
      headFrom: options.headFrom,
      chunkStart: () => this.chunkRanges[0]?.[0] ?? 0,
      chunkEnd: () => this.chunkRanges[0]?.[1] ?? 0,
    });
    this.terminal.loadAddon(this.tracker);
    this.terminal.loadAddon(this.serializer);
    this.terminal.onTitleChange((title) => this.onDidChangeTitleEmitter.fire(title));
  }

  get backlog(): number {
    return this.pending;
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

  /** Feeds decoded output that came from transcript bytes [byteStart, byteEnd). */
  write(data: string, byteStart: number, byteEnd: number): void {
    if (this.disposed) return;
    // With nothing queued, parse now rather than after xterm's setTimeout (≥ 1 ms in Node):
    // a command's D mark is then seen in the same tick its bytes arrive. xterm parses a write
    // at once when it follows user input; an empty input() is that signal and sends nothing.
    if (this.pending === 0) this.terminal.input('', true);
    this.pending += data.length;
    this.chunkRanges.push([byteStart, byteEnd]);
    this.terminal.write(data, () => {
      this.pending -= data.length;
      this.chunkRanges.shift();
      this.onDidParseEmitter.fire(this.pending);
      if (this.pending === 0) this.releaseParsedWaiters();
    });
  }

  /** Resolves once everything written so far has been parsed. */
  whenParsed(): Promise<void> {
    if (this.pending === 0 || this.disposed) return Promise.resolve();
    return new Promise((resolve) => this.parsedWaiters.push(resolve));
  }

  /**
   * The serialized terminal once everything written before this call has been parsed, taken in
   * the parser's own callback: xterm parses writes in order and may go on with later ones before
   * any promise continuation runs, so serializing later could include newer output. Unlike
   * whenParsed, an endless flood cannot starve it.
   */
  serializeWhenParsed(): Promise<string> {
    if (this.disposed || this.pending === 0) return Promise.resolve(this.serialize());
    return new Promise((resolve) => this.terminal.write('', () => resolve(this.serialize())));
  }

  resize(cols: number, rows: number): void {
    this.terminal.resize(cols, rows);
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
    const buffer = this.terminal.buffer.normal;
    let last = buffer.length - 1;
    while (last > 0 && (buffer.getLine(last)?.translateToString(true) ?? '') === '') last--;
    return readLines(buffer, 0, 0, last);
  }

  /** The screen with colours and cursor as escape sequences (`format: ansi`). */
  serializeScreen(): string {
    return this.serializer.serialize({ scrollback: 0 });
  }

  /** Scrollback and screen as escape sequences, to hydrate a viewer. */
  serialize(): string {
    return this.serializer.serialize();
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

  /** The last non-empty rows of the screen, for results that show "where it stopped". */
  lastScreenLines(count: number): string[] {
    const lines = this.screenLines();
    while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    return lines.slice(-count);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.releaseParsedWaiters();
    this.tracker.dispose();
    this.terminal.dispose();
    this.onDidParseEmitter.dispose();
    this.onDidChangeTitleEmitter.dispose();
  }

  private releaseParsedWaiters(): void {
    for (const resolve of this.parsedWaiters.splice(0)) resolve();
  }
}
