/**
 * The shim (`switchboard mcp`) as a thin forwarder to a real hub (`switchboard serve`),
 * docs/design.md §4.4: it starts a detached hub when none answers, answers bad lines itself,
 * survives the hub being SIGKILLed (calls in flight get an error and are never resent; the same
 * client goes on after its initialize was replayed), and exits by itself, with 0, when stdin closes while
 * the sessions live on.
 *
 * Both sides are real: the official MCP client over StdioClientTransport where a host's view is
 * what matters, and a shim spawned by hand where the raw bytes on stdin/stdout are the point.
 * Runs against dist/: `npm run build` first (`npm test` does). Every wait races an event against
 * a deadline; every hub started here is killed in afterAll (pid from hub.json).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRaw } from './helpers/hubProcess.js';
import { alive } from './helpers/processState.js';
import { testEnv } from './helpers/hermeticEnv.js';
import { within } from './helpers/within.js';
import { shellPath } from './helpers/shells.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'switchboard.js');
const CLIENT = { name: 'shim-forwarder-test', version: '1.2.3' };
const PROTOCOL_VERSION = '2025-06-18';
/** The shim's bound on waiting for a hub (HUB_WAIT_MS) plus slack for a loaded machine. */
const HUB_BOUND_MS = 15_000;

const homes: string[] = [];
const hubPids = new Set<number>();

function newHome(): string {
  const home = mkdtempSync(path.join(tmpdir(), 'sb-shim-'));
  homes.push(home);
  return home;
}

/**
 * A folder beside `home` (the hub's state folder) for the files the agents' commands write: the
 * state folder is hidden from their sandboxed sessions, so a marker there would never show (and a
 * "never ran" check there could not fail).
 */
function scratchOf(home: string): string {
  const dir = `${home}-scratch`;
  if (!homes.includes(dir)) {
    homes.push(dir);
    mkdirSync(dir, { recursive: true });
  }
  return dir;
}

function shimEnv(home: string): Record<string, string> {
  return testEnv({
    SWITCHBOARD_HOME: home,
    // 0: the hub picks a free HTTP port (recorded in hub.json), so parallel hubs never collide.
    SWITCHBOARD_PORT: '0',
    SHELL: shellPath('bash'),
    SWITCHBOARD_KILL_WAIT_MS: '300',
  });
}

interface HubJson {
  pid: number;
  socket: string | null;
}

function readHubJson(home: string): HubJson | null {
  try {
    const info = JSON.parse(readFileSync(path.join(home, 'hub.json'), 'utf8')) as HubJson;
    if (typeof info.pid === 'number') hubPids.add(info.pid);
    return info;
  } catch {
    return null;
  }
}

/**
 * Resolves when `check` holds. Re-checked whenever something changes in `dir` (fs.watch), with
 * a slow poll as the fallback (process death has no file event); rejects at the deadline.
 */
function until(check: () => boolean, deadlineMs: number, what: string, dir?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const watcher = dir ? watch(dir, () => test()) : null;
    const poll = setInterval(() => test(), 100);
    const timer = setTimeout(() => {
      done();
      reject(new Error(`timed out after ${deadlineMs} ms waiting for ${what}`));
    }, deadlineMs);
    function done(): void {
      watcher?.close();
      clearInterval(poll);
      clearTimeout(timer);
    }
    function test(): void {
      if (!check()) return;
      done();
      resolve();
    }
    test();
  });
}

/** The hub currently serving `home`, once its hub.json names a live process. */
async function liveHub(home: string, deadlineMs = HUB_BOUND_MS): Promise<number> {
  let pid = 0;
  await until(
    () => {
      const info = readHubJson(home);
      pid = info?.pid ?? 0;
      return pid > 0 && alive(pid);
    },
    deadlineMs,
    `a live hub in ${home}`,
    home,
  );
  return pid;
}

async function killHub(pid: number): Promise<void> {
  process.kill(pid, 'SIGKILL');
  await until(() => !alive(pid), 5_000, `hub ${pid} to die`);
}

// ---- a shim spawned by hand, for the raw stdio cases -------------------------------------------

type Message = Record<string, unknown> & { id?: unknown; error?: { code: number; message: string } };

