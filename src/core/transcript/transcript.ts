import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { AppendFile } from './appendFile.js';
import { EventEmitter, type Event } from '../event.js';
import type { CommandRecord, Creator, ReadResult, SessionInfo } from '../types.js';

export const OUTPUT_LOG = 'output.log';
export const COMMANDS_LOG = 'commands.jsonl';
export const TIMING_LOG = 'timing.jsonl';
export const META_FILE = 'meta.json';

/** A timing entry is written when this long has passed since the last one… */
const TIMING_INTERVAL_MS = 50;
/** …or when this many bytes arrived since the last one (bounds an asciicast event's size). */
export const TIMING_INTERVAL_BYTES = 64 * 1024;
/** Default cap on the bytes one session's `output.log` may hold (setting `transcriptMaxBytes`). */
export const DEFAULT_TRANSCRIPT_MAX_BYTES = 512 * 1024 * 1024;
/**
 * PTY chunks for output.log are gathered and written with one call once this many bytes are
 * waiting, or after `WRITE_BATCH_MS`, whichever comes first. node-pty delivers one chunk
 * (≤ 4 KB on Linux) per event-loop turn, so gathering "per tick" would still write once per
 * chunk. A write per chunk costs the main thread far more than a chunk's share of a batch, and
 * each batch is a round trip to the thread pool (and one for its timing lines) that costs CPU
 * on both threads, so batches are large: smaller ones cost the hub measurably more CPU during
 * a `cat` (measure with bench/ab.ts; docs/decisions.md, Transcripts). During a
 * flood the size ends a batch, otherwise the timer.
 */
export const WRITE_BATCH_BYTES = 1024 * 1024;
export const WRITE_BATCH_MS = 50;

/**
 * `<state>/sessions/<id>/meta.json`: who the session was, written when it opens and rewritten
 * when it exits. A session whose meta has no `closed_at` was live when its hub died.
 */
export interface SessionMeta {
  version: 1;
  id: string;
  name: string | null;
  creator: Creator;
  program: string;
  cwd: string | null;
  pid: number;
  title: string;
  created_at: string;
  closed_at: string | null;
  exit_code: number | null;
  last_exit_code: number | null;
  rows: number;
  cols: number;
  /** Bytes the PTY produced (written at exit); larger than output.log when truncated. */
  output_bytes?: number;
  /** The shell-integration nonce, so past commands replay exactly (this file is 0600). */
  nonce?: string;
  /** Set once `output.log` hit `transcriptMaxBytes`: bytes from this offset on were not kept. */
  transcript_truncated_at?: number;
  /**
   * Set once writing `output.log` failed (disk full, file-size limit, I/O error): it holds the
   * bytes before this offset; later output was not kept. `transcript_error` is the errno code.
   */
  transcript_failed_at?: number;
  transcript_error?: string;
}

/**
 * The first line of `timing.jsonl`; every later line is either `[ms, byteOffset]` (output from
 * that offset on arrived `ms` after `started_at`) or `[ms, "r", cols, rows]` (a resize).
 */
export interface TimingHeader {
  version: 1;
  /** Wall-clock start (epoch ms); entry times are monotonic milliseconds after it. */
  started_at: number;
  cols: number;
  rows: number;
}

interface TranscriptOptions {
  /** The terminal size the session starts with (asciicast header). */
  cols?: number;
  rows?: number;
  /** Past this many bytes `output.log` stops growing (bytes are still counted). */
  maxBytes?: number;
}

/** Where a session's output.log stops short of its output (the size cap, a failed write), and why. */
export interface TranscriptCut {
  at: number;
  reason: string;
}

/** The cut recorded in a closed session's meta.json, if any. */
export function cutOf(meta: { transcript_failed_at?: number; transcript_error?: string; transcript_truncated_at?: number }): TranscriptCut | null {
  if (meta.transcript_failed_at !== undefined) return { at: meta.transcript_failed_at, reason: `writing it failed (${meta.transcript_error ?? 'error'})` };
  if (meta.transcript_truncated_at !== undefined) return { at: meta.transcript_truncated_at, reason: 'it reached the transcriptMaxBytes setting' };
  return null;
}

