import { HandshakeError, socketHandshake, type Handshake } from './socketHandshake.js';
import type { HelloMessage, LoginCodeMessage, LoginReply, LoginRequestMessage, WelcomeMessage } from './socketProtocol.js';

/** A tiny JSON-RPC client over the hub socket, for `status` (the shim has its own forwarder). */
interface HubSocketClient {
  readonly welcome: WelcomeMessage;
  /** Rejects when the hub has not answered within `timeoutMs`. */
  request(method: string, params?: Record<string, unknown>, timeoutMs?: number): Promise<unknown>;
  notify(method: string, params?: Record<string, unknown>): void;
  close(): void;
}

/** Connects and completes the handshake (common/socketHandshake.ts); rejects with the hub's reason, or on timeout. */
export async function connectHubSocket(socketPath: string, token: string, client: string, version: string, timeoutMs = 5_000): Promise<HubSocketClient> {
  const hello: HelloMessage = { type: 'hello', token, client, version };
  let handshake: Handshake;
  try {
    handshake = await socketHandshake(socketPath, hello, timeoutMs);
  } catch (error) {
    throw reworded(error, timeoutMs, {
      denied: (reason) => `the hub refused the connection: ${reason}`,
      closed: 'the hub closed the connection',
    });
  }
  const { socket } = handshake;
  const reply = handshake.reply as Partial<WelcomeMessage> | null;
  if (reply?.type !== 'welcome') {
    socket.destroy();
    throw new Error(`the hub refused the connection: ${JSON.stringify(reply)}`);
  }
  const welcome = reply as WelcomeMessage;
  let buffer = '';
  let nextId = 1;
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();

  const fail = (error: Error): void => {
    socket.destroy();
    for (const waiter of pending.values()) waiter.reject(error);
    pending.clear();
  };
  const onLine = (line: string): void => {
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return fail(new Error('the hub sent a line that is not JSON'));
    }
    const waiter = typeof message.id === 'number' ? pending.get(message.id) : undefined;
    if (!waiter) return;
    pending.delete(message.id as number);
    const error = message.error as { message?: string } | undefined;
    if (error) waiter.reject(new Error(error.message ?? 'JSON-RPC error'));
    else waiter.resolve(message.result);
  };
  const onData = (chunk: string): void => {
    buffer += chunk;
    for (let newline = buffer.indexOf('\n'); newline !== -1; newline = buffer.indexOf('\n')) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (line) onLine(line);
    }
  };

  socket.setEncoding('utf8');
  socket.on('data', onData);
  socket.on('error', (error) => fail(error));
  socket.on('close', () => fail(new Error('the hub closed the connection')));
  socket.resume();

  return {
    welcome,
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
  };
}

/**
 * Asks the hub for a one-time UI sign-in code (socketProtocol.ts `login`): the person's UI key
 * goes over the socket, never into argv. Rejects with the hub's reason, or when it does not
 * answer in time.
 */
export async function requestLoginCode(socketPath: string, key: string, client: string, version: string, timeoutMs = 5_000): Promise<LoginCodeMessage> {
  const login: LoginRequestMessage = { type: 'login', key, client, version };
  let handshake: Handshake;
  try {
    handshake = await socketHandshake(socketPath, login, timeoutMs);
  } catch (error) {
    throw reworded(error, timeoutMs, {
      // A hub from before `switchboard ui` refuses a `login` line: "expected {"type":"hello",…".
      denied: (reason) =>
        /^expected /.test(reason) ? 'the running hub is older than this switchboard and gives no sign-in codes; restart it' : `the hub refused: ${reason}`,
      closed: 'the hub closed the connection without an answer',
    });
  }
  handshake.socket.destroy();
  const reply = handshake.reply as Partial<LoginReply> | null;
  if (reply?.type !== 'login_code' || typeof reply.code !== 'string' || typeof reply.port !== 'number' || typeof reply.expires_in_ms !== 'number') {
    throw new Error('the hub answered without a sign-in code');
  }
  return reply as LoginCodeMessage;
}

/** This file's wording of a failed handshake, as `status` and `ui` have always printed it. */
function reworded(error: unknown, timeoutMs: number, words: { denied: (reason: string) => string; closed: string }): Error {
  if (!(error instanceof HandshakeError)) return error as Error;
  switch (error.kind) {
    case 'connect':
      return error.error ?? error;
    case 'timeout':
      return new Error(`no answer from the hub within ${timeoutMs} ms`);
    case 'not_json':
      return new Error('the hub sent a line that is not JSON');
    case 'too_long':
      return new Error('the hub sent an over-long answer');
    case 'denied':
      return new Error(words.denied(error.reason ?? ''));
    case 'closed':
      return new Error(words.closed);
  }
}
