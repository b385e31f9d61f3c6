import type { Terminal as HeadlessTerminal } from '@xterm/headless';
import { EventEmitter, type Disposable, type Event } from '../event.js';
import { OSC_FINAL_TERM } from '../shell/marks.js';
import { planSkip, scanChunk, startsInsideCharacter, type ChunkScan } from './fastForward.js';
import { FLOOD, type FloodSignal } from './floodSignal.js';
import { parserIsInGround, scrollRegionIsFullScreen } from './xtermInternals.js';

/**
 * What the scheduler asks of the command tracker (`CommandTracker`) before it skips output:
 * a command's head lines are read from the parse, and skipped line feeds are counted there.
 */
export interface SkipTracker {
  /** Head lines the running command still reads from the parse (0 when none runs). */
  readonly headLinesMissing: number;
  /** Whether line feeds may be counted without being parsed. */
  readonly canSkipLineFeeds: boolean;
  /** Counts `count` line feeds that were skipped, as if parsed. */
  skipLineFeeds(count: number): void;
}

interface FeedSchedulerOptions {
  /** The terminal fed: the emulator's own. */
  terminal: HeadlessTerminal;
  tracker: SkipTracker;
  /** Says whether the output floods; fed by `write`. Its owner disposes it. */
  flood: FloodSignal;
  /** Skip parsing flood output that scrolls out anyway (fastForward.ts). */
  fastForward: boolean;
  /** See `EmulatorOptions.floodScreenRefreshMs`. Default 500. */
  floodScreenRefreshMs?: number;
}

/**
 * Output handed to the scheduler (raw bytes, decoded only if they reach xterm; `last`: the
 * stream ended after it; `scan`: what the fast-forward plan reads of `data`, made as it arrived
 * during a flood), or a callback to run once everything before it is parsed.
 */
type Output = { data: Buffer; start: number; end: number; last?: boolean; scan?: ChunkScan };
type Held = Output | { barrier: () => void };

/**
 * During a flood, output is held until this much has gathered (or FLOOD_HOLD_MS passed), so the
 * PTY is read at full speed meanwhile and most of a batch can be skipped: each batch still
 * parses its last scrollback's worth, so the larger the batch the smaller the parsed share.
 * Below the PTY's high watermark (outputPipe.ts, docs/design.md §5.4), or reading would pause
 * first.
 */
const FLOOD_BATCH_BYTES = 4 * 1024 * 1024;
/**
 * The longest a flood's output is held for a batch. Held output with a shell-integration mark
 * in it is not held (see `write`), so a command's end is seen at once; whoever reads the screen
 * meanwhile waits for the parse (`whenParsed`), not for the hold.
 */
const FLOOD_HOLD_MS = 100;
/** See `floodScreenRefreshMs`. */
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
 * Decides when and how the output's bytes reach xterm: holds them while xterm parses (one batch
 * in xterm at a time), gathers a flood into batches and fast-forwards through them
 * (fastForward.ts, docs/decisions.md "A flood is fast-forwarded"), hands xterm a slice per turn
 * so the PTY is read in between, and decodes what xterm is given. It counts the backlog the
 * PTY's flow control reads (docs/design.md §5.4) and knows which output xterm is parsing, so
 * a mark is located in the transcript. The screen itself is the emulator's (emulator.ts).
 */
export class FeedScheduler implements Disposable {
  private readonly terminal: HeadlessTerminal;
  private readonly tracker: SkipTracker;
  private readonly flood: FloodSignal;
  private readonly fastForward: boolean;
  private readonly floodScreenRefreshMs: number;
  /** Bytes written but not yet parsed (or skipped): the backlog, for flow control. */
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
  /**
   * A taken batch, handed to xterm a slice at a time so the PTY is read in between; read from
   * `feedingNext` on (an index, not `shift()`: a batch of tiny chunks holds tens of thousands,
   * and shifting a large array copies it every time).
   */
  private feeding: Held[] = [];
  private feedingNext = 0;
  /** Bytes handed to xterm and not yet parsed. */
  private inXterm = 0;
  /** The one streaming UTF-8 decode of what xterm is given (a character may span chunks). */
  private readonly decoder = new TextDecoder('utf-8', { fatal: false });
  /** When a skip's kept rows last went to xterm, on the flood signal's clock. */
  private keptRowsParsedAt = -Infinity;
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

  constructor(options: FeedSchedulerOptions) {
    this.terminal = options.terminal;
    this.tracker = options.tracker;
    this.flood = options.flood;
    this.fastForward = options.fastForward;
    this.floodScreenRefreshMs = options.floodScreenRefreshMs ?? FLOOD_SCREEN_REFRESH_MS;
  }

  /** Bytes written and not yet parsed or skipped. */
  get backlog(): number {
    return this.pending;
  }

  /** Bytes fast-forwarded rather than parsed so far (fastForward.ts). */
  get skippedBytes(): number {
    return this.skipped;
  }

  /** Where the output xterm is parsing now starts in the transcript (0 when it parses none). */
  get parsingStart(): number {
    return this.chunkRanges[0]?.[0] ?? 0;
  }