/**
 * A session's append-only record on disk: the raw PTY bytes (`output.log`), one JSON line per
 * finished command (`commands.jsonl`), a sparse timing index for asciicast export
 * (`timing.jsonl`) and the session's `meta.json`.
 *
 * A write failure (disk full, a file-size limit) never stops the session: the first one is
 * reported through `onWarning` (once per session, whichever file failed), the failed file is
 * no longer written, later bytes are still counted, and `meta.json` records where `output.log`
 * stops (`transcript_failed_at`). The other files go on while they can.
 *
 * output.log's bytes are written in batches (see `WRITE_BATCH_BYTES`); `pendingBytes` counts
 * what is gathered or queued and not yet on disk, and `onDidWrite` fires as it drains, so the
 * caller can pause the PTY when the disk is slower than the program (OutputPipe does).
 */
export class Transcript {
  private readonly output: AppendFile;
  private readonly commands: fs.WriteStream;
  private readonly timing: fs.WriteStream;
  private readonly maxBytes: number;
  private readonly startedAt = performance.now();
  private bytes = 0;
  private lastMarkAt = Number.NEGATIVE_INFINITY;
  private lastMarkOffset = 0;
  /** Chunks for output.log not yet handed to its file, and their size. */
  private batch: Uint8Array[] = [];
  private batchBytes = 0;
  private batchTimer: NodeJS.Timeout | null = null;
  /**
   * timing.jsonl lines not yet handed to its stream: written with output.log's batch. One write
   * per line (every 64 KB of a flood) cost a visible share of the main thread's CPU during a
   * `cat` (measure with bench/ab.ts).
   */
  private timingLines = '';
  /** commands.jsonl lines waiting for the end of this turn (appendCommand). */
  private commandLines: string[] = [];
  private commandsTimer: NodeJS.Immediate | undefined;
  /** The files whose writing failed (they are not written again). */
  private readonly failedFiles = new Set<string>();
  /** Writing output.log failed: it holds the bytes before `outputFailure.at`. */
  private outputFailure: { code: string; at: number } | null = null;
  private warnedFailure = false;
  private closed = false;
  private closing: Promise<void> | null = null;
  /** output.log reached `maxBytes`: bytes are counted, no longer written. */
  private full = false;
  private meta: SessionMeta | null = null;

  private readonly onDidWriteEmitter = new EventEmitter<number>();
  /** Fires with `pendingBytes` each time a batch of output.log reached the disk (or failed). */
  readonly onDidWrite: Event<number> = this.onDidWriteEmitter.event;

  private readonly writeBatchNow = (): void => {
    this.batchTimer = null;
    this.writeBatch();
  };

  constructor(
    readonly dir: string,
    private readonly onWarning: (message: string) => void,
    options: TranscriptOptions = {},
  ) {
    this.maxBytes = options.maxBytes ?? DEFAULT_TRANSCRIPT_MAX_BYTES;
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.output = new AppendFile(path.join(dir, OUTPUT_LOG), (error) => (error ? this.failed(OUTPUT_LOG, error) : this.fireDidWrite()));
    this.commands = this.open(COMMANDS_LOG);
    this.timing = this.open(TIMING_LOG);
    const header: TimingHeader = {
      version: 1,
      started_at: Date.now(),
      cols: options.cols ?? 80,
      rows: options.rows ?? 24,
    };
    this.timing.write(`${JSON.stringify(header)}\n`);
  }

  /** Bytes appended so far: the offset the next chunk starts at. */
  get size(): number {
    return this.bytes;
  }

  /**
   * Where output.log stops when it does not hold every byte (the size cap, or a write that
   * failed), and why; null while it holds them all. Readers of past output must not read past it.
   */
  get cut(): TranscriptCut | null {
    return cutOf({
      transcript_failed_at: this.outputFailure?.at,
      transcript_error: this.outputFailure?.code,
      transcript_truncated_at: this.full ? this.maxBytes : undefined,
    });
  }

  /** Whether output.log stopped short (`cut`), without building the reason: asked for every chunk. */
  get isCut(): boolean {
    return this.full || this.outputFailure !== null;
  }

  /** Bytes meant for output.log but not yet on disk (for flow control); 0 once writing failed. */
  get pendingBytes(): number {
    if (this.outputFailure) return 0;
    return this.batchBytes + this.output.pendingBytes;
  }

