import type { WebSocket, WebSocketServer } from 'ws';
import { encodeFrame } from '../../ui-protocol/index.js';
import type { Logger } from '../common/logger.js';
import type { UiEndpoint } from '../endpoints/httpServer.js';
import type { UiChannel } from '../audit/personAudit.js';
import type { UiHost } from './uiHost.js';

/** The `/ws` part of the UI's endpoint. */
type UiWebSocketServer = Pick<UiEndpoint, 'handleUpgrade' | 'prepare' | 'close'>;

export interface UiWebSocketOptions {
  host: UiHost;
  logger: Logger;
  /** Largest message a UI may send (bytes). */
  maxPayload: number;
}

/** Close code for a UI that stopped reading (1008 policy violation would blame the page). */
const CLOSE_NOT_READING = 1013;

/**
 * The UI bridge over WebSocket (`/ws`): `ws` in noServer mode, one `UiBridge` per connection,
 * JSON text messages both ways, except the hub's `frame`s, which go as binary messages (the
 * output's bytes after a small header, src/ui-protocol/ `encodeFrame`). The bridge validates what
 * arrives; a binary message from the UI is refused like any other invalid message. `ws` is
 * loaded when the UI page is first served (`prepare`), or at the latest by the first upgrade: a
 * hub no browser has opened does without it (docs/decisions.md, Memory).
 */
export function createUiWebSocketServer(options: UiWebSocketOptions): UiWebSocketServer {
  let wss: WebSocketServer | undefined;
  let loading: Promise<WebSocketServer> | undefined;
  let closed = false;
  const server = (): Promise<WebSocketServer> =>
    (loading ??= import('ws').then(({ WebSocketServer }) => {
      wss = new WebSocketServer({ noServer: true, maxPayload: options.maxPayload, perMessageDeflate: false, clientTracking: true });
      return wss;
    }));

  const accept = (ws: WebSocket, channel: UiChannel): void => {
    const bridge = options.host.createBridge({
      send: (message) => {
        if (ws.readyState !== ws.OPEN) return;
        ws.send(message.type === 'frame' ? encodeFrame(message) : JSON.stringify(message));
      },
      bufferedAmount: () => ws.bufferedAmount,
      channel,
      close: (reason) => {
        ws.close(CLOSE_NOT_READING, reason);
        // A peer that does not read will not complete the closing handshake either.
        setTimeout(() => ws.terminate(), 2_000).unref();
      },
    });
    ws.on('message', (data, isBinary) => {
      bridge.receive(isBinary ? null : Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(data as Buffer[]).toString('utf8'));
    });
    ws.on('close', () => bridge.dispose());
    ws.on('error', (error) => {
      options.logger.warn(`ui websocket: ${error.message}`);
      bridge.dispose();
    });
  };

  return {
    prepare() {
      server().catch(() => undefined); // a failure is reported at the upgrade
    },
    handleUpgrade(req, socket, head, channel) {
      server().then(
        (loaded) => {
          if (closed || socket.destroyed) return void socket.destroy();
          loaded.handleUpgrade(req, socket, head, (ws) => accept(ws, channel));
        },
        (error: unknown) => {
          options.logger.error(`ui websocket: ${(error as Error).message}`);
          socket.destroy();
        },
      );
    },
    close() {
      closed = true;
      const current = wss;
      if (!current) return Promise.resolve();
      for (const client of current.clients) client.terminate();
      return new Promise<void>((resolve) => current.close(() => resolve()));
    },
  };
}
