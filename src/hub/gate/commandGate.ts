/**
 * The gate before anything an agent types or starts (docs/design.md §2.9, "every way in"): an
 * `execute` line, the bytes of a `send` into a shell, `open`'s program and arguments. The person's
 * policy (src/policy) judges it, a 30-minute grant may stand in for the person, otherwise an
 * approval waits for them (approvals.ts). The MCP tools see it as `CommandGate`; every decision
 * goes to the audit log, never the command line itself (§4.6).
 */
import { ErrorCode, SwitchboardError, isSwitchboardError, type Event } from '../../core/index.js';
import type { CommandGate, GateNewPass, GateNewRequest, GatePass, GateRequest, GateRule, PendingApproval } from '../../mcp/server.js';
import { decide, stricter, type PolicyDecision } from '../../policy/index.js';
import { newSlot, type Approval, type ApprovalBook, type Settled } from './approvals.js';
import type { PolicyAuditEvent } from '../audit/audit.js';
import type { Logger } from '../common/logger.js';
import { policyOf, type Settings } from '../settings/settings.js';
import { EMPTY_LINE, typeInto, type LineState } from './typedLine.js';

interface PolicyGateOptions {
  settings: () => Partial<Pick<Settings, 'policy' | 'policyDefault'>>;
  book: ApprovalBook;
  audit: (event: PolicyAuditEvent) => void;
  logger: Pick<Logger, 'warn'>;
  clock?: () => number;
}

/** How long what an approval started after its call returned waits for the same request again. */
const STARTED_KEPT_MS = 10 * 60_000;

/** Errors a tool throws before it types anything: the line stays as the gate knew it. */
const BEFORE_TYPING: ReadonlySet<string> = new Set([
  ErrorCode.SessionBusy,
  ErrorCode.InvalidArgument,
  ErrorCode.SessionControlledByUser,
  ErrorCode.SecretPrompt,
  ErrorCode.SessionExited,
]);

/** What the gate judges: the line, where, whether its part typed earlier is known, and outside the sandbox. */
interface Judged {
  command: string;
  cwd: string | undefined;
  project: string | undefined;
  interactive: boolean;
  unsandboxed: boolean;
  /** Why the line holds more than `command` (keys the hub cannot model). */
  unknown: string | null;
}

export class PolicyGate implements CommandGate {
  /** What agents typed on each session's line since its last submit (typedLine.ts). */
  private readonly lines = new Map<string, LineState>();
  /** Passes on one session take turns, so each judges the line the previous one left. */
  private readonly turns = new Map<string, Promise<unknown>>();
  /** What `start` gave when an approval was allowed after its call returned, by request key. */
  private readonly started = new Map<string, { result: unknown; until: number }>();
  /** `start` running for an approval allowed after its call returned, by request key. */
  private readonly starting = new Map<string, Promise<unknown>>();
  private readonly clock: () => number;

  constructor(private readonly options: PolicyGateOptions) {
    this.clock = options.clock ?? Date.now;
  }

  async pass(request: GateRequest, waitMs: number, signal: AbortSignal, later: () => Promise<unknown>): Promise<GatePass> {
    const { session } = request;
    const asked = await this.inTurn(session.id, () => this.judgeTyping(request));
    if ('pass' in asked) return asked.pass;
    const { approval, rest, before } = asked;
    const typeLater = () => {
      this.lines.set(session.id, rest);
      return later().catch((error: unknown) =>
        this.options.logger.warn(`approval ${approval.id}: the allowed command could not be typed: ${(error as Error).message}`),
      );
    };
    const settled = await this.options.book.waitToType(approval, request.returnWhenAsked ? 0 : waitMs, signal, typeLater);
    if (settled === 'timeout') return { outcome: 'awaiting', approval };
    this.throwUnlessAllowed(approval, settled);
    return { outcome: 'allowed', ran: (typing) => this.ran(session.id, before, rest, typing, approval) };
  }

