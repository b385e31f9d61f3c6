/**
 * The gate before a command line is typed (docs/design.md §2.9): the person's policy
 * (src/policy) judges it, a 30-minute grant may stand in for the person, otherwise an approval
 * waits for them (approvals.ts). The MCP tools see it as `CommandGate`; every decision goes to
 * the audit log, never the command line itself (§4.6).
 */
import { ErrorCode, SwitchboardError, type Event } from '../core/index.js';
import type { CommandGate, GatePass, GateRequest, GateRule, PendingApproval } from '../mcp/server.js';
import { DEFAULT_POLICY, decide, type PolicyAction, type PolicyDecision, type PolicyRule } from '../policy/index.js';
import type { Approval, ApprovalBook, Settled } from './approvals.js';
import type { Logger } from './logger.js';
import type { Settings } from './settings.js';

/** The policy in force: the rules and the answer when none matches (the one place settings are read for it). */
export function policyOf(settings: Partial<Pick<Settings, 'policy' | 'policyDefault'>>): { rules: readonly PolicyRule[]; fallback: PolicyAction } {
  return { rules: settings.policy ?? DEFAULT_POLICY, fallback: settings.policyDefault ?? 'allow' };
}

/** One audit line of a decision: what answered (a rule, a grant, the person's approval), never the command. */
export interface PolicyAuditEvent {
  client: string;
  tool: 'execute' | 'send';
  session: string;
  decision: PolicyAction;
  rule?: GateRule;
  /** The approval that asks the person. */
  approval?: string;
  /** A 30-minute grant allowed it without asking. */
  grant?: true;
}

export interface PolicyGateOptions {
  settings: () => Partial<Pick<Settings, 'policy' | 'policyDefault'>>;
  book: ApprovalBook;
  audit: (event: PolicyAuditEvent) => void;
  logger: Pick<Logger, 'warn'>;
}

export class PolicyGate implements CommandGate {
  /** Text typed at a shell's prompt without Enter, by session: part of the line the next Enter runs. */
  private readonly partial = new Map<string, string>();

  constructor(private readonly options: PolicyGateOptions) {}

  async pass(request: GateRequest, waitMs: number, signal: AbortSignal, later: () => Promise<unknown>): Promise<GatePass> {
    const { session } = request;
    const command = request.tool === 'send' ? (this.partial.get(session.id) ?? '') + request.command : request.command;
    const decision = await this.judge(command, request);
    const base = { client: request.client, tool: request.tool, session: session.id };
    const rule = decision.rule ? { index: decision.rule.index, match: decision.rule.match } : undefined;
    if (decision.action === 'deny') {
      this.options.audit({ ...base, decision: 'deny', ...(rule ? { rule } : {}) });
      throw new SwitchboardError(
        ErrorCode.CommandDenied,
        `The person's policy denies this (${rule ? `rule ${rule.index}, ${rule.match}` : 'policyDefault'}): ${decision.reason}. Nothing was typed; do not retry it in another form — ask the person if it is needed.`,
        { by: 'policy', ...(rule ? { rule } : {}) },
      );
    }
    const allowed = (): GatePass => {
      this.partial.delete(session.id);
      return { outcome: 'allowed', ran: () => undefined };
    };
    if (decision.action === 'allow') {
      this.options.audit({ ...base, decision: 'allow', ...(rule ? { rule } : {}) });
      return allowed();
    }
    const asked = askingRules(decision);
    if (asked && this.options.book.granted(request.clientName, asked)) {
      this.options.audit({ ...base, decision: 'allow', ...(rule ? { rule } : {}), grant: true });
      return allowed();
    }
    const reserved = this.options.book.pending(session.id);
    if (reserved) {
      throw new SwitchboardError(ErrorCode.SessionBusy, `Session ${session.id} is reserved for \`${reserved.command}\`, which waits for the person's approval (${reserved.id}); run this in another session.`, { approval: reserved.id });
    }
    const approval = this.options.book.ask({
      session: session.id,
      command,
      cwd: session.cwd,
      client: request.client,
      clientName: request.clientName,
      rule: rule ?? null,
      reason: decision.reason,
      terminal: session,
    });
    this.options.audit({ ...base, decision: 'ask', ...(rule ? { rule } : {}), approval: approval.id });
    const typeLater = () => later().catch((error: unknown) => this.options.logger.warn(`approval ${approval.id}: the allowed command could not be typed: ${(error as Error).message}`));
    const settled = await this.options.book.waitToType(approval, waitMs, signal, typeLater);
    if (settled === 'timeout') return { outcome: 'awaiting', approval };
    if (settled.state === 'denied') throw personDenied(approval, settled);
    if (settled.state === 'cancelled') {
      throw new SwitchboardError(ErrorCode.CommandDenied, `Nothing was typed: the approval was withdrawn (${settled.why}) before the person answered.`, { by: 'withdrawn', approval: approval.id });
    }
    this.partial.delete(session.id);
    return { outcome: 'allowed', ran: (typing) => this.options.book.typing(approval, typing) };
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

  typedAtPrompt(session: string, text: string): void {
    // Bounded: a line longer than this is judged by what was kept (its end is what Enter runs with it).
    this.partial.set(session, ((this.partial.get(session) ?? '') + text).slice(-100_000));
  }

  /** A session closed: its approval is withdrawn and its unfinished line forgotten. */
  sessionClosed(session: string): void {
    this.partial.delete(session);
    this.options.book.cancel(session, 'the session was closed');
  }

  private async judge(command: string, request: GateRequest): Promise<PolicyDecision> {
    const { rules, fallback } = policyOf(this.options.settings());
    try {
      return await decide({ command, cwd: request.session.cwd ?? undefined, client: request.clientName, project: request.session.openedIn }, rules, fallback);
    } catch (error) {
      // The engine failing must not let a line through unasked.
      this.options.logger.warn(`policy: could not judge a command line (${(error as Error).message}); asking the person`);
      return { action: fallback === 'deny' ? 'deny' : 'ask', reason: 'the policy could not judge this line', commands: [] };
    }
  }
}

/** The rules that asked, when every asking command came from one (a grant can stand in only then). */
function askingRules(decision: PolicyDecision): GateRule[] | null {
  const asking = decision.commands.filter((command) => command.action === 'ask');
  if (asking.length === 0 || asking.some((command) => !command.rule)) return null;
  return asking.map((command) => ({ index: command.rule!.index, match: command.rule!.match }));
}

function personDenied(approval: Approval, settled: Extract<Settled, { state: 'denied' }>): SwitchboardError {
  const why = settled.reason ? `: ${settled.reason}` : ' (no reason given)';
  return new SwitchboardError(
    ErrorCode.CommandDenied,
    `The person denied \`${approval.command}\`${why}. Nothing was typed; do not retry it in another form — ask the person what to do instead.`,
    { by: 'person', approval: approval.id, ...(settled.reason ? { reason: settled.reason } : {}) },
  );
}
