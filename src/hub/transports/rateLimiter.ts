/**
 * A token bucket: `burst` calls at once, then `perSecond` sustained. One per MCP client
 * connection (rateLimitedTransport.ts), so a client that floods the hub slows only itself.
 */
export interface RateLimit {
  /** Sustained calls per second. */
  perSecond: number;
  /** Calls allowed at once after a quiet spell (the bucket's size). */
  burst: number;
}

export class TokenBucket {
  private tokens: number;
  private updatedAt: number;

  constructor(
    readonly limit: RateLimit,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tokens = limit.burst;
    this.updatedAt = now();
  }

  /**
   * Takes one token: 0 when the call may go ahead, else the milliseconds until one is there
   * (at least 1). A refused call takes nothing, so a client that keeps flooding still gets
   * `perSecond` calls through.
   */
  take(): number {
    const now = this.now();
    this.tokens = Math.min(this.limit.burst, this.tokens + ((now - this.updatedAt) * this.limit.perSecond) / 1_000);
    this.updatedAt = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil(((1 - this.tokens) * 1_000) / this.limit.perSecond));
  }
}
