/**
 * The MCP server factory: one `McpServer` per connection, every tool registered on it, all of
 * them calling into one shared hub (docs/design.md §1, §3.1).
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  type ClientCapabilities,
  McpServer,
  type CallToolResult,
  type RegisteredTool,
  type ServerContext,
  type ToolCallback,
  type StandardSchemaWithJSON,
} from '@modelcontextprotocol/server';
import type { Disposable } from '../core/index.js';
import type { ToolAuditEvent, ToolDeps, ToolHost } from './toolHost.js';
import { SESSION_ALIASES } from './schemas.js';
import { errorMeta, INTERNAL_ERROR } from './toolResult.js';
import { refreshExecuteDefaults, registerExecute } from './tools/execute.js';
import { registerHistory } from './tools/history.js';
import { registerKill } from './tools/kill.js';
import { registerList } from './tools/list.js';
import { OPEN_INPUT, registerOpen } from './tools/open.js';
import { listedWithHost } from './hostInput.js';
import { registerRead } from './tools/read.js';
import { registerScreenshot } from './tools/screenshot.js';
import { registerScreenUpdates, SCREEN_UPDATES_TOOL } from './tools/screenUpdates.js';
import { registerSend, sendAuditFacts } from './tools/send.js';
import { registerTerminalApp } from './terminalApp.js';
import { ROUTED_BY_SESSION, routedToRemotes, type CallerOf } from './remoteRouting.js';
import type { RemoteCaller } from './toolHost.js';
import { packageVersion } from '../packageInfo.js';
import { INSTRUCTIONS, SERVER_CAPABILITIES, SERVER_NAME } from '../mcpIntroduction.js';
import type { McpConnection } from './resourceSubscriptions.js';
import { serveSessionResources } from './sessionResources.js';

export type {
  CommandGate,
  GateNewPass,
  GateNewRequest,
  GatePass,
  GateRequest,
  GateRule,
  PendingApproval,
  Screenshot,
  ScreenshotRequest,
  ToolAuditEvent,
  ToolDeps,
  ToolHost,
} from './toolHost.js';
export type { McpConnection } from './resourceSubscriptions.js';

/** Serial numbers of MCP connections in this process (one McpServer per connection). */
let connectionSerial = 0;

/**
 * `entry`: what the SDK entry serving it chose (serveStdio, createMcpHandler): the protocol era,
 * and for a 2026-07-28 stdio connection its listen streams; none: a 2025-era connection.
 */
