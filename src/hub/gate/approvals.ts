/**
 * The person's approvals (docs/design.md §2.9): commands the policy asked about, one per slot at
 * most — a session (what would be typed into it), or a request that would start one (`open`, an
 * `execute` outside the sandbox; slot `new:<key>`) — each waiting for Allow once, Allow for 30 min
 * or Deny; and the 30-minute grants those leave behind. Nothing here types or spawns: whoever
 * asked (the agent's waiting call, or the `later` it left when it stopped waiting) does, once
 * allowed. The clock is injected so grants can lapse in a test without waiting half an hour.
 */
import { randomBytes } from 'node:crypto';
import { EventEmitter, type Event, type TerminalSession } from '../../core/index.js';
import type { GateRule, PendingApproval } from '../../mcp/server.js';
import type { ApprovalAnswer } from '../../ui-protocol/index.js';

/** How long Allow for 30 min lasts. */
export const GRANT_MS = 30 * 60_000;

/** How an approval ended. */
export type Settled = { state: 'allowed' } | { state: 'denied'; reason?: string } | { state: 'cancelled'; why: string };

/** An approval with what the book keeps of it. */
export interface Approval extends PendingApproval {
  /** Where it waits: the session's id, or `new:<key>` for a request that would start a session. */
  readonly slot: string;
  readonly tool: 'execute' | 'send' | 'open';
  readonly cwd: string | null;
  /** `"<name> <version>"`, as the person sees it. */
  readonly client: string;
  /** `clientInfo.name`: a grant is for this client. */
  readonly clientName: string;
  /** The session it would be typed into (none for a request that starts one). */
  readonly terminal?: TerminalSession;
}

/** The slot of a request that would start a session. */
export function newSlot(key: string): string {
  return `new:${key}`;
}

/** A slot of a request that would start a session (not a session's id). */
export function isNewSlot(slot: string): boolean {
  return slot.startsWith('new:');
}

interface Entry {
  approval: Approval;
  settled?: Settled;
  listeners: Set<(settled: Settled) => void>;
  /** Set when the agent's call stopped waiting: it types the command once allowed. */
  later?: () => Promise<unknown>;
  /** The command being typed, once allowed. */
  typing?: Promise<unknown>;
  typed: Set<() => void>;
}

/** Answered ids kept to tell "already answered" from "unknown". */
const ANSWERED_KEPT = 200;

export class ApprovalBook {
  private readonly bySlot = new Map<string, Entry>();
  private readonly byId = new Map<string, Entry>();
  private readonly answered = new Map<string, string>();
  /** Denials no waiting call has been told of yet, by slot: the next read with a wait (or the same request again) is. */
  private readonly untold = new Map<string, { approval: Approval; reason?: string }>();
  /** `client \0 rule index \0 rule match \0 outside the sandbox` → when it lapses (clock ms). */
  private readonly grants = new Map<string, number>();
  private readonly onDidChangeEmitter = new EventEmitter<string>();
  /** An approval of this slot (a session's id, or `new:…`) was asked, answered or withdrawn. */
  readonly onDidChange: Event<string> = this.onDidChangeEmitter.event;

  constructor(private readonly clock: () => number = Date.now) {}

  /** Records a command waiting for the person; the slot must have none pending (the tools check). */
  ask(fields: Omit<Approval, 'id' | 'asked_at'>): Approval {
    const approval: Approval = { ...fields, id: `ap-${randomBytes(4).toString('hex')}`, asked_at: new Date(this.clock()).toISOString() };
    const entry: Entry = { approval, listeners: new Set(), typed: new Set() };
    this.bySlot.set(approval.slot, entry);
    this.byId.set(approval.id, entry);
    this.untold.delete(approval.slot);
    this.onDidChangeEmitter.fire(approval.slot);
    return approval;
  }

  /** The approval pending in a slot (a session's id, or `new:<key>`). */
  pending(slot: string): Approval | undefined {
    return this.bySlot.get(slot)?.approval;
  }

  /** The pending approval with this id (the approval page's question). */
  get(id: string): Approval | undefined {
    return this.byId.get(id)?.approval;
  }

  /** How an approval no longer pending ended (`answered (allow_once)`, `withdrawn`), while it is remembered. */
  ended(id: string): string | undefined {
    return this.answered.get(id);
  }

  /** The approvals of requests that would start a session (no session to show them on), oldest first. */
  pendingWithoutSession(): Approval[] {
    return [...this.bySlot.values()].map((entry) => entry.approval).filter((approval) => approval.session === null);
  }

  /**
   * The person's answer. Allow for 30 min also grants this client this rule; an approval
   * without a rule (a line the engine could not judge) cannot be granted. Throws a sentence for
   * an unknown or already answered id.
   */
  answer(id: string, answer: ApprovalAnswer, reason?: string): Approval {
    const entry = this.byId.get(id);
    if (!entry) {
      const how = this.answered.get(id);
      throw new Error(
        how ? `Approval ${id} was already ${how}.` : `There is no approval ${id}: it may have been answered or withdrawn; the list shows the ones pending.`,
      );
    }
    const { approval } = entry;
    if (answer === 'allow_30m') {
      if (!approval.rule) throw new Error(`Approval ${id} matched no rule, so there is nothing to allow for 30 minutes: allow it once, or deny it.`);
      this.grants.set(grantKey(approval.clientName, approval.rule, approval.unsandboxed === true), this.clock() + GRANT_MS);
    }
    const text = reason?.trim();
    this.settle(entry, answer === 'deny' ? { state: 'denied', ...(text ? { reason: text } : {}) } : { state: 'allowed' }, answer);
    return approval;
  }

