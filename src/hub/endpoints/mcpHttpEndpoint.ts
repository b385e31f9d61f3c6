import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { createMcpHandler, isInitializeRequest, isLegacyRequest, type McpServer } from '@modelcontextprotocol/server';
import { DisposableStore, type Event } from '../../core/index.js';
import { followListens, LISTEN, ListenRequests } from '../../mcp/listenRequests.js';
import type { ScreenChangeWatches } from '../../mcp/screenChangeWatches.js';
import type { McpConnection } from '../../mcp/server.js';
import { DetachingTransport } from '../transports/detachingTransport.js';
import { sendJsonBody, sendJsonRpcError } from './httpReplies.js';
import type { Logger } from '../common/logger.js';
import { RateLimitedTransport } from '../transports/rateLimitedTransport.js';
import type { RateLimit } from '../transports/rateLimiter.js';
import { StatelessCallLimits } from '../transports/statelessCallLimits.js';

interface McpHttpEndpointOptions {
  createServer: (connection: McpConnection) => McpServer;
  logger: Logger;
  bodyLimitBytes: number;
  /** A session with no open request and no running call for this long is closed. */
  idleMs: number;
  /** Per session (rateLimitedTransport.ts), and per client of stateless requests (statelessCallLimits.ts). */
  rateLimit: RateLimit;
  /** Sessions as resources, for 2026-07-28 `subscriptions/listen` streams (docs/design.md §3.7). */
  resources?: { screens: ScreenChangeWatches; onDidChangeLive: Event<void> };
}

/**
 * `@modelcontextprotocol/node` (hono under it: megabytes of the hub's RSS) is loaded by the first
 * stateful HTTP session: a hub only the shim talks to never needs it.
 */
let nodeTransport: Promise<typeof import('@modelcontextprotocol/node')> | undefined;

export interface McpHttpEndpoint {
  /** Serves one authorised `/mcp` request; a POST's body is already read and parsed. */
  handle(req: IncomingMessage, res: ServerResponse, parsedBody: unknown, rawBody: Buffer | undefined): Promise<void>;
  readonly sessionCount: number;
  close(): Promise<void>;
}

interface HttpSession {
  transport: NodeStreamableHTTPServerTransport;
  wire: DetachingTransport;
  lastSeen: number;
  openRequests: number;
}

/**
 * `/mcp`, MCP Streamable HTTP. 2025-era clients (what hosts speak today, and the SDK client's
 * default) get stateful sessions: `initialize` opens one, with its own McpServer, until DELETE or
 * `idleMs` without traffic. 2026-era requests (per-request `_meta` envelope) go to the SDK's
 * stateless modern handler, routed with the SDK's own `isLegacyRequest`.
 */
