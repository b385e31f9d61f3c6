import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { UiChannel } from '../audit/personAudit.js';
import { BASE_HEADERS, refuseUpgrade, sendJsonBody, sendJsonRpcError, sendText } from './httpReplies.js';
import { envelopeError } from '../common/jsonRpc.js';
import type { Logger } from '../common/logger.js';
import type { LoginCodes } from '../state/loginCodes.js';
import type { McpHttpEndpoint } from './mcpHttpEndpoint.js';
import { guardRequest, uiCookieName, type Credential, type GuardVerdict } from './requestGuard.js';
import { createStalledResponses } from './stalledResponses.js';

/** Never anything but loopback (docs/design.md §4.3). */
const HTTP_HOST = '127.0.0.1';

/**
 * Keep-alive: the hub keeps an idle connection far longer than it tells clients to keep it, so
 * a client never writes a request into a connection the hub has just closed (docs/decisions.md,
 * "The hub outlives its clients' keep-alive pools"). undici (Node's fetch: both MCP SDKs' HTTP
 * transports) keeps an idle socket for the advertised `Keep-Alive: timeout` less 2 s, on a timer
 * that cannot fire while its event loop is busy; Node's default (5 s advertised, closed at 6 s)
 * lost a request whenever a client was busy for 3 s. Clients that ignore the header keep theirs
 * 5 s (httpx), 90 s (Go), 300 s (Chromium): all under KEEP_ALIVE_TIMEOUT_MS.
 */
export const KEEP_ALIVE_ADVERTISED_S = 60;
const KEEP_ALIVE_TIMEOUT_MS = 10 * 60_000;
/**
 * The time from a request's first byte to the end of its headers (Node ≥ 18 does not count the
 * idle time before it, so it need not exceed the keep-alive timeout): Node's default, on purpose;
 * generous for a loopback client even while the hub's event loop is busy.
 */
const HEADERS_TIMEOUT_MS = 60_000;

interface HttpServerOptions {
  /** 0 picks a free port; `HttpServer.port` is the one bound. */
  port: number;
  /** The current token (it may be rotated while the hub runs). */
  token: () => string;
  /** The person's UI key (token.ts): the UI cookie and the `/?key=` link carry it. */
  uiKey: () => string;
  bodyLimitBytes: number;
  mcp: McpHttpEndpoint;
  logger: Logger;
  /** The person's UI: its page at `/` with its files, and its bridge on `/ws`. */
  ui: UiEndpoint;
  /** An answer the client has read nothing of for this long is dropped (stalledResponses.ts; setting httpStallMs). */
  stallMs: number;
  /** One-time sign-in codes `/?login=` redeems (`switchboard ui`); without it such links are refused. */
  loginCodes?: LoginCodes;
  /**
   * The port was asked for explicitly (`serve --port N`): a busy one is an error, not a
   * quiet move to a free port, which would leave the person's link pointing elsewhere.
   */
  strictPort?: boolean;
}

/**
 * The person's UI as the HTTP server serves it (the ui room builds it, the composition root hands
 * it over): the page and its files, and the bridge on `/ws`. Every call comes after the request
 * guard passed.
 */
export interface UiEndpoint {
  /** Whether a path may name one of the page's files (`/` is the page itself). */
  isAsset(urlPath: string): boolean;
  /** Answers a request for `/` or one of the page's files (with a CSP naming `port`). */
  serve(req: http.IncomingMessage, res: http.ServerResponse, urlPath: string, port: number): void;
  /**
   * A checked `/ws` upgrade (Host, Origin and the token or cookie passed, before any 101).
   * `channel`: `window` when the UI cookie signed it in (the person's browser), `token` when the
   * bearer token did (what agents hold: it cannot answer for the person, uiBridge.ts).
   */
  handleUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer, channel: Extract<UiChannel, 'window' | 'token'>): void;
  /** The page was served: its WebSocket follows in a moment, so load what it needs now. */
  prepare(): void;
  /**
   * `/approval/…`: an approval's page (a URL elicitation's link, docs/design.md §2.9). Called
   * before the request guard: it has its own sign-in (the link's code, then a cookie for that
   * approval only), checks Host and Origin itself, and the token and the UI cookie open nothing
   * there. None: those paths are 404.
   */
  approvalPage?(req: http.IncomingMessage, res: http.ServerResponse, port: number): Promise<void>;
  close(): Promise<void>;
}