class RawShim {
  readonly child: ChildProcessWithoutNullStreams;
  /** Every stdout line, as written. */
  readonly lines: string[] = [];
  readonly messages: Message[] = [];
  stderr = '';
  /** How the shim ended: its exit code, or the signal that killed it. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private buffer = '';
  private nextId = 1;
  private readonly listeners = new Set<() => void>();

  constructor(readonly home: string) {
    this.child = spawn(process.execPath, [BIN, 'mcp'], { env: shimEnv(home), cwd: ROOT, stdio: 'pipe' });
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
          // Recorded in `lines`; assertStdoutClean() reports it.
        }
      }
      for (const listener of this.listeners) listener();
    });
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  writeLine(text: string): void {
    this.child.stdin.write(`${text}\n`);
  }

  send(message: Record<string, unknown>): void {
    this.writeLine(JSON.stringify(message));
  }

  /** The first message (from the start of the stream) matching `predicate`. */
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

  async request(method: string, params: Record<string, unknown> = {}, deadlineMs = HUB_BOUND_MS): Promise<Message> {
    const id = this.nextId++;
    this.send({ jsonrpc: '2.0', id, method, params });
    return this.waitFor((m) => m.id === id && ('result' in m || 'error' in m), deadlineMs, `the answer to ${method} #${id}`);
  }

  async initialize(): Promise<Message> {
    const answer = await this.request('initialize', {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'raw-shim-test', version: '0.0.1' },
    });
    expect(answer.error).toBeUndefined();
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return answer;
  }

  async callTool(name: string, args: Record<string, unknown>, deadlineMs?: number): Promise<Message> {
    return this.request('tools/call', { name, arguments: args }, deadlineMs);
  }

  /** stdout carried JSON-RPC 2.0 only, one message per line. */
  assertStdoutClean(): void {
    for (const line of this.lines) {
      const message = JSON.parse(line) as Message;
      expect(message.jsonrpc, line).toBe('2.0');
    }
    expect(this.buffer).toBe('');
  }

  errorsWithCode(code: number): Message[] {
    return this.messages.filter((m) => m.error?.code === code);
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 3_000);
    await this.exited;
    clearTimeout(timer);
  }
}

function structured(message: Message): Record<string, unknown> {
  const result = message.result as { structuredContent?: Record<string, unknown>; isError?: boolean } | undefined;
  expect(message.error, JSON.stringify(message.error)).toBeUndefined();
  expect(result?.isError ?? false, JSON.stringify(result)).toBe(false);
  return result?.structuredContent ?? {};
}

// ---- the official client over the shim ----------------------------------------------------------

interface HostClient {
  client: Client;
  transport: StdioClientTransport;
  /** Errors the client saw outside of a call (e.g. a stray or duplicate response). */
  errors: Error[];
  stderr(): string;
  call(name: string, args?: Record<string, unknown>): Promise<Record<string, unknown>>;
}

async function connectClient(home: string): Promise<HostClient> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env: shimEnv(home), cwd: ROOT, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client(CLIENT);
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown> = {}): Promise<Record<string, unknown>> => {
    const result = await client.callTool({ name, arguments: args });
    const first = result.content[0];
    if (result.isError) throw new Error(`${name} failed: ${first?.type === 'text' ? first.text : ''}`);
    return (result.structuredContent ?? {}) as Record<string, unknown>;
  };
  return { client, transport, errors, stderr: () => stderr, call };
}

interface SessionRow {
  id: string;
  state: string;
  command?: string | null;
  creator?: { kind: string; client?: string };
}

async function listSessions(host: { call: HostClient['call'] }): Promise<SessionRow[]> {
  return ((await host.call('list')).sessions ?? []) as SessionRow[];
}

beforeAll(() => {
  if (!existsSync(path.join(ROOT, 'dist', 'src', 'cli.js'))) throw new Error('dist/ is missing: run `npm run build` first.');
});

afterAll(async () => {
  for (const home of homes) readHubJson(home);
  // Every hub any test started (the shims start them detached, so they outlive the shims).
  const running = [...hubPids].filter(alive);
  for (const pid of running) process.kill(pid, 'SIGTERM');
  await Promise.all(
    running.map((pid) =>
      until(() => !alive(pid), 5_000, `hub ${pid} to stop`).catch(() => {
        if (alive(pid)) process.kill(pid, 'SIGKILL');
      }),
    ),
  );
  for (const home of homes) rmSync(home, { recursive: true, force: true });
}, 20_000);

