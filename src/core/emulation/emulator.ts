import type { SerializeAddon as HeadlessSerializeAddon } from '@xterm/addon-serialize';
import type { IMarker, Terminal as HeadlessTerminal } from '@xterm/headless';
import { CommandTracker, type TrackedCommand } from '../shell/commandTracker.js';
import { readLines } from './bufferText.js';
import { EventEmitter, type Disposable, type Event } from '../event.js';
import { planSkip, scanChunk, startsInsideCharacter, type ChunkScan } from './fastForward.js';
import { FLOOD, FloodSignal } from './floodSignal.js';
import { OSC_FINAL_TERM } from '../shell/marks.js';
import type { OutputLines } from '../output/outputWindow.js';
import { paddedRows, ScrollbackCompactor } from './scrollbackCompactor.js';
import { parserIsInGround, scrollRegionIsFullScreen } from './xtermInternals.js';

interface Xterm {
  Terminal: typeof HeadlessTerminal;
  SerializeAddon: typeof HeadlessSerializeAddon;
}

let xterm: Xterm | undefined;
let xtermLoading: Promise<Xterm> | undefined;

/**
 * Loads `@xterm/headless` and its serialize addon, once. They are the largest code the core
 * holds (several MiB of the hub's RSS), and a hub without sessions never needs them: the
 * first emulator loads them (`Emulator.create`, or `loadEmulator()` ahead of time).
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
   * brought up to date; in between they wait for the next batch (`deferKeptRows`). Default 500.
   */
  floodScreenRefreshMs?: number;
  /**
   * Compact rows entering the scrollback (scrollbackCompactor.ts). Default on; off for scratch
   * emulators read once and dropped (replays), where it would only cost time.
   */
  compactScrollback?: boolean;
}

/**
 * Output handed to the emulator (raw bytes, decoded only if they reach xterm; `last`: the
 * stream ended after it; `scan`: what the fast-forward plan reads of `data`, made as it arrived
 * during a flood), or a callback to run once everything before it is parsed.
 */
type Output = { data: Buffer; start: number; end: number; last?: boolean; scan?: ChunkScan };
type Held = Output | { barrier: () => void };

/**
 * During a flood, output is held until this much has gathered (or FLOOD_HOLD_MS passed), so the
 * PTY is read at full speed meanwhile and most of a batch can be skipped: each batch still
 * parses its last scrollback's worth (~120 KB for an agent's session), so the larger the batch
 * the smaller the parsed share. Below the PTY's high watermark (outputPipe.ts), or reading would
 * pause first.
 */
const FLOOD_BATCH_BYTES = 4 * 1024 * 1024;
/**
 * 100 ms: a `cat` here gathers ~4 MB in that time. Held output with a shell-integration mark in
 * it is not held (see `write`), so a command's end is seen at once; whoever reads the screen
 * meanwhile waits for the parse (`whenParsed`), not for the hold.
 */
const FLOOD_HOLD_MS = 100;
/** See `floodScreenRefreshMs`: ~1 batch in 5 of a `cat` here has its kept rows parsed. */
const FLOOD_SCREEN_REFRESH_MS = 500;
/** The start of an OSC 133 mark (marks.ts): a command starting or ending, a prompt. */
const FINAL_TERM_MARK = Buffer.from(`\x1b]${OSC_FINAL_TERM};`);
/**
 * At most this many bytes go to xterm per turn of the event loop. xterm parses what it
 * is given for up to 12 ms before yielding; in between, the PTY is not read and the program
 * blocks on a full terminal buffer. Smaller slices keep the program writing while we parse.
 */
const FEED_SLICE_BYTES = 32 * 1024;

/**
 * The session's `@xterm/headless` mirror and its command tracker: the single source of truth
 * for what the screen shows (DESIGN §2). Everything the rest of the core asks of it goes
 * through this class, so it can move into a worker thread without its callers changing.
 */
