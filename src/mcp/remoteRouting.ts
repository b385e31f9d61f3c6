/**
 * Agents' calls on another machine (docs/design.md §4.7): a session id that names a remote
 * (`devbox:k3f9q2`), or `open`'s `host`, sends the call to that remote's own tool over the link,
 * where its hub runs it as for its own agents (its policy, its sandbox) and shows ids as
 * `devbox:k3f9q2`; the answer comes back as it is. `list` and `history` ask every machine
 * themselves (tools/list.ts, tools/history.ts).
 */
import type { CallToolResult, ServerContext } from '@modelcontextprotocol/server';
import { SESSION_ALIASES } from './schemas.js';
import type { RemoteCaller, RemoteTools, ToolHost } from './toolHost.js';
import { errorResult } from './toolResult.js';
import { HOST_ALIASES, LOCAL_HOST } from './hostInput.js';

/** The tools whose call goes to the machine its session is on. */
export const ROUTED_BY_SESSION: ReadonlySet<string> = new Set(['execute', 'send', 'read', 'kill', 'screenshot', 'screen_updates']);

type Handler = (args: unknown, ctx: ServerContext) => Promise<CallToolResult>;

/** Who calls, as RemoteCaller says it, for this request. */
export type CallerOf = (ctx: ServerContext) => Omit<RemoteCaller, 'signal' | 'progressToken' | 'progress'>;

/**
 * `handler`, except that a call on a remote's session (or `open` on a remote) goes to that
 * remote. A call whose session is this machine's, or names no known remote, stays here (an
 * unknown one fails here as any unknown session does).
 */
export function routedToRemotes(tool: string, handler: Handler, host: ToolHost & { remotes: RemoteTools }, callerOf: CallerOf): Handler {
  return async (args, ctx) => {
    const target = remoteTarget(tool, args, host.remotes);
    if (!target) return handler(args, ctx);
    const token = ctx.mcpReq._meta?.progressToken;
    const caller: RemoteCaller = {
      ...callerOf(ctx),
      signal: ctx.mcpReq.signal,
      ...(token !== undefined ? { progressToken: token } : {}),
      progress: (progress, message) => {
        if (token === undefined) return;
        void ctx.mcpReq
          .notify({ method: 'notifications/progress', params: { progressToken: token, progress, ...(message !== undefined ? { message } : {}) } })
          .catch(() => undefined);
      },
    };
    try {
      const result = await host.remotes.call(target.host, tool, target.args, caller);
      return tool === 'screen_updates' ? withLocalAddress(result, host) : result;
    } catch (error) {
      return errorResult(error, host.logger, tool);
    }
  };
}

/** The remote a call is for, and its arguments as that remote takes them; undefined: this machine's. */
export function remoteTarget(tool: string, args: unknown, remotes: RemoteTools): { host: string; args: Record<string, unknown> } | undefined {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return undefined;
  const record = args as Record<string, unknown>;
  if (tool === 'open') {
    for (const key of ['host', ...Object.keys(HOST_ALIASES)]) {
      const host = record[key];
      if (typeof host !== 'string' || host === LOCAL_HOST || !remotes.has(host)) continue;
      const { [key]: _host, ...rest } = record;
      return { host, args: rest };
    }
    return undefined;
  }
  if (!ROUTED_BY_SESSION.has(tool)) return undefined;
  for (const key of ['session', ...Object.keys(SESSION_ALIASES)]) {
    const value = record[key];
    if (typeof value !== 'string') continue;
    const split = remotes.split(value);
    return split ? { host: split.host, args: { ...record, [key]: split.id } } : undefined;
  }
  return undefined;
}

/**
 * The terminal app's link to a remote session opens this hub's window, which shows it (the
 * remote's own address is a loopback port of that machine).
 */
function withLocalAddress(result: CallToolResult, host: ToolHost): CallToolResult {
  const structured = result.structuredContent as Record<string, unknown> | undefined;
  if (!structured || typeof structured.ui_url !== 'string' || typeof structured.session !== 'string') return result;
  const address = host.uiAddress?.(structured.session);
  const { ui_url: _remoteAddress, ...rest } = structured;
  return { ...result, structuredContent: address ? { ...rest, ui_url: address } : rest };
}
