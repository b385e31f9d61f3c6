/**
 * The first exchange on the hub's unix socket (socketProtocol.ts, docs/design.md §4.2), written
 * once for every client: the shim's hubConnection, `status` and `ui` (common/socketClient.ts),
 * and `switchboard remote`'s link to this machine's own hub (remote/socketLink.ts).
 * Connect, send one line, read one reply line of at most MAX_HANDSHAKE_BYTES within a deadline.
 * A `denied` reply is a failure; any other reply is the caller's to judge (welcome, login_code).
 */
import * as net from 'node:net';
import { MAX_HANDSHAKE_BYTES, type HelloMessage, type LinkHelloMessage, type LoginRequestMessage } from './socketProtocol.js';

/**
 * What a host or a person is told: `absent` means no hub answers here (start one), `denied` the
 * hub refused the credential, `protocol` anything else unexpected.
 */
export type HandshakeFailure = 'absent' | 'denied' | 'protocol';

/** What went wrong, for callers that word it their own way. */
export type HandshakeKind =
  /** The connection failed before a reply (`error` holds the socket's error). */
  | 'connect'
  /** The hub closed the connection before a whole reply line. */
  | 'closed'
  | 'timeout'
  /** The reply line passed MAX_HANDSHAKE_BYTES: nothing more is read. */
  | 'too_long'
  | 'not_json'
  /** The hub answered `{"type":"denied"}`; `reason` says why. */
  | 'denied';

export class HandshakeError extends Error {
  constructor(
    readonly failure: HandshakeFailure,
    readonly kind: HandshakeKind,
    message: string,
    /** The socket's own error, for `connect`. */
    readonly error?: NodeJS.ErrnoException,
    /** The hub's words, for `denied`. */
    readonly reason?: string,
  ) {
    super(message);
    this.name = 'HandshakeError';
  }
}

export interface Handshake {
  /**
   * Paused, with no listeners of ours and whatever came after the reply line put back in front:
   * attach yours, then `resume()`.
   */
  socket: net.Socket;
  /** The parsed reply line, whatever JSON it is, unless a `denied`: the caller judges it. */
  reply: unknown;
}

const NEWLINE = 0x0a;

/** Connects to `socketPath`, sends `first` as one line and resolves with the hub's one reply. */
export function socketHandshake(socketPath: string, first: HelloMessage | LoginRequestMessage | LinkHelloMessage, timeoutMs: number): Promise<Handshake> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(socketPath);
    const chunks: Buffer[] = [];
    let buffered = 0;
    let settled = false;

    const detach = (): void => {
      clearTimeout(timer);
      socket.off('connect', onConnect);
      socket.off('data', onData);
      socket.off('error', onError);
      socket.off('close', onClose);
    };
    const fail = (failure: HandshakeFailure, kind: HandshakeKind, message: string, error?: NodeJS.ErrnoException, reason?: string): void => {
      if (settled) return;
      settled = true;
      detach();
      socket.destroy();
      reject(new HandshakeError(failure, kind, message, error, reason));
    };
    const timer = setTimeout(() => fail('protocol', 'timeout', `the hub did not complete the handshake within ${timeoutMs} ms`), timeoutMs);

    const onConnect = (): void => {
      socket.write(`${JSON.stringify(first)}\n`);
    };
    const onData = (data: Buffer): void => {
      const newline = data.indexOf(NEWLINE);
      const head = newline === -1 ? data : data.subarray(0, newline);
      buffered += head.length;
      if (buffered > MAX_HANDSHAKE_BYTES) return fail('protocol', 'too_long', 'the hub sent an oversized handshake reply');
      chunks.push(head);
      if (newline === -1) return;
      let text = Buffer.concat(chunks).toString('utf8');
      if (text.endsWith('\r')) text = text.slice(0, -1);
      let reply: unknown;
      try {
        reply = JSON.parse(text);
      } catch {
        return fail('protocol', 'not_json', 'the hub sent a handshake reply that is not JSON');
      }
      if ((reply as { type?: unknown } | null)?.type === 'denied') {
        const reason = String((reply as { reason?: unknown }).reason);
        return fail('denied', 'denied', `the hub refused the connection: ${reason}`, undefined, reason);
      }
      settled = true;
      detach();
      // Paused so nothing after the reply is emitted before the caller listens.
      socket.pause();
      if (newline + 1 < data.length) socket.unshift(data.subarray(newline + 1));
      resolve({ socket, reply });
    };
    const onError = (error: NodeJS.ErrnoException): void => {
      const absent = error.code === 'ENOENT' || error.code === 'ECONNREFUSED' || error.code === 'ENOTSOCK';
      fail(absent ? 'absent' : 'protocol', 'connect', `cannot connect to the hub socket (${error.code ?? 'error'})`, error);
    };
    const onClose = (): void => fail('absent', 'closed', 'the hub closed the connection during the handshake');

    socket.on('connect', onConnect);
    socket.on('data', onData);
    socket.on('error', onError);
    socket.on('close', onClose);
  });
}
