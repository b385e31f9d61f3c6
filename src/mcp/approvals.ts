/**
 * What the tools say about the person's approvals (docs/design.md §2.9): a session reserved by
 * a pending approval, and how a result names the rule that asked.
 */
import { ErrorCode, SwitchboardError } from '../core/index.js';
import { awaitApproval, awaitNewApproval } from './nextStep.js';
import type { GateRule, PendingApproval, ToolHost } from './toolHost.js';

/** `rule 3 (sudo *)`, or what asked when no rule did. */
export function describeRule(rule: GateRule | null): string {
  return rule ? `rule ${rule.index} (${rule.match})` : 'no rule';
}

/**
 * A session whose approval is pending is reserved for that command: another `execute` or
 * `send` would type before it (or into it), so it is refused, naming the approval.
 */
export function assertNotReserved(host: ToolHost, id: string, showId: (id: string) => string = (same) => same): void {
  const approval = host.gate?.pending(id);
  if (!approval) return;
  const age = Math.max(0, Math.round((Date.now() - Date.parse(approval.asked_at)) / 1000));
  const session = showId(id);
  throw new SwitchboardError(
    ErrorCode.SessionBusy,
    `Session ${session} is reserved for \`${approval.command}\`, which waits for the person's approval (${approval.id}, asked ${age}s ago); ${awaitApproval(session)}. Or run this in another session.`,
    { approval: approval.id, command: approval.command },
  );
}

/** The approval with its session shown as the connection shows ids (ToolDeps.showId). */
export function shownApproval(approval: PendingApproval, showId: (id: string) => string): PendingApproval {
  return approval.session === null ? approval : { ...approval, session: showId(approval.session) };
}

/** The footer of a result whose command waits for the person, and its next step; `again`: the call to repeat when there is no session yet. */
export function approvalNote(approval: PendingApproval, again?: { tool: string; args: Record<string, unknown> }): { text: string; next: string } {
  const next = approval.session === null ? awaitNewApproval(again?.tool ?? 'open', again?.args ?? {}) : awaitApproval(approval.session);
  return { text: `awaiting the person's approval (${approval.id}; ${describeRule(approval.rule)}: ${approval.reason}); ${next}`, next };
}
