import * as fs from 'node:fs';
import { borrowStagingBuffer, DIRECT_ALIGNMENT, O_DIRECT, returnStagingBuffer } from './directIo.js';

/** A write is direct only when at least this much is waiting: a quiet session's batches stay in the page cache. */
export const DIRECT_MIN_BYTES = 256 * 1024;
/** How long the bytes a direct write held back (less than a block) wait for more before going through the page cache. */
export const HELD_BACK_MS = 50;

export interface AppendFileOptions {
  /** The multiple direct writes are aligned to (tests: one the kernel refuses, to prove the fallback). */
  directAlignment?: number;
  /** How long held-back bytes wait for more (default `HELD_BACK_MS`). */
  heldBackMs?: number;
}

/**
 * A file that only grows, written in as few thread-pool round trips as the caller's batches
 * allow: each `append` of many chunks is one `fs.writev` (no stream buffering them one by one),
 * one write is in flight at a time, and what is appended meanwhile goes out in the next one.
 * Every round trip wakes a thread-pool thread and then the main thread: on this project's
 * 2-core test machine 1 000 writes of 64 KB cost ~110–130 ms of CPU, 128 writes of 512 KB
 * ~30 ms, the bytes being the same (docs/decisions.md, Transcripts). The file opens
 * asynchronously, as an `fs.WriteStream` would: opening a FIFO nobody reads must not block
 * the event loop.
 *
 * **Floods bypass the page cache** (Linux, where the file system takes `O_DIRECT`): when at
 * least `DIRECT_MIN_BYTES` wait, they are copied into a page-aligned staging buffer and written
 * from it with direct I/O, whole blocks at block-aligned offsets. Through the page cache, every
 * 4 KiB written takes a fresh page of memory: on the test machine (a VM) 256 MiB cost 0.55–0.95 s
 * of kernel CPU that way, 20 ms direct, on the two cores the flooding program and the hub share.
 * It also keeps a flood's log from pushing the person's files out of the cache. Around the
 * aligned part: the bytes that complete the file's last block are written through the page
 * cache first; the bytes after the last whole block are held back (`carried`) and lead the next
 * direct write, or go through the page cache after `HELD_BACK_MS` or when `whenWritten` asks.
 * The file never holds padding. A direct write the file system refuses or cuts short is
 * written again through the page cache, which this file then uses for good.
 *
 * The first error ends the file: nothing more is written, `failure` says what happened, and
 * `written` is the bytes that reached it (a partial write included).
 */
export class AppendFile {
  private fd: number | null = null;
  /** The same file opened with O_DIRECT, while direct writes work; null: the page cache only. */
  private directFd: number | null = null;
  private readonly alignment: number;
  private readonly heldBackMs: number;
  private opening = true;
  private queue: Uint8Array[] = [];
  private queuedBytes = 0;
  private inFlight = 0;
  /** The file's size (known only where direct writes are possible: they need it to align). */
  private end = 0;
  /** The bytes after `end` that the last direct write held back, fewer than `alignment`. */
  private heldBack: Buffer | null = null;
  private carried = 0;
  private heldBackTimer: NodeJS.Timeout | null = null;
  private writtenBytes = 0;
  private directWrittenBytes = 0;
  private error: NodeJS.ErrnoException | null = null;
  /** Resolved when nothing is queued or in flight any more (or the file failed). */
  private idleWaiters: (() => void)[] = [];
  private closing: Promise<void> | null = null;

  /** `onWritten` runs after each write (or the failure, with the error). */
  constructor(
    readonly path: string,
    private readonly onWritten: (error?: NodeJS.ErrnoException) => void,
    options: AppendFileOptions = {},
  ) {
    this.alignment = options.directAlignment ?? DIRECT_ALIGNMENT;
    this.heldBackMs = options.heldBackMs ?? HELD_BACK_MS;
    fs.open(path, 'a', 0o600, (error, fd) => {
      if (error) {
        this.opening = false;
        return this.fail(error);
      }
      this.fd = fd;
      const opened = (): void => {
        this.opening = false;
        this.writeQueued();
        this.settle();
      };
      this.openDirect(fd, opened);
    });
  }

