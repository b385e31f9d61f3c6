import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { CommandRecord, Creator, SessionInfo } from './types.js';

export const OUTPUT_LOG = 'output.log';
export const COMMANDS_LOG = 'commands.jsonl';
export const TIMING_LOG = 'timing.jsonl';
export const META_FILE = 'meta.json';

/** A timing entry is written when this long has passed since the last one… */
export const TIMING_INTERVAL_MS = 50;
/** …or when this many bytes arrived since the last one (bounds an asciicast event's size). */
export const TIMING_INTERVAL_BYTES = 64 * 1024;
/** Default cap on the bytes one session's `output.log` may hold (setting `transcriptMaxBytes`). */
export const DEFAULT_TRANSCRIPT_MAX_BYTES = 512 * 1024 * 1024;

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

export interface TranscriptOptions {
  /** The terminal size the session starts with (asciicast header). */
  cols?: number;
  rows?: number;
  /** Past this many bytes `output.log` stops growing (bytes are still counted). */
  maxBytes?: number;
}

/**
 * A session's append-only record on disk: the raw PTY bytes (`output.log`), one JSON line per
 * finished command (`commands.jsonl`), a sparse timing index for asciicast export
 * (`timing.jsonl`) and the session's `meta.json`. A write failure (disk full) never stops the
 * session: it is reported once through `onWarning` and later bytes are still counted.
 */
export class Transcript {
  private readonly output: fs.WriteStream;
  private readonly commands: fs.WriteStream;
  private readonly timing: fs.WriteStream;
  private readonly maxBytes: number;
  private readonly startedAt = performance.now();
  private bytes = 0;
  private lastMarkAt = Number.NEGATIVE_INFINITY;
  private lastMarkOffset = 0;
  private failed = false;
  private closed = false;
  /** output.log reached `maxBytes`: bytes are counted, no longer written. */
  private full = false;
  private meta: SessionMeta | null = null;

  constructor(
    readonly dir: string,
    private readonly onWarning: (message: string) => void,
    options: TranscriptOptions = {},
  ) {
    this.maxBytes = options.maxBytes ?? DEFAULT_TRANSCRIPT_MAX_BYTES;
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.output = this.open(OUTPUT_LOG);
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

  /** Whether output.log stopped growing at the size cap (its tail is missing). */
  get truncated(): boolean {
    return this.full;
  }

  /** Bytes queued for output.log but not yet on disk (for flow control). */
  get pendingBytes(): number {
    return this.output.writableLength;
  }

  /**
   * Runs for every PTY chunk: O(1), no allocation beyond the stream's own queue entry and, at
   * most every 50 ms or 64 KB, one short timing line.
   */
  append(chunk: Uint8Array): void {
    const offset = this.bytes;
    this.bytes = offset + chunk.length;
    if (this.failed || this.closed || this.full) return;
    const now = performance.now();
    if (now - this.lastMarkAt >= TIMING_INTERVAL_MS || offset - this.lastMarkOffset >= TIMING_INTERVAL_BYTES) {
      this.lastMarkAt = now;
      this.lastMarkOffset = offset;
      this.timing.write(`[${Math.round(now - this.startedAt)},${offset}]\n`);
    }
    if (this.bytes <= this.maxBytes) {
      this.output.write(chunk);
      return;
    }
    // The cap falls inside this chunk: keep its head (a view, no copy), then stop for good.
    if (this.maxBytes > offset) this.output.write(chunk.subarray(0, this.maxBytes - offset));
    this.full = true;
    this.onWarning(`transcript of ${path.basename(this.dir)} reached ${this.maxBytes} bytes (setting transcriptMaxBytes); later output is not kept on disk`);
    if (this.meta) this.writeMeta(this.meta);
  }

  appendCommand(record: CommandRecord): void {
    if (!this.failed && !this.closed) this.commands.write(`${JSON.stringify(record)}\n`);
  }

  /**
   * Records a terminal resize for asciicast export. The next chunk starts a new timing entry,
   * so every byte is known to come before or after the resize.
   */
  resize(cols: number, rows: number): void {
    if (this.failed || this.closed) return;
    this.lastMarkAt = Number.NEGATIVE_INFINITY;
    this.timing.write(`[${Math.round(performance.now() - this.startedAt)},"r",${cols},${rows}]\n`);
  }

  /**
   * Writes `meta.json` atomically (temporary file + rename, mode 0600). Adds what only the
   * transcript knows: the byte count and the truncation marker.
   */
  writeMeta(meta: SessionMeta): void {
    this.meta = meta;
    const record: SessionMeta = { ...meta };
    if (meta.closed_at) record.output_bytes = this.bytes;
    if (this.full) record.transcript_truncated_at = this.maxBytes;
    try {
      writeFileAtomic(path.join(this.dir, META_FILE), `${JSON.stringify(record, null, 2)}\n`);
    } catch (error) {
      this.onWarning(`could not write ${META_FILE} of ${path.basename(this.dir)} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }

  /** The raw output file (for replays of past commands). */
  get outputFile(): string {
    return path.join(this.dir, OUTPUT_LOG);
  }

  /** Resolves once everything appended so far is on disk (readers of output.log wait on it). */
  flush(): Promise<void> {
    if (this.closed || this.failed || this.output.writableLength === 0) return Promise.resolve();
    return new Promise((resolve) => this.output.write(new Uint8Array(0), () => resolve()));
  }

  /** Flushes and closes every file. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([endStream(this.output), endStream(this.commands), endStream(this.timing)]);
  }

  private open(name: string): fs.WriteStream {
    const stream = fs.createWriteStream(path.join(this.dir, name), { flags: 'a', mode: 0o600 });
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (this.failed) return;
      this.failed = true;
      this.onWarning(`transcript writing stopped (${error.code ?? 'error'}); the session goes on`);
    });
    return stream;
  }
}

/** Replaces `file` whole or not at all: readers never see a half-written file. */
export function writeFileAtomic(file: string, data: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(tmp, data, { mode: 0o600 });
    fs.renameSync(tmp, file);
  } catch (error) {
    fs.rmSync(tmp, { force: true });
    throw error;
  }
}

function endStream(stream: fs.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed || stream.writableFinished) return resolve();
    stream.end(() => resolve());
    stream.once('error', () => resolve());
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
