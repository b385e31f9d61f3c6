import * as fs from 'node:fs';
import { createRequire } from 'node:module';

/** What a session types into its PTY, in order: keys, pastes, commands, Ctrl-C, and resizes. */
export interface TerminalInput {
  write(data: string): void;
  resize(cols: number, rows: number): void;
  /** Nothing more reaches the terminal; what is still queued is dropped. */
  dispose(): void;
}

/** node-pty's native binding, for TIOCSWINSZ on a master fd from this thread. */
interface NativePty {
  resize(fd: number, cols: number, rows: number): void;
}
let nativePty: NativePty | undefined;
function loadNativePty(): NativePty {
  // The same binary node-pty loads itself, found the way it finds it.
  const utils = createRequire(import.meta.url)('node-pty/lib/utils') as { loadNativeModule(name: string): { module: NativePty } };
  return (nativePty ??= utils.loadNativeModule('pty').module);
}

/**
 * Typing straight into the PTY's master fd from this thread.
 *
 * Written at once with write(2) (non-blocking: node-pty opens it so). node-pty's own `write`
 * hands every write to libuv's thread pool (`fs.write`), a round trip on every key and
 * command (bench `execute`). What the terminal cannot take yet is queued and
 * retried in order on the next turns (EAGAIN: its input buffer is full, a program not reading),
 * as node-pty does. A resize waits behind queued keys, so a program sees them in the order sent.
 *
 * The fd belongs to node-pty, which closes it once every slave fd is closed: the session holds
 * a slave open while it uses this, and disposes it before letting go (terminalSession.ts), so
 * nothing is written into a file that reused the number.
 */
export class PtyInput implements TerminalInput {
  private readonly queue: (Buffer | { cols: number; rows: number })[] = [];
  private retry: NodeJS.Immediate | undefined;
  private disposed = false;

  constructor(
    private readonly fd: number,
    private readonly onError: (error: Error) => void,
  ) {}

  write(data: string): void {
    if (data === '') return;
    this.enqueue(Buffer.from(data, 'utf8'));
  }

  resize(cols: number, rows: number): void {
    this.enqueue({ cols, rows });
  }

  dispose(): void {
    this.disposed = true;
    clearImmediate(this.retry);
    this.queue.length = 0;
  }

  private enqueue(item: Buffer | { cols: number; rows: number }): void {
    if (this.disposed) return;
    this.queue.push(item);
    if (this.queue.length === 1) this.flush();
  }

  private flush(): void {
    this.retry = undefined;
    while (this.queue.length > 0 && !this.disposed) {
      const head = this.queue[0]!;
      if (!Buffer.isBuffer(head)) {
        this.queue.shift();
        try {
          loadNativePty().resize(this.fd, head.cols, head.rows);
        } catch (error) {
          this.onError(error as Error);
        }
        continue;
      }
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