export interface HttpServer {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * HTTP on 127.0.0.1: `/mcp` (MCP Streamable HTTP), `/` and its assets (the built renderer), `/ws`
 * (the UI bridge; upgrades are checked before `ws` answers 101). Host,
 * Origin and the token are checked from the headers before any body is read.
 */
export async function startHttpServer(options: HttpServerOptions): Promise<HttpServer> {
  let port = options.port;
  const stalled = createStalledResponses({ stallMs: options.stallMs, logger: options.logger });
  const server = http.createServer({ keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS, headersTimeout: HEADERS_TIMEOUT_MS }, (req, res) => {
    // Our own hint replaces Node's (which would advertise KEEP_ALIVE_TIMEOUT_MS itself).
    res.setHeader('Keep-Alive', `timeout=${KEEP_ALIVE_ADVERTISED_S}`);
    stalled.watch(res);
    handleRequest(req, res, port, options).catch((error: unknown) => {
      options.logger.error(`http ${req.method} ${req.url?.split('?')[0]}: ${(error as Error).message}`);
      if (!res.headersSent) sendJsonRpcError(res, 500, -32603, 'Internal error');
      else res.destroy();
    });
  });
  server.on('upgrade', (req: http.IncomingMessage, socket, _head) => {
    socket.on('error', () => undefined);
    const guard = guardRequest(req, { port, token: options.token, uiKey: options.uiKey, allowCookie: true, requireOrigin: true });
    if (!guard.ok) return refuseUpgrade(socket, guard.status, guard.reason);
    if (pathOf(req) !== '/ws') return refuseUpgrade(socket, 404, 'Not found');
    // The UI cookie is the person's window; the bearer token is what agents hold (uiBridge.ts, PERSON_ONLY).
    options.ui.handleUpgrade(req, socket, _head, guard.credential === 'cookie' ? 'window' : 'token');
  });
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
  });

  try {
    await listen(server, options.port);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EACCES') {
      throw new Error(
        `port ${options.port} on ${HTTP_HOST} needs privileges this process does not have; choose a port from 1024 to 65535 (or 0 for a free one).`,
      );
    }
    if (code === 'EADDRINUSE' && options.strictPort && options.port !== 0) {
      throw new Error(`port ${options.port} on ${HTTP_HOST} is in use by another program; choose another port, or 0 for a free one.`);
    }
    if (code !== 'EADDRINUSE' || options.port === 0) throw error;
    // The socket (what agents use) must not fail over a busy UI port: take a free one, say so.
    options.logger.warn(`port ${options.port} on ${HTTP_HOST} is in use; using a free port instead (set "port" in settings.json or SWITCHBOARD_PORT).`);
    await listen(server, 0);
  }
  port = (server.address() as AddressInfo).port;
  server.on('error', (error) => options.logger.error(`http server: ${error.message}`));

  return {
    port,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await options.mcp.close();
      await options.ui.close();
      server.closeAllConnections();
      stalled.dispose();
      await closed;
    },
  };
}