  /** Bytes appended and not yet in the file (0 once it failed: nothing is kept for it). */
  get pendingBytes(): number {
    return this.queuedBytes + this.inFlight + this.carried;
  }

  /** Bytes that reached the file. */
  get written(): number {
    return this.writtenBytes;
  }

  /** Of `written`, the bytes written with direct I/O. */
  get directWritten(): number {
    return this.directWrittenBytes;
  }

  get failure(): NodeJS.ErrnoException | null {
    return this.error;
  }

  /** Queues `chunks` (kept by reference until written) to be written in this order. */
  append(chunks: readonly Uint8Array[]): void {
    if (this.error || this.closing) return;
    for (const chunk of chunks) {
      if (chunk.length === 0) continue;
      this.queue.push(chunk);
      this.queuedBytes += chunk.length;
    }
    this.writeQueued();
  }

  /** Resolves once everything appended so far is in the file, or the file failed. */
  whenWritten(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    const idle = new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    // Held-back bytes wait for no timer when someone waits for them.
    if (this.inFlight === 0) this.writeQueued();
    return idle;
  }

  /** Writes what is queued, then closes the file; every caller gets the same promise. */
  close(): Promise<void> {
    this.closing ??= this.whenWritten().then(() => {
      const fds = [this.fd, this.directFd];
      this.fd = null;
      this.directFd = null;
      return Promise.all(fds.map((fd) => new Promise<void>((resolve) => (fd === null ? resolve() : fs.close(fd, () => resolve()))))).then(() => undefined);
    });
    return this.closing;
  }

  /** Opens the file a second time with O_DIRECT, where it is a regular file and the file system takes the flag. */
  private openDirect(fd: number, done: () => void): void {
    const flag = O_DIRECT;
    if (flag === undefined) return done();
    fs.fstat(fd, (error, stats) => {
      // A FIFO or a device (/dev/full): the page cache path.
      if (error || !stats.isFile()) return done();
      this.end = stats.size;
      fs.open(this.path, fs.constants.O_WRONLY | flag, (openError, directFd) => {
        if (!openError) this.directFd = directFd;
        done();
      });
    });
  }

  private isIdle(): boolean {
    return this.error !== null || (!this.opening && this.queuedBytes === 0 && this.inFlight === 0 && this.carried === 0);
  }

  private writeQueued(): void {
    if (this.fd === null || this.inFlight > 0 || this.error) return;
    const waiting = this.queuedBytes + this.carried;
    if (waiting === 0) return;
    if (this.heldBackTimer) {
      clearTimeout(this.heldBackTimer);
      this.heldBackTimer = null;
    }
    if (this.directFd !== null && waiting >= DIRECT_MIN_BYTES) {
      // Held-back bytes only exist at a block boundary, so `head` is 0 when there are some.
      const head = (this.alignment - (this.end % this.alignment)) % this.alignment;
      if (head > 0) return this.write(this.take(head), head);
      const staging = borrowStagingBuffer();
      if (staging) return this.writeDirect(staging);
    }
    const chunks = this.take(this.queuedBytes);
    if (this.carried > 0) chunks.unshift(this.heldBack!.subarray(0, this.carried));
    this.carried = 0;
    this.write(chunks, waiting);
  }

  /** Takes `bytes` off the front of the queue (a chunk split by a view, no copy). */
  private take(bytes: number): Uint8Array[] {
    let index = 0;
    let taken = 0;
    while (taken < bytes && taken + this.queue[index]!.length <= bytes) taken += this.queue[index++]!.length;
    const chunks = this.queue.splice(0, index);
    if (taken < bytes) {
      const first = this.queue[0]!;
      chunks.push(first.subarray(0, bytes - taken));
      this.queue[0] = first.subarray(bytes - taken);
    }
    this.queuedBytes -= bytes;
    return chunks;
  }

