import type { IMarker, Terminal } from '@xterm/headless';
import { EventEmitter, type Event } from '../event.js';
import { readLines, readLogicalLine } from '../output/bufferText.js';
import { OSC_CWD, OSC_FINAL_TERM, OSC_VSCODE, markOptions, unescapeCommandLine } from './marks.js';

/** Where a mark was seen: an absolute buffer line (tracked by a marker) and a column. */
interface MarkPosition {
  marker: IMarker | undefined;
  col: number;
}

/** One command as the terminal saw it, live while it runs. */
export interface TrackedCommand {
  seq: number;
  /** From the shell's E mark, else what the session wrote. */
  commandLine: string;
  cwd: string | null;
  startedAt: number;
  endedAt: number | null;
  exitCode: number | null;
  /** Output starts here (the C mark); moved to the top of the screen by `clear`. */
  start: MarkPosition;
  /** Output ends here (the D mark). */
  end: MarkPosition | null;
  /** The end row's text at the D mark, before the next prompt is drawn on it. */
  endRowText: string | null;
  /** The first logical lines of output, kept as they complete even after they leave the scrollback. */
  headLines: string[];
  /** Logical lines completed by a line feed so far. */
  lineFeeds: number;
  /**
   * Transcript bytes that hold the output: from the start of the chunk holding the C mark to
   * the end of the chunk holding the D mark. Replaying them through a tracker with the same
   * nonce yields exactly the output (see replay.ts).
   */
  startByte: number;
  endByte: number | null;
  /** Ended by the prompt fallback (the shell was back at its prompt without a D mark). */
  byFallback: boolean;
}

export interface CommandTrackerOptions {
  /** The per-session nonce; marks without it are ignored. */
  nonce: string;
  /** How many head lines to keep per command. */
  headLines: number;
  /** Keep head lines from this line index on (replays that page through an output). */
  headFrom?: number;
  /** Transcript offsets of the chunk being parsed (marks are located to the chunk). */
  chunkStart: () => number;
  chunkEnd: () => number;
}

/**
 * Reads shell-integration marks through the parser's OSC hooks (never a regex over the
 * stream) and keeps one record per command. An xterm addon, so the same class can load
 * into the headless mirror or a renderer (docs/conventions.md, xterm.js).
 */
export class CommandTracker {
  private terminal: Terminal | undefined;
  private readonly disposables: { dispose(): void }[] = [];
  private seq = 0;
  private pendingCommandLine: string | null = null;
  /** The pending command line is what the session typed (not the shell's E report). */
  private ownCommandLine = false;
  private current: TrackedCommand | null = null;
  private last: TrackedCommand | null = null;
  private promptReady = false;
  private cwdValue: string | null = null;
  /**
   * Where typed input starts: after the prompt's B mark, then after each continuation
   * prompt's G mark. Read back at C when the shell sent no E (bash).
   */
  private inputStarts: MarkPosition[] = [];

  private readonly onDidStartCommandEmitter = new EventEmitter<TrackedCommand>();
  readonly onDidStartCommand: Event<TrackedCommand> = this.onDidStartCommandEmitter.event;
  private readonly onDidFinishCommandEmitter = new EventEmitter<TrackedCommand>();
  readonly onDidFinishCommand: Event<TrackedCommand> = this.onDidFinishCommandEmitter.event;
  private readonly onDidPromptEmitter = new EventEmitter<void>();
  /** The prompt is fully drawn (B): the shell waits for a command line. */
  readonly onDidPrompt: Event<void> = this.onDidPromptEmitter.event;
  private readonly onDidChangeCwdEmitter = new EventEmitter<string>();
  readonly onDidChangeCwd: Event<string> = this.onDidChangeCwdEmitter.event;
  private readonly onDidRearmEmitter = new EventEmitter<number | null>();
  /** The shell re-installed its integration (R mark), saying the previous command's exit code. */
  readonly onDidRearm: Event<number | null> = this.onDidRearmEmitter.event;

  constructor(private readonly options: CommandTrackerOptions) {}

  get runningCommand(): TrackedCommand | null {
    return this.current;
  }

  get lastCommand(): TrackedCommand | null {
    return this.last;
  }

  get isAtPrompt(): boolean {
    return this.promptReady && this.current === null;
  }

  get cwd(): string | null {
    return this.cwdValue;
  }

  /** The sequence number the next command will get. */
  get nextSeq(): number {
    return this.seq + 1;
  }

  /**
   * Whether line feeds may go uncounted one by one (see fastForward.ts): no command is
   * collecting head lines, and this is no replay paging through an output.
   */
  get canSkipLineFeeds(): boolean {
    if (this.options.headFrom !== undefined) return false;
    return this.current === null || this.current.headLines.length >= this.options.headLines;
  }

