import * as fs from 'node:fs';
import * as net from 'node:net';
import type { McpServer } from '@modelcontextprotocol/server';
import { serveStdio, StdioServerTransport, type StdioServerHandle } from '@modelcontextprotocol/server/stdio';
import { ListenRequests } from '../../mcp/listenRequests.js';
import type { McpConnection } from '../../mcp/server.js';
import { DetachingTransport } from '../transports/detachingTransport.js';
import type { Logger } from '../common/logger.js';
import { RateLimitedTransport } from '../transports/rateLimitedTransport.js';
import type { RateLimit } from '../transports/rateLimiter.js';
import { TappedTransport } from '../transports/tappedTransport.js';
import {
  HANDSHAKE_TIMEOUT_MS,
  MAX_HANDSHAKE_BYTES,
  type HandshakeReply,
  type HelloMessage,
  LINK_PROTOCOL_VERSION,
  type LinkHelloMessage,
  type LoginCodeMessage,
  type LoginReply,
  type LoginRequestMessage,
} from '../common/socketProtocol.js';
import { tokensEqual } from '../state/token.js';

/** sun_path is 104 bytes on macOS, 108 on Linux (with the terminating NUL). */
const MAX_SOCKET_PATH_BYTES = 103;

interface SocketServerOptions {
  path: string;
  /** The current token (it may be rotated while the hub runs; open connections stay). */
  token: () => string;
  /** The person's UI key: a `login` for a sign-in code must carry it, not the token (token.ts). */
  uiKey: () => string;
  version: string;
  /** Longest JSON-RPC line accepted; a longer one closes the connection. */
  maxMessageBytes: number;
  /** Per connection (rateLimitedTransport.ts). */
  rateLimit: RateLimit;
  /** The era the connection opened in, and its listen streams (a 2026-07-28 connection's). */
  createServer: (connection: McpConnection) => McpServer;
  logger: Logger;
  /** A one-time UI sign-in code for `switchboard ui`, or why there is none (no HTTP endpoint). */
  issueLoginCode?: () => LoginCodeMessage | { reason: string };
  /**
   * A link from the person's hub on another machine (docs/design.md §4.7), its UI key checked: the
   * socket (paused, what followed the handshake put back) is the link's from here on.
   */
  serveLink?: (socket: net.Socket, hello: LinkHelloMessage) => { close(): Promise<void> };
}

export interface SocketServer {
  readonly path: string;
  /** Connections whose MCP server is still alive (detached ones finishing calls included). */
  readonly connectionCount: number;
  close(): Promise<void>;
}

interface Connection {
  socket: net.Socket;
  wire?: DetachingTransport;
  handle?: StdioServerHandle;
  link?: { close(): Promise<void> };
}

/**
 * `<state>/hub.sock` (socketProtocol.ts): one handshake line each way, then one McpServer per
 * connection over newline-delimited JSON-RPC (`serveStdio` on a StdioServerTransport over the
 * socket, so both protocol eras work as on stdio). The socket is 0600 inside the 0700 state dir.
 */
export async function startSocketServer(options: SocketServerOptions): Promise<SocketServer> {
  if (prepareSocketPath(options.path)) {
    // A socket of our uid is stale only if nothing answers on it. We hold the lock, so a
    // live listener there is not a hub of this state dir: someone planted it; never unlink it.
    if (await socketAnswers(options.path)) {
      throw new Error(`${options.path} is a socket another program is listening on; refusing to replace it (stop that program or move the socket away).`);
    }
    fs.unlinkSync(options.path);
  }
  const connections = new Set<Connection>();
  const server = net.createServer((socket) => acceptConnection(socket, options, connections));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.path, () => {
      server.off('error', reject);
      resolve();
    });
  });
  fs.chmodSync(options.path, 0o600);
  server.on('error', (error) => options.logger.error(`socket server: ${error.message}`));

  let closed = false;
  return {
    path: options.path,
    get connectionCount() {
      return connections.size;
    },
    async close() {
      if (closed) return;
      closed = true;
      const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all(
        [...connections].map(async (connection) => {
          await connection.wire?.forceClose();
          await connection.handle?.close().catch(() => undefined);
          await connection.link?.close().catch(() => undefined);
          connection.socket.destroy();
        }),
      );
      connections.clear();
      await serverClosed;
      fs.rmSync(options.path, { force: true });
    },
  };
}

/**
 * Refuses anything at the socket path but a socket of our uid; true when there is one (the
 * caller removes it once it is known to be stale).
 */
function prepareSocketPath(file: string): boolean {
  if (Buffer.byteLength(file) > MAX_SOCKET_PATH_BYTES) {
    throw new Error(`Socket path ${file} is longer than ${MAX_SOCKET_PATH_BYTES} bytes; set SWITCHBOARD_HOME to a shorter directory.`);
  }
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  if (!stat.isSocket()) throw new Error(`${file} exists and is not a socket; refusing to replace it (move it away).`);
  if (typeof process.getuid === 'function' && stat.uid !== process.getuid()) {
    throw new Error(`${file} belongs to uid ${stat.uid}, not to us; refusing to replace it.`);
  }
  return true;
}

/** True when something accepts a connection on the unix socket `file` (bounded: 1 s counts as live). */
function socketAnswers(file: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createConnection(file);
    const done = (live: boolean): void => {
      clearTimeout(timer);
      probe.destroy();
      resolve(live);
    };
    const timer = setTimeout(() => done(true), 1_000);
    probe.once('connect', () => done(true));
    probe.once('error', () => done(false)); // ECONNREFUSED: nobody listens, the socket is stale
  });
}

