import { createHash, randomBytes } from 'node:crypto';
import type { Approval, ApprovalBook } from './approvals.js';

/**
 * The approval links a URL elicitation carries (docs/design.md §2.9, "Where the person answers"):
 * a one-time sign-in to the hub's page for one pending approval, like `switchboard ui`'s codes
 * (state/loginCodes.ts) but bound to that approval and worth nothing else — no UI cookie, no
 * other approval. The code is traded, once, within its lifetime, for a page secret (an HttpOnly
 * cookie scoped to that approval's page); the page answers with it. Once the approval is answered
 * anywhere or withdrawn, neither the code nor the page answers any more.
 */

/** How long a link waits for the person: they may be away from the host's chat for a while. */
export const APPROVAL_LINK_TTL_MS = 10 * 60_000;
/** Codes and page secrets kept at most; the oldest go first (a loop of asks cannot grow memory). */
const MAX_KEPT = 64;
const CODE_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export type LinkRefusal = 'unknown' | 'used' | 'expired' | 'ended';

interface Code {
  approval: string;
  expiresAt: number;
}

export class ApprovalLinks {
  /** sha256(code) → its approval and expiry. */
  private readonly codes = new Map<string, Code>();
  /** sha256(code) of codes already traded: told apart from unknown ones to say "already used". */
  private readonly spent = new Map<string, string>();
  /** sha256(page secret) → approval id. */
  private readonly pages = new Map<string, string>();
  /** Approvals a link was issued for: one elicitation, so one link, per approval. */
  private readonly issued = new Set<string>();

  constructor(
    private readonly book: Pick<ApprovalBook, 'get' | 'ended'>,
    private readonly now: () => number = Date.now,
    private readonly ttlMs = APPROVAL_LINK_TTL_MS,
  ) {}

  /** A code for this pending approval, once per approval; undefined when it is not pending or has one. */
  issue(approvalId: string): { code: string; expiresInMs: number } | undefined {
    if (!this.book.get(approvalId) || this.issued.has(approvalId)) return undefined;
    this.issued.add(approvalId);
    trim(this.issued, MAX_KEPT * 4);
    const code = randomBytes(32).toString('base64url');
    this.codes.set(digest(code), { approval: approvalId, expiresAt: this.now() + this.ttlMs });
    trim(this.codes, MAX_KEPT);
    return { code, expiresInMs: this.ttlMs };
  }

  /**
   * Trades a code for a page secret: once, within its lifetime, for its own approval while that
   * is pending. The code is spent whatever the outcome, but for a code of another approval.
   */
  redeem(approvalId: string, code: string): { ok: true; secret: string; approval: Approval } | { ok: false; why: LinkRefusal } {
    if (!CODE_SHAPE.test(code)) return { ok: false, why: 'unknown' };
    const key = digest(code);
    const entry = this.codes.get(key);
    if (!entry || entry.approval !== approvalId) {
      if (this.spent.get(key) !== approvalId) return { ok: false, why: 'unknown' };
      return { ok: false, why: this.book.get(approvalId) ? 'used' : 'ended' };
    }
    this.codes.delete(key);
    this.spent.set(key, approvalId);
    trim(this.spent, MAX_KEPT * 4);
    if (this.now() > entry.expiresAt) return { ok: false, why: 'expired' };
    const approval = this.book.get(approvalId);
    if (!approval) return { ok: false, why: 'ended' };
    const secret = randomBytes(32).toString('base64url');
    this.pages.set(digest(secret), approvalId);
    trim(this.pages, MAX_KEPT);
    return { ok: true, secret, approval };
  }

  /** Whether this page secret was given for this approval (answered or not). */
  signedIn(approvalId: string, secret: string | undefined): boolean {
    if (secret === undefined || !CODE_SHAPE.test(secret)) return false;
    return this.pages.get(digest(secret)) === approvalId;
  }

  /** What the page shows: the approval while it waits, else how it ended. */
  state(approvalId: string): { pending: Approval } | { ended: string } {
    const approval = this.book.get(approvalId);
    if (approval) return { pending: approval };
    return { ended: this.book.ended(approvalId) ?? 'no longer pending' };
  }

  /** An approval was answered (anywhere) or withdrawn: its unused code stops working at once. */
  prune(): void {
    for (const [key, entry] of this.codes) {
      if (this.book.get(entry.approval)) continue;
      this.codes.delete(key);
      this.spent.set(key, entry.approval);
    }
  }

  /** Codes issued and not yet used (tests, and the single-link rule). */
  get outstanding(): number {
    return this.codes.size;
  }
}

function digest(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

function trim(collection: Map<string, unknown> | Set<string>, max: number): void {
  while (collection.size > max) {
    const oldest = collection.keys().next().value;
    if (oldest === undefined) return;
    collection.delete(oldest);
  }
}
