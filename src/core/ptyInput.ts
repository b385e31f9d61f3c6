import * as fs from 'node:fs';
import type { IPty } from 'node-pty';

/**
 * Everything typed into one session's PTY: keys, pastes, commands, Ctrl-C, in order.
 *
 * Written at once with write(2) on the master (non-blocking: node-pty opens it so). node-pty's own
 * `write` hands every write to libuv's thread pool (`fs.write`); the hop to a pool thread and
 * back cost ~0.2 ms of an `execute` through the shim on this 2-core machine (bench `execute`,
 * mean of 11 alternating pairs; faster in 8). What the terminal cannot take yet is queued and
 * retried in order on the next turns (EAGAIN: its input buffer is full, a program not reading),
 * as node-pty does.
 */
export class PtyInput {
  private readonly queue: Buffer[] = [];
  private retry: NodeJS.Immediate | undefined;
  private disposed = false;

  private constructor(
    private readonly fd: number,
    private readonly onError: (error: Error) => void,
  ) {}

  /**
   * For node-pty's PTY: its master fd (UnixTerminal's `fd`). Where there is none (not a Unix
   * PTY), node-pty's own write is used.
   */
  static for(pty: IPty, onError: (error: Error) => void): Pick<PtyInput, 'write' | 'dispose'> {
    const fd = (pty as unknown as { fd?: unknown }).fd;
    if (typeof fd !== 'number') return { write: (data) => pty.write(data), dispose: () => {} };
    return new PtyInput(fd, onError);
  }

  write(data: string): void {
    if (this.disposed || data === '') return;
    this.queue.push(Buffer.from(data, 'utf8'));
    if (this.queue.length === 1) this.flush();
  }

  /** Drops what is still queued (the session ended; its fd is node-pty's to close). */
  dispose(): void {
    this.disposed = true;
    clearImmediate(this.retry);
    this.queue.length = 0;
  }

  private flush(): void {
    this.retry = undefined;
    while (this.queue.length > 0 && !this.disposed) {
      const head = this.queue[0]!;
      let written: number;
      try {
        written = fs.writeSync(this.fd, head);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EAGAIN') {
          this.retry = setImmediate(() => this.flush());
          return;
        }
        // EIO and the like: the terminal is gone. Nothing more can be typed into it.
        this.queue.length = 0;
        this.onError(error as Error);
        return;
      }
      if (written < head.length) {
        this.queue[0] = head.subarray(written);
        this.retry = setImmediate(() => this.flush());
        return;
      }
      this.queue.shift();
    }
  }
}
