import xtermHeadless from '@xterm/headless';
import type { Terminal as HeadlessTerminal } from '@xterm/headless';
import { CommandTracker, type TrackedCommand } from './commandTracker.js';
import { readLines } from './bufferText.js';
import { EventEmitter, type Event } from './event.js';
import type { OutputLines } from './outputWindow.js';

const { Terminal } = xtermHeadless;

export interface EmulatorOptions {
  cols: number;
  rows: number;
  scrollback: number;
  nonce: string;
  /** Head lines kept per command, beyond the scrollback. */
  headLines: number;
}

/**
 * The session's `@xterm/headless` mirror and its command tracker: the single source of truth
 * for what the screen shows (DESIGN §2). Everything the rest of the core asks of it goes
 * through this class, so it can move into a worker thread without its callers changing.
 */
export class Emulator {
  private readonly terminal: HeadlessTerminal;
  readonly tracker: CommandTracker;
  /** Characters written but not yet parsed: the emulator's backlog, for flow control. */
  private pending = 0;
  private bytesParsed = 0;
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
      byteOffset: () => this.bytesParsed,
    });
    this.terminal.loadAddon(this.tracker);
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

  /** Feeds decoded output; `byteEnd` is the transcript offset just after this chunk. */
  write(data: string, byteEnd: number): void {
    if (this.disposed) return;
    this.pending += data.length;
    this.terminal.write(data, () => {
      this.pending -= data.length;
      this.bytesParsed = byteEnd;
      this.onDidParseEmitter.fire(this.pending);
      if (this.pending === 0) this.releaseParsedWaiters();
    });
  }

  /** Resolves once everything written so far has been parsed. */
  whenParsed(): Promise<void> {
    if (this.pending === 0 || this.disposed) return Promise.resolve();
    return new Promise((resolve) => this.parsedWaiters.push(resolve));
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

  /** The visible screen, one string per row, trailing blanks trimmed. */
  screenLines(): string[] {
    const buffer = this.terminal.buffer.active;
    const lines: string[] = [];
    for (let row = 0; row < this.terminal.rows; row++) {
      lines.push(buffer.getLine(buffer.baseY + row)?.translateToString(true) ?? '');
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