export function createMcpServer(host: ToolHost, entry: McpConnection = {}): McpServer {
  // What it says of itself is shared with the shim, which answers server/discover alone (src/mcpIntroduction.ts).
  const server = new McpServer(
    { name: SERVER_NAME, version: packageVersion() },
    { capabilities: structuredClone(SERVER_CAPABILITIES), instructions: INSTRUCTIONS },
  );
  const connection = ++connectionSerial;
  const name = (ctx: ServerContext): string => clientName(server, ctx);
  // Over a link from the person's hub on another machine, ids are shown as that hub names them.
  const prefix = entry.sessionPrefix;
  const callerOf: CallerOf = (ctx) => ({
    // One stream to a remote per connection here; a 2026-era stateless request, per client.
    connection: hasEnvelopeClient(ctx) ? `stateless ${name(ctx)}` : `#${connection}`,
    client: clientInfo(server, ctx) ?? { name: 'unknown client', version: '' },
  });
  const deps: ToolDeps = {
    host,
    clientName: name,
    clientApp: (ctx) => clientInfo(server, ctx)?.name ?? 'unknown client',
    // A 2026-era request names its client itself and comes without a connection (one server per
    // request): readers of the same client name share a cursor then.
    clientId: (ctx) => (hasEnvelopeClient(ctx) ? name(ctx) : `${name(ctx)}#${connection}`),
    showId: prefix ? (id) => `${prefix}:${id}` : (id) => id,
    remoteCaller: (ctx) => remoteCaller(callerOf, ctx),
    clientCapabilities: (ctx) => clientCapabilities(server, ctx),
    elicitationComplete: (elicitationId) => server.server.createElicitationCompletionNotifier(elicitationId)(),
  };
  const tools: Record<string, RegisteredTool> = {
    execute: registerExecute(server, deps),
    open: registerOpen(server, deps),
    send: registerSend(server, deps),
    read: registerRead(server, deps),
    list: registerList(server, deps),
    kill: registerKill(server, deps),
    screenshot: registerScreenshot(server, deps),
    history: registerHistory(server, deps),
    // The terminal app's: offered only to clients that draw MCP Apps (terminalApp.ts), audited like the rest.
    [SCREEN_UPDATES_TOOL]: registerScreenUpdates(server, deps),
  };
  registerTerminalApp(server, host);
  const remotes = host.remotes;
  if (remotes) {
    const routedHost = { ...host, remotes } as ToolHost & { remotes: NonNullable<ToolHost['remotes']> };
    for (const [tool, registered] of Object.entries(tools)) {
      if (tool === 'open' || ROUTED_BY_SESSION.has(tool))
        registered.update({
          callback: routedToRemotes(
            tool,
            registered.handler as unknown as ToolHandler,
            routedHost,
            callerOf,
          ) as unknown as ToolCallback<StandardSchemaWithJSON>,
        });
    }
    // `host` is listed while there are remotes: a remote added or removed changes the listing.
    let names: Disposable | undefined;
    const initialized = server.server.oninitialized;
    server.server.oninitialized = () => {
      initialized?.();
      names ??= remotes.onDidChangeNames(() => {
        tools.open!.update({ paramsSchema: listedWithHost(OPEN_INPUT, remotes) });
      });
    };
    // Its streams to the remotes end with it; what it started there goes on.
    const closed = server.server.onclose;
    server.server.onclose = () => {
      names?.dispose();
      remotes.connectionClosed(`#${connection}`);
      closed?.();
    };
  }
  if (prefix) {
    for (const registered of Object.values(tools))
      registered.update({
        callback: showingIdsInErrors(registered.handler as unknown as ToolHandler, prefix) as unknown as ToolCallback<StandardSchemaWithJSON>,
      });
  }
  if (host.audit) {
    for (const [tool, registered] of Object.entries(tools)) registered.update({ callback: audited(tool, registered, host, name, prefix) });
  }
  serveSessionResources(server, host, entry);
  const onDidChangeToolDefaults = host.onDidChangeToolDefaults;
  if (onDidChangeToolDefaults) {
    // Only a connection (it did the initialize handshake, and its close is heard) learns of new
    // defaults; a server made for one stateless request lists the ones in force anyway.
    let subscription: Disposable | undefined;
    const initialized = server.server.oninitialized;
    server.server.oninitialized = () => {
      initialized?.();
      subscription ??= onDidChangeToolDefaults(() => refreshExecuteDefaults(tools.execute!, host.settings));
    };
    const closed = server.server.onclose;
    server.server.onclose = () => {
      subscription?.dispose();
      closed?.();
    };
  }
  return server;
}

type ToolHandler = (args: unknown, ctx: ServerContext) => Promise<CallToolResult>;

/**
 * The one place tool calls are audited: wraps a registered tool's handler so that every call,
 * whatever its outcome, becomes one `ToolAuditEvent`. Records no argument text.
 */
function audited(
  tool: string,
  registered: RegisteredTool,
  host: ToolHost,
  clientName: (ctx: ServerContext) => string,
  prefix?: string,
): ToolCallback<StandardSchemaWithJSON> {
  const handler = registered.handler as unknown as ToolHandler;
  // Over a link results show `<name>:<id>`; this machine's audit names its own sessions.
  const own = (id: string): string => (prefix && id.startsWith(`${prefix}:`) ? id.slice(prefix.length + 1) : id);
  return async (args: unknown, ctx: ServerContext) => {
    const startedAt = Date.now();
    let result: CallToolResult | undefined;
    try {
      result = await handler(args, ctx);
      return result;
    } finally {
      try {
        const structured = (result?.structuredContent ?? {}) as Record<string, unknown>;
        const outcome = ctx.mcpReq.signal.aborted ? 'cancelled' : result === undefined || result.isError ? 'error' : 'ok';
        const event: ToolAuditEvent = {
          time: new Date(startedAt).toISOString(),
          client: clientName(ctx),
          tool,
          session: typeof structured.session === 'string' ? own(structured.session) : sessionArgument(args),
          outcome,
          ...(outcome === 'error' ? { code: (result && errorMeta(result)?.code) ?? INTERNAL_ERROR } : {}),
          duration_ms: Date.now() - startedAt,
        };
        if (tool === 'send') Object.assign(event, sendAuditFacts(args));
        host.audit?.(event);
      } catch {
        // Auditing never breaks a call (the hub's log warns about its own write failures).
      }
    }
  };
}

