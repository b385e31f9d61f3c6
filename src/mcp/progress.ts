/**
 * MCP progress for calls that wait (`execute`, and `send`/`read` with `wait`): hosts with a
 * 60-second request timeout reset it on every progress notification (docs/design.md §3.4).
 * Sent only when the request carried `_meta.progressToken` (docs/conventions.md, the MCP
 * TypeScript SDK).
 */
import type { ServerContext } from '@modelcontextprotocol/server';

/** How often a waiting call tells a client that asked for progress that it is still alive. */
export const PROGRESS_INTERVAL_MS = 5_000;

export interface ProgressTicker {
  /** Stops the notifications; call it in a `finally`. */
  dispose(): void;
}

/**
 * Every `intervalMs` while the call runs: `notifications/progress` with the elapsed seconds as
 * `progress` (increasing, no `total`: the end is not known) and `message` e.g. "running for 10 s".
 * A no-op without a progress token. Stops by itself when the request is cancelled.
 */
export function startProgress(ctx: ServerContext, verb: string, intervalMs = PROGRESS_INTERVAL_MS): ProgressTicker {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return { dispose: () => {} };
  const startedAt = Date.now();
  const signal = ctx.mcpReq.signal;
  const timer = setInterval(() => {
    if (signal.aborted) return dispose();
    const seconds = Math.round((Date.now() - startedAt) / 1000);
    ctx.mcpReq
      .notify({ method: 'notifications/progress', params: { progressToken: token, progress: seconds, message: `${verb} for ${seconds} s` } })
      .catch(() => undefined); // The client went away: the call goes on regardless.
  }, intervalMs);
  const dispose = (): void => clearInterval(timer);
  return { dispose };
}
