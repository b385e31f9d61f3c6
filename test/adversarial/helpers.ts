/**
 * Shared pieces of the adversarial suite: a raw MCP-over-HTTP client (so malformed
 * bodies can be sent byte for byte), a "the hub is fine" check and a leak check for answers and
 * logs. Hubs come from test/integration/helpers/hubProcess.ts (real `switchboard serve`).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { BIN, cleanEnv, removeHome, ROOT, startHub, type HubProcess } from '../integration/helpers/hubProcess.js';
import { toolAnswer as resultAnswer, type ToolAnswer as ResultAnswer } from '../integration/helpers/toolAnswer.js';

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One raw HTTP request to the hub. */
export function request(port: number, options: { path?: string; method?: string; headers?: Record<string, string>; body?: string | Buffer }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    // Say which request failed: a bare ECONNRESET names no call.
    const what = `${options.method ?? 'POST'} ${options.path ?? '/mcp'} ${String(options.body ?? '').slice(0, 120)}`;
    const req = http.request(
      { host: '127.0.0.1', port, path: options.path ?? '/mcp', method: options.method ?? 'POST', headers: options.headers, agent: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on('error', (error) => reject(new Error(`${what} (answer cut off after ${body.length} chars): ${error.message}`, { cause: error })));
      },
    );
    req.on('error', (error) => reject(new Error(`${what}: ${error.message}`, { cause: error })));
    req.end(options.body);
  });
}

export type Message = Record<string, unknown> & { id?: unknown; error?: { code: number; message: string }; result?: Record<string, unknown> };

/** JSON-RPC messages from a JSON or SSE (text/event-stream) body. */
export function messagesOf(answer: Answer): Message[] {
  if (answer.body.trim() === '') return [];
  if (String(answer.headers['content-type'] ?? '').includes('text/event-stream')) {
    return answer.body
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trim())
      .filter((data) => data !== '')
      .map((data) => JSON.parse(data) as Message);
  }
  const parsed = JSON.parse(answer.body) as Message | Message[];
  return Array.isArray(parsed) ? parsed : [parsed];
}

/** A raw Streamable HTTP MCP client: initialize once, then any body, valid or not. */
export class RawHttp {
  private sessionId = '';
  private nextId = 1;
  /** Every answer body this client saw, for the leak check. */
  readonly bodies: string[] = [];

  constructor(readonly hub: HubProcess) {}

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      Authorization: `Bearer ${this.hub.token}`,
      'MCP-Protocol-Version': '2025-06-18',
      ...(this.sessionId ? { 'Mcp-Session-Id': this.sessionId } : {}),
      ...extra,
    };
  }

  async post(body: string | Buffer, extra: Record<string, string> = {}): Promise<Answer> {
    const answer = await request(this.hub.port, { headers: this.headers(extra), body });
    this.bodies.push(answer.body);
    return answer;
  }

  async initialize(name = 'adversarial-raw'): Promise<this> {
    const answer = await request(this.hub.port, {
      headers: this.headers(),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name, version: '1.0.0' } },
      }),
    });
    if (answer.status !== 200) throw new Error(`initialize: ${answer.status} ${answer.body}`);
    this.sessionId = String(answer.headers['mcp-session-id'] ?? '');
    await this.post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    return this;
  }

  /** A well-formed request; resolves with its one answer. */
  async request(method: string, params?: unknown): Promise<Message> {
    const id = this.nextId++;
    const answer = await this.post(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    const found = messagesOf(answer).find((m) => m.id === id);
    if (!found) throw new Error(`no answer to #${id} ${method}: ${answer.status} ${answer.body}`);
    return found;
  }

  async call(name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
    return toolAnswer(await this.request('tools/call', { name, arguments: args }));
  }

  /** A tool call that must succeed: its structuredContent. */
  async ok(name: string, args: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const r = await this.call(name, args);
    if (r.isError) throw new Error(`${name} failed: ${r.text}`);
    return r.sc;
  }

  async close(): Promise<void> {
    if (!this.sessionId) return;
    await request(this.hub.port, { method: 'DELETE', headers: this.headers() }).catch(() => undefined);
  }
}

export interface ToolAnswer extends ResultAnswer {
  raw: Message;
}