/** RemoteCaller of a request: who, its cancellation, its progress token and a way to report progress. */
function remoteCaller(callerOf: CallerOf, ctx: ServerContext): RemoteCaller {
  const token = ctx.mcpReq._meta?.progressToken;
  return {
    ...callerOf(ctx),
    signal: ctx.mcpReq.signal,
    ...(token !== undefined ? { progressToken: token } : {}),
    progress: () => undefined,
  };
}

/** `session k3f9q2` (an id of src/core/ids.ts's alphabet) or `session "build"` in an error's sentence. */
const SESSION_IN_ERROR = /\b([Ss]ession) (?:"([^":]+)"|([a-km-np-z2-9]{6})(?=['\s,.;:)]|$))/g;

/**
 * Over a link (docs/design.md §4.7), an error names sessions as the agent there does: the core's
 * sentences say `session k3f9q2` and `No session "build"`, which become `session devbox:k3f9q2`
 * and `No session "devbox:build"`. Only an error's own sentence is changed, never output.
 */
function showingIdsInErrors(handler: ToolHandler, prefix: string): ToolHandler {
  return async (args, ctx) => {
    const result = await handler(args, ctx);
    if (!result.isError) return result;
    return {
      ...result,
      content: result.content.map((item) =>
        item.type === 'text'
          ? {
              ...item,
              text: item.text.replace(SESSION_IN_ERROR, (all, word: string, quoted: string | undefined, id: string | undefined) =>
                quoted !== undefined ? `${word} "${prefix}:${quoted}"` : id !== undefined ? `${word} ${prefix}:${id}` : all,
              ),
            }
          : item,
      ),
    };
  };
}

/** The session an agent named, under its documented name or an alias. */
function sessionArgument(args: unknown): string | null {
  if (typeof args !== 'object' || args === null) return null;
  const record = args as Record<string, unknown>;
  for (const key of ['session', ...Object.keys(SESSION_ALIASES)]) {
    const value = record[key];
    if (typeof value === 'string' || typeof value === 'number') return String(value).slice(0, 100);
  }
  return null;
}

function hasEnvelopeClient(ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  return isImplementation(envelope?.[CLIENT_INFO_META_KEY]);
}

/**
 * 2026-07-28 clients name themselves on every request (the `_meta` envelope); 2025 clients
 * once, in `initialize`.
 */
function clientName(server: McpServer, ctx: ServerContext): string {
  const info = clientInfo(server, ctx);
  if (!info) return 'unknown client';
  return `${info.name} ${info.version}`.trim();
}

function clientInfo(server: McpServer, ctx: ServerContext): { name: string; version: string } | undefined {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const fromEnvelope = envelope?.[CLIENT_INFO_META_KEY];
  return isImplementation(fromEnvelope) ? fromEnvelope : server.server.getClientVersion();
}

/** A 2026-07-28 request declares its client's capabilities in its envelope; a 2025 client in `initialize`. */
function clientCapabilities(server: McpServer, ctx: ServerContext): ClientCapabilities | undefined {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const declared = envelope?.[CLIENT_CAPABILITIES_META_KEY];
  if (typeof declared === 'object' && declared !== null) return declared as ClientCapabilities;
  return server.server.getClientCapabilities();
}

function isImplementation(value: unknown): value is { name: string; version: string } {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return typeof record.name === 'string' && typeof record.version === 'string';
}
/** The terminal app's tool, whose calls the hub audits as a count (docs/design.md §4.6). */
export { SCREEN_UPDATES_TOOL };