  /** Through the page cache: one `writev` of `chunks` at the end of the file (opened to append). */
  private write(chunks: Uint8Array[], bytes: number): void {
    this.inFlight = bytes;
    fs.writev(this.fd!, chunks, (error, count) => {
      this.inFlight = 0;
      if (error) return this.fail(error);
      this.writtenBytes += count;
      this.end += count;
      // A partial write (a file-size limit reached mid-batch, a full disk): the rest is tried
      // again, and that write reports the error with the exact count before it.
      if (count < bytes) return this.write(rest(chunks, count), bytes - count);
      this.onWritten();
      this.afterWrite();
    });
  }

  /** The held-back bytes and what is queued, copied into `staging`; its whole blocks written direct at `end`. */
  private writeDirect(staging: Buffer): void {
    let filled = this.carried;
    if (filled > 0) this.heldBack!.copy(staging, 0, 0, filled);
    this.carried = 0;
    for (const chunk of this.take(Math.min(this.queuedBytes, staging.length - filled))) {
      staging.set(chunk, filled);
      filled += chunk.length;
    }
    const length = filled - (filled % this.alignment);
    this.inFlight = filled;
    fs.write(this.directFd!, staging, 0, length, this.end, (error, count) => {
      this.inFlight = 0;
      if (error || count !== length) return this.leaveDirect(staging, error ? 0 : count, filled);
      this.writtenBytes += length;
      this.directWrittenBytes += length;
      this.end += length;
      this.carried = filled - length;
      if (this.carried > 0) staging.copy((this.heldBack ??= Buffer.allocUnsafe(this.alignment)), 0, length, filled);
      returnStagingBuffer(staging);
      this.onWritten();
      this.afterWrite();
    });
  }

  /**
   * A direct write failed or was cut short after `done` bytes: the file system does not take
   * them (EINVAL: alignment, a file system without direct I/O) or the disk has a problem. What
   * it did not write goes through the page cache, which this file uses from now on; a real
   * problem is then reported by that write, with the exact count.
   */
  private leaveDirect(staging: Buffer, done: number, filled: number): void {
    this.writtenBytes += done;
    this.directWrittenBytes += done;
    this.end += done;
    fs.close(this.directFd!, () => undefined);
    this.directFd = null;
    const unwritten = Buffer.from(staging.subarray(done, filled));
    returnStagingBuffer(staging);
    this.queue.unshift(unwritten);
    this.queuedBytes += unwritten.length;
    this.writeQueued();
  }

  private afterWrite(): void {
    if (this.queuedBytes > 0) return this.writeQueued();
    if (this.carried > 0) {
      if (this.idleWaiters.length > 0 || this.closing) return this.writeQueued();
      this.heldBackTimer = setTimeout(() => {
        this.heldBackTimer = null;
        this.writeQueued();
      }, this.heldBackMs);
      this.heldBackTimer.unref();
      return;
    }
    this.settle();
  }

  private fail(error: NodeJS.ErrnoException): void {
    if (this.error) return;
    this.error = error;
    this.queue = [];
    this.queuedBytes = 0;
    this.inFlight = 0;
    this.carried = 0;
    if (this.heldBackTimer) clearTimeout(this.heldBackTimer);
    this.heldBackTimer = null;
    for (const fd of [this.fd, this.directFd]) if (fd !== null) fs.close(fd, () => undefined);
    this.fd = null;
    this.directFd = null;
    this.onWritten(error);
    this.settle();
  }

  private settle(): void {
    if (!this.isIdle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}

/** `chunks` without their first `skip` bytes (views, no copy). */
function rest(chunks: Uint8Array[], skip: number): Uint8Array[] {
  let index = 0;
  while (index < chunks.length && skip >= chunks[index]!.length) skip -= chunks[index++]!.length;
  const left = chunks.slice(index);
  if (skip > 0) left[0] = left[0]!.subarray(skip);
  return left;
}