export function toolAnswer(message: Message): ToolAnswer {
  if (message.error) throw new Error(`JSON-RPC error: ${JSON.stringify(message.error)}`);
  return { ...resultAnswer(message.result), raw: message };
}

/**
 * A stopped hub's log (its stderr): it names its state dir on purpose at start-up; past that
 * banner it carries neither the token nor a stack trace.
 */
export function expectCleanLog(stderr: string, hub: HubProcess): void {
  expect(stderr).not.toContain(hub.token);
  expect(stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
}

/** No stack trace, no file path of ours, no token in `text`. */
export function expectNoLeak(text: string, hub: HubProcess, what = 'answer'): void {
  expect(text, `${what} carries a stack trace`).not.toMatch(/\n\s+at .+:\d+:\d+/);
  expect(text, `${what} carries a stack trace`).not.toMatch(/\bat (?:async )?[\w.<>]+ \((?:file:\/\/)?\//);
  expect(text, `${what} names a source file`).not.toMatch(/\/(?:dist|src|node_modules)\/[\w./-]+\.(?:js|ts)/);
  expect(text, `${what} names the state dir`).not.toContain(hub.home);
  expect(text, `${what} carries the token`).not.toContain(hub.token);
}

/** hub.log / audit.jsonl / every other file of the state dir except the token file itself, as text. */
export function stateFilesText(hub: HubProcess): string {
  let out = '';
  for (const name of ['hub.log', 'audit.jsonl', 'hub.json']) {
    try {
      out += readFileSync(path.join(hub.home, name), 'utf8');
    } catch {
      // absent
    }
  }
  return out;
}

/** The hub process lives, and a fresh valid call over HTTP answers. */
export async function expectHubFine(hub: HubProcess): Promise<void> {
  expect(hub.child.exitCode, `hub exited; stderr:\n${hub.stderr()}`).toBeNull();
  const probe = await new RawHttp(hub).initialize('adversarial-probe');
  const listed = await probe.call('list');
  expect(listed.isError).toBe(false);
  await probe.close();
}

/** Pids whose environment has SWITCHBOARD_SESSION=<id> (and that are not zombies). */
export function sessionPids(sessionId: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes(`SWITCHBOARD_SESSION=${sessionId}`)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2)[0];
      if (state !== 'Z' && state !== 'X') found.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

/** Resolves when `check` holds, polling every `everyMs`; rejects at the deadline. */
export async function until(check: () => boolean | Promise<boolean>, deadlineMs: number, what: string, everyMs = 50): Promise<void> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) throw new Error(`timed out after ${deadlineMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** A `switchboard mcp` shim spawned by hand against the hub in `hub.home`, for raw lines. */
export class RawShim {
  readonly child: ChildProcessWithoutNullStreams;
  readonly lines: string[] = [];
  readonly messages: Message[] = [];
  stderr = '';
  private buffer = '';
  private nextId = 1;
  private readonly listeners = new Set<() => void>();

  constructor(readonly hub: HubProcess) {
    this.child = spawn(process.execPath, [BIN, 'mcp'], { env: cleanEnv({ SWITCHBOARD_HOME: hub.home, SWITCHBOARD_PORT: '0' }), cwd: ROOT, stdio: 'pipe' });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => {
      this.buffer += chunk;
      for (let nl = this.buffer.indexOf('\n'); nl !== -1; nl = this.buffer.indexOf('\n')) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        this.lines.push(line);
        try {
          this.messages.push(JSON.parse(line) as Message);
        } catch {
          // kept in `lines`; assertStdoutClean() reports it
        }
      }
      for (const listener of this.listeners) listener();
    });
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
  }

  writeLine(text: string): void {
    this.child.stdin.write(`${text}\n`);
  }

  waitFor(predicate: (m: Message) => boolean, deadlineMs: number, what: string): Promise<Message> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        const found = this.messages.find(predicate);
        if (!found) return;
        cleanup();
        resolve(found);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`timed out after ${deadlineMs} ms waiting for ${what}; stdout:\n${this.lines.join('\n')}\nstderr:\n${this.stderr}`));
      }, deadlineMs);
      const cleanup = (): void => {
        clearTimeout(timer);
        this.listeners.delete(check);
      };
      this.listeners.add(check);
      check();
    });
  }

  request(method: string, params?: unknown, deadlineMs = 15_000): Promise<Message> {
    const id = this.nextId++;
    this.writeLine(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    return this.waitFor((m) => m.id === id && ('result' in m || 'error' in m), deadlineMs, `the answer to ${method} #${id}`);
  }

  async initialize(name = 'adversarial-shim'): Promise<this> {
    const answer = await this.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name, version: '1.0.0' } });
    if (answer.error) throw new Error(`initialize: ${JSON.stringify(answer.error)}`);
    this.writeLine(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    return this;
  }

  async call(name: string, args: Record<string, unknown> = {}, deadlineMs?: number): Promise<ToolAnswer> {
    return toolAnswer(await this.request('tools/call', { name, arguments: args }, deadlineMs));
  }

  async ok(name: string, args: Record<string, unknown> = {}, deadlineMs?: number): Promise<Record<string, unknown>> {
    const r = await this.call(name, args, deadlineMs);
    if (r.isError) throw new Error(`${name} failed: ${r.text}`);
    return r.sc;
  }

  /** stdout carried JSON-RPC 2.0 only, one message per line. */
  assertStdoutClean(): void {
    for (const line of this.lines) expect((JSON.parse(line) as Message).jsonrpc, line).toBe('2.0');
    expect(this.buffer).toBe('');
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 3_000);
    await exited;
    clearTimeout(timer);
  }
}

