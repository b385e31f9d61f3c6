import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HandshakeError, socketHandshake } from '../../../../src/hub/common/socketHandshake.js';
import { MAX_HANDSHAKE_BYTES, type HelloMessage } from '../../../../src/hub/common/socketProtocol.js';

const hello: HelloMessage = { type: 'hello', token: 't'.repeat(43), client: 'test', version: '0.0.0' };

/** A real unix socket server that answers the first line with whatever `answer` writes. */
async function serve(socketPath: string, answer: (socket: net.Socket, firstLine: string) => void): Promise<net.Server> {
  const server = net.createServer((socket) => {
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('error', () => undefined);
    const onData = (chunk: string): void => {
      buffer += chunk;
      const newline = buffer.indexOf('\n');
      if (newline === -1) return;
      socket.off('data', onData);
      answer(socket, buffer.slice(0, newline));
    };
    socket.on('data', onData);
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return server;
}

async function failure(promise: Promise<unknown>): Promise<HandshakeError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HandshakeError);
  return error as HandshakeError;
}

describe('socketHandshake', () => {
  let dir: string;
  let socketPath: string;
  let server: net.Server | null;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-handshake-'));
    socketPath = path.join(dir, 'hub.sock');
    server = null;
  });
  afterEach(async () => {
    if (server) await new Promise<void>((resolve) => server!.close(() => resolve()));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('sends the first line and hands over the paused socket with what followed the reply', async () => {
    let received = '';
    server = await serve(socketPath, (socket, line) => {
      received = line;
      // The reply and a first JSON-RPC line in one write: the second must not be lost.
      socket.write('{"type":"welcome","hub_pid":42,"version":"9.9.9"}\n{"jsonrpc":"2.0","method":"x"}\n');
    });
    const { socket, reply } = await socketHandshake(socketPath, hello, 5_000);
    expect(JSON.parse(received)).toEqual(hello);
    expect(reply).toEqual({ type: 'welcome', hub_pid: 42, version: '9.9.9' });
    socket.setEncoding('utf8');
    const next = new Promise<string>((resolve) => socket.once('data', (chunk: string) => resolve(chunk)));
    socket.resume();
    expect(await next).toBe('{"jsonrpc":"2.0","method":"x"}\n');
    socket.destroy();
  });

  it("is `denied` with the hub's reason when the hub refuses", async () => {
    server = await serve(socketPath, (socket) => socket.end('{"type":"denied","reason":"bad token"}\n'));
    const error = await failure(socketHandshake(socketPath, hello, 5_000));
    expect([error.failure, error.kind, error.reason]).toEqual(['denied', 'denied', 'bad token']);
    expect(error.message).toBe('the hub refused the connection: bad token');
  });

  it('is `protocol` when the first reply is not JSON', async () => {
    server = await serve(socketPath, (socket) => socket.write('HTTP/1.1 400 Bad Request\n'));
    const error = await failure(socketHandshake(socketPath, hello, 5_000));
    expect([error.failure, error.kind]).toEqual(['protocol', 'not_json']);
  });

  it('is `protocol` and stops reading when the reply passes the handshake bound, newline or not', async () => {
    let written = 0;
    server = await serve(socketPath, (socket) => {
      // Never a newline: an unbounded reader would buffer all of this.
      const chunk = 'x'.repeat(MAX_HANDSHAKE_BYTES);
      const pump = (): void => {
        while (!socket.destroyed && written < 64 * MAX_HANDSHAKE_BYTES) {
          written += chunk.length;
          if (!socket.write(chunk)) return void socket.once('drain', pump);
        }
      };
      pump();
    });
    const error = await failure(socketHandshake(socketPath, hello, 5_000));
    expect([error.failure, error.kind]).toEqual(['protocol', 'too_long']);
    expect(error.message).toBe('the hub sent an oversized handshake reply');
  });

  it('accepts a reply of exactly the bound', async () => {
    const padding = MAX_HANDSHAKE_BYTES - '{"type":"welcome","p":""}'.length;
    server = await serve(socketPath, (socket) => socket.write(`{"type":"welcome","p":"${'x'.repeat(padding)}"}\n`));
    const { socket, reply } = await socketHandshake(socketPath, hello, 5_000);
    expect((reply as { type: string }).type).toBe('welcome');
    socket.destroy();
  });

  it('is `absent` when the socket file does not exist', async () => {
    const error = await failure(socketHandshake(path.join(dir, 'nothing.sock'), hello, 5_000));
    expect([error.failure, error.kind, error.error?.code]).toEqual(['absent', 'connect', 'ENOENT']);
  });

  it('is `absent` when the socket file is there but nothing listens (connection refused)', async () => {
    // A hub that crashed leaves its socket file behind: a listener in a child process, killed.
    const child = spawn(process.execPath, ['-e', `require('node:net').createServer().listen(${JSON.stringify(socketPath)}, () => console.log('ready'))`], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout.once('data', () => resolve());
      child.once('exit', () => reject(new Error('the listener exited before it was ready')));
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    expect(fs.existsSync(socketPath)).toBe(true);
    const error = await failure(socketHandshake(socketPath, hello, 5_000));
    expect([error.failure, error.kind, error.error?.code]).toEqual(['absent', 'connect', 'ECONNREFUSED']);
  });

  it('is `absent` when the hub closes before answering', async () => {
    server = await serve(socketPath, (socket) => socket.destroy());
    const error = await failure(socketHandshake(socketPath, hello, 5_000));
    expect([error.failure, error.kind]).toEqual(['absent', 'closed']);
  });

  it('is `protocol` when the hub never answers within the deadline', async () => {
    server = await serve(socketPath, () => undefined);
    const error = await failure(socketHandshake(socketPath, hello, 200));
    expect([error.failure, error.kind]).toEqual(['protocol', 'timeout']);
    expect(error.message).toBe('the hub did not complete the handshake within 200 ms');
  });
});
