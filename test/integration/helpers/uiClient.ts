/**
 * The person's side as a test drives it: a login that gets the UI cookie, and a WebSocket client
 * on `/ws` that speaks src/ui-protocol/ as the page does. Real hubs only (helpers/hubProcess.ts).
 */
import * as http from 'node:http';
import WebSocket from 'ws';
import { decodeFrame, parseHubMessage, UI_PROTOCOL_VERSION, type ClientMessage, type HubMessage } from '../../../src/ui-protocol/index.js';
import type { HubProcess } from './hubProcess.js';

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export function get(port: number, urlPath: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: urlPath, method: 'GET', headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The UI cookie (`name=value`) the hub sets for a browser that opened `/?key=…` (the address `serve` prints). */
export async function personCookie(hub: HubProcess): Promise<string> {
  const login = await get(hub.port, `/?key=${hub.uiKey}`);
  const cookie = String(login.headers['set-cookie']?.[0] ?? '').split(';')[0];
  if (!cookie) throw new Error(`the hub set no cookie for /?key=…: ${login.status}`);
  return cookie;
}

export type Frame = Extract<HubMessage, { type: 'frame' }>;
export type Snapshot = Extract<HubMessage, { type: 'snapshot' }>;

/** A UI as the page is one: validates every hub message, optionally acks frames as it "renders" them. */
export class UiClient {
  readonly messages: HubMessage[] = [];
  readonly invalid: string[] = [];
  private readonly waiters = new Set<() => void>();
  private nextReq = 1;
  closed = false;

  /** Characters of frames not acknowledged yet (with autoAck off). */
  unacked = 0;
  /** Like a window that cannot draw a flood: acks nothing until told `behind`, then all at once. */
  ackWhenBehind = false;

  private constructor(
    readonly ws: WebSocket,
    public autoAck: boolean,
  ) {
    ws.on('message', (data, isBinary) => {
      // Frames come as binary messages (a header, then the output's bytes); the rest as JSON.
      const parsed = parseHubMessage(isBinary ? decodeFrame(Buffer.isBuffer(data) ? data : Buffer.concat(data as Buffer[])) : String(data));
      if (!parsed.ok) {
        this.invalid.push(String(data).slice(0, 200));
        return;
      }
      const message = parsed.message;
      this.messages.push(message);
      if (message.type === 'frame' && this.autoAck) this.send({ type: 'ack', session: message.session, bytes: message.data.length });
      else if (message.type === 'frame') this.unacked += message.data.length;
      if (message.type === 'behind' && this.ackWhenBehind && this.unacked > 0) {
        this.send({ type: 'ack', session: message.session, bytes: this.unacked });
        this.unacked = 0;
      }
      for (const waiter of [...this.waiters]) waiter();
    });
    ws.on('close', () => {
      this.closed = true;
      for (const waiter of [...this.waiters]) waiter();
    });
  }

  static async connect(hub: HubProcess, cookie: string, options: { autoAck?: boolean } = {}): Promise<UiClient> {
    return UiClient.connectWith(hub, { Cookie: cookie }, options);
  }

  /** As `connect`, signed in by whatever `headers` carry (`Authorization: Bearer <token>`: an agent's /ws). */
  static async connectWith(hub: HubProcess, headers: Record<string, string>, options: { autoAck?: boolean } = {}): Promise<UiClient> {
    const ws = new WebSocket(`ws://127.0.0.1:${hub.port}/ws`, { headers, origin: `http://127.0.0.1:${hub.port}` });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const client = new UiClient(ws, options.autoAck ?? true);
    client.send({ type: 'hello', protocol: UI_PROTOCOL_VERSION });
    await client.waitFor((m) => m.type === 'sessions', 'the session list');
    return client;
  }

  send(message: ClientMessage | Record<string, unknown> | string): void {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** Sends with a fresh `req` and resolves with the `done` or `error` that answers it. */
  async request(message: ClientMessage): Promise<Extract<HubMessage, { type: 'done' | 'error' }>> {
    const req = this.nextReq++;
    const from = this.mark();
    this.send({ ...message, req });
    const answer = await this.waitFor((m) => (m.type === 'done' || m.type === 'error') && m.req === req, `the answer to ${message.type}`, {
      from,
      timeoutMs: 20_000,
    });
    return answer as Extract<HubMessage, { type: 'done' | 'error' }>;
  }

  /** Sends with a fresh `req` and resolves with whatever answers it (a result message, `done` or `error`). */
  async ask(message: ClientMessage): Promise<HubMessage> {
    const req = this.nextReq++;
    const from = this.mark();
    this.send({ ...message, req });
    return this.waitFor((m) => 'req' in m && m.req === req, `the answer to ${message.type}`, { from, timeoutMs: 20_000 });
  }

  mark(): number {
    return this.messages.length;
  }

  /** The first message from index `from` on that matches; waits (bounded) for it to arrive. */
  waitFor<T extends HubMessage>(predicate: (m: HubMessage) => boolean, what: string, options: { from?: number; timeoutMs?: number } = {}): Promise<T> {
    const from = options.from ?? 0;
    const timeoutMs = options.timeoutMs ?? 15_000;
    return new Promise<T>((resolve, reject) => {
      let index = from;
      const check = (): void => {
        for (; index < this.messages.length; index++) {
          const message = this.messages[index]!;
          if (predicate(message)) {
            cleanup();
            return resolve(message as T);
          }
        }
        if (this.closed) {
          cleanup();
          reject(new Error(`connection closed while waiting for ${what}`));
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last messages: ${JSON.stringify(this.messages.slice(-5)).slice(0, 800)}`));
      }, timeoutMs);
      const cleanup = (): void => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }

  /** Screen text received for `session` since index `from` (snapshots and frames). */
  textSince(session: string, from: number): string {
    return this.messages
      .slice(from)
      .filter((m): m is Frame | Snapshot => (m.type === 'frame' || m.type === 'snapshot') && m.session === session)
      .map((m) => (typeof m.data === 'string' ? m.data : Buffer.from(m.data).toString('utf8')))
      .join('');
  }

  /** Waits until `text` appears in what arrived for `session` since `from`. */
  async waitForText(session: string, text: string | RegExp, from: number, timeoutMs = 15_000): Promise<void> {
    const matches = (): boolean => {
      const seen = this.textSince(session, from);
      return typeof text === 'string' ? seen.includes(text) : text.test(seen);
    };
    await this.waitFor(() => matches(), `"${String(text)}" on screen of ${session}`, { from, timeoutMs });
  }

  close(): void {
    this.ws.close();
  }
}