  async passNew(request: GateNewRequest, waitMs: number, signal: AbortSignal, start: () => Promise<unknown>): Promise<GateNewPass> {
    const slot = newSlot(request.key);
    // Allowed after an earlier identical call returned, and still starting: wait for it.
    await this.starting.get(request.key)?.catch(() => undefined);
    const kept = this.takeStarted(request.key);
    if (kept !== undefined) return { outcome: 'started', result: kept };
    const untold = this.options.book.takeUntold(slot);
    if (untold) throw personDenied(untold.approval, { state: 'denied', ...(untold.reason ? { reason: untold.reason } : {}) });
    const startLater = (): Promise<unknown> => {
      const running = start().then((result) => {
        this.started.set(request.key, { result, until: this.clock() + STARTED_KEPT_MS });
        return result;
      });
      this.starting.set(request.key, running);
      running
        .catch((error: unknown) => this.options.logger.warn(`the allowed ${request.tool} could not start: ${(error as Error).message}`))
        .finally(() => this.starting.delete(request.key));
      return running;
    };
    // The same request again while its approval waits: wait on that one.
    const waiting = this.options.book.pending(slot);
    if (waiting) {
      const settled = await this.options.book.watch(waiting, waitMs, signal);
      if (settled === 'timeout') return { outcome: 'awaiting', approval: waiting };
      this.throwUnlessAllowed(waiting, settled);
      await this.starting.get(request.key)?.catch(() => undefined);
      const result = this.takeStarted(request.key);
      return result !== undefined ? { outcome: 'started', result } : { outcome: 'allowed' };
    }
    const judged: Judged = {
      command: request.command,
      cwd: request.cwd,
      project: request.cwd,
      interactive: request.tool === 'execute',
      unsandboxed: request.unsandboxed,
      unknown: null,
    };
    const decision = await this.judge(judged, request.clientName);
    const base = { client: request.client, tool: request.tool, session: null, ...(request.unsandboxed ? { unsandboxed: true as const } : {}) };
    if (this.answered(decision, base, request.clientName, request.unsandboxed)) return { outcome: 'allowed' };
    const approval = this.ask(
      decision,
      base,
      {
        slot,
        session: null,
        tool: request.tool,
        command: request.command,
        cwd: request.cwd,
        client: request.client,
        clientName: request.clientName,
        unsandboxed: request.unsandboxed,
      },
      request.onAsk,
    );
    const settled = await this.options.book.waitToType(approval, request.returnWhenAsked ? 0 : waitMs, signal, startLater);
    if (settled === 'timeout') return { outcome: 'awaiting', approval };
    this.throwUnlessAllowed(approval, settled);
    return { outcome: 'allowed' };
  }

  takeStarted(key: string): unknown {
    const kept = this.started.get(key);
    this.started.delete(key);
    return kept && kept.until > this.clock() ? kept.result : undefined;
  }

  pending(session: string): PendingApproval | undefined {
    return this.options.book.pending(session);
  }

  get onDidChange(): Event<string> {
    return this.options.book.onDidChange;
  }

  async waitThrough(session: string, waitMs: number, signal: AbortSignal): Promise<{ pending: PendingApproval | null; spentMs: number }> {
    const startedAt = Date.now();
    const untold = this.options.book.takeUntold(session);
    if (untold) throw personDenied(untold.approval, { state: 'denied', ...(untold.reason ? { reason: untold.reason } : {}) });
    const approval = this.options.book.pending(session);
    if (!approval) return { pending: null, spentMs: 0 };
    const settled = await this.options.book.watch(approval, waitMs, signal);
    if (settled === 'timeout') return { pending: approval, spentMs: Date.now() - startedAt };
    if (settled.state === 'denied') throw personDenied(approval, settled);
    if (settled.state === 'allowed') await this.options.book.whenTyped(approval, Math.max(0, waitMs - (Date.now() - startedAt)));
    return { pending: null, spentMs: Date.now() - startedAt };
  }

  /** A session closed: its approval is withdrawn and its unfinished line forgotten. */
  sessionClosed(session: string): void {
    this.lines.delete(session);
    this.options.book.cancel(session, 'the session was closed');
  }

  // ---- inside -----------------------------------------------------------------------------

