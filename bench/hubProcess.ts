/**
 * Real hub processes for the benchmarks (the few lines of test/integration/helpers/hubProcess.ts
 * they need): `node bin/switchboard.js serve` with its own SWITCHBOARD_HOME and SWITCHBOARD_PORT=0,
 * port and token read back from hub.json and the token file. Every wait is bounded; `stop()`
 * ends the hub and removes its home.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

/** The package root (bench runs from dist/bench/). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const LISTENING = 'switchboard: hub listening';

export interface BenchHub {
  home: string;
  /** The `bin/switchboard.js` it runs (of this checkout, or of the one given to `startHub`). */
  bin: string;
  /** What the hub wrote to stderr until it listened (e.g. the inspector's address). */
  startupLog: string;
  pid: number;
  port: number;
  token: string;
  /** The person's UI key (`<home>/ui-key`): a browser signs in with `/?key=`; empty for a hub from before it. */
  uiKey: string;
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** The environment without our own SWITCHBOARD_* variables, plus `extra`. */
export function cleanEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith('SWITCHBOARD_')) env[key] = value;
  return { ...env, SHELL: '/bin/bash', ...extra };
}

const running = new Set<BenchHub>();

/**
 * `nodeArgs` go before the script; SB_BENCH_HUB_ARGS adds more to every hub the bench starts,
 * e.g. `SB_BENCH_HUB_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof'` to profile them. `root`: the
 * checkout whose hub runs (built, with its node_modules); this one by default (ab.ts compares two).
 * `node`: the Node binary to run it with (this one by default).
 */
export async function startHub(extraEnv: Record<string, string> = {}, nodeArgs: string[] = [], root = ROOT, node = process.execPath): Promise<BenchHub> {
  const bin = path.join(root, 'bin', 'switchboard.js');
  nodeArgs = [...nodeArgs, ...(process.env.SB_BENCH_HUB_ARGS?.split(' ').filter(Boolean) ?? [])];
  // A home given in `extraEnv` (a state dir the case filled first) is used, and removed at stop.
  const home = extraEnv.SWITCHBOARD_HOME ?? fs.mkdtempSync(path.join(os.tmpdir(), 'sb-bench-hub-'));
  // HOME is an empty folder: the sessions' bash reads no rc files of the machine's user (a
  // `pyenv init` there costs seconds per shell under load and would be measured instead of us).
  const env = cleanEnv({ SWITCHBOARD_HOME: home, SWITCHBOARD_PORT: '0', SWITCHBOARD_KILL_WAIT_MS: '300', HOME: home, ...extraEnv });
  const child: ChildProcess = spawn(node, [...nodeArgs, bin, 'serve'], { env, cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`hub did not report listening within 20 s; stderr:\n${stderr}`)), 20_000);
      child.stderr?.on('data', (chunk: Buffer) => {
        if (stderr.length < 100_000) stderr += chunk.toString();
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
  } catch (error) {
    child.kill('SIGKILL');
    fs.rmSync(home, { recursive: true, force: true });
    throw error;
  }
  const info = JSON.parse(fs.readFileSync(path.join(home, 'hub.json'), 'utf8')) as { pid: number; port: number };
  const hub: BenchHub = {
    home,
    bin,
    startupLog: stderr,
    pid: info.pid,
    port: info.port,
    token: fs.readFileSync(path.join(home, 'token'), 'utf8').trim(),
    uiKey: fs.existsSync(path.join(home, 'ui-key')) ? fs.readFileSync(path.join(home, 'ui-key'), 'utf8').trim() : '',
    env,
    async stop() {
      running.delete(hub);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
  running.add(hub);
  return hub;
}

/** Stops every hub still running (on failure paths). */
export async function stopAllHubs(): Promise<void> {
  await Promise.all([...running].map((hub) => hub.stop().catch(() => undefined)));
}

export async function httpClient(hub: BenchHub, name: string): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${hub.port}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${hub.token}` } } }),
  );
  return client;
}

/** The real stdio shim (`switchboard mcp`) connected to this hub. */
export async function shimClient(hub: BenchHub, name: string): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [hub.bin, 'mcp'], env: hub.env, stderr: 'ignore' }));
  return client;
}

export interface Sc {
  [key: string]: unknown;
}

/** A tool call that must succeed; its structuredContent. */
export async function tool(client: Client, name: string, args: Record<string, unknown>, timeoutMs = 60_000): Promise<Sc> {
  const result = await client.callTool({ name, arguments: args }, { timeout: timeoutMs });
  if (result.isError) {
    const first = (result.content as { type: string; text?: string }[])[0];
    throw new Error(`${name} ${JSON.stringify(args).slice(0, 200)} failed: ${first?.text ?? ''}`);
  }
  return (result.structuredContent ?? {}) as Sc;
}

/** VmRSS of a process, in bytes (Linux /proc). */
export function rss(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /VmRSS:\s+(\d+)\s+kB/.exec(status);
  if (!match) throw new Error(`no VmRSS for ${pid}`);
  return Number(match[1]) * 1024;
}

/**
 * CPU time (user + system, ms) of a process's main thread so far (Linux /proc), or null where
 * there is no /proc. The main thread is where the hub reads PTYs and runs everything else.
 */
export function mainThreadCpuMs(pid: number): number | null {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticksPerSecond = 100; // USER_HZ on Linux
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
}

/** CPU time (user + system, ms) of a whole process so far, all its threads (Linux /proc), or null where there is no /proc. */
export function processCpuMs(pid: number): number | null {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** RSS of a bare `node -e` process that has been idle for half a second. */
export function bareNodeRss(): number {
  const script = "setTimeout(() => process.stdout.write(/VmRSS:\\s+(\\d+)/.exec(require('fs').readFileSync('/proc/self/status', 'utf8'))[1]), 500)";
  const result = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 10_000 });
  const kib = Number(result.stdout);
  if (!Number.isFinite(kib) || kib <= 0) throw new Error(`bare node RSS: ${result.stdout} ${result.stderr}`);
  return kib * 1024;
}

/** Bytes in a session's transcript so far (`<state>/sessions/<id>/output.log`), 0 if none yet. */
export function transcriptBytes(hub: BenchHub, session: string): number {
  return fs.statSync(path.join(hub.home, 'sessions', session, 'output.log'), { throwIfNoEntry: false })?.size ?? 0;
}

/**
 * The size of a session's output.log once it reaches `atLeast` bytes, or whatever it is after
 * `timeoutMs`: the hub writes output.log in batches (up to WRITE_BATCH_MS after the bytes
 * arrived), so an `execute` answer can come before its output is on disk. Woken by the file's
 * own change events (the tests' `whenFile`, which the bench does not import).
 */
export async function transcriptBytesWhen(hub: BenchHub, session: string, atLeast: number, timeoutMs = 5_000): Promise<number> {
  const watcher = fs.watch(path.join(hub.home, 'sessions', session, 'output.log'));
  try {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      const check = (): void => {
        if (transcriptBytes(hub, session) < atLeast) return;
        clearTimeout(timer);
        resolve();
      };
      watcher.on('change', check);
      watcher.on('error', () => resolve());
      check();
    });
  } finally {
    watcher.close();
  }
  return transcriptBytes(hub, session);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
