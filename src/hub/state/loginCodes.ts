import { createHash, randomBytes } from 'node:crypto';

/**
 * One-time sign-in codes for the browser UI (`switchboard ui`). The person's UI key may never be
 * in a process's argv (docs/design.md §4.3), yet a browser is opened by giving it a URL in argv;
 * so the CLI asks the hub over its socket, with the UI key, for a code, opens `/?login=<code>`,
 * and the HTTP server trades the code, once, for the same cookie `/?key=` gives. A code seen in a process
 * listing is worth nothing after the browser used it, and nothing a minute later either.
 */

/** How long a code may wait for its browser: a cold browser start, not a working session. */
export const LOGIN_CODE_TTL_MS = 60_000;
/** Outstanding codes kept at most; the oldest go first (a loop asking for codes cannot grow memory). */
const MAX_OUTSTANDING = 32;
/** 32 random bytes, base64url: as unguessable as the token itself. */
const CODE_BYTES = 32;
const CODE_SHAPE = /^[A-Za-z0-9_-]{43}$/;

interface LoginCode {
  code: string;
  expiresInMs: number;
}

export class LoginCodes {
  /** sha256(code) → expiry (ms since the epoch). Hashed, so a lookup's timing says nothing about a code. */
  private readonly outstanding = new Map<string, number>();

  constructor(
    private readonly ttlMs = LOGIN_CODE_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  issue(): LoginCode {
    this.prune();
    while (this.outstanding.size >= MAX_OUTSTANDING) {
      const oldest = this.outstanding.keys().next().value;
      if (oldest === undefined) break;
      this.outstanding.delete(oldest);
    }
    const code = randomBytes(CODE_BYTES).toString('base64url');
    this.outstanding.set(digest(code), this.now() + this.ttlMs);
    return { code, expiresInMs: this.ttlMs };
  }

  /** True once per issued code, within its lifetime; the code is gone afterwards either way. */
  redeem(code: string): boolean {
    if (!CODE_SHAPE.test(code)) return false;
    const key = digest(code);
    const expiresAt = this.outstanding.get(key);
    if (expiresAt === undefined) return false;
    this.outstanding.delete(key);
    return this.now() <= expiresAt;
  }

  /** Every outstanding code stops working (the token was replaced: no sign-in from before it). */
  clear(): void {
    this.outstanding.clear();
  }

  /** Codes issued and not yet used or expired. */
  get size(): number {
    this.prune();
    return this.outstanding.size;
  }

  private prune(): void {
    const now = this.now();
    for (const [key, expiresAt] of this.outstanding) if (expiresAt < now) this.outstanding.delete(key);
  }
}

function digest(code: string): string {
  return createHash('sha256').update(code, 'utf8').digest('hex');
}