  /**
   * One pass's turn on its session: what is typed and what reads it, judged against the line the
   * hub knows, and the line moved on at once when it is allowed (so the next pass judges the line
   * this one leaves). An ask reserves the session with its approval before the turn ends.
   */
  private async judgeTyping(request: GateRequest): Promise<{ pass: GatePass } | { approval: Approval; rest: LineState; before: LineState }> {
    const { session } = request;
    const line = this.lines.get(session.id) ?? EMPTY_LINE;
    // Whether a program waits on the terminal is asked (a probe) only when it matters: a line would
    // be submitted, and a shell is there to read it after the program.
    const submits = request.tool === 'send' && typeInto(EMPTY_LINE, request.bytes, request.bracketedPaste).submitted.length > 0;
    const foreground = await session.foreground(submits && session.shellKind !== null);
    const cwd = (foreground.kind === 'shell' && foreground.cwd) || session.cwd || undefined;
    let submitted: LineState[];
    let rest: LineState;
    if (request.tool === 'execute') {
      // execute types its line and Enter at the shell's prompt, after whatever is already on the line.
      submitted = [{ text: line.text + request.command, unknown: line.unknown }];
      rest = EMPTY_LINE;
    } else if (foreground.kind === 'shell' || foreground.kind === 'unknown') {
      ({ submitted, rest } = typeInto(line, request.bytes, request.bracketedPaste));
    } else if (foreground.reading === false && session.shellKind !== null) {
      // Typed ahead while a program runs without reading: whatever reads next, the shell perhaps, gets it.
      ({ submitted, rest } = typeInto(EMPTY_LINE, request.bytes, request.bracketedPaste));
      rest =
        rest.text === '' && rest.unknown === null ? line : { text: '', unknown: `keys typed while ${foreground.name ?? 'a program'} ran may be on the line` };
    } else {
      // Keys into a program at its own prompt (a REPL, an editor): out of the engine's sight.
      return { pass: { outcome: 'allowed', ran: () => undefined } };
    }
    if (submitted.length === 0) {
      this.lines.set(session.id, rest);
      return { pass: { outcome: 'allowed', ran: (typing) => this.ran(session.id, line, rest, typing) } };
    }
    const unknown = submitted.find((part) => part.unknown !== null)?.unknown ?? null;
    const command = submitted.map((part) => part.text).join('\n');
    const unsandboxed = session.unsandboxed;
    const decision = await this.judge({ command, cwd, project: session.openedIn, interactive: true, unsandboxed, unknown }, request.clientName);
    const base = { client: request.client, tool: request.tool, session: session.id, ...(unsandboxed ? { unsandboxed: true as const } : {}) };
    if (this.answered(decision, base, request.clientName, unsandboxed)) {
      this.lines.set(session.id, rest);
      return { pass: { outcome: 'allowed', ran: (typing) => this.ran(session.id, line, rest, typing) } };
    }
    const reserved = this.options.book.pending(session.id);
    if (reserved) {
      throw new SwitchboardError(
        ErrorCode.SessionBusy,
        `Session ${session.id} is reserved for \`${reserved.command}\`, which waits for the person's approval (${reserved.id}); run this in another session.`,
        { approval: reserved.id },
      );
    }
    const approval = this.ask(
      decision,
      base,
      {
        slot: session.id,
        session: session.id,
        tool: request.tool,
        command,
        cwd: cwd ?? null,
        client: request.client,
        clientName: request.clientName,
        terminal: session,
        unsandboxed,
      },
      request.onAsk,
    );
    return { approval, rest, before: line };
  }

  /**
   * A deny is thrown, an allow (by a rule, policyDefault or a grant) is audited and true; an ask
   * is left to the caller. Every outcome but the ask is audited here.
   */
  private answered(decision: PolicyDecision, base: Omit<PolicyAuditEvent, 'decision'>, clientName: string, unsandboxed: boolean): boolean {
    const rule = ruleOf(decision);
    if (decision.action === 'deny') {
      this.options.audit({ ...base, decision: 'deny', ...(rule ? { rule } : {}) });
      throw new SwitchboardError(
        ErrorCode.CommandDenied,
        `The person's policy denies this (${rule ? `rule ${rule.index}, ${rule.match}` : 'policyDefault'}): ${decision.reason}. Nothing was typed; do not retry it in another form — ask the person if it is needed.`,
        { by: 'policy', ...(rule ? { rule } : {}) },
      );
    }
    if (decision.action === 'allow') {
      this.options.audit({ ...base, decision: 'allow', ...(rule ? { rule } : {}) });
      return true;
    }
    const asking = askingRules(decision);
    if (asking && this.options.book.granted(clientName, asking, unsandboxed)) {
      this.options.audit({ ...base, decision: 'allow', ...(rule ? { rule } : {}), grant: true });
      return true;
    }
    return false;
  }

  private ask(
    decision: PolicyDecision,
    base: Omit<PolicyAuditEvent, 'decision'>,
    fields: Omit<Approval, 'id' | 'asked_at' | 'rule' | 'reason'>,
    onAsk?: (approval: Approval) => void,
  ): Approval {
    const rule = ruleOf(decision);
    const approval = this.options.book.ask({ ...fields, rule: rule ?? null, reason: decision.reason, ...(fields.unsandboxed ? { unsandboxed: true } : {}) });
    this.options.audit({ ...base, decision: 'ask', ...(rule ? { rule } : {}), approval: approval.id });
    // The caller tells the person where they are (a URL elicitation); whatever comes back answers nothing.
    try {
      onAsk?.(approval);
    } catch (error) {
      this.options.logger.warn(`approval ${approval.id}: telling the person where to answer failed: ${(error as Error).message}`);
    }
    return approval;
  }