describe('shim: starting and finding the hub', () => {
  it('starts a detached hub when none answers, and `execute echo hi` works through it', async () => {
    const home = newHome();
    expect(readHubJson(home)).toBeNull();
    const host = await connectClient(home);
    try {
      const result = await host.call('execute', { command: 'echo hi' });
      expect(result.status).toBe('completed');
      expect(result.exit_code).toBe(0);
      expect(String(result.output).trim()).toBe('hi');

      const hubPid = await liveHub(home);
      // A hub of its own, not the shim hosting sessions in-process.
      expect(hubPid).not.toBe(host.transport.pid);
      expect(existsSync(path.join(home, 'hub.log'))).toBe(true);
      // The background hub's log never holds the token (docs/design.md §4.3: never in logs).
      const token = readFileSync(path.join(home, 'token'), 'utf8').trim();
      expect(readFileSync(path.join(home, 'hub.log'), 'utf8')).not.toContain(token);
      expect(host.errors).toEqual([]);
    } finally {
      await host.client.close();
    }
  });

  it('a second shim on the same state dir joins the running hub and sees the same sessions', async () => {
    const home = newHome();
    const first = await connectClient(home);
    const second = await connectClient(home);
    try {
      const opened = await first.call('execute', { command: 'echo shared' });
      const hubPid = await liveHub(home);
      const seen = await listSessions(second);
      expect(seen.map((s) => s.id)).toContain(opened.session);
      expect(readHubJson(home)?.pid).toBe(hubPid);
    } finally {
      await first.client.close();
      await second.client.close();
    }
  });

  it('answers with a clear error within a bounded time when the hub cannot start', async () => {
    const home = newHome();
    // A hub refuses to start on unreadable settings: the shim must not wait forever for it.
    writeFileSync(path.join(home, 'settings.json'), '{ this is not json');
    const shim = new RawShim(home);
    try {
      // request() rejects if no answer came within HUB_BOUND_MS: the bound is the wait's own.
      const answer = await shim.request(
        'initialize',
        { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw-shim-test', version: '0.0.1' } },
        HUB_BOUND_MS,
      );
      expect(answer.error?.code).toBe(-32000);
      expect(answer.error?.message).toMatch(/hub/i);
      expect(answer.error?.message).not.toContain(home);
      shim.assertStdoutClean();
    } finally {
      await shim.close();
    }
  });
});

describe('shim: lines it answers itself', () => {
  let home: string;
  let shim: RawShim;

  beforeAll(async () => {
    home = newHome();
    shim = new RawShim(home);
    await shim.initialize();
  });

  afterAll(async () => {
    await shim.close();
  });

  it('answers a line that is not JSON with exactly one -32700, and goes on', async () => {
    const before = shim.errorsWithCode(-32700).length;
    shim.writeLine('this is { not json');
    const ping = await shim.request('ping');
    expect(ping.error).toBeUndefined();
    const parseErrors = shim.errorsWithCode(-32700).slice(before);
    expect(parseErrors).toHaveLength(1);
    expect(parseErrors[0]?.id).toBeNull();
    expect(parseErrors[0]?.error?.message).toMatch(/^Parse error/);
    shim.assertStdoutClean();
  });

  it('answers JSON without "jsonrpc" but with an id with -32600 carrying that id', async () => {
    shim.send({ id: 7, method: 'tools/list' });
    const answer = await shim.waitFor((m) => m.id === 7, 5_000, 'the answer to id 7');
    expect(answer.error?.code).toBe(-32600);
    expect((await shim.request('ping')).error).toBeUndefined();
    shim.assertStdoutClean();
  });

  it('rejects a batch array without running any of it', async () => {
    const marker = path.join(scratchOf(home), 'batch-ran');
    shim.writeLine(
      JSON.stringify([
        { jsonrpc: '2.0', id: 'b1', method: 'tools/call', params: { name: 'execute', arguments: { command: `touch ${marker}` } } },
        { jsonrpc: '2.0', id: 'b2', method: 'ping' },
      ]),
    );
    const b1 = await shim.waitFor((m) => m.id === 'b1', 5_000, 'the answer to b1');
    const b2 = await shim.waitFor((m) => m.id === 'b2', 5_000, 'the answer to b2');
    expect(b1.error?.code).toBe(-32600);
    expect(b2.error?.code).toBe(-32600);
    // A later call completes, so had the batch been forwarded the marker would exist by now.
    structured(await shim.callTool('execute', { command: 'echo after-batch' }));
    expect(existsSync(marker)).toBe(false);
    shim.assertStdoutClean();
  });

  it('discards a line over the size cap with bounded memory, answers it once, and goes on', async () => {
    const marker = path.join(scratchOf(home), 'huge-ran');
    const before = shim.errorsWithCode(-32600).length;
    // 40 MB with the id last (as the SDKs write it): the error can still name the caller.
    const filler = 'x'.repeat(40 * 1024 * 1024);
    shim.writeLine(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"execute","arguments":{"command":"touch ${marker} # ${filler}"}},"id":"huge"}`);
    const answer = await shim.waitFor((m) => m.id === 'huge', 10_000, 'the answer to the huge line');
    expect(answer.error?.code).toBe(-32600);
    expect(answer.error?.message).toMatch(/limit/);
    expect(shim.errorsWithCode(-32600).slice(before)).toHaveLength(1);
    // The shim stayed small (~85 MB peak here): holding the line would add 40 MB several times over.
    const peakKb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${shim.child.pid}/status`, 'utf8'))?.[1]);
    expect(peakKb).toBeLessThan(150 * 1024);
    structured(await shim.callTool('execute', { command: 'echo after-huge' }));
    expect(existsSync(marker)).toBe(false);
    shim.assertStdoutClean();
  });
});