export function createMcpHttpEndpoint(options: McpHttpEndpointOptions): McpHttpEndpoint {
  const sessions = new Map<string, HttpSession>();
  /** Every live session transport, including closed sessions still finishing a call. */
  const live = new Set<DetachingTransport>();
  const onerror = (error: Error): void => options.logger.warn(`mcp http: ${error.message}`);
  const modern = createMcpHandler(() => options.createServer({ era: 'modern' }), {
    legacy: 'reject',
    maxRequestBodySize: options.bodyLimitBytes,
    onerror,
  });
  const statelessLimits = new StatelessCallLimits(options.rateLimit, options.logger);
  // Listen streams: the SDK serves them from its event bus; the screens they follow are watched
  // here, once per URI for all of them, and the bus gives each stream its copy.
  const listens = new ListenRequests();
  const store = new DisposableStore();
  store.add(listens);
  if (options.resources) {
    store.add(followListens(listens, options.resources.screens, (uri) => modern.notify.resourceUpdated(uri)));
    store.add(
      options.resources.onDidChangeLive(() => {
        if (listens.wantsListChanged) modern.notify.resourcesChanged();
      }),
    );
  }

  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const session of sessions.values()) {
        if (session.openRequests === 0 && session.wire.pendingCalls === 0 && now - session.lastSeen > options.idleMs) {
          void session.transport.close().catch(onerror);
        }
      }
    },
    Math.min(60_000, Math.max(1_000, Math.floor(options.idleMs / 2))),
  );
  sweep.unref();

  const track = (session: HttpSession, res: ServerResponse): void => {
    session.openRequests++;
    session.lastSeen = Date.now();
    res.once('close', () => {
      session.openRequests--;
      session.lastSeen = Date.now();
    });
  };

  const openSession = async (req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> => {
    // The session record is built after its transport, whose callbacks need it.
    const ref: { session?: HttpSession } = {};
    const { NodeStreamableHTTPServerTransport: Transport } = await (nodeTransport ??= import('@modelcontextprotocol/node'));
    const transport = new Transport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize: options.bodyLimitBytes,
      onsessioninitialized: (id) => {
        if (ref.session) sessions.set(id, ref.session);
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    const wire = new DetachingTransport(new RateLimitedTransport(transport, options.rateLimit, options.logger, 'http'), {
      onDetached: () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
      },
      onReleased: () => live.delete(wire),
    });
    const session: HttpSession = { transport, wire, lastSeen: Date.now(), openRequests: 0 };
    ref.session = session;
    live.add(wire);
    await options.createServer({ era: 'legacy' }).connect(wire);
    track(session, res);
    await transport.handleRequest(req, res, body);
    if (!transport.sessionId) await wire.forceClose(); // initialize was refused: nothing to keep
  };

  /**
   * A `subscriptions/listen` stream: open while its response is, and only then. Unlike a call,
   * the client going away ends it (its request's signal), so the SDK lets go of it.
   */
  const serveListen = async (req: IncomingMessage, res: ServerResponse, body: { params?: unknown }, rawBody: Buffer): Promise<void> => {
    const gone = new AbortController();
    const key = {};
    listens.open(key, body.params);
    res.once('close', () => {
      gone.abort();
      listens.close(key);
    });
    await writeWebResponse(res, await modern.fetch(toWebRequest(req, rawBody, gone.signal), { parsedBody: body }));
  };

  return {
    get sessionCount() {
      return sessions.size;
    },
    async handle(req, res, parsedBody, rawBody) {
      const sessionId = req.headers['mcp-session-id'];
      if (typeof sessionId === 'string') {
        const session = sessions.get(sessionId);
        if (!session)
          return sendJsonRpcError(res, 404, -32001, 'Session not found (closed or expired): send initialize without Mcp-Session-Id to start a new one.');
        track(session, res);
        return session.transport.handleRequest(req, res, parsedBody);
      }
      if (req.method === 'POST' && isInitializeRequest(parsedBody)) return openSession(req, res, parsedBody);
      if (req.method === 'POST' && rawBody !== undefined) {
        const request = toWebRequest(req, rawBody);
        if (!(await isLegacyRequest(request, parsedBody, { maxRequestBodySize: options.bodyLimitBytes }))) {
          const refused = statelessLimits.check(parsedBody);
          if (refused) return sendJsonBody(res, 200, refused);
          if (isListen(parsedBody)) return serveListen(req, res, parsedBody, rawBody);
          return writeWebResponse(res, await modern.fetch(request, { parsedBody }));
        }
      }
      if (req.method !== 'POST' && req.method !== 'GET' && req.method !== 'DELETE') {
        res.setHeader('Allow', 'GET, POST, DELETE');
        return sendJsonRpcError(res, 405, -32000, 'Method not allowed.');
      }
      return sendJsonRpcError(res, 400, -32000, 'Bad Request: no Mcp-Session-Id header; send initialize first.');
    },
    async close() {
      clearInterval(sweep);
      store.dispose();
      await Promise.all([...live].map((wire) => wire.forceClose()));
      live.clear();
      sessions.clear();
      await modern.close().catch(onerror);
    },
  };
}

function isListen(body: unknown): body is { params?: unknown } {
  const message = body as { method?: unknown; id?: unknown } | null;
  return typeof message === 'object' && message !== null && message.method === LISTEN && message.id !== undefined;
}

/**
 * A fetch Request for the modern handler, deliberately without an abort signal for a call: a
 * client that drops the connection must not cancel it (docs/design.md §3.4). A listen stream
 * gets one: it is nothing but the connection.
 */
function toWebRequest(req: IncomingMessage, body: Buffer, signal?: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return new Request(`http://${req.headers.host}${req.url ?? '/mcp'}`, { method: 'POST', headers, body: new Uint8Array(body), signal });
}

/** Copies a fetch Response to Node; after a client disconnect the rest is read and dropped. */
async function writeWebResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!res.destroyed && !res.write(value)) {
      await new Promise<void>((resolve) => {
        res.once('drain', resolve);
        res.once('close', resolve);
      });
    }
  }
  res.end();
}