export class Emulator {
  private readonly terminal: HeadlessTerminal;
  private readonly serializer: HeadlessSerializeAddon;
  /** Scrollback rows drop their blank cells (most of a full scrollback's memory). */
  private readonly compactor: ScrollbackCompactor | undefined;
  readonly tracker: CommandTracker;
  /** Bytes written but not yet parsed (or skipped): the emulator's backlog, for flow control. */
  private pending = 0;
  /**
   * Transcript byte ranges of the chunks written and not yet parsed, oldest first: xterm
   * parses chunks in order, so the head is the chunk a mark is being parsed from.
   */
  private readonly chunkRanges: [start: number, end: number][] = [];
  private parsedWaiters: (() => void)[] = [];
  private disposed = false;
  /**
   * Output not yet handed to xterm, oldest first. Only one batch is in xterm at a time, so a
   * flood gathers here and can be fast-forwarded (fastForward.ts) instead of parsed line by line.
   */
  private readonly held: Held[] = [];
  private heldBytes = 0;
  /** A taken batch, handed to xterm a slice at a time so the PTY is read in between. */
  private readonly feeding: Held[] = [];
  /** Bytes handed to xterm and not yet parsed. */
  private inXterm = 0;
  /** The one streaming UTF-8 decode of what xterm is given (a character may span chunks). */
  private readonly decoder = new TextDecoder('utf-8', { fatal: false });
  private readonly fastForward: boolean;
  private readonly floodScreenRefreshMs: number;
  /** When a skip's kept rows last went to xterm (performance.now()). */
  private keptRowsParsedAt = -Infinity;
  /** Whether the output floods (floodSignal.ts): fed by `write`, read by the flood scheduler below. */
  readonly flood: FloodSignal;
  private holdTimer: NodeJS.Timeout | undefined;
  /**
   * Hand held output to xterm without waiting for the hold: it has a shell-integration mark, or
   * it is the rest of a batch that already waited (see `holdBackPastHead`).
   */
  private urgent = false;
  /** Output was held back from the batch in xterm (`holdBack`): take it on the next turn, not in this one. */
  private resumeHeldBack = false;
  private skipped = 0;