  /**
   * Runs for every PTY chunk: O(1), no allocation beyond one batch entry and, at most every
   * 50 ms or 64 KB, one short timing line. The chunk is kept by reference until written, the
   * timing line until the batch is.
   */
  append(chunk: Uint8Array): void {
    const offset = this.bytes;
    this.bytes = offset + chunk.length;
    if (this.outputFailure || this.closed || this.full) return;
    const now = performance.now();
    if (now - this.lastMarkAt >= TIMING_INTERVAL_MS || offset - this.lastMarkOffset >= TIMING_INTERVAL_BYTES) {
      this.lastMarkAt = now;
      this.lastMarkOffset = offset;
      this.timingLines += `[${Math.round(now - this.startedAt)},${offset}]\n`;
    }
    if (this.bytes <= this.maxBytes) {
      this.gather(chunk);
      return;
    }
    // The cap falls inside this chunk: keep its head (a view, no copy), then stop for good.
    if (this.maxBytes > offset) this.gather(chunk.subarray(0, this.maxBytes - offset));
    this.writeBatch();
    this.full = true;
    this.onWarning(`transcript of ${path.basename(this.dir)} reached ${this.maxBytes} bytes (setting transcriptMaxBytes); later output is not kept on disk`);
    if (this.meta) this.writeMeta(this.meta);
  }

  /**
   * Written once the current turn of the event loop is over: the command's D mark is parsed
   * in the turn that answers its `execute`, and the answer should not wait for a file write.
   */
  appendCommand(record: CommandRecord): void {
    if (this.closed) return;
    this.commandLines.push(`${JSON.stringify(record)}\n`);
    this.commandsTimer ??= setImmediate(() => this.writeCommands());
  }

  private writeCommands(): void {
    if (this.commandsTimer) clearImmediate(this.commandsTimer);
    this.commandsTimer = undefined;
    if (this.commandLines.length === 0) return;
    const lines = this.commandLines.join('');
    this.commandLines = [];
    this.writeTo(this.commands, COMMANDS_LOG, lines);
  }

  /**
   * Records a terminal resize for asciicast export. The next chunk starts a new timing entry,
   * so every byte is known to come before or after the resize.
   */
  resize(cols: number, rows: number): void {
    if (this.closed || this.outputFailure) return;
    this.lastMarkAt = Number.NEGATIVE_INFINITY;
    // Gathered with the output's entries, so timing.jsonl stays in order.
    this.timingLines += `[${Math.round(performance.now() - this.startedAt)},"r",${cols},${rows}]\n`;
    this.batchTimer ??= setTimeout(this.writeBatchNow, WRITE_BATCH_MS);
  }

  /**
   * Writes `meta.json` atomically (temporary file + rename, mode 0600). Adds what only the
   * transcript knows: the byte count and where output.log stops (size cap or write failure).
   */
  writeMeta(meta: SessionMeta): void {
    this.meta = meta;
    const record: SessionMeta = { ...meta };
    if (meta.closed_at) record.output_bytes = this.bytes;
    if (this.full) record.transcript_truncated_at = this.maxBytes;
    if (this.outputFailure) {
      record.transcript_failed_at = this.outputFailure.at;
      record.transcript_error = this.outputFailure.code;
    }
    try {
      writeFileAtomic(path.join(this.dir, META_FILE), `${JSON.stringify(record, null, 2)}\n`);
    } catch (error) {
      this.failed(META_FILE, error as NodeJS.ErrnoException);
    }
  }

  /** The raw output file (for replays of past commands). */
  get outputFile(): string {
    return path.join(this.dir, OUTPUT_LOG);
  }

  /** Resolves once everything appended so far is on disk, or its writing failed (readers of output.log wait on it). */
  flush(): Promise<void> {
    this.writeBatch();
    this.writeCommands();
    return this.output.whenWritten();
  }

  /**
   * Flushes and closes every file; resolves once their descriptors are closed. Every caller
   * gets the same promise (a session's close and its exit both dispose it).
   */
  close(): Promise<void> {
    this.closing ??= this.closeFiles();
    return this.closing;
  }

  private async closeFiles(): Promise<void> {
    this.writeBatch();
    this.writeCommands();
    this.closed = true;
    await Promise.all([this.output.close(), endStream(this.commands), endStream(this.timing)]);
    this.onDidWriteEmitter.dispose();
  }

  private gather(chunk: Uint8Array): void {
    this.batch.push(chunk);
    this.batchBytes += chunk.length;
    if (this.batchBytes >= WRITE_BATCH_BYTES) this.writeBatch();
    else this.batchTimer ??= setTimeout(this.writeBatchNow, WRITE_BATCH_MS);
  }

