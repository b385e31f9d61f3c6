import type * as net from 'node:net';
import type { McpServer } from '@modelcontextprotocol/server';
import { serveStdio, type StdioServerHandle } from '@modelcontextprotocol/server/stdio';
import type { McpConnection } from '../../mcp/server.js';
import { encodeFrame } from '../../ui-protocol/index.js';
import { DetachingTransport } from '../transports/detachingTransport.js';
import type { Logger } from '../common/logger.js';
import { RateLimitedTransport } from '../transports/rateLimitedTransport.js';
import type { RateLimit } from '../transports/rateLimiter.js';
import type { LinkHelloMessage } from '../common/socketProtocol.js';
import type { UiBridge, UiBridgeTransport } from '../ui/uiBridge.js';
import { LinkMux, type LinkStream } from './linkMux.js';
import { LinkStreamTransport } from './linkStreamTransport.js';

export interface LinkServerOptions {
  /** One MCP server per agent stream, told the name the link gave this machine (ids shown as `<name>:<id>`). */
  createServer: (connection: McpConnection) => McpServer;
  /** A UI bridge for a window or menu of the person's hub (UiHost.createBridge). */
  createBridge: (transport: UiBridgeTransport) => UiBridge;
  rateLimit: RateLimit;
  logger: Logger;
}

/** What `serveLink` returns: the link, to close at hub shutdown. */
export interface ServedLink {
  readonly from: string;
  close(): Promise<void>;
}

/**
 * The remote hub's side of a link (docs/design.md §4.7), once the socket's `link` handshake has
 * passed (the UI key matched, read on this machine by `switchboard link`): each stream the person's
 * hub opens is served here as a connection of its own would be. An MCP stream is an agent's
 * connection, through the same rate limit, policy, sandbox and audit as a shim's, its client named
 * `<name> <version> via <machine>` by the person's hub; a UI stream is a UI bridge on channel
 * `remote` (the person, whose own hub checked who asked) or `token` (a connection there signed in
 * with the agents' token), its audit lines saying where it came from (`via`).
 *
 * The link going away is not a cancellation: agents' calls in flight finish (their answers are
 * dropped) and sessions go on, as when a shim disconnects.
 */
export function serveLink(socket: net.Socket, hello: LinkHelloMessage, options: LinkServerOptions): ServedLink {
  const mcp = new Set<{ wire: DetachingTransport; handle: StdioServerHandle }>();
  const bridges = new Set<UiBridge>();
  const mux = new LinkMux(socket, socket, {
    onOpen: (stream, open) => {
      if (open.kind === 'ui') bridges.add(serveUi(stream, open.person));
      else serveMcp(stream);
    },
  });
  const serveUi = (stream: LinkStream, person: boolean): UiBridge => {
    const bridge = options.createBridge({
      send: (message) => (message.type === 'frame' ? stream.sendFrame(encodeFrame(message)) : stream.send(message)),
      bufferedAmount: () => stream.bufferedBytes,
      channel: person ? 'remote' : 'token',
      via: hello.from,
      close: (reason) => stream.close(reason),
    });
    stream.onDidMessage((text) => bridge.receive(text));
    stream.onDidClose(() => {
      bridges.delete(bridge);
      bridge.dispose();
    });
    return bridge;
  };
  const serveMcp = (stream: LinkStream): void => {
    const entry = { wire: undefined as unknown as DetachingTransport, handle: undefined as unknown as StdioServerHandle };
    entry.wire = new DetachingTransport(
      new RateLimitedTransport(new LinkStreamTransport(stream), options.rateLimit, options.logger, `link from ${hello.from}`),
      {
        onDetached: () => stream.close('detached'),
        onReleased: () => mcp.delete(entry),
      },
    );
    entry.handle = serveStdio(({ era }) => options.createServer({ era, sessionPrefix: hello.name }), {
      transport: entry.wire,
      onerror: (error) => options.logger.warn(`link mcp: ${error.message}`),
    });
    mcp.add(entry);
  };
  mux.onDidEnd((reason) => {
    options.logger.info(`the link from ${hello.from} ended (${reason})`);
    for (const bridge of [...bridges]) bridge.dispose();
    bridges.clear();
    socket.destroy();
  });
  socket.on('error', (error) => options.logger.warn(`link from ${hello.from}: ${error.message}`));
  options.logger.info(`a link from ${hello.from} opened (this machine is "${hello.name}" there)`);
  socket.resume();
  return {
    from: hello.from,
    async close() {
      await Promise.all(
        [...mcp].map(async ({ wire, handle }) => {
          await wire.forceClose();
          await handle.close().catch(() => undefined);
        }),
      );
      mcp.clear();
      mux.end('the hub stopped');
    },
  };
}
