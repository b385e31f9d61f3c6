/**
 * One connection from the shim to the hub's unix socket: the token handshake of
 * src/hub/common/socketProtocol.ts, then newline-delimited JSON-RPC lines both ways.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { readHubInfo } from '../hub/common/hubInfo.js';
import {
  HANDSHAKE_TIMEOUT_MS,
  MAX_HANDSHAKE_BYTES,
  MAX_MESSAGE_BYTES,
  SOCKET_FILE,
  TOKEN_FILE,
  type HandshakeReply,
  type HelloMessage,
} from '../hub/common/socketProtocol.js';
import { LineReader, type OverflowedLine } from './lineReader.js';

/**
 * Lines from the hub may be larger than what the shim accepts from a host (a long `read`),
 * but are still bounded: an answer past this is dropped and reported, never buffered forever.
 */
export const MAX_HUB_LINE_BYTES = 8 * MAX_MESSAGE_BYTES;

/** Why a connection attempt failed: `absent` means no hub answers (start one). */
export type ConnectFailure = 'absent' | 'denied' | 'protocol';

export class HubConnectError extends Error {
  constructor(
    readonly failure: ConnectFailure,
    message: string,
  ) {
    super(message);
    this.name = 'HubConnectError';
  }
}

export interface HubConnectionEvents {
  /** One JSON-RPC line from the hub (without its newline). */
  line(text: string): void;
  /** A line from the hub over MAX_HUB_LINE_BYTES was dropped. */
  overflow(line: OverflowedLine): void;
  /** The connection ended, for whatever reason; called once. */
  close(): void;
}

export class HubConnection {
  private closed = false;

  private constructor(
    private readonly socket: net.Socket,
    /** The hub's process id from its welcome. */
    readonly hubPid: number,
    readonly hubVersion: string,
  ) {}

  /**
   * Connects and completes the handshake. Rejects with HubConnectError: `absent` when nothing
   * listens (no socket, refused, no token yet), `denied` when the hub refuses the token,
   * `protocol` for anything else unexpected.
   */
  static async connect(stateDir: string, version: string, events: HubConnectionEvents): Promise<HubConnection> {
    const info = readHubInfo(stateDir);
    const socketPath = info?.socket ?? path.join(stateDir, SOCKET_FILE);
    let token: string;
    try {
      token = fs.readFileSync(path.join(stateDir, TOKEN_FILE), 'utf8').trim();
    } catch {
      throw new HubConnectError('absent', 'no hub token yet');
    }
    if (!token) throw new HubConnectError('absent', 'the hub token file is empty');

    return new Promise<HubConnection>((resolve, reject) => {
      const socket = net.createConnection(socketPath);
      let connection: HubConnection | null = null;
      const fail = (failure: ConnectFailure, message: string): void => {
        clearTimeout(timer);
        socket.destroy();
        reject(new HubConnectError(failure, message));
      };
      const timer = setTimeout(
        () => fail('protocol', `the hub did not complete the handshake within ${HANDSHAKE_TIMEOUT_MS} ms`),
        HANDSHAKE_TIMEOUT_MS,
      );
      const reader = new LineReader(MAX_HUB_LINE_BYTES, {
        line: (text) => {
          if (connection) {
            if (!connection.closed) events.line(text);
            return;
          }
          if (text.length > MAX_HANDSHAKE_BYTES) return fail('protocol', 'the hub sent an oversized handshake reply');
          let reply: HandshakeReply;
          try {
            reply = JSON.parse(text) as HandshakeReply;
          } catch {
            return fail('protocol', 'the hub sent a handshake reply that is not JSON');
          }
          if (reply?.type === 'denied') return fail('denied', `the hub refused the connection: ${String(reply.reason)}`);
          if (reply?.type !== 'welcome') return fail('protocol', 'the hub sent an unexpected handshake reply');
          clearTimeout(timer);
          connection = new HubConnection(socket, reply.hub_pid, reply.version);
          resolve(connection);
        },
        overflow: (line) => {
          if (connection) events.overflow(line);
          else fail('protocol', 'the hub sent an oversized handshake reply');
        },
      });
      socket.on('connect', () => {
        const hello: HelloMessage = { type: 'hello', token, client: 'shim', version };
        socket.write(`${JSON.stringify(hello)}\n`);
      });
      socket.on('data', (data: Buffer) => reader.push(data));
      socket.on('end', () => reader.end());
      socket.on('error', (error: NodeJS.ErrnoException) => {
        if (connection) return; // 'close' follows and reports it.
        const absent = error.code === 'ENOENT' || error.code === 'ECONNREFUSED' || error.code === 'ENOTSOCK';
        fail(absent ? 'absent' : 'protocol', `cannot connect to the hub socket (${error.code ?? 'error'})`);
      });
      socket.on('close', () => {
        if (!connection) {
          fail('absent', 'the hub closed the connection during the handshake');
          return;
        }
        if (connection.closed) return;
        connection.closed = true;
        events.close();
      });
    });
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  /** Writes one line; false when the socket's buffer is full (wait for `onDrain`). */
  send(line: string): boolean {
    if (this.closed) return true;
    return this.socket.write(`${line}\n`);
  }

  onDrain(listener: () => void): void {
    this.socket.once('drain', listener);
  }

  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    this.socket.resume();
  }

  /** Closes the socket without a word to the hub: a shim going away is not a cancellation. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.destroy();
  }
}