function acceptConnection(socket: net.Socket, options: SocketServerOptions, connections: Set<Connection>): void {
  const connection: Connection = { socket };
  connections.add(connection);
  socket.on('error', (error) => options.logger.warn(`socket client: ${error.message}`));
  socket.on('close', () => {
    if (!connection.wire) connections.delete(connection);
  });

  let buffered = Buffer.alloc(0);
  const deny = (reason: string): void => {
    cleanupHandshake();
    reply(socket, { type: 'denied', reason });
    socket.end();
    setTimeout(() => socket.destroy(), 1_000).unref();
  };
  const timer = setTimeout(() => deny('handshake timed out'), HANDSHAKE_TIMEOUT_MS);
  const onData = (chunk: Buffer): void => {
    buffered = Buffer.concat([buffered, chunk]);
    const newline = buffered.indexOf(0x0a);
    if (newline === -1) {
      if (buffered.length > MAX_HANDSHAKE_BYTES) deny('handshake line too long');
      return;
    }
    if (newline > MAX_HANDSHAKE_BYTES) return deny('handshake line too long');
    const hello = parseHello(buffered.subarray(0, newline).toString('utf8'));
    if (!hello) return deny('expected {"type":"hello","token":…} as the first line');
    if (hello.type === 'login') {
      // A sign-in code is a browser signed in as the person: the agents' token asks for none.
      if (typeof hello.key !== 'string') return deny(LOGIN_NEEDS_KEY);
      if (!tokensEqual(hello.key, options.uiKey())) return deny('invalid UI key');
      cleanupHandshake();
      const grant = options.issueLoginCode?.() ?? { reason: 'this hub gives no UI sign-in codes' };
      reply(socket, 'code' in grant ? grant : { type: 'denied', reason: grant.reason });
      socket.end();
      setTimeout(() => socket.destroy(), 1_000).unref();
      return;
    }
    if (hello.type === 'link') {
      // Another machine's hub, for the person: this hub's UI key, which `switchboard link` read here.
      if (typeof hello.key !== 'string' || !tokensEqual(hello.key, options.uiKey()))
        return deny('invalid UI key: a link is signed in with the ui-key file of the state directory, which `switchboard link` reads on this machine');
      if (!options.serveLink) return deny('this hub takes no links');
      if (hello.link_protocol !== LINK_PROTOCOL_VERSION || typeof hello.from !== 'string' || typeof hello.name !== 'string') {
        return deny(
          `incompatible versions: this machine runs Switchboard ${options.version} (link protocol ${LINK_PROTOCOL_VERSION}), the other ${String(hello.version)} (link protocol ${String(hello.link_protocol)}); install the same version on both`,
        );
      }
      cleanupHandshake();
      socket.pause();
      const rest = buffered.subarray(newline + 1);
      if (rest.length > 0) socket.unshift(rest);
      reply(socket, { type: 'welcome', hub_pid: process.pid, version: options.version, link_protocol: LINK_PROTOCOL_VERSION });
      const { key: _key, ...peer } = hello;
      connection.link = options.serveLink(socket, peer as LinkHelloMessage);
      return;
    }
    if (!tokensEqual(hello.token, options.token())) return deny('invalid token');
    cleanupHandshake();
    socket.pause();
    const rest = buffered.subarray(newline + 1);
    if (rest.length > 0) socket.unshift(rest);
    reply(socket, { type: 'welcome', hub_pid: process.pid, version: options.version });
    serveMcp(connection, options, connections);
  };
  const cleanupHandshake = (): void => {
    clearTimeout(timer);
    socket.off('data', onData);
  };
  socket.on('data', onData);
}

function serveMcp(connection: Connection, options: SocketServerOptions, connections: Set<Connection>): void {
  const { socket } = connection;
  const stdio = new StdioServerTransport(socket, socket, { maxBufferSize: options.maxMessageBytes });
  const listens = new ListenRequests();
  const wire = new DetachingTransport(new RateLimitedTransport(stdio, options.rateLimit, options.logger, 'socket'), {
    // The transport also closes on an oversized line: make sure the peer sees the end.
    onDetached: () => socket.end(),
    onReleased: () => {
      connections.delete(connection);
      listens.dispose();
      socket.destroy();
    },
  });
  connection.wire = wire;
  const tapped = new TappedTransport(wire, { inbound: (message) => listens.observeInbound(message), outbound: (message) => listens.observeOutbound(message) });
  connection.handle = serveStdio(({ era }) => options.createServer({ era, listens }), {
    transport: tapped,
    onerror: (error) => options.logger.warn(`socket mcp: ${error.message}`),
  });
  // Paused during the handshake; an explicit pause() survives new 'data' listeners.
  socket.resume();
}

/** Why a `login` without the UI key (an older `switchboard ui`, or the token) gets no code. */
const LOGIN_NEEDS_KEY = "a sign-in code needs the person's UI key (the ui-key file of the state directory), not the token: the token is what agents hold";

/** The first line: `hello` (then MCP), `login` (one sign-in code, then the end) or `link` (then link frames); `key` checked by the caller. */
function parseHello(
  line: string,
): HelloMessage | (Partial<LoginRequestMessage> & { type: 'login' }) | (Partial<LinkHelloMessage> & { type: 'link' }) | undefined {
  try {
    const value = JSON.parse(line) as Partial<HelloMessage | LoginRequestMessage | LinkHelloMessage>;
    if (value?.type === 'login') return value as Partial<LoginRequestMessage> & { type: 'login' };
    if (value?.type === 'link') return value as Partial<LinkHelloMessage> & { type: 'link' };
    if (value?.type !== 'hello' || typeof value.token !== 'string') return undefined;
    return value as HelloMessage;
  } catch {
    return undefined;
  }
}

function reply(socket: net.Socket, message: HandshakeReply | LoginReply): void {
  if (!socket.destroyed) socket.write(`${JSON.stringify(message)}\n`);
}
