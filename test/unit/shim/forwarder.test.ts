/**
 * The forwarder's replay rules, byte for byte, against a stand-in hub on a real unix socket
 * (the handshake of src/hub/common/socketProtocol.ts, answering initialize and ping, never answering
 * `slow`). test/integration/shimForwarder.test.ts proves the same against the real hub; here the
 * order of what reaches the hub after a reconnect is observable exactly.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Logger } from '../../../src/hub/common/logger.js';
import { HUB_LOST_MESSAGE, ShimForwarder } from '../../../src/shim/forwarder.js';
import { within } from '../../integration/helpers/within.js';

type Message = Record<string, unknown> & { id?: unknown; method?: string; params?: unknown };

const TOKEN = 'x'.repeat(43);
const quiet: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

class StandInHub {
  /** Per connection, every JSON-RPC message received after the handshake. */
  readonly connections: { socket: net.Socket; received: Message[] }[] = [];
  private readonly server: net.Server;
  private readonly listeners = new Set<() => void>();

  constructor(readonly stateDir: string) {
    this.server = net.createServer((socket) => this.accept(socket));
  }

  async start(): Promise<void> {
    const socketPath = path.join(this.stateDir, 'hub.sock');
    await new Promise<void>((resolve) => this.server.listen(socketPath, resolve));
    writeFileSync(path.join(this.stateDir, 'token'), `${TOKEN}\n`, { mode: 0o600 });
    writeFileSync(path.join(this.stateDir, 'hub.json'), JSON.stringify({ pid: process.pid, socket: socketPath, port: null, version: 'test' }));
  }

  /** Drops every connection, as a dying hub would; keeps listening (the "restarted" hub). */
  dropAll(): void {
    for (const { socket } of this.connections) socket.destroy();
  }

  async stop(): Promise<void> {
    this.dropAll();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  until(check: () => boolean, what: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const test = (): void => {
        if (!check()) return;
        clearTimeout(timer);
        this.listeners.delete(test);
        resolve();
      };
      const timer = setTimeout(() => {
        this.listeners.delete(test);
        reject(new Error(`timed out waiting for ${what}: ${JSON.stringify(this.connections.map((c) => c.received))}`));
      }, 5_000);
      this.listeners.add(test);
      test();
    });
  }

  private accept(socket: net.Socket): void {
    const connection = { socket, received: [] as Message[] };
    let buffer = '';
    let welcomed = false;
    socket.setEncoding('utf8');
    socket.on('error', () => undefined);
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        const message = JSON.parse(line) as Message;
        if (!welcomed) {
          welcomed = true;
          if (message.token !== TOKEN) {
            socket.end(`${JSON.stringify({ type: 'denied', reason: 'invalid token' })}\n`);
            return;
          }
          this.connections.push(connection);
          socket.write(`${JSON.stringify({ type: 'welcome', hub_pid: process.pid, version: 'test' })}\n`);
          continue;
        }
        connection.received.push(message);
        if (message.method === 'initialize') {
          const params = message.params as { protocolVersion: string };
          this.answer(socket, message.id, { protocolVersion: params.protocolVersion, capabilities: {}, serverInfo: { name: 'stand-in', version: '0' } });
        } else if (message.method === 'ping') {
          this.answer(socket, message.id, {});
        }
      }
      for (const listener of this.listeners) listener();
    });
  }

  private answer(socket: net.Socket, id: unknown, result: unknown): void {
    socket.write(`${JSON.stringify({ jsonrpc: '2.0', id, result })}\n`);
  }
}

class Host {
  readonly input = new PassThrough();
  readonly output = new PassThrough();
  readonly received: Message[] = [];
  private buffer = '';
  private readonly listeners = new Set<() => void>();

  constructor() {
    this.output.setEncoding('utf8');
    this.output.on('data', (chunk: string) => {
      this.buffer += chunk;
      for (let nl = this.buffer.indexOf('\n'); nl !== -1; nl = this.buffer.indexOf('\n')) {
        this.received.push(JSON.parse(this.buffer.slice(0, nl)) as Message);
        this.buffer = this.buffer.slice(nl + 1);
      }
      for (const listener of this.listeners) listener();
    });
  }

  send(message: Record<string, unknown>): void {
    this.input.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  }

  answerTo(id: unknown): Promise<Message> {
    return new Promise((resolve, reject) => {
      const test = (): void => {
        const found = this.received.find((m) => m.id === id);
        if (!found) return;
        clearTimeout(timer);
        this.listeners.delete(test);
        resolve(found);
      };
      const timer = setTimeout(() => reject(new Error(`no answer to ${String(id)}: ${JSON.stringify(this.received)}`)), 5_000);
      this.listeners.add(test);
      test();
    });
  }
}

