/**
 * Messages handled in order, a budget of bytes per turn of the event loop (at least one
 * message per turn), so a burst of them does not keep sockets and timers waiting. Node runs a
 * worker's messages back to back, up to 1 000 in one turn; this is what the pty host's output
 * goes through (ptyHost.ts).
 */
export class Inbox<T> {
  private readonly messages: T[] = [];
  private taking: NodeJS.Immediate | null = null;

  constructor(
    private readonly handle: (message: T) => void,
    /** The bytes a message counts for against `bytesPerTurn` (0: free, e.g. control messages). */
    private readonly sizeOf: (message: T) => number,
    private readonly bytesPerTurn: number,
  ) {}

  push(message: T): void {
    this.messages.push(message);
    this.taking ??= setImmediate(() => this.take(this.bytesPerTurn));
  }

  /** Handles everything waiting, now (before the sender is reported gone). */
  drain(): void {
    this.take(Infinity);
  }

  private take(limit: number): void {
    if (this.taking) clearImmediate(this.taking);
    this.taking = null;
    let bytes = 0;
    let taken = 0;
    try {
      while (taken < this.messages.length && bytes < limit) {
        const message = this.messages[taken++]!;
        bytes += this.sizeOf(message);
        this.handle(message);
      }
    } finally {
      // A handler that threw does not get its message again, nor stop the ones after it.
      this.messages.splice(0, taken);
      if (this.messages.length > 0) this.taking ??= setImmediate(() => this.take(this.bytesPerTurn));
    }
  }
}