  /**
   * Hands the gathered chunks to output.log as one `writev` (no copy; cheaper than
   * `Buffer.concat`, measured). The gathered timing lines go out at the same time.
   */
  private writeBatch(): void {
    if (this.batchTimer) {
      clearTimeout(this.batchTimer);
      this.batchTimer = null;
    }
    if (this.timingLines) {
      this.writeTo(this.timing, TIMING_LOG, this.timingLines);
      this.timingLines = '';
    }
    if (this.batchBytes === 0) return;
    const chunks = this.batch;
    this.batch = [];
    this.batchBytes = 0;
    if (this.outputFailure) return;
    this.output.append(chunks);
  }

  private fireDidWrite(): void {
    if (this.onDidWriteEmitter.hasListeners) this.onDidWriteEmitter.fire(this.pendingBytes);
  }

  /** One line to a side file (commands, timing), unless that file failed before. */
  private writeTo(stream: fs.WriteStream, name: string, line: string): void {
    if (!this.failedFiles.has(name) && !stream.destroyed) stream.write(line);
  }

  private open(name: string): fs.WriteStream {
    const stream = fs.createWriteStream(path.join(this.dir, name), { flags: 'a', mode: 0o600 });
    stream.on('error', (error: NodeJS.ErrnoException) => this.failed(name, error));
    return stream;
  }

  /** A file could not be written: it is given up, the session goes on; the first failure is reported. */
  private failed(name: string, error: NodeJS.ErrnoException): void {
    if (name === OUTPUT_LOG && this.outputFailure) return;
    const code = error.code ?? 'error';
    if (name !== META_FILE) this.failedFiles.add(name);
    const outputFailed = name === OUTPUT_LOG && !this.outputFailure;
    if (outputFailed) {
      // Only what reached the file counts, a partial write included.
      this.outputFailure = { code, at: this.output.written };
      this.batch = [];
      this.batchBytes = 0;
      if (this.batchTimer) clearTimeout(this.batchTimer);
      this.batchTimer = null;
    }
    if (!this.warnedFailure) {
      this.warnedFailure = true;
      const lost = outputFailed
        ? `output from byte ${this.outputFailure?.at ?? 0} on is not kept on disk`
        : name === META_FILE
          ? `${name} may be out of date`
          : `${name} is no longer written`;
      this.onWarning(`transcript of ${path.basename(this.dir)}: writing ${name} failed (${code}); the session goes on, ${lost}`);
    }
    if (outputFailed) {
      // Nothing is queued any more (a PTY paused for the disk may go on), and meta.json says
      // where output.log stops, in case the hub ends before the session does.
      this.fireDidWrite();
      if (this.meta) this.writeMeta(this.meta);
    }
  }
}

/** Replaces `file` whole or not at all: readers never see a half-written file. */
function writeFileAtomic(file: string, data: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(tmp, data, { mode: 0o600 });
    fs.renameSync(tmp, file);
  } catch (error) {
    fs.rmSync(tmp, { force: true });
    throw error;
  }
}

/** Ends the stream and resolves once its file descriptor is closed (after an error too). */
function endStream(stream: fs.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.closed) return resolve();
    stream.once('close', () => resolve());
    if (!stream.destroyed && !stream.writableEnded) stream.end();
  });
}

/** The meta.json record of a session as `info()` describes it; `cwd` stands in until the shell reports one. */
export function sessionMeta(info: SessionInfo, cwd: string, nonce?: string): SessionMeta {
  return {
    version: 1,
    ...(nonce ? { nonce } : {}),
    id: info.id,
    name: info.name,
    creator: info.creator,
    program: info.program,
    cwd: info.cwd ?? cwd,
    pid: info.pid,
    title: info.title,
    created_at: info.created_at,
    closed_at: info.closed_at ?? null,
    exit_code: info.exit_code,
    last_exit_code: info.last_exit_code,
    rows: info.rows,
    cols: info.cols,
  };
}

/** A command's exit code and, once it ended, its duration, from its record (a line of commands.jsonl). */
export function recordOutcome(record: CommandRecord): Pick<ReadResult, 'exit_code' | 'duration_ms'> {
  return record.ended_at === null ? { exit_code: record.exit_code } : { exit_code: record.exit_code, duration_ms: record.ended_at - record.started_at };
}