describe('shim: the hub dies under a connected client', () => {
  it('answers the next call, failing it naming the hub or completing it, never leaving it hanging; then the same client works on a new hub (initialize replayed)', async () => {
    const home = newHome();
    const host = await connectClient(home);
    try {
      await host.call('execute', { command: 'echo before' });
      const firstHub = await liveHub(home);
      await killHub(firstHub);

      // Answered either way, never left hanging: the shim's own bound (HUB_WAIT_MS, 10 s) ends
      // a wait for a hub; HUB_BOUND_MS only turns "never" into a failure that says so.
      let outcome: 'succeeded' | 'failed';
      try {
        await within(host.call('list'), HUB_BOUND_MS, 'an answer to the first call after the hub died');
        outcome = 'succeeded';
      } catch (error) {
        outcome = 'failed';
        expect((error as Error).message).toMatch(/hub/i);
        expect((error as Error).message).not.toMatch(/timed out after/);
      }

      // The same client, never reconnected: a new hub serves it.
      const result = await host.call('execute', { command: 'echo after' });
      expect(String(result.output).trim()).toBe('after');
      const secondHub = await liveHub(home);
      expect(secondHub).not.toBe(firstHub);
      // The new hub knows who the client is only from the replayed initialize.
      const sessions = await listSessions(host);
      const mine = sessions.find((s) => s.id === result.session);
      expect(mine?.creator?.client).toBe(`${CLIENT.name} ${CLIENT.version}`);
      // No duplicate initialize answer (or any stray message) reached the client.
      expect(host.errors).toEqual([]);
      expect(['succeeded', 'failed']).toContain(outcome);
    } finally {
      await host.client.close();
    }
  }, 60_000);

  it('answers a call in flight with an error at once and never replays it', async () => {
    const home = newHome();
    const host = await connectClient(home);
    const file = path.join(scratchOf(home), 'ran.txt');
    try {
      const warm = await host.call('execute', { command: 'echo warm-up' });
      const hubPid = await liveHub(home);
      const inFlight = host.call('execute', { command: `echo $RANDOM >> ${file}; sleep 30`, timeout_ms: 60_000 });
      const settled = inFlight.then(
        () => ({ ok: true as const, message: '' }),
        (error: unknown) => ({ ok: false as const, message: (error as Error).message }),
      );
      await until(() => existsSync(file) && readFileSync(file, 'utf8').endsWith('\n'), 10_000, 'the command to run', home);
      await killHub(hubPid);

      // "At once": answered because the connection dropped (HUB_LOST_MESSAGE), not by a timer
      // running out (the 60 s call timeout, or the shim's 'did not answer within' bound).
      const outcome = await settled;
      expect(outcome.ok).toBe(false);
      expect(outcome.message).toMatch(/result is unknown/);

      // The client goes on; the new hub never saw the execute again.
      const after = await host.call('execute', { command: `cat ${file}` });
      expect(String(after.output).trim().split('\n')).toHaveLength(1);
      const live = await listSessions(host);
      expect(live.filter((s) => s.command?.includes('$RANDOM'))).toEqual([]);
      // No ghost: the dead hub's session is not listed as live by the new one.
      expect(live.filter((s) => s.id === warm.session && s.state !== 'exited')).toEqual([]);
      expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(1);
      expect(host.errors).toEqual([]);
    } finally {
      await host.client.close();
    }
  }, 60_000);

  it('swallows the replayed initialize answer: the raw host sees each id answered exactly once', async () => {
    const home = newHome();
    const shim = new RawShim(home);
    try {
      await shim.initialize();
      structured(await shim.callTool('execute', { command: 'echo one' }));
      await killHub(await liveHub(home));
      // Retried until a new hub answers: each attempt is answered (error or result), never ignored.
      let answer: Message | null = null;
      const deadline = Date.now() + HUB_BOUND_MS;
      while (Date.now() < deadline) {
        answer = await shim.callTool('execute', { command: 'echo two' });
        if (!answer.error) break;
        expect(answer.error.message).toMatch(/hub/i);
      }
      expect(String(structured(answer as Message).output).trim()).toBe('two');
      const ids = shim.messages.filter((m) => 'result' in m || 'error' in m).map((m) => JSON.stringify(m.id));
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.some((id) => id.includes('replay'))).toBe(false);
      shim.assertStdoutClean();
    } finally {
      await shim.close();
    }
  }, 60_000);
});

