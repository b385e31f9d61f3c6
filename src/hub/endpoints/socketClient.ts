import * as net from 'node:net';
import { MAX_HANDSHAKE_BYTES, type HandshakeReply, type HelloMessage, type LoginCodeMessage, type LoginReply, type LoginRequestMessage, type WelcomeMessage } from '../common/socketProtocol.js';

/** A tiny JSON-RPC client over the hub socket, for `status` (the shim has its own forwarder). */
export interface HubSocketClient {
  readonly welcome: WelcomeMessage;
  /** Rejects when the hub has not answered within `timeoutMs`. */
  request(method: string, params?: Record<string, unknown>, timeoutMs?: number): Promise<unknown>;
  notify(method: string, params?: Record<string, unknown>): void;
  close(): void;
}

/** Connects and completes the handshake; rejects with the hub's reason, or on timeout. */
export function connectHubSocket(socketPath: string, token: string, client: string, version: string, timeoutMs = 5_000): Promise<HubSocketClient> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(socketPath);
    let buffer = '';
    let welcome: WelcomeMessage | undefined;
    let nextId = 1;
    const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
    const timer = setTimeout(() => fail(new Error(`no answer from the hub within ${timeoutMs} ms`)), timeoutMs);

    const fail = (error: Error): void => {
      clearTimeout(timer);
      socket.destroy();
      for (const waiter of pending.values()) waiter.reject(error);
      pending.clear();
      reject(error);
    };
    const onLine = (line: string): void => {
      let message: Record<string, unknown>;
      try {
        message = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return fail(new Error('the hub sent a line that is not JSON'));
      }
      if (!welcome) {
        const reply = message as unknown as HandshakeReply;
        if (reply.type !== 'welcome') return fail(new Error(`the hub refused the connection: ${reply.type === 'denied' ? reply.reason : line}`));
        welcome = reply;
        clearTimeout(timer);
        return resolve(api(reply));
      }
      const waiter = typeof message.id === 'number' ? pending.get(message.id) : undefined;
      if (!waiter) return;
      pending.delete(message.id as number);
      const error = message.error as { message?: string } | undefined;
      if (error) waiter.reject(new Error(error.message ?? 'JSON-RPC error'));
      else waiter.resolve(message.result);
    };
    const api = (reply: WelcomeMessage): HubSocketClient => ({
      welcome: reply,
      request(method, params, callTimeoutMs = timeoutMs) {
        const id = nextId++;
        return new Promise((resolveCall, rejectCall) => {
          const timeout = setTimeout(() => {
            pending.delete(id);
            rejectCall(new Error(`no answer to ${method} within ${callTimeoutMs} ms`));
          }, callTimeoutMs);
          const settle = (): void => clearTimeout(timeout);
          pending.set(id, {
            resolve: (value) => (settle(), resolveCall(value)),
            reject: (error) => (settle(), rejectCall(error)),
          });
          socket.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
        });
      },
      notify(method, params) {
        socket.write(`${JSON.stringify({ jsonrpc: '2.0', method, params })}\n`);
      },
      close() {
        socket.end();
        setTimeout(() => socket.destroy(), 500).unref();
      },
    });

    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      for (let newline = buffer.indexOf('\n'); newline !== -1; newline = buffer.indexOf('\n')) {
        const line = buffer.slice(0, newline).trim();
        buffer = buffer.slice(newline + 1);
        if (line) onLine(line);
      }
    });
    socket.on('error', (error) => fail(error));
    socket.on('close', () => {
      const error = new Error('the hub closed the connection');
      for (const waiter of pending.values()) waiter.reject(error);
      pending.clear();
      if (!welcome) fail(error);
    });
    socket.on('connect', () => {
      const hello: HelloMessage = { type: 'hello', token, client, version };
      socket.write(`${JSON.stringify(hello)}\n`);
    });
  });
}

/**
 * Asks the hub for a one-time UI sign-in code (socketProtocol.ts `login`): the person's UI key
 * goes over the socket, never into argv. Rejects with the hub's reason, or when it does not
 * answer in time.
 */
export function requestLoginCode(socketPath: string, key: string, client: string, version: string, timeoutMs = 5_000): Promise<LoginCodeMessage> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(socketPath);
    let buffer = '';
    const timer = setTimeout(() => finish(new Error(`no answer from the hub within ${timeoutMs} ms`)), timeoutMs);
    const finish = (result: Error | LoginCodeMessage): void => {
      clearTimeout(timer);
      socket.destroy();
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      const newline = buffer.indexOf('\n');
      if (newline === -1) {
        if (buffer.length > MAX_HANDSHAKE_BYTES) finish(new Error('the hub sent an over-long answer'));
        return;
      }
      let reply: Partial<LoginReply>;
      try {
        reply = JSON.parse(buffer.slice(0, newline)) as Partial<LoginReply>;
      } catch {
        return finish(new Error('the hub sent a line that is not JSON'));
      }
      // A hub from before `switchboard ui` refuses a `login` line: "expected {"type":"hello",…".
      if (reply.type === 'denied' && /^expected /.test(String(reply.reason))) return finish(new Error('the running hub is older than this switchboard and gives no sign-in codes; restart it'));
      if (reply.type === 'denied') return finish(new Error(`the hub refused: ${String(reply.reason)}`));
      if (reply.type !== 'login_code' || typeof reply.code !== 'string' || typeof reply.port !== 'number' || typeof reply.expires_in_ms !== 'number') {
        return finish(new Error('the hub answered without a sign-in code'));
      }
      finish(reply as LoginCodeMessage);
    });
    socket.on('error', (error) => finish(error));
    socket.on('close', () => finish(new Error('the hub closed the connection without an answer')));
    socket.on('connect', () => {
      const login: LoginRequestMessage = { type: 'login', key, client, version };
      socket.write(`${JSON.stringify(login)}\n`);
    });
  });
}
