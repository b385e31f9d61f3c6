/**
 * Approvals where the person is (docs/design.md §2.9, "Where the person answers"): when a command
 * waits for the person and the calling client declared URL-mode elicitation, the client is sent one
 * `elicitation/create` in URL mode whose link is a one-time sign-in to the hub's page for that
 * approval. The elicitation's own answer (accept, decline, cancel) is never an answer to the
 * approval: hosts answer elicitations without a person (hooks, auto-accept modes), so only the page
 * (or the window, or the menu) decides ([decision](../../docs/decisions.md#who-answers-for-the-person)).
 */
import type { ClientCapabilities, ServerContext } from '@modelcontextprotocol/server';
import { describeRule } from './approvals.js';
import type { PendingApproval, ToolDeps } from './toolHost.js';

/** What is sent: the message the host shows with the link. */
export function approvalMessage(approval: PendingApproval, client: string): string {
  const what = approval.session === null ? 'start' : 'run';
  const outside = approval.unsandboxed ? ' outside the sandbox' : '';
  return (
    `Switchboard: ${client} wants to ${what}${outside} \`${approval.command}\` (${describeRule(approval.rule)}: ${approval.reason}). ` +
    'Open the link to allow or deny it; accepting this prompt alone allows nothing. The link works once.'
  );
}

/** Whether the client declared URL-mode elicitation (`capabilities.elicitation.url`, MCP 2025-11-25). */
export function declaresUrlElicitation(capabilities: ClientCapabilities | undefined): boolean {
  const elicitation = capabilities?.elicitation as Record<string, unknown> | undefined;
  return typeof elicitation?.url === 'object' && elicitation.url !== null;
}

/**
 * The gate's `onAsk` for this call: on a 2025-era connection whose client declared URL
 * elicitation, one `elicitation/create` (not awaited: the call goes on waiting for the person
 * as it would without it), and `notifications/elicitation/complete` once the approval ended.
 * None for other clients: they see exactly what they saw before.
 */
export function elicitApproval(deps: ToolDeps, ctx: ServerContext): { onAsk?: (approval: PendingApproval) => void } {
  const { host } = deps;
  if (!host.approvalLink || ctx.mcpReq.envelope !== undefined) return {};
  if (!declaresUrlElicitation(deps.clientCapabilities(ctx))) return {};
  const client = deps.clientName(ctx);
  return {
    onAsk: (approval) => {
      const link = host.approvalLink?.(approval.id);
      if (!link) return;
      const elicitationId = approval.id;
      ctx.mcpReq
        .elicitInput({ mode: 'url', elicitationId, url: link.url, message: approvalMessage(approval, client) })
        .then(
          // Logged, never acted on: the page is where the person answers.
          (result) => host.logger.info?.(`approval ${approval.id}: ${client} answered its elicitation with ${result.action}; that answers nothing`),
          (error: unknown) => host.logger.info?.(`approval ${approval.id}: the elicitation to ${client} ended without an answer (${(error as Error).message})`),
        );
      void link.ended.then(() => deps.elicitationComplete(elicitationId).catch(() => undefined));
    },
  };
}