describe('shim: the host going away', () => {
  it('exits by itself when stdin closes, without waiting for a call in flight; the session it created lives on for a second client', async () => {
    const home = newHome();
    const shim = new RawShim(home);
    await shim.initialize();
    const opened = structured(await shim.callTool('execute', { command: 'echo still-here' }));
    const hubPid = await liveHub(home);
    // A call in flight that would take a minute: the shim must not wait for it.
    const marker = path.join(scratchOf(home), 'in-flight-started');
    shim.send({
      jsonrpc: '2.0',
      id: 'in-flight',
      method: 'tools/call',
      params: { name: 'execute', arguments: { command: `touch ${marker}; sleep 60`, session: opened.session, timeout_ms: 60_000 } },
    });
    await until(() => existsSync(marker), 10_000, 'the call in flight to run', home);

    shim.child.stdin.end();
    // Exit code 0 and no signal: it ended itself (nothing here signals it before the bound).
    expect(await within(shim.exited, HUB_BOUND_MS, 'the shim to exit after stdin closed')).toEqual({ code: 0, signal: null });
    expect(shim.messages.some((m) => m.id === 'in-flight')).toBe(false); // it left before that answer
    shim.assertStdoutClean();

    const second = await connectClient(home);
    try {
      const sessions = await listSessions(second);
      const session = sessions.find((s) => s.id === opened.session);
      expect(session).toBeDefined();
      expect(session?.state).not.toBe('exited');
      expect(readHubJson(home)?.pid).toBe(hubPid);
    } finally {
      await second.client.close();
    }
  });

  it('a host disconnecting mid-call does not stop its command', async () => {
    const home = newHome();
    const file = path.join(scratchOf(home), 'progress.txt');
    const shim = new RawShim(home);
    await shim.initialize();
    const pending = shim.callTool('execute', { command: `echo started >> ${file}; sleep 1; echo finished >> ${file}`, timeout_ms: 30_000 });
    pending.catch(() => undefined);
    await until(() => existsSync(file) && readFileSync(file, 'utf8').includes('started'), 10_000, 'the command to start', home);
    shim.child.stdin.end();
    await shim.exited;
    await until(() => readFileSync(file, 'utf8').includes('finished'), 10_000, 'the command to finish after the host left', home);
  });

  it('exits on SIGTERM, as its own decision (exit code 0), not killed by it', async () => {
    const home = newHome();
    const shim = new RawShim(home);
    await shim.initialize();
    shim.child.kill('SIGTERM');
    // Killed by the default action, Node reports the signal and no code.
    expect(await within(shim.exited, HUB_BOUND_MS, 'the shim to exit on SIGTERM')).toEqual({ code: 0, signal: null });
  });
});

