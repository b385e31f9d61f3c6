/**
 * One connection from the shim to the hub's unix socket: the token handshake of
 * src/hub/common/socketProtocol.ts, then newline-delimited JSON-RPC lines both ways.
 */
import * as fs from 'node:fs';
import type * as net from 'node:net';
import * as path from 'node:path';
import { readHubInfo } from '../hub/common/hubInfo.js';
import { HandshakeError, socketHandshake, type Handshake, type HandshakeFailure } from '../hub/common/socketHandshake.js';
import { HANDSHAKE_TIMEOUT_MS, MAX_MESSAGE_BYTES, SOCKET_FILE, TOKEN_FILE, type HelloMessage, type WelcomeMessage } from '../hub/common/socketProtocol.js';
import { LineReader, type OverflowedLine } from './lineReader.js';

/**
 * Lines from the hub may be larger than what the shim accepts from a host (a long `read`),
 * but are still bounded: an answer past this is dropped and reported, never buffered forever.
 */
const MAX_HUB_LINE_BYTES = 8 * MAX_MESSAGE_BYTES;

/** Why a connection attempt failed: `absent` means no hub answers (start one). */
type ConnectFailure = HandshakeFailure;

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

    let handshake: Handshake;
    try {
      const hello: HelloMessage = { type: 'hello', token, client: 'shim', version };
      handshake = await socketHandshake(socketPath, hello, HANDSHAKE_TIMEOUT_MS);
    } catch (error) {
      if (!(error instanceof HandshakeError)) throw error;
      throw new HubConnectError(error.failure, error.message);
    }
    const { socket } = handshake;
    const reply = handshake.reply as Partial<WelcomeMessage> | null;
    if (reply?.type !== 'welcome') {
      socket.destroy();
      throw new HubConnectError('protocol', 'the hub sent an unexpected handshake reply');
    }
    const connection = new HubConnection(socket, reply.hub_pid as number, reply.version as string);
    const reader = new LineReader(MAX_HUB_LINE_BYTES, {
      line: (text) => {
        if (!connection.closed) events.line(text);
      },
      overflow: (line) => events.overflow(line),
    });
    socket.on('data', (data: Buffer) => reader.push(data));
    socket.on('end', () => reader.end());
    socket.on('error', () => undefined); // 'close' follows and reports it.
    socket.on('close', () => {
      if (connection.closed) return;
      connection.closed = true;
      events.close();
    });
    socket.resume();
    return connection;
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