  /** Head lines the running command still collects (0: none), after which line feeds may be skipped. */
  get headLinesMissing(): number {
    if (this.options.headFrom !== undefined || this.current === null) return 0;
    return Math.max(0, this.options.headLines - this.current.headLines.length);
  }

  /** Line feeds that were skipped rather than parsed: counted as the parser would have. */
  skipLineFeeds(count: number): void {
    if (this.current) this.current.lineFeeds += count;
  }

  /** The command line the session is about to type (recorded instead of the shell's E mark). */
  expectCommandLine(commandLine: string): void {
    this.pendingCommandLine = commandLine;
    this.ownCommandLine = true;
  }

  activate(terminal: Terminal): void {
    this.terminal = terminal;
    const parser = terminal.parser;
    this.disposables.push(
      parser.registerOscHandler(OSC_FINAL_TERM, (data) => this.handleFinalTerm(data)),
      parser.registerOscHandler(OSC_VSCODE, (data) => this.handleVsCode(data)),
      parser.registerOscHandler(OSC_CWD, (data) => this.handleCwd(data)),
      // `clear` (ED 2/3) while a command runs: its output restarts at the top of the screen.
      parser.registerCsiHandler({ final: 'J' }, (params) => this.handleEraseDisplay(params)),
      terminal.onLineFeed(() => this.handleLineFeed()),
    );
  }

  dispose(): void {
    this.resetInputStarts();
    for (const d of this.disposables.splice(0)) d.dispose();
    this.onDidStartCommandEmitter.dispose();
    this.onDidFinishCommandEmitter.dispose();
    this.onDidPromptEmitter.dispose();
    this.onDidChangeCwdEmitter.dispose();
    this.onDidRearmEmitter.dispose();
  }

  private handleFinalTerm(data: string): boolean {
    const [kind, ...rest] = data.split(';');
    if (kind === 'D') {
      const [exit, ...options] = rest;
      if (markOptions(options).get('nonce') !== this.options.nonce) return true;
      this.finishCommand(exit === undefined || exit === '' ? null : Number(exit));
      return true;
    }
    if (markOptions(rest).get('nonce') !== this.options.nonce) return true;
    switch (kind) {
      case 'A':
        this.promptReady = false;
        break;
      case 'B':
        this.promptReady = true;
        // A redrawn prompt (Ctrl-L, a resize) prints B again: input starts after the last one.
        this.resetInputStarts();
        this.markInputStart();
        this.onDidPromptEmitter.fire();
        break;
      case 'C':
        this.startCommand();
        break;
    }
    return true;
  }

  private handleVsCode(data: string): boolean {
    const parts = data.split(';');
    if (parts[0] === 'G' && parts[1] === this.options.nonce && this.inputStarts.length > 0) {
      this.markInputStart();
      return true;
    }
    if (parts[0] === 'R' && parts.length === 3 && parts[2] === this.options.nonce) {
      const exit = parts[1] === '' ? NaN : Number(parts[1]);
      this.onDidRearmEmitter.fire(Number.isInteger(exit) ? exit : null);
      return true;
    }
    // What the session typed itself wins over the shell's report (history may be off or
    // hold only part of a multi-line command); later E marks of the same line are ignored.
    if (parts[0] === 'E' && parts.length >= 3 && parts[parts.length - 1] === this.options.nonce) {
      if (this.current === null && !this.ownCommandLine) this.pendingCommandLine = unescapeCommandLine(parts.slice(1, -1).join(';'));
    }
    return true;
  }

  private handleCwd(data: string): boolean {
    try {
      const url = new URL(data);
      if (url.protocol !== 'file:') return true;
      const cwd = decodeURIComponent(url.pathname);
      if (cwd !== this.cwdValue) {
        this.cwdValue = cwd;
        this.onDidChangeCwdEmitter.fire(cwd);
      }
    } catch {
      // A malformed OSC 7 from some program: not ours to act on.
    }
    return true;
  }

  private handleEraseDisplay(params: (number | number[])[]): boolean {
    const mode = params[0];
    if (this.current && this.terminal && (mode === 2 || mode === 3)) {
      const terminal = this.terminal;
      this.current.start.marker?.dispose();
      // The top line of the screen survives both erasures (ED 3 only drops scrollback).
      this.current.start = { marker: terminal.registerMarker(-terminal.buffer.active.cursorY), col: 0 };
      this.current.headLines = [];
      this.current.lineFeeds = 0;
    }
    return false; // let xterm erase as usual
  }