/**
 * A hub that is slow to start: its socket takes the shim's hello and answers nothing, as a hub
 * still loading would, until the test lets it go (the shim then starts a real one).
 */
class StalledHub {
  hellos = 0;
  private readonly sockets = new Set<net.Socket>();
  private readonly server = net.createServer((socket) => {
    this.sockets.add(socket);
    socket.on('error', () => undefined);
    socket.once('data', () => this.hellos++);
  });

  constructor(private readonly home: string) {}

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(path.join(this.home, 'hub.sock'), resolve));
    writeFileSync(path.join(this.home, 'token'), `${'s'.repeat(43)}\n`, { mode: 0o600 });
  }

  /** Goes away without a word: the socket file goes with it. */
  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

describe('shim: server/discover (MCP 2026-07-28)', () => {
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw-shim-test', version: '0.0.1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };

  it("is answered at once while the hub has not answered yet; the rest waits for a hub and goes to it; the answer is the hub's own", async () => {
    const home = newHome();
    const stalled = new StalledHub(home);
    await stalled.start();
    const raw = new RawShim(home);
    const pinned = new Client(CLIENT, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    try {
      // Bounded well under the shim's wait for a hub: only the shim itself can answer in time.
      const discovered = await raw.request('server/discover', { _meta: envelope }, 5_000);
      const unsupported = await raw.request('server/discover', { _meta: { ...envelope, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } }, 5_000);
      expect(unsupported.error).toEqual({
        code: -32022,
        message: 'Unsupported protocol version: 2099-01-01',
        data: { supported: ['2026-07-28'], requested: '2099-01-01' },
      });
      // The shim was talking to the hub, which had said nothing.
      await until(() => stalled.hellos >= 1, 5_000, 'the shim to say hello to the slow hub');
      await raw.close();

      // A client pinned to the revision connects on that answer alone (it sends no initialize).
      const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env: shimEnv(home), cwd: ROOT, stderr: 'pipe' });
      await within(pinned.connect(transport), 5_000, 'the pinned client to connect while the hub is slow');
      expect(pinned.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      expect(pinned.getInstructions()).toMatch(/Use execute for shell commands/);
      expect(pinned.getServerCapabilities()).toEqual({
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
      });

      // Everything else is forwarded as before: it waits for a hub, which the shim starts once the slow one is gone.
      const listing = pinned.listTools();
      await stalled.stop();
      expect((await listing).tools.map((tool) => tool.name).sort()).toEqual(['execute', 'history', 'kill', 'list', 'open', 'read', 'screenshot', 'send']);
      const ran = await pinned.callTool({ name: 'execute', arguments: { command: 'echo modern' } });
      expect(ran.structuredContent).toMatchObject({ status: 'completed', output: 'modern' });

      // What the shim said without the hub is what the hub says.
      const info = readHubJson(home);
      const hub = await connectRaw(info?.socket ?? path.join(home, 'hub.sock'), readFileSync(path.join(home, 'token'), 'utf8').trim());
      try {
        const own = await hub.request('server/discover', { _meta: envelope });
        expect(own.error).toBeUndefined();
        expect(discovered.result).toEqual(own.result);
      } finally {
        hub.close();
      }
      raw.assertStdoutClean();
    } finally {
      await raw.close();
      await pinned.close();
      await stalled.stop().catch(() => undefined);
    }
  });

  it('is forwarded when the shim cannot answer it as the hub would (no _meta envelope)', async () => {
    const home = newHome();
    const shim = new RawShim(home);
    try {
      // A 2025-era line with that name: the hub's own answer, whatever it is.
      const answer = await shim.request('server/discover', {});
      expect(answer.error?.code).toBe(-32601);
      await liveHub(home); // it took a hub to answer
      shim.assertStdoutClean();
    } finally {
      await shim.close();
    }
  });
});
