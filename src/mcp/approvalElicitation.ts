/**
 * Approvals where the person is (docs/design.md §2.9, "Where the person answers"): when a command
 * waits for the person and the calling client declared URL-mode elicitation, the client is sent one
 * `elicitation/create` in URL mode whose link is a one-time sign-in to the hub's page for that
 * approval. The elicitation's own answer (accept, decline, cancel) is never an answer to the
 * approval: hosts answer elicitations without a person (hooks, auto-accept modes), so only the page
 * (or the window, or the menu) decides ([decision](../../docs/decisions.md#who-answers-for-the-person)).
 */
import { inputRequired, PROTOCOL_VERSION_META_KEY, type ClientCapabilities, type InputRequiredResult, type ServerContext } from '@modelcontextprotocol/server';
import { describeRule } from './approvals.js';
import type { PendingApproval, ToolDeps } from './toolHost.js';

/** What is sent: the message the host shows with the link. */
function approvalMessage(approval: PendingApproval, client: string): string {
  const what = approval.session === null ? 'start' : 'run';
  const outside = approval.unsandboxed ? ' outside the sandbox' : '';
  return (
    `Switchboard: ${client} wants to ${what}${outside} \`${approval.command}\` (${describeRule(approval.rule)}: ${approval.reason}). ` +
    'Open the link to allow or deny it; accepting this prompt alone allows nothing. The link works once.'
  );
}

/** Whether the client declared URL-mode elicitation (`capabilities.elicitation.url`, MCP 2025-11-25). */
function declaresUrlElicitation(capabilities: ClientCapabilities | undefined): boolean {
  const elicitation = capabilities?.elicitation as Record<string, unknown> | undefined;
  return typeof elicitation?.url === 'object' && elicitation.url !== null;
}

/** A 2026-07-28 request: it carries the `_meta` envelope, and the server cannot send it requests. */
function isModernRequest(ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  return typeof envelope?.[PROTOCOL_VERSION_META_KEY] === 'string';
}

/**
 * The gate's `onAsk` for this call: on a 2025-era connection whose client declared URL
 * elicitation, one `elicitation/create` (not awaited: the call goes on waiting for the person
 * as it would without it), and `notifications/elicitation/complete` once the approval ended.
 * None for other clients: they see exactly what they saw before.
 */
function elicitApproval(deps: ToolDeps, ctx: ServerContext): { onAsk?: (approval: PendingApproval) => void } {
  const { host } = deps;
  if (!host.approvalLink || isModernRequest(ctx)) return {};
  if (!declaresUrlElicitation(deps.clientCapabilities(ctx))) return {};
  const client = deps.clientName(ctx);
  return {
    onAsk: (approval) => {
      const link = host.approvalLink?.(approval.id);
      if (!link) return;
      const elicitationId = approval.id;
      const answered = new AbortController();
      ctx.mcpReq
        // As long as the link lives: the SDK's default (60 s) would cancel the host's prompt while the link
        // still works; once the approval ended, the prompt is withdrawn.
        .elicitInput(
          { mode: 'url', elicitationId, url: link.url, message: approvalMessage(approval, client) },
          { timeout: link.expiresInMs, signal: answered.signal },
        )
        .then(
          // Logged, never acted on: the page is where the person answers.
          (result) => host.logger.info?.(`approval ${approval.id}: ${client} answered its elicitation with ${result.action}; that answers nothing`),
          (error: unknown) => host.logger.info?.(`approval ${approval.id}: the elicitation to ${client} ended without an answer (${(error as Error).message})`),
        );
      void link.ended.then(async () => {
        await deps.elicitationComplete(elicitationId).catch(() => undefined);
        answered.abort();
      });
    },
  };
}

/**
 * A 2026-07-28 call that returned `input_required` with the link (the revision has no
 * server→client request, so the link rides the call's own result, and the client retries the
 * call): what the retry needs to go on waiting for the same approval. Kept in this process by an
 * unguessable `requestState`, so what the client echoes back names nothing but itself.
 */
export interface DeferredCall {
  tool: string;
  approval: string;
  /** The session the approval reserves; null for a request that would start one (the same call again waits on it). */
  session: string | null;
  /** What typing the command gave once the person allowed it (set by the wrapped `later`). */
  readonly typed: { result?: Promise<unknown> };
}

/** Deferred calls kept at most; the oldest go first. */
const DEFERRED_KEPT = 256;
const deferredCalls = new Map<string, DeferredCall>();

/** One tool call's part in telling the person where they are, in either protocol era. */
export interface ApprovalRound {
  /** For the gate request: elicit when asked (2025-11-25), or stop waiting when asked (2026-07-28). */
  readonly gate: { onAsk?: (approval: PendingApproval) => void; returnWhenAsked?: boolean };
  /** This call is the retry of one that returned `input_required` (2026-07-28). */
  readonly retry: DeferredCall | undefined;
  /** Whether the call returns at once when asked, its retry waiting for the allowed command's result. */
  readonly returnsWhenAsked: boolean;
  /** Wraps the gate's `later` so a retry gets what typing the allowed command gave. */
  later<T>(later: () => Promise<T>): () => Promise<T>;
  /** The `input_required` result naming the link, for an approval this call just asked; undefined: answer as before. */
  told(approval: PendingApproval): InputRequiredResult | undefined;
}

export function approvalRound(deps: ToolDeps, ctx: ServerContext, tool: string): ApprovalRound {
  const { host } = deps;
  if (!isModernRequest(ctx)) {
    return { gate: elicitApproval(deps, ctx), retry: undefined, returnsWhenAsked: false, later: (later) => later, told: () => undefined };
  }
  const state = ctx.mcpReq.requestState();
  const found = typeof state === 'string' ? deferredCalls.get(state) : undefined;
  const retry = found?.tool === tool ? found : undefined;
  if (retry) deferredCalls.delete(state as string);
  // One elicitation per approval: a retry waits, it is never told again.
  const telling = retry === undefined && host.approvalLink !== undefined && declaresUrlElicitation(deps.clientCapabilities(ctx));
  const holder: { result?: Promise<unknown> } = {};
  const client = deps.clientName(ctx);
  return {
    gate: telling ? { returnWhenAsked: true } : {},
    retry,
    returnsWhenAsked: telling,
    later: (later) => () => {
      const running = later();
      holder.result = running;
      return running;
    },
    told: (approval) => {
      if (!telling) return undefined;
      const link = host.approvalLink?.(approval.id);
      if (!link) return undefined;
      const token = Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(32))).toString('base64url');
      deferredCalls.set(token, { tool, approval: approval.id, session: approval.session, typed: holder });
      while (deferredCalls.size > DEFERRED_KEPT) deferredCalls.delete(deferredCalls.keys().next().value as string);
      return inputRequired({
        inputRequests: { approval: inputRequired.elicitUrl({ message: approvalMessage(approval, client), url: link.url }) },
        requestState: token,
      });
    },
  };
}
