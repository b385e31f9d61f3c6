/**
 * Real hub processes for integration tests: `node bin/switchboard.js serve` with its own
 * SWITCHBOARD_HOME and SWITCHBOARD_PORT=0 (a free port, read back from hub.json). Runs
 * against dist/: `npm run build` first.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { testEnv } from './hermeticEnv.js';

export const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const BIN = path.join(ROOT, 'bin', 'switchboard.js');
const LISTENING = 'switchboard: hub listening';

export interface HubProcess {
  home: string;
  child: ChildProcess;
  pid: number;
  port: number;
  socket: string;
  /** The bearer token: what agents' connections carry. */
  token: string;
  /** The person's UI key (`<home>/ui-key`): the browser's sign-in, `/?key=`. */
  uiKey: string;
  stderr(): string;
  /** Resolves once the hub's stderr holds `text` (bounded). */
  waitForStderr(text: string, timeoutMs?: number): Promise<void>;
  /** SIGTERM, then the exit code (or the signal's name if it died of one). */
  stop(): Promise<number | string | null>;
}

export function tempHome(prefix = 'sb-hub-'): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

/**
 * The test's environment (hermeticEnv.ts: no rc file, no SWITCHBOARD_* of the machine), plus
 * `extra`. Short waits where a test only needs the thing to happen, not a person's margin: kill
 * waits of 300 ms, and 500 ms of quiet before a job counts as awaiting input (the default 1.5 s
 * suits a person's programs; the in-process tests use 500 ms too, helpers/core.ts).
 */
export function cleanEnv(extra: Record<string, string>): Record<string, string> {
  return testEnv({ SWITCHBOARD_KILL_WAIT_MS: '300', SWITCHBOARD_AWAITING_INPUT_QUIET_MS: '500', ...extra });
}

/**
 * Spawns `serve` (through `sh -c 'umask 000; …'` when asked) and waits for its listening line.
 * `without`: names taken out of the environment the test runs in (not out of `env`).
 * `baseEnv`: the whole environment to start from instead of the test's own (cleanEnv).
 */
export async function startHub(
  options: {
    home?: string;
    umask000?: boolean;
    env?: Record<string, string>;
    baseEnv?: Record<string, string>;
    without?: readonly string[];
    args?: string[];
  } = {},
): Promise<HubProcess> {
  if (!existsSync(path.join(ROOT, 'dist', 'src', 'cli.js'))) throw new Error('dist/ is missing: run `npm run build` first.');
  const home = options.home ?? tempHome();
  const env = options.baseEnv
    ? { ...options.baseEnv, SWITCHBOARD_HOME: home, SWITCHBOARD_PORT: '0' }
    : cleanEnv({ SWITCHBOARD_HOME: home, SWITCHBOARD_PORT: '0' });
  for (const name of options.without ?? []) delete env[name];
  Object.assign(env, options.env);
  const child = options.umask000
    ? spawn('/bin/sh', ['-c', 'umask 000; exec "$0" "$@"', process.execPath, BIN, 'serve', ...(options.args ?? [])], {
        env,
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      })
    : spawn(process.execPath, [BIN, 'serve', ...(options.args ?? [])], { env, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  const stderrWaiters = new Set<() => void>();
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const waiter of [...stderrWaiters]) waiter();
  });
  let stdout = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`hub did not report listening within 20 s; stderr:\n${stderr}`)), 20_000);
    child.stderr?.on('data', () => {
      if (stderr.includes(LISTENING)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`hub exited with ${code} before listening; stderr:\n${stderr}`));
    });
  });
  const info = JSON.parse(readFileSync(path.join(home, 'hub.json'), 'utf8')) as { pid: number; port: number; socket: string };
  const exited = new Promise<number | string | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  return {
    home,
    child,
    pid: info.pid,
    port: info.port,
    socket: info.socket,
    token: readFileSync(path.join(home, 'token'), 'utf8').trim(),
    uiKey: readFileSync(path.join(home, 'ui-key'), 'utf8').trim(),
    stderr: () => stderr,
    waitForStderr(text, timeoutMs = 10_000) {
      return new Promise<void>((resolve, reject) => {
        const done = (): void => {
          stderrWaiters.delete(check);
          clearTimeout(timer);
        };
        const check = (): void => {
          if (!stderr.includes(text)) return;
          done();
          resolve();
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`the hub's stderr did not show "${text}" within ${timeoutMs} ms:\n${stderr}`));
        }, timeoutMs);
        stderrWaiters.add(check);
        check();
      });
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      const code = await exited;
      if (stdout !== '') throw new Error(`serve wrote to stdout: ${stdout}`);
      return code;
    },
  };
}

export function removeHome(home: string): void {
  rmSync(home, { recursive: true, force: true });
}

/** A raw JSON-RPC client over the hub socket, speaking the handshake of socketProtocol.ts. */
export interface RawSocketClient {
  handshake: Record<string, unknown>;
  request(method: string, params?: unknown): Promise<Record<string, unknown>>;
  notify(method: string, params?: unknown): void;
  socket: net.Socket;
  close(): void;
}

export function connectRaw(socketPath: string, token: string): Promise<RawSocketClient> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(socketPath);
    let buffer = '';
    let handshake: Record<string, unknown> | undefined;
    let nextId = 1;
    const waiting = new Map<number, (message: Record<string, unknown>) => void>();
    socket.setEncoding('utf8');
    socket.on('error', reject);
    socket.on('connect', () => socket.write(`${JSON.stringify({ type: 'hello', token, client: 'test', version: '0' })}\n`));
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      for (let i = buffer.indexOf('\n'); i !== -1; i = buffer.indexOf('\n')) {
        const message = JSON.parse(buffer.slice(0, i)) as Record<string, unknown>;
        buffer = buffer.slice(i + 1);
        if (!handshake) {
          handshake = message;
          if (message.type !== 'welcome') return reject(new Error(`denied: ${JSON.stringify(message)}`));
          resolve(client);
          continue;
        }
        if (typeof message.id === 'number') waiting.get(message.id)?.(message);
      }
    });
    const client: RawSocketClient = {
      get handshake() {
        return handshake ?? {};
      },
      socket,
      request(method, params) {
        const id = nextId++;
        socket.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
        return new Promise((done) => waiting.set(id, done));
      },
      notify(method, params) {
        socket.write(`${JSON.stringify({ jsonrpc: '2.0', method, params })}\n`);
      },
      close: () => socket.destroy(),
    };
  });
}

/** initialize + initialized, as a 2025-era client does. */
export async function initializeRaw(client: RawSocketClient, name = 'raw-test'): Promise<void> {
  const reply = await client.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name, version: '1.0.0' } });
  if (!reply.result) throw new Error(`initialize failed: ${JSON.stringify(reply)}`);
  client.notify('notifications/initialized');
}