  /** Withdraws the slot's pending approval (the session closed); nothing is typed. */
  cancel(slot: string, why: string): void {
    const entry = this.bySlot.get(slot);
    if (entry) this.settle(entry, { state: 'cancelled', why }, 'withdrawn');
  }

  /** Every rule given is granted to this client (for commands outside the sandbox: by a grant given for those) and has not lapsed. */
  granted(clientName: string, rules: readonly GateRule[], unsandboxed = false): boolean {
    const now = this.clock();
    if (rules.length === 0) return false;
    return rules.every((rule) => {
      const key = grantKey(clientName, rule, unsandboxed);
      const until = this.grants.get(key);
      if (until === undefined) return false;
      if (until > now) return true;
      this.grants.delete(key);
      return false;
    });
  }

  /**
   * The agent's call waits for the answer up to `ms`. At the timeout the approval stays pending
   * and `later` will type the command once allowed; an aborted call withdraws it.
   */
  waitToType(approval: Approval, ms: number, signal: AbortSignal, later: () => Promise<unknown>): Promise<Settled | 'timeout'> {
    const entry = this.byId.get(approval.id);
    if (!entry) return Promise.resolve({ state: 'cancelled', why: 'it was withdrawn' });
    return this.waitOn(entry, ms, signal, {
      onTimeout: () => (entry.later = later),
      onAbort: () => this.cancel(approval.slot, 'the agent cancelled its call'),
    });
  }

  /** A read's wait: the answer, within `ms`; the approval stays as it is at the timeout or abort. */
  watch(approval: Approval, ms: number, signal: AbortSignal): Promise<Settled | 'timeout'> {
    const entry = this.byId.get(approval.id);
    if (!entry) return Promise.resolve({ state: 'cancelled', why: 'it was withdrawn' });
    return this.waitOn(entry, ms, signal, {});
  }

  /** The allowed command is being typed (by the waiting call). */
  typing(approval: Approval, typing: Promise<unknown>): void {
    const entry = this.settledEntries.get(approval.id);
    if (!entry) return;
    this.startTyping(entry, typing);
  }

  /** Once allowed: resolves when the command is typed (the session left its prompt, or the typing ended), or after `ms`. */
  whenTyped(approval: Approval, ms: number): Promise<void> {
    const entry = this.settledEntries.get(approval.id);
    const session = approval.terminal;
    if (!entry || !session) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        change.dispose();
        entry.typed.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      const change = session.onDidChange(() => {
        if (session.state !== 'idle') done();
      });
      entry.typed.add(done);
    });
  }

  /** A denial no call was told of, for the next read with a wait on the session, or the same request again (once). */
  takeUntold(slot: string): { approval: Approval; reason?: string } | undefined {
    const denial = this.untold.get(slot);
    this.untold.delete(slot);
    return denial;
  }

  dispose(): void {
    for (const slot of [...this.bySlot.keys()]) this.cancel(slot, 'the hub stopped');
    this.onDidChangeEmitter.dispose();
  }

  // ---- inside -----------------------------------------------------------------------------

  /** Answered approvals kept a moment for their typing (by id); dropped once typed. */
  private readonly settledEntries = new Map<string, Entry>();

  private settle(entry: Entry, settled: Settled, how: string): void {
    const { approval } = entry;
    if (entry.settled) return;
    entry.settled = settled;
    this.bySlot.delete(approval.slot);
    this.byId.delete(approval.id);
    this.answered.set(approval.id, how === 'withdrawn' ? 'withdrawn' : `answered (${how})`);
    if (this.answered.size > ANSWERED_KEPT) this.answered.delete(this.answered.keys().next().value as string);
    const told = entry.listeners.size > 0;
    for (const listener of [...entry.listeners]) listener(settled);
    if (settled.state === 'denied' && !told) this.untold.set(approval.slot, { approval, ...(settled.reason ? { reason: settled.reason } : {}) });
    if (settled.state === 'allowed') {
      this.settledEntries.set(approval.id, entry);
      if (entry.later) this.startTyping(entry, entry.later());
    }
    this.onDidChangeEmitter.fire(approval.slot);
  }

  private startTyping(entry: Entry, typing: Promise<unknown>): void {
    entry.typing = typing;
    const finished = (): void => {
      this.settledEntries.delete(entry.approval.id);
      for (const done of [...entry.typed]) done();
    };
    // Its result or error is the typing call's to report; here it only ends the waits on it.
    typing.then(finished, finished);
  }

  private waitOn(entry: Entry, ms: number, signal: AbortSignal, on: { onTimeout?: () => void; onAbort?: () => void }): Promise<Settled | 'timeout'> {
    if (entry.settled) return Promise.resolve(entry.settled);
    return new Promise((resolve) => {
      const finish = (result: Settled | 'timeout'): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', aborted);
        entry.listeners.delete(listener);
        resolve(result);
      };
      const listener = (settled: Settled): void => finish(settled);
      const aborted = (): void => {
        finish({ state: 'cancelled', why: 'the call was cancelled' });
        on.onAbort?.();
      };
      const timer = setTimeout(() => {
        on.onTimeout?.();
        finish('timeout');
      }, ms);
      entry.listeners.add(listener);
      if (signal.aborted) aborted();
      else signal.addEventListener('abort', aborted, { once: true });
    });
  }
}

function grantKey(clientName: string, rule: GateRule, unsandboxed: boolean): string {
  return `${clientName}\0${rule.index}\0${rule.match}\0${unsandboxed ? 'outside the sandbox' : ''}`;
}