  private readonly onDidParseEmitter = new EventEmitter<number>();
  /** Fires with the backlog (in bytes) each time a written chunk has been parsed. */
  readonly onDidParse: Event<number> = this.onDidParseEmitter.event;
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
    this.tracker = new CommandTracker({
      nonce: options.nonce,
      headLines: options.headLines,
      headFrom: options.headFrom,
      chunkStart: () => this.chunkRanges[0]?.[0] ?? 0,
      chunkEnd: () => this.chunkRanges[0]?.[1] ?? 0,
    });
    this.fastForward = (options.fastForward ?? true) && options.headFrom === undefined;
    this.flood = options.flood ?? new FloodSignal();
    this.floodScreenRefreshMs = options.floodScreenRefreshMs ?? FLOOD_SCREEN_REFRESH_MS;
    this.terminal.loadAddon(this.tracker);
    // Not loadAddon: the serializer reads compacted rows whole (scrollbackCompactor.ts). Its
    // typings name the browser's Terminal; it reads only what the headless one has too.
    this.serializer.activate(paddedRows(this.terminal) as unknown as Parameters<HeadlessSerializeAddon['activate']>[0]);
    this.terminal.onTitleChange((title) => this.onDidChangeTitleEmitter.fire(title));
  }

  /** Bytes fast-forwarded rather than parsed so far (fastForward.ts), for tests. */
  get skippedBytes(): number {
    return this.skipped;
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

  /**
   * Feeds output: the raw bytes of transcript range [byteStart, byteEnd) as the PTY gave them
   * (a string is taken as its UTF-8 bytes). A character split across chunks stays whole; bytes
   * that are not UTF-8 show as U+FFFD.
   */
  write(data: Uint8Array | string, byteStart: number, byteEnd: number): void {
    if (this.disposed) return;
    const bytes = typeof data === 'string' ? Buffer.from(data) : Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    this.pending += bytes.length;
    const output: Output = { data: bytes, start: byteStart, end: byteEnd };
    this.held.push(output);
    this.heldBytes += bytes.length;
    this.flood.note(bytes);
    // Scanned now, a few µs per chunk, rather than all at once when the held batch is planned
    // (4–7 ms every 100 ms, during which the PTY is not read and the program blocks).
    if (this.fastForward && this.flood.flooding) output.scan = scanChunk(bytes);
    // A flood's end (the command's D mark, the next prompt) must not wait out the hold. A chunk
    // its scan found plain to the end holds no OSC (`ESC ]` ends the scan): not searched again.
    if ((output.scan === undefined || output.scan.plain < bytes.length) && bytes.includes(FINAL_TERM_MARK)) this.urgent = true;
    this.pump();
  }

  /** The output ended at transcript offset `byteEnd`: a character left incomplete shows as U+FFFD. */
  end(byteEnd: number): void {
    if (this.disposed) return;
    this.held.push({ data: Buffer.alloc(0), start: byteEnd, end: byteEnd, last: true });
    this.pump();
  }

  /** Resolves once everything written so far has been parsed. */
  whenParsed(): Promise<void> {
    if (this.pending === 0 || this.disposed) return Promise.resolve();
    const parsed = new Promise<void>((resolve) => this.parsedWaiters.push(resolve));
    this.pump(true);
    return parsed;
  }

  /**
   * The serialized terminal once everything written before this call has been parsed, taken in
   * the parser's own callback: xterm parses writes in order and may go on with later ones before
   * any promise continuation runs, so serializing later could include newer output. Unlike
   * whenParsed, an endless flood cannot starve it.
   */
  serializeWhenParsed(): Promise<string> {
    if (this.disposed || this.pending === 0) return Promise.resolve(this.serialize());
    return new Promise((resolve) => {
      this.held.push({ barrier: () => resolve(this.serialize()) });
      this.pump(true);
    });
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
   * (`whenParsed()`): it goes to xterm directly, not behind output still held here.
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
    clearTimeout(this.holdTimer);
    for (const entry of [...this.feeding.splice(0), ...this.held.splice(0)]) if ('barrier' in entry) entry.barrier();
    this.releaseParsedWaiters();
    this.tracker.dispose();
    this.compactor?.dispose();
    this.serializer.dispose();
    this.terminal.dispose();
    this.onDidParseEmitter.dispose();
    this.onDidChangeTitleEmitter.dispose();
    this.flood.dispose();
  }

  /**
   * Hands held output to xterm when it has nothing left to parse. During a flood, waits for a
   * batch to gather first (unless `now`: someone waits for the parse).
   */
  private pump(now = false): void {
    if (this.disposed || this.inXterm > 0) return;
    if (this.feeding.length > 0) return this.feedSlice();
    if (this.held.length === 0) return;
    if (!now && !this.urgent && this.flood.flooding && this.heldBytes < FLOOD_BATCH_BYTES) return this.holdForBatch();
    clearTimeout(this.holdTimer);
    this.holdTimer = undefined;
    const batch = this.held.splice(0);
    this.heldBytes = 0;
    // A full batch of a flood nobody waits on: its kept rows may wait for the next one.
    const mayDefer = this.flood.flooding && !now && !this.urgent && this.parsedWaiters.length === 0;
    this.urgent = false;
    if (this.fastForward) {
      this.holdBackPastHead(batch);
      this.skipFlood(batch, mayDefer);
    }
    this.feeding.push(...batch);
    this.feedSlice();
  }

  /** During a flood: hold output until a batch has gathered, or FLOOD_HOLD_MS passed. */
  private holdForBatch(): void {
    this.holdTimer ??= setTimeout(() => {
      this.holdTimer = undefined;
      this.pump(true);
    }, FLOOD_HOLD_MS);
  }

  private feedSlice(): void {
    // Nothing in xterm: parse now rather than after xterm's setTimeout (≥ 1 ms in Node), so a
    // command's D mark is seen in the same tick its bytes arrive. xterm parses a write at once
    // when it follows user input; an empty input() is that signal and sends nothing.
    this.terminal.input('', true);
    let bytes = 0;
    while (this.feeding.length > 0 && bytes < FEED_SLICE_BYTES) {
      const entry = this.feeding.shift()!;
      if ('barrier' in entry) {
        this.terminal.write('', entry.barrier);
      } else {
        bytes += entry.data.length;
        this.feed(entry);
      }
    }
  }

  private feed(chunk: Output): void {
    const length = chunk.data.length;
    this.inXterm += length;
    this.chunkRanges.push([chunk.start, chunk.end]);
    this.terminal.write(this.decoder.decode(chunk.data, { stream: !chunk.last }), () => {
      this.inXterm -= length;
      this.parsed(length);
      this.chunkRanges.shift();
      if (this.inXterm > 0) return;
      // More of a taken batch, or of one held back to be planned again: let the PTY be read first.
      if (this.feeding.length > 0 || this.resumeHeldBack) {
        this.resumeHeldBack = false;
        setImmediate(() => this.pump());
      } else {
        this.pump();
      }
    });
  }

  private parsed(bytes: number): void {
    this.pending -= bytes;
    this.onDidParseEmitter.fire(this.pending);
    if (this.pending === 0) this.releaseParsedWaiters();
  }

  /**
   * A command still collecting its head lines cannot be fast-forwarded (the head is read from
   * the parse): during a flood, hand xterm only the output that completes the head (one line
   * feed past it), and hold the rest back, to be taken at once and skipped once the head is in.
   * Without this the whole first batch of every flooding command (~4 MB) was parsed. Whole
   * chunks are not fine enough: one read of `yes` holds thousands of rows.
   */
  private holdBackPastHead(batch: Held[]): void {
    const missing = this.tracker.headLinesMissing;
    if (missing === 0 || !this.flood.flooding) return;
    let needed = missing + 1;
    for (let index = 0; index < batch.length; index++) {
      const entry = batch[index]!;
      if (!('data' in entry)) continue;
      const { found, end } = lineFeedsUpTo(entry.data, needed);
      needed -= found;
      if (needed > 0) continue;
      if (end < entry.data.length) batch.splice(index + 1, 0, splitOutput(entry, end));
      return this.holdBack(batch, index + 1);
    }
  }

  /**
   * Drops from the head of `batch` the plain output that would scroll out of the buffer before
   * the batch ends (fastForward.ts): its SGR sequences are replayed, its line feeds counted.
   * Where the plain output stops (an escape sequence other than SGR, a control), the rest of
   * the batch is held back to be planned again once xterm has parsed up to there; so is all
   * but the start of a batch xterm cannot be known to read as plain output from its first
   * byte: inside an escape sequence or a character that a read cut.
   */
  private skipFlood(batch: Held[], mayDefer: boolean): void {
    const run: Buffer[] = [];
    const scans: (ChunkScan | undefined)[] = [];
    let bytes = 0;
    for (const entry of batch) {
      if (!('data' in entry) || entry.last) break;
      run.push(entry.data);
      scans.push(entry.scan);
      bytes += entry.data.length;
    }
    const keep = this.terminal.rows + (this.terminal.options.scrollback ?? 0) + 1;
    // Scrolled rows reach the scrollback only without DECSTBM margins (xtermInternals.ts).
    if ((!this.flood.flooding && bytes < FLOOD.bytes) || bytes < keep * 2 || !this.tracker.canSkipLineFeeds || !scrollRegionIsFullScreen(this.terminal)) return;
    // A batch starts where a read ended, which may be inside an escape sequence: xterm would
    // read its first bytes as the sequence's end. Where the parser's state cannot be read,
    // nothing is taken to be plain.
    if (!parserIsInGround(this.terminal)) return this.holdBack(batch, 1);
    const first = batch[0] as Output;
    if (startsInsideCharacter(first.data)) {
      const lineFeed = first.data.indexOf(0x0a);
      if (lineFeed >= 0 && lineFeed + 1 < first.data.length) batch.splice(1, 0, splitOutput(first, lineFeed + 1));
      return this.holdBack(batch, 1);
    }
    const stop = { chunk: -1 };
    const plan = planSkip(run, keep, stop, scans);
    if (stop.chunk >= 0) {
      // Parse a slice past the stop before planning again: output with a stop on every line
      // is planned once a slice, not once a chunk.
      let index = stop.chunk + 1;
      for (let parsed = 0; index < run.length && parsed < FEED_SLICE_BYTES; index++) parsed += run[index]!.length;
      this.holdBack(batch, index);
    }
    if (!plan) return;
    // Cut the skipped bytes off the head of the batch (a chunk may be cut in two: its byte
    // range stays, marks are located per chunk).
    let skip = plan.bytes;
    let whole = 0;
    for (; skip > 0 && (batch[whole] as Output).data.length <= skip; whole++) skip -= (batch[whole] as Output).data.length;
    batch.splice(0, whole);
    if (skip > 0) (batch[0] as Output).data = (batch[0] as Output).data.subarray(skip);
    // What was decoded last ended before the skip; a character it left open is in skipped rows.
    this.decoder.decode();
    this.terminal.write(plan.sgr, () => this.tracker.skipLineFeeds(plan.lineFeeds));
    this.skipped += plan.bytes;
    this.parsed(plan.bytes);
    const now = performance.now();
    if (mayDefer && stop.chunk < 0 && now - this.keptRowsParsedAt < this.floodScreenRefreshMs && batch.every((entry) => 'data' in entry && !entry.last)) {
      return this.deferKeptRows(batch);
    }
    this.keptRowsParsedAt = now;
  }

  /**
   * The rows a skip kept of a full batch are plain output (the plan ran to its end): while the
   * flood goes on, the next batch scrolls them out too, so they are held with it rather than
   * parsed now (~1/40 of a 4 MiB batch, parsed at ~30 MB/s on the thread
   * that reads the PTY). They are parsed when the flood slows (the hold ends without a full
   * batch), at a mark, once anyone waits for the parse, or when the screen was last brought up
   * to date `floodScreenRefreshMs` ago: a `read` of the screen during a flood lags it by that
   * and a batch at most (by a batch before).
   */
  private deferKeptRows(batch: Held[]): void {
    for (const held of batch) this.heldBytes += (held as Output).data.length;
    this.held.unshift(...batch.splice(0));
    this.holdForBatch();
  }

  /** Puts `batch` from `index` on back at the head of the held output, to be taken next without waiting. */
  private holdBack(batch: Held[], index: number): void {
    const rest = batch.splice(index);
    if (rest.length === 0) return;
    for (const held of rest) if ('data' in held) this.heldBytes += held.data.length;
    this.held.unshift(...rest);
    this.urgent = true;
    this.resumeHeldBack = true;
  }

  private releaseParsedWaiters(): void {
    for (const resolve of this.parsedWaiters.splice(0)) resolve();
  }
}

/** The first `count` line feeds of `data`: how many it holds (at most `count`), and the offset just past the last of them. */
function lineFeedsUpTo(data: Buffer, count: number): { found: number; end: number } {
  let found = 0;
  let end = 0;
  for (let at = data.indexOf(0x0a); at >= 0 && found < count; at = data.indexOf(0x0a, at + 1)) {
    found++;
    end = at + 1;
  }
  return { found, end };
}

/**
 * Cuts `output` after its first `bytes`: it keeps those, and the returned rest carries the
 * transcript range after them (a chunk's bytes end where its range ends, whatever a skip cut
 * from its start). Cut after a line feed, which is never inside a UTF-8 character.
 */
function splitOutput(output: Output, bytes: number): Output {
  const restStart = output.end - (output.data.length - bytes);
  const rest: Output = { data: output.data.subarray(bytes), start: restStart, end: output.end, last: output.last };
  output.data = output.data.subarray(0, bytes);
  output.end = restStart;
  delete output.last;
  return rest;
}