/**
 * A hub whose sessions get a private, empty HOME: no rc file of the machine's user runs in them.
 * (Killing many sessions while the user's ~/.bashrc runs `pyenv rehash` once left pyenv's lock
 * file behind and stalled every later shell on this machine; the suite must not touch $HOME.)
 */
export async function startIsolatedHub(env: Record<string, string> = {}): Promise<{ hub: HubProcess; cleanup(): Promise<string> }> {
  const home = mkdtempSync(path.join(tmpdir(), 'sb-adv-home-'));
  const hub = await startHub({ env: { HOME: home, ...env } }).catch((error: unknown) => {
    rmSync(home, { recursive: true, force: true });
    throw error;
  });
  return {
    hub,
    async cleanup() {
      const stderr = hub.stderr();
      await hub.stop();
      removeHome(hub.home);
      rmSync(home, { recursive: true, force: true });
      return stderr;
    },
  };
}

/**
 * POSTs `body` over a raw socket and resolves with the status line's code and what followed it,
 * as soon as the hub answers: a hub that refuses a large body early (413) may close the
 * connection while the body is still being written, which http.request reports as EPIPE.
 */
export function rawPost(port: number, headers: Record<string, string>, body: Buffer): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let answer = '';
    let done = false;
    const finish = (): void => {
      const match = /^HTTP\/1\.1 (\d{3})/.exec(answer);
      if (!match) return;
      done = true;
      socket.destroy();
      resolve({ status: Number(match[1]), text: answer });
    };
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('utf8');
      // The whole (small) answer: headers and a Content-Length body.
      const end = answer.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(answer);
      if (end !== -1 && length && answer.length >= end + 4 + Number(length[1])) finish();
    });
    socket.on('error', (error) => (done ? undefined : answer ? finish() : reject(error)));
    socket.on('close', () => (done ? undefined : answer ? finish() : reject(new Error('closed without an answer'))));
    socket.on('connect', () => {
      const head = Object.entries({ Host: `127.0.0.1:${port}`, 'Content-Length': String(body.length), ...headers })
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('');
      socket.write(`POST /mcp HTTP/1.1\r\n${head}\r\n`);
      socket.write(body, () => undefined);
    });
  });
}

/**
 * An isolated hub for one describe block: started before its tests, stopped (with its
 * sessions) after them, its log checked for the token and stack traces.
 */
export function hubFor(env: Record<string, string> = {}): () => HubProcess {
  let hub: HubProcess | undefined;
  let stop: () => Promise<string>;
  beforeAll(async () => {
    ({ hub, cleanup: stop } = await startIsolatedHub(env));
  });
  afterAll(async () => {
    if (!hub) return;
    expectCleanLog(await stop(), hub);
  });
  return () => hub!;
}