  /** Where the output xterm is parsing now ends in the transcript (0 when it parses none). */
  get parsingEnd(): number {
    return this.chunkRanges[0]?.[1] ?? 0;
  }

  /**
   * Takes output: the raw bytes of transcript range [byteStart, byteEnd) as the PTY gave them
   * (a string is taken as its UTF-8 bytes), decoded only if they reach xterm.
   */
  write(data: Uint8Array | string, byteStart: number, byteEnd: number): void {
    if (this.disposed) return;
    const bytes = typeof data === 'string' ? Buffer.from(data) : Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    this.pending += bytes.length;
    const output: Output = { data: bytes, start: byteStart, end: byteEnd };
    this.held.push(output);
    this.heldBytes += bytes.length;
    this.flood.note(bytes);
    // Scanned as each chunk arrives rather than all at once when the held batch is planned:
    // that would be one long task during which the PTY is not read and the program blocks.
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
   * Runs `callback` in xterm's own parse callback once everything written before this call has
   * been parsed, before anything written after it (xterm parses in order); at once when nothing
   * is pending, and on `dispose` if that comes first. Unlike `whenParsed`, an endless flood
   * cannot starve it.
   */
  afterParsed(callback: () => void): void {
    if (this.disposed || this.pending === 0) return callback();
    this.held.push({ barrier: callback });
    this.pump(true);
  }

  /** Runs every callback still waiting for the parse, resolves every wait, and stops. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    clearTimeout(this.holdTimer);
    for (const entry of [...this.feeding.slice(this.feedingNext), ...this.held.splice(0)]) if ('barrier' in entry) entry.barrier();
    this.feeding = [];
    this.feedingNext = 0;
    this.releaseParsedWaiters();
    this.onDidParseEmitter.dispose();
  }

  /**
   * Hands held output to xterm when it has nothing left to parse. During a flood, waits for a
   * batch to gather first (unless `now`: someone waits for the parse).
   */
  private pump(now = false): void {
    if (this.disposed || this.inXterm > 0) return;
    if (this.feedingLeft > 0) return this.feedSlice();
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
    // Only an empty `feeding` takes a batch (the check above): the batch becomes it.
    this.feeding = batch;
    this.feedingNext = 0;
    this.feedSlice();
  }

  /** During a flood: hold output until a batch has gathered, or FLOOD_HOLD_MS passed. */
  private holdForBatch(): void {
    this.holdTimer ??= setTimeout(() => {
      this.holdTimer = undefined;
      this.pump(true);
    }, FLOOD_HOLD_MS);
  }

  private get feedingLeft(): number {
    return this.feeding.length - this.feedingNext;
  }

  private feedSlice(): void {
    // Nothing in xterm: parse now rather than after xterm's setTimeout (≥ 1 ms in Node), so a
    // command's D mark is seen in the same tick its bytes arrive. xterm parses a write at once
    // when it follows user input; an empty input() is that signal and sends nothing.
    this.terminal.input('', true);
    let bytes = 0;
    let fed = false;
    let barriers = false;
    while (this.feedingLeft > 0 && bytes < FEED_SLICE_BYTES) {
      const entry = this.feeding[this.feedingNext++]!;
      if ('barrier' in entry) {
        this.terminal.write('', entry.barrier);
        barriers = true;
      } else {
        bytes += entry.data.length;
        fed = true;
        this.feed(entry);
      }
    }
    if (this.feedingLeft === 0) {
      // Let go of the batch's chunks.
      this.feeding = [];
      this.feedingNext = 0;
    }
    // A slice of callbacks only (the last of a batch): no parse of output follows them to take
    // what was written meanwhile, and it would wait for the next write, however long.
    if (barriers && !fed) {
      this.terminal.write('', () => {
        if (this.inXterm === 0) this.handedAllParsed();
      });
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
      if (this.inXterm === 0) this.handedAllParsed();
    });
  }

  /** xterm parsed all it was handed: hand it what comes next. */
  private handedAllParsed(): void {
    // More of a taken batch, or of one held back to be planned again: let the PTY be read first.
    if (this.feedingLeft > 0 || this.resumeHeldBack) {
      this.resumeHeldBack = false;
      setImmediate(() => this.pump());
    } else {
      this.pump();
    }
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
   * Otherwise the whole first batch of every flooding command would be parsed. Whole chunks are
   * not fine enough: one read of `yes` holds thousands of rows.
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
    const now = this.flood.clock();
    if (mayDefer && stop.chunk < 0 && now - this.keptRowsParsedAt < this.floodScreenRefreshMs && batch.every((entry) => 'data' in entry && !entry.last)) {
      return this.deferKeptRows(batch);
    }
    this.keptRowsParsedAt = now;
  }

  /**
   * The rows a skip kept of a full batch are plain output (the plan ran to its end): while the
   * flood goes on, the next batch scrolls them out too, so they are held with it rather than
   * parsed now, on the thread that reads the PTY. They are parsed when the flood slows (the
   * hold ends without a full batch), at a mark, once anyone waits for the parse, or when the
   * screen was last brought up to date `floodScreenRefreshMs` ago: a `read` of the screen
   * during a flood lags it by that and a batch at most (by a batch before).
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
