/**
 * The Bridge over the headless hub's WebSocket (`/ws`, same origin; the page's cookie
 * authenticates it). Reconnects with capped exponential backoff and jitter; messages sent
 * while disconnected are dropped (the UI resynchronises on `open`: hello, subscribe). When the
 * hub replaces its token and UI key it sends this page the new key, and the page trades it for
 * a new cookie at once, as the printed address does: a reload or a reconnect then still gets in.
 */
import { decodeFrame, parseHubMessage, type ClientMessage, type HubMessage } from '../../src/ui-protocol/index.js';
import type { Bridge, ConnectionStatus } from './bridge.js';

const BACKOFF_FIRST_MS = 250;
const BACKOFF_MAX_MS = 5_000;

export class WebSocketBridge implements Bridge {
  private socket: WebSocket | null = null;
  private attempts = 0;
  private started = false;
  private readonly messageListeners = new Set<(message: HubMessage) => void>();
  private readonly statusListeners = new Set<(status: ConnectionStatus) => void>();

  constructor(private readonly url: string = defaultUrl()) {}

  connect(): void {
    if (this.started) return;
    this.started = true;
    this.open();
  }

  send(message: ClientMessage): void {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
  }

  onMessage(listener: (message: HubMessage) => void): () => void {
    this.messageListeners.add(listener);
    return () => this.messageListeners.delete(listener);
  }

  onStatus(listener: (status: ConnectionStatus) => void): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  private open(): void {
    this.emitStatus('connecting');
    const socket = new WebSocket(this.url);
    socket.binaryType = 'arraybuffer'; // frames: the output's bytes, handed to xterm.js as they are
    this.socket = socket;
    socket.addEventListener('open', () => {
      this.attempts = 0;
      this.emitStatus('open');
    });
    socket.addEventListener('message', (event: MessageEvent) => {
      const data: unknown = event.data;
      const parsed = parseHubMessage(data instanceof ArrayBuffer ? decodeFrame(new Uint8Array(data)) : data);
      if (!parsed.ok) {
        console.warn(`switchboard: ignoring a hub message: ${parsed.error.message}`);
        return;
      }
      if (parsed.message.type === 'tokenRotated' && parsed.message.key) renewCookie(parsed.message.key);
      for (const listener of this.messageListeners) listener(parsed.message);
    });
    socket.addEventListener('close', () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.emitStatus('closed');
      const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** this.attempts);
      this.attempts += 1;
      setTimeout(() => this.open(), delay * (0.75 + Math.random() * 0.5));
    });
  }

  private emitStatus(status: ConnectionStatus): void {
    for (const listener of this.statusListeners) listener(status);
  }
}

/** `/?key=…` answers with the cookie (and a redirect, not followed): the login of the printed address. */
function renewCookie(key: string): void {
  fetch(`/?key=${encodeURIComponent(key)}`, { credentials: 'same-origin', redirect: 'manual', cache: 'no-store' }).catch((error: unknown) => {
    console.warn(`switchboard: could not renew the login after the token changed: ${String(error)}`);
  });
}

function defaultUrl(): string {
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;
}