  private throwUnlessAllowed(approval: Approval, settled: Settled): void {
    if (settled.state === 'denied') throw personDenied(approval, settled);
    if (settled.state === 'cancelled') {
      throw new SwitchboardError(
        ErrorCode.CommandDenied,
        `Nothing was ${approval.session === null ? 'started' : 'typed'}: the approval was withdrawn (${settled.why}) before the person answered.`,
        { by: 'withdrawn', approval: approval.id },
      );
    }
  }

  /**
   * The typing a pass allowed: the line is what the gate said (set at once, so the next pass judges
   * it). An error thrown before anything was typed, or an `execute` not typed (`not_run`), puts back
   * the line before it; a failure midway leaves the line unknown. Should another pass have moved the
   * line on meanwhile, what it holds is not known either.
   */
  private ran(session: string, before: LineState, rest: LineState, typing: Promise<unknown>, approval?: Approval): void {
    this.lines.set(session, rest);
    if (approval) this.options.book.typing(approval, typing);
    const restore = (line: LineState): void => {
      const moved = this.lines.get(session) !== rest;
      this.lines.set(session, moved ? { text: '', unknown: 'what reached the line is not known (a send failed while another was judged)' } : line);
    };
    typing.then(
      (result) => {
        if ((result as { not_run?: boolean } | undefined)?.not_run === true) restore(before);
      },
      (error: unknown) => {
        if (isSwitchboardError(error) && BEFORE_TYPING.has(error.code)) restore(before);
        else restore({ text: '', unknown: 'a send failed midway, so what reached the line is not known' });
      },
    );
  }

  /** Runs `work` after the passes before it on the same session have been judged. */
  private inTurn<T>(session: string, work: () => Promise<T>): Promise<T> {
    const previous = this.turns.get(session) ?? Promise.resolve();
    const mine = previous.then(work, work);
    const settled = mine.catch(() => undefined);
    this.turns.set(session, settled);
    void settled.then(() => {
      if (this.turns.get(session) === settled) this.turns.delete(session);
    });
    return mine;
  }

  private async judge(judged: Judged, clientName: string): Promise<PolicyDecision> {
    const { rules, fallback } = policyOf(this.options.settings());
    let decision: PolicyDecision;
    try {
      decision = await decide(
        {
          command: judged.command,
          cwd: judged.cwd,
          client: clientName,
          project: judged.project,
          interactive: judged.interactive,
          unsandboxed: judged.unsandboxed,
        },
        rules,
        fallback,
      );
    } catch (error) {
      // The engine failing must not let a line through unasked.
      this.options.logger.warn(`policy: could not judge a command line (${(error as Error).message}); asking the person`);
      return { action: fallback === 'deny' ? 'deny' : 'ask', reason: 'the policy could not judge this line', commands: [] };
    }
    if (judged.unknown === null || decision.action === 'deny') return decision;
    // Keys the hub cannot model changed the line: what runs is not known (a deny found in what is known stands).
    const action = stricter('ask', fallback);
    return { action, reason: `${judged.unknown}; what is known of it: ${decision.reason}`, commands: decision.commands };
  }
}

function ruleOf(decision: PolicyDecision): GateRule | undefined {
  return decision.rule ? { index: decision.rule.index, match: decision.rule.match } : undefined;
}

/** The rules that asked, when every asking command came from one (a grant can stand in only then). */
function askingRules(decision: PolicyDecision): GateRule[] | null {
  const asking = decision.commands.filter((command) => command.action === 'ask');
  if (asking.length === 0 || asking.some((command) => !command.rule)) return null;
  return asking.map((command) => ({ index: command.rule!.index, match: command.rule!.match }));
}

function personDenied(approval: Approval, settled: Extract<Settled, { state: 'denied' }>): SwitchboardError {
  const why = settled.reason ? `: ${settled.reason}` : ' (no reason given)';
  const nothing = approval.session === null ? 'Nothing was started' : 'Nothing was typed';
  return new SwitchboardError(
    ErrorCode.CommandDenied,
    `The person denied \`${approval.command}\`${why}. ${nothing}; do not retry it in another form — ask the person what to do instead.`,
    { by: 'person', approval: approval.id, ...(settled.reason ? { reason: settled.reason } : {}) },
  );
}