  private handleLineFeed(): void {
    const command = this.current;
    if (!command) return;
    const index = command.lineFeeds++;
    const from = this.options.headFrom ?? 0;
    if (index < from || command.headLines.length >= this.options.headLines || !this.terminal) return;
    const buffer = this.terminal.buffer.active;
    const completed = buffer.baseY + buffer.cursorY - 1;
    const startLine = command.start.marker?.line ?? -1;
    if (startLine >= 0 && completed >= startLine) {
      command.headLines.push(readLogicalLine(buffer, completed, startLine, index === 0 ? command.start.col : 0));
    } else {
      // The start row already scrolled away within this chunk: the row itself is still here.
      command.headLines.push(readLogicalLine(buffer, completed, Math.max(0, completed - 64), 0));
    }
  }

  private startCommand(): void {
    const terminal = this.terminal;
    // bash prints PS0 (our C) before each command of a multi-line command line, and D once at
    // the next prompt: the first C starts the record, the rest belong to it.
    if (!terminal || this.current) return;
    this.promptReady = false;
    this.seq++;
    const buffer = terminal.buffer.active;
    this.current = {
      seq: this.seq,
      commandLine: this.pendingCommandLine ?? this.typedCommandLine(),
      cwd: this.cwdValue,
      startedAt: Date.now(),
      endedAt: null,
      exitCode: null,
      start: { marker: terminal.registerMarker(0), col: buffer.cursorX },
      end: null,
      endRowText: null,
      headLines: [],
      lineFeeds: 0,
      startByte: this.options.chunkStart(),
      endByte: null,
      byFallback: false,
    };
    this.pendingCommandLine = null;
    this.ownCommandLine = false;
    this.resetInputStarts();
    this.onDidStartCommandEmitter.fire(this.current);
  }

  private markInputStart(): void {
    if (!this.terminal) return;
    this.inputStarts.push({ marker: this.terminal.registerMarker(0), col: this.terminal.buffer.active.cursorX });
  }

  private resetInputStarts(): void {
    for (const start of this.inputStarts.splice(0)) start.marker?.dispose();
  }

  /**
   * The command line as the screen shows it, from the prompt's B mark to the row before the
   * C mark, each continuation prompt left out: what the person typed and saw. Empty when the
   * prompt already left the scrollback.
   */
  private typedCommandLine(): string {
    const terminal = this.terminal;
    const starts = this.inputStarts;
    if (!terminal || starts.length === 0 || starts.some((s) => !s.marker || s.marker.line < 0)) return '';
    const buffer = terminal.buffer.active;
    const lastRow = buffer.baseY + buffer.cursorY - 1;
    const lines: string[] = [];
    starts.forEach((start, i) => {
      const row = start.marker!.line;
      const next = starts[i + 1]?.marker?.line;
      const endRow = next === undefined ? lastRow : next - 1;
      if (endRow >= row) lines.push(...readLines(buffer, row, start.col, endRow));
    });
    return lines.join('\n').trim();
  }

  /**
   * The prompt fallback (docs/design.md §2.5): the shell is back at its prompt and no D mark
   * came. Ends the running command at `end` (the start of the prompt's row, which the output
   * leaves out) and transcript offset `endByte`, both taken once everything received was parsed.
   */
  finishByFallback(exitCode: number | null, end: MarkPosition, endByte: number): TrackedCommand | null {
    const command = this.current;
    if (!command) {
      end.marker?.dispose();
      return null;
    }
    command.byFallback = true;
    this.finishCommand(exitCode, end, '', endByte);
    return command;
  }

  private finishCommand(exitCode: number | null, end?: MarkPosition, endRowText?: string, endByte?: number): void {
    const command = this.current;
    const terminal = this.terminal;
    if (!command || !terminal) return;
    command.exitCode = exitCode !== null && Number.isFinite(exitCode) ? exitCode : null;
    command.endedAt = Date.now();
    command.cwd = this.cwdValue;
    const buffer = terminal.buffer.active;
    command.end = end ?? { marker: terminal.registerMarker(0), col: buffer.cursorX };
    command.endRowText = endRowText ?? (buffer.getLine(buffer.baseY + buffer.cursorY)?.translateToString(true) ?? '').trimEnd();
    command.endByte = endByte ?? this.options.chunkEnd();
    this.current = null;
    if (this.last) disposeMarkers(this.last);
    this.last = command;
    this.onDidFinishCommandEmitter.fire(command);
  }
}

/** Markers cost a little on every scroll: only the running and the last command keep theirs. */
function disposeMarkers(command: TrackedCommand): void {
  command.start.marker?.dispose();
  command.end?.marker?.dispose();
}
