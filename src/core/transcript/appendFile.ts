import * as fs from 'node:fs';

/**
 * A file that only grows, written in as few thread-pool round trips as the caller's batches
 * allow: each `append` of many chunks is one `fs.writev` (no stream buffering them one by one),
 * one write is in flight at a time, and what is appended meanwhile goes out in the next one.
 * Every round trip wakes a thread-pool thread and then the main thread, which costs more than
 * the bytes (docs/decisions.md, Transcripts). The file opens asynchronously, as an
 * `fs.WriteStream` would: opening a FIFO nobody reads must not block the event loop.
 *
 * The first error ends the file: nothing more is written, `failure` says what happened, and
 * `written` is the bytes that reached it (a partial write included).
 */
export class AppendFile {
  private fd: number | null = null;
  private opening = true;
  private queue: Uint8Array[] = [];
  private queuedBytes = 0;
  private inFlight = 0;
  private writtenBytes = 0;
  private error: NodeJS.ErrnoException | null = null;
  /** Resolved when nothing is queued or in flight any more (or the file failed). */
  private idleWaiters: (() => void)[] = [];
  private closing: Promise<void> | null = null;

  /** `onWritten` runs after each write (or the failure, with the error). */
  constructor(
    readonly path: string,
    private readonly onWritten: (error?: NodeJS.ErrnoException) => void,
  ) {
    fs.open(path, 'a', 0o600, (error, fd) => {
      this.opening = false;
      if (error) return this.fail(error);
      this.fd = fd;
      this.writeQueued();
      this.settle();
    });
  }

  /** Bytes appended and not yet in the file (0 once it failed: nothing is kept for it). */
  get pendingBytes(): number {
    return this.queuedBytes + this.inFlight;
  }

  /** Bytes that reached the file. */
  get written(): number {
    return this.writtenBytes;
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
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Writes what is queued, then closes the file; every caller gets the same promise. */
  close(): Promise<void> {
    this.closing ??= this.whenWritten().then(
      () =>
        new Promise<void>((resolve) => {
          const fd = this.fd;
          this.fd = null;
          if (fd === null) return resolve();
          fs.close(fd, () => resolve());
        }),
    );
    return this.closing;
  }

  private isIdle(): boolean {
    return this.error !== null || (!this.opening && this.queuedBytes === 0 && this.inFlight === 0);
  }

  private writeQueued(): void {
    if (this.fd === null || this.inFlight > 0 || this.queuedBytes === 0 || this.error) return;
    const chunks = this.queue;
    const bytes = this.queuedBytes;
    this.queue = [];
    this.queuedBytes = 0;
    this.write(chunks, bytes);
  }

  private write(chunks: Uint8Array[], bytes: number): void {
    this.inFlight = bytes;
    fs.writev(this.fd!, chunks, (error, count) => {
      this.inFlight = 0;
      if (error) return this.fail(error);
      this.writtenBytes += count;
      // A partial write (a file-size limit reached mid-batch, a full disk): the rest is tried
      // again, and that write reports the error with the exact count before it.
      if (count < bytes) return this.write(rest(chunks, count), bytes - count);
      this.onWritten();
      if (this.queuedBytes > 0) this.writeQueued();
      else this.settle();
    });
  }

  private fail(error: NodeJS.ErrnoException): void {
    if (this.error) return;
    this.error = error;
    this.queue = [];
    this.queuedBytes = 0;
    this.inFlight = 0;
    const fd = this.fd;
    this.fd = null;
    if (fd !== null) fs.close(fd, () => undefined);
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