function listen(server: http.Server, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onError = (error: Error): void => reject(error);
    server.once('error', onError);
    server.listen({ host: HTTP_HOST, port, exclusive: true }, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

async function handleRequest(req: http.IncomingMessage, res: http.ServerResponse, port: number, options: HttpServerOptions): Promise<void> {
  const path = pathOf(req);
  // Its own sign-in (an approval link's one-time code): the bearer token and the UI cookie open nothing there.
  if (path.startsWith('/approval/')) {
    if (!options.ui.approvalPage) return sendText(res, 404, 'Not found\n');
    return options.ui.approvalPage(req, res, port);
  }
  const loginCode = uiQueryParameter(req, path, 'login');
  const { loginCodes } = options;
  const queryKey = uiQueryParameter(req, path, 'key');
  const queryToken = uiQueryParameter(req, path, 'token');
  const guard = guardRequest(req, {
    port,
    token: options.token,
    uiKey: options.uiKey,
    allowCookie: path !== '/mcp',
    requireOrigin: false,
    ...(queryKey !== undefined ? { queryKey } : {}),
    ...(queryToken !== undefined ? { queryToken } : {}),
    ...(loginCode !== undefined ? { redeemLoginCode: () => loginCodes?.redeem(loginCode) ?? false } : {}),
  });
  if (!guard.ok) return refuse(req, res, guard, path);

  if (path === '/mcp') {
    if (req.method !== 'POST') return options.mcp.handle(req, res, undefined, undefined);
    const body = await readBody(req, res, options.bodyLimitBytes);
    if (body === undefined) return; // answered 413
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      return sendJsonRpcError(res, 400, -32700, 'Parse error: the request body is not JSON.');
    }
    // Refused before the SDK, which would run every call of a batch array and answers a
    // message without "jsonrpc" with -32700 and id null (the caller could not match it).
    const invalid = envelopeError(parsed, 'request');
    if (invalid) return sendJsonBody(res, 400, invalid);
    return options.mcp.handle(req, res, parsed, body);
  }
  if (path === '/') return serveUi(req, res, port, options, guard.credential);
  if (options.ui.isAsset(path)) return options.ui.serve(req, res, path, port);
  if (path === '/ws') return sendText(res, 426, 'Upgrade Required\n', { Upgrade: 'websocket' });
  return sendText(res, 404, 'Not found\n');
}

/**
 * `/?key=…` (the printed UI address) and `/?login=…` (`switchboard ui`'s one-time code) are
 * how a browser signs in (then a cookie takes over); `/?token=…` is refused saying so. GET of
 * `/` only.
 */
function uiQueryParameter(req: http.IncomingMessage, path: string, name: 'key' | 'token' | 'login'): string | undefined {
  if (path !== '/' || req.method !== 'GET') return undefined;
  return new URL(req.url ?? '/', 'http://localhost').searchParams.get(name) ?? undefined;
}

function serveUi(req: http.IncomingMessage, res: http.ServerResponse, port: number, options: HttpServerOptions, credential: Credential): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') return sendText(res, 405, 'Method not allowed\n', { Allow: 'GET, HEAD' });
  // Only the person's link or code sets the cookie; the bearer token never mints one.
  if (credential === 'key-link' || credential === 'login-code') {
    // Trade the secret in the address bar (and history) for an HttpOnly cookie.
    res.writeHead(303, {
      ...BASE_HEADERS,
      Location: '/',
      'Set-Cookie': `${uiCookieName(port)}=${options.uiKey()}; HttpOnly; SameSite=Strict; Path=/`,
      'Content-Length': '0',
    });
    return void res.end();
  }
  // Signed in by the cookie already: a code or key in the address leaves it all the same (unused).
  if ((['key', 'login', 'token'] as const).some((name) => uiQueryParameter(req, '/', name) !== undefined)) {
    res.writeHead(303, { ...BASE_HEADERS, Location: '/', 'Content-Length': '0' });
    return void res.end();
  }
  options.ui.prepare();
  options.ui.serve(req, res, '/', port);
}

function refuse(req: http.IncomingMessage, res: http.ServerResponse, verdict: GuardVerdict, path: string): void {
  const headers: Record<string, string> = verdict.status === 401 ? { 'WWW-Authenticate': 'Bearer realm="switchboard"' } : {};
  // An unread body is dropped after the answer (see readBody); a large one is not worth reading.
  if (Number(req.headers['content-length'] ?? '0') > DISCARD_LIMIT_BYTES || req.headers['transfer-encoding'] !== undefined) headers.Connection = 'close';
  else discardBody(req);
  if (path === '/mcp') return sendJsonRpcError(res, verdict.status, -32001, verdict.reason, headers);
  sendText(res, verdict.status, `${verdict.reason}\n`, headers);
}

/** A refused request's body is read and dropped (never kept) up to this much, then the connection is cut. */
const DISCARD_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * The body, or undefined after answering 413. Nothing over the cap is kept: the rest is read
 * and dropped, because closing on a client still sending makes its kernel discard our answer
 * (a TCP reset), so it would never see the 413.
 */
function readBody(req: http.IncomingMessage, res: http.ServerResponse, limit: number): Promise<Buffer | undefined> {
  const tooLarge = (): undefined => {
    discardBody(req);
    sendJsonRpcError(res, 413, -32600, `Request body larger than ${limit} bytes.`);
    return undefined;
  };
  if (Number(req.headers['content-length'] ?? '0') > limit) return Promise.resolve(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      cleanup();
      chunks.length = 0;
      resolve(tooLarge());
    };
    const onEnd = (): void => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

function discardBody(req: http.IncomingMessage): void {
  let dropped = 0;
  req.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > DISCARD_LIMIT_BYTES) req.socket.destroy();
  });
  req.resume();
}

function pathOf(req: http.IncomingMessage): string {
  return new URL(req.url ?? '/', 'http://localhost').pathname;
}