const INITIALIZE_PARAMS = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'unit', version: '1' } };

let stateDir: string;
let hub: StandInHub;
let host: Host;
let forwarder: ShimForwarder;
let done: Promise<number>;

beforeEach(async () => {
  // Short: sun_path is ~104 bytes.
  stateDir = mkdtempSync(path.join(tmpdir(), 'sbf-'));
  hub = new StandInHub(stateDir);
  await hub.start();
  host = new Host();
  forwarder = new ShimForwarder({ stateDir, input: host.input, output: host.output, logger: quiet, version: 'test', useApp: false, hubWaitMs: 3_000 });
  done = forwarder.run();
  host.send({ id: 1, method: 'initialize', params: INITIALIZE_PARAMS });
  await host.answerTo(1);
  host.send({ method: 'notifications/initialized' });
  await hub.until(() => hub.connections[0]?.received.length === 2, 'initialized to reach the hub');
});

afterEach(async () => {
  forwarder.stop('test over');
  await done;
  await hub.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

describe('ShimForwarder against a stand-in hub', () => {
  it('answers the call in flight at a drop, then replays initialize + initialized before the next call', async () => {
    host.send({ id: 2, method: 'slow' });
    await hub.until(() => hub.connections[0]?.received.some((m) => m.id === 2) === true, 'slow to reach the hub');
    hub.dropAll();
    const lost = await host.answerTo(2);
    expect(lost.error).toEqual({ code: -32000, message: HUB_LOST_MESSAGE });

    host.send({ id: 3, method: 'ping' });
    expect((await host.answerTo(3)).result).toEqual({});
    const second = hub.connections[1]?.received ?? [];
    expect(second.map((m) => m.method)).toEqual(['initialize', 'notifications/initialized', 'ping']);
    expect(second[0]?.params).toEqual(INITIALIZE_PARAMS);
    expect(String(second[0]?.id)).toMatch(/replay/);
    // The host heard each of its ids once, and nothing else: no replayed initialize answer, no resent `slow`.
    expect(host.received.map((m) => m.id)).toEqual([1, 2, 3]);
    expect(second.some((m) => m.method === 'slow')).toBe(false);
  });

  it('drops a call that is cancelled while waiting for the hub, and its cancellation', async () => {
    // A call in flight at the drop tells when the shim has noticed it.
    host.send({ id: 3, method: 'slow' });
    await hub.until(() => hub.connections[0]?.received.some((m) => m.id === 3) === true, 'slow to reach the hub');
    hub.dropAll();
    expect((await host.answerTo(3)).error).toMatchObject({ code: -32000 });
    host.send({ id: 4, method: 'slow' });
    host.send({ method: 'notifications/cancelled', params: { requestId: 4, reason: 'changed my mind' } });
    host.send({ id: 5, method: 'ping' });
    await host.answerTo(5);
    const second = hub.connections[1]?.received ?? [];
    expect(second.map((m) => m.method)).toEqual(['initialize', 'notifications/initialized', 'ping']);
    expect(host.received.some((m) => m.id === 4)).toBe(false);
  });

  it("answers waiting calls with -32000 naming the hub when no hub comes back (the shim's own bound, or the hub it started exiting)", async () => {
    host.send({ id: 3, method: 'slow' });
    await hub.until(() => hub.connections[0]?.received.some((m) => m.id === 3) === true, 'slow to reach the hub');
    await hub.stop();
    expect((await host.answerTo(3)).error).toMatchObject({ code: -32000 });
    // No hub will answer, and none can start: the `serve` the shim launches refuses these settings.
    rmSync(path.join(stateDir, 'token'));
    rmSync(path.join(stateDir, 'hub.json'));
    writeFileSync(path.join(stateDir, 'settings.json'), '{ not json');
    host.send({ id: 6, method: 'ping' });
    // answerTo gives up after 5 s: the answer comes from the shim's own bound (hubWaitMs, 3 s
    // here) or, sooner, from the hub it started exiting without answering. Either names the hub.
    const answer = await host.answerTo(6);
    expect(answer.error).toMatchObject({ code: -32000 });
    expect(String((answer.error as { message: string }).message)).toMatch(/hub it started .* exited|did not answer within 3 s/);
  });

  it('ends when stdin closes, with 0, without answering or waiting for a call in flight', async () => {
    host.send({ id: 7, method: 'slow' }); // the stand-in hub never answers it
    await hub.until(() => hub.connections[0]?.received.some((m) => m.id === 7) === true, 'slow to reach the hub');
    host.input.end();
    expect(await within(done, 5_000, 'run() to end after stdin closed')).toBe(0);
    expect(host.received.some((m) => m.id === 7)).toBe(false);
  });
});
