/**
 * The adversarial review, "Faults": 1 000 sessions created and destroyed — programs that exit by themselves,
 * sessions killed with `kill {close: true}`, spawn errors, and sessions whose creating client
 * disconnects (they stay by design; another client closes them) — and the hub's open file
 * descriptors, child processes and memory come back to where they were. One real hub.
 *
 * Cheap programs (`true`, `sh -c`, `sleep`) make most of the churn, 8 at a time, so the file runs
 * in about a minute on 2 cores; 50 full bash starts (shell integration) are mixed in.
 */
import { chmodSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRaw, initializeRaw, type HubProcess, type RawSocketClient } from '../integration/helpers/hubProcess.js';
import { expectCleanLog, expectHubFine, RawHttp, RawShim, startIsolatedHub, toolAnswer, until, type Message, type ToolAnswer } from './helpers.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const TOTAL = 1_000;
/** Sessions in flight at once: enough to overlap spawns and kills, few enough for 2 cores. */
const CONCURRENCY = 8;
/**
 * Open fds allowed above the baseline once everything is closed. Zero: every fd a session,
 * a transcript or a client connection holds is released (the baseline is taken after a warm-up
 * that opened each kind once, so lazily opened files such as audit.jsonl are already counted).
 */
const FD_SLACK = 0;
/**
 * Memory after a forced full GC in the hub (gcOnSignal.cjs; without it RSS swung by ±30 MiB with
 * uncollected garbage). What the hub holds (its JS heap and the Buffers outside it) is weighed
 * strictly: measured on the 2-core dev machine, 27.0 → 27.2 → 28.3 MB over the baseline, 500
 * and 1 000 sessions. RSS gets a bound for a native leak: before the process-table fix
 * (src/core/processes/processTable.ts: every close read /proc with hundreds of concurrent 64 KB
 * buffers) the hub's malloc heap grew about 70 KiB per closed session, for good. RSS itself also
 * holds what glibc keeps of freed memory: with the same code it grew between 15 and 60 MiB over
 * the 1 000 sessions from run to run (two arenas, below), so it is not held to the per-half bounds.
 */
const HELD_SLACK = 16 * 1024 * 1024;
/** The second 500 sessions may add at most this much to what the hub holds (16 KiB per session)… */
const HELD_SECOND_HALF_MAX = 8 * 1024 * 1024;
/** …and not more than the first 500 did, plus this (growth must not accelerate). */
const HELD_ACCELERATION_SLACK = 4 * 1024 * 1024;
/** RSS over the 1 000 sessions: the old 70 KiB-per-session leak, plus the allocator's swing, is past this. */
const RSS_SLACK = 96 * 1024 * 1024;

let hub: HubProcess;
let stopHub: () => Promise<string>;
let home: string;
let work: string;
/** A script whose interpreter cannot run: it passes every up-front check, then execve fails in the child. */
let badInterpreter: string;

beforeAll(async () => {
  home = mkdtempSync(path.join(tmpdir(), 'sb-adv-churn-home-'));
  work = mkdtempSync(path.join(tmpdir(), 'sb-adv-churn-'));
  // A shell asked to (SB_CHURN_DIE set) exits from its startup files before its first prompt.
  const die = 'if [ -n "$SB_CHURN_DIE" ]; then exit 7; fi\n';
  for (const rc of ['.bash_profile', '.bashrc']) writeFileSync(path.join(home, rc), die);
  // Its interpreter is itself a script whose interpreter is missing: `open` checks one level of
  // `#!` (and refuses a missing interpreter up front), the kernel fails the second in the child.
  const middle = path.join(work, 'middle-interpreter.sh');
  writeFileSync(middle, '#!/no/such/interpreter\n');
  chmodSync(middle, 0o755);
  badInterpreter = path.join(work, 'bad-interpreter.sh');
  writeFileSync(badInterpreter, `#!${middle}\necho never\n`);
  chmodSync(badInterpreter, 0o755);
  ({ hub, cleanup: stopHub } = await startIsolatedHub({
    HOME: home,
    SWITCHBOARD_MAX_SESSIONS: '200',
    NODE_OPTIONS: `--expose-gc --require ${path.join(HERE, 'gcOnSignal.cjs')}`,
    // glibc gives each thread that mallocs (libuv's pool writing transcripts, node-pty) an arena
    // of its own and keeps what they freed: with the default 8 per core the hub's RSS after a
    // full GC swung by 40 MiB between two runs of the same code (JS heap flat: 27.0 → 28.3 MB).
    // Two arenas make RSS follow what the hub holds, which is what this test weighs.
    MALLOC_ARENA_MAX: '2',
  }));
});

afterAll(async () => {
  if (hub) {
    const stderr = await stopHub();
    expectCleanLog(stderr, hub);
    expect(stderr).not.toMatch(/MaxListenersExceeded|EMFILE|EBADF/);
  }
  for (const dir of [home, work]) if (dir) rmSync(dir, { recursive: true, force: true });
});

// ---- what the hub holds ------------------------------------------------------------------------

function fdTargets(pid: number): string[] {
  const targets: string[] = [];
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      targets.push(`${fd} → ${readlinkSync(`/proc/${pid}/fd/${fd}`)}`);
    } catch {
      // closed while listing
    }
  }
  return targets;
}

/** Inodes of listening sockets (TCP state 0A, unix sockets accepting connections). */
function listeningInodes(): Set<string> {
  const inodes = new Set<string>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[3] === '0A' && f[9]) inodes.add(f[9]);
    }
  }
  for (const line of readFileSync('/proc/net/unix', 'utf8').split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f[3] === '00010000' && f[6]) inodes.add(f[6]);
  }
  return inodes;
}

/** The hub's sockets that are connections (a client's, still closing): not its listeners, not its stdio. */
function connectionFds(): string[] {
  const listening = listeningInodes();
  return fdTargets(hub.pid).filter((t) => {
    const match = /^(\d+) → socket:\[(\d+)\]$/.exec(t);
    return match !== null && Number(match[1]) > 2 && !listening.has(match[2]!);
  });
}

function rssBytes(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for ${pid}`);
  return Number(match[1]) * 1024;
}

/** The hub's child processes, zombies included. */
function hubChildren(): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === hub.pid) found.push(`${entry} ${fields[0]} ${stat.slice(stat.indexOf('('), stat.lastIndexOf(')') + 1)}`);
    } catch {
      // gone
    }
  }
  return found;
}

interface Snapshot {
  fds: string[];
  rss: number;
  /** The hub's JS heap and external memory after the full GC. */
  held: number;
}

/** Waits until no session is live and nothing of them is left in the hub, then measures. */
async function settled(observer: RawHttp, fdLimit: number | null): Promise<Snapshot> {
  await until(async () => ((await observer.ok('list')).sessions as unknown[]).length === 0, 30_000, 'no live session');
  await until(() => hubChildren().length === 0, 10_000, 'no child process of the hub');
  // Terminals and transcripts are closed asynchronously after a session leaves the list.
  const sessionFds = (): string[] => fdTargets(hub.pid).filter((t) => /\/dev\/(pts\/|ptmx)|\/sessions\//.test(t));
  await until(() => sessionFds().length === 0, 10_000, 'no terminal or transcript fd in the hub');
  // Client connections (ours included) are closed by the hub a moment after the client's end.
  await until(() => connectionFds().length === 0, 10_000, 'no client connection left open in the hub').catch((error: Error) => {
    throw new Error(`${error.message}: ${connectionFds().join(', ')}`);
  });
  if (fdLimit !== null) await until(() => fdTargets(hub.pid).length <= fdLimit, 10_000, 'the fds to come back to the baseline').catch(() => undefined);
  // A full GC in the hub first (gcOnSignal.cjs): RSS without the garbage not collected yet.
  const collected = gcRuns();
  process.kill(hub.pid, 'SIGUSR2');
  await until(() => gcRuns() > collected, 10_000, 'the hub to collect its garbage');
  const report = hub.stderr().split('churn-test: gc done ').at(-1)?.split('\n')[0] ?? '{}';
  const { heapUsed, external } = JSON.parse(report) as { heapUsed: number; external: number };
  return { fds: fdTargets(hub.pid), rss: rssBytes(hub.pid), held: heapUsed + external };
}

/** How many times the hub reported a forced GC on stderr. */
function gcRuns(): number {
  return hub.stderr().split('churn-test: gc done').length - 1;
}

// ---- the churn -----------------------------------------------------------------------------------

type Kind = 'exit' | 'kill' | 'spawn_error' | 'disconnect';
const KINDS: Kind[] = ['exit', 'kill', 'spawn_error', 'disconnect'];

interface Tally {
  byKind: Record<Kind, number>;
  variants: Map<string, number>;
  /** Sessions that got an id (their transcript is on disk): `list include_closed` shows them. */
  opened: Set<string>;
}

function newTally(): Tally {
  return { byKind: { exit: 0, kill: 0, spawn_error: 0, disconnect: 0 }, variants: new Map(), opened: new Set() };
}

/** A raw MCP client over the hub's unix socket (what a shim is to the hub), closed by dropping the socket. */
class SocketAgent {
  private constructor(private readonly raw: RawSocketClient) {}

  static async connect(name: string): Promise<SocketAgent> {
    const raw = await connectRaw(hub.socket, hub.token);
    await initializeRaw(raw, name);
    return new SocketAgent(raw);
  }

  async call(name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
    return toolAnswer((await this.raw.request('tools/call', { name, arguments: args })) as Message);
  }

  /** Drops the connection without a word, and resolves once the socket is closed on our side. */
  disconnect(): Promise<void> {
    return new Promise((resolve) => {
      this.raw.socket.once('close', () => resolve());
      this.raw.close();
    });
  }
}

/**
 * Session number `n` of the churn, created and destroyed by `agent` (one per worker), or by a
 * client of its own that then disconnects.
 */
async function churnOne(n: number, agent: RawHttp, tally: Tally): Promise<void> {
  const kind = KINDS[n % KINDS.length]!;
  const k = Math.floor(n / KINDS.length) % 10; // the flavour within the kind
  let name: string;
  const opened = (answer: ToolAnswer): string => {
    if (answer.isError) throw new Error(`#${n} ${name}: open failed: ${answer.text}`);
    const id = String(answer.sc.session);
    tally.opened.add(id);
    return id;
  };
  switch (kind) {
    case 'exit': {
      // A program that ends by itself; the session is exited and leaves the live list.
      const code = k % 2 === 1 ? 3 : 0;
      name = code === 0 ? 'exit: true' : 'exit: sh -c "exit 3"';
      const id = opened(await agent.call('open', code === 0 ? { program: 'true', cwd: work } : { program: 'sh', args: ['-c', 'exit 3'], cwd: work }));
      const read = await agent.ok('read', { session: id, view: 'screen', wait: { exit: true, timeout_ms: 10_000 } });
      expect(read, `#${n} ${name}`).toMatchObject({ state: 'exited', exit_code: code });
      break;
    }
    case 'kill': {
      // A running session closed by the agent; a background child must go with it.
      if (k === 0) {
        name = 'kill: bash (shell integration)';
        const id = opened(await agent.call('open', { cwd: work }));
        expect(await agent.ok('execute', { session: id, command: 'sleep 1000 &' }), `#${n} ${name}`).toMatchObject({ status: 'completed' });
        expect(await agent.ok('kill', { session: id, close: true }), `#${n} ${name}`).toMatchObject({ state: 'exited' });
      } else {
        name = k % 3 === 1 ? 'kill: sh with a background child' : 'kill: sleep';
        const args = k % 3 === 1 ? { program: 'sh', args: ['-c', 'sleep 1000 & exec sleep 1000'] } : { program: 'sleep', args: ['1000'] };
        const id = opened(await agent.call('open', { ...args, cwd: work }));
        expect(await agent.ok('kill', { session: id, close: true }), `#${n} ${name}`).toMatchObject({ state: 'exited' });
      }
      break;
    }
    case 'spawn_error': {
      if (k === 0) {
        // Spawned, but the shell exits before its first prompt: SPAWN_FAILED, the session undone.
        name = 'spawn error: shell exits before its prompt';
        const answer = await agent.call('open', { cwd: work, env: { SB_CHURN_DIE: '1' } });
        expect(answer.isError, `#${n} ${name}: ${answer.text}`).toBe(true);
        expect(answer.error?.code).toBe('SPAWN_FAILED');
      } else if (k % 2 === 1) {
        // The program passes the up-front checks; execve fails in the forked child.
        name = 'spawn error: missing interpreter';
        const answer = await agent.call('open', { program: badInterpreter, cwd: work });
        if (answer.isError) {
          expect(answer.error?.code, `#${n} ${name}: ${answer.text}`).toBe('SPAWN_FAILED');
        } else {
          const id = opened(answer);
          const read = await agent.ok('read', { session: id, view: 'screen', wait: { exit: true, timeout_ms: 10_000 } });
          expect(read.state, `#${n} ${name}`).toBe('exited');
          expect(read.exit_code, `#${n} ${name}`).not.toBe(0);
        }
      } else {
        name = 'spawn error: cwd does not exist';
        const answer = await agent.call('open', { program: 'true', cwd: path.join(work, 'no', 'such', 'dir') });
        expect(answer.isError, `#${n} ${name}: ${answer.text}`).toBe(true);
        expect(answer.error?.code).toBe('INVALID_ARGUMENT');
      }
      break;
    }
    case 'disconnect': {
      // The creating client goes away; its session stays (docs/design.md §3.4) until another client
      // closes it.
      let id: string;
      if (k === 0 && Math.floor(n / 40) % 5 === 0) {
        name = 'disconnect: shim (stdin closed)';
        const shim = await new RawShim(hub).initialize(`churn-shim-${n}`);
        id = opened(await shim.call('open', { program: 'sleep', args: ['1000'], cwd: work }));
        await shim.close();
      } else if (k % 3 === 2) {
        name = 'disconnect: HTTP session deleted';
        const http = await new RawHttp(hub).initialize(`churn-http-${n}`);
        id = opened(await http.call('open', { program: 'sleep', args: ['1000'], cwd: work }));
        await http.close();
      } else {
        name = 'disconnect: socket dropped';
        const socket = await SocketAgent.connect(`churn-socket-${n}`);
        id = opened(await socket.call('open', { program: 'sleep', args: ['1000'], cwd: work }));
        await socket.disconnect();
      }
      const row = ((await agent.ok('list')).sessions as { id: string; state: string }[]).find((s) => s.id === id);
      expect(row, `#${n} ${name}: the session stays after its client left`).toMatchObject({ state: 'running' });
      expect(await agent.ok('kill', { session: id, close: true }), `#${n} ${name}`).toMatchObject({ state: 'exited' });
      break;
    }
  }
  tally.byKind[kind]++;
  tally.variants.set(name, (tally.variants.get(name) ?? 0) + 1);
}

/** Sessions `from` … `to - 1`, `CONCURRENCY` at a time, each worker with its own HTTP agent. */
async function churn(from: number, to: number, tally: Tally): Promise<void> {
  let next = from;
  const agents = await Promise.all(Array.from({ length: CONCURRENCY }, (_, w) => new RawHttp(hub).initialize(`churn-worker-${w}`)));
  try {
    await Promise.all(
      agents.map(async (agent) => {
        while (next < to) await churnOne(next++, agent, tally);
      }),
    );
  } finally {
    await Promise.all(agents.map((agent) => agent.close()));
  }
}

const MiB = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

describe('1 000 sessions created and destroyed', () => {
  it('leave the hub with the fds, child processes and memory it had before', async () => {
    const observer = await new RawHttp(hub).initialize('churn-observer');
    try {
      // Warm-up: one round of every flavour, so lazily created things (audit.jsonl, the
      // sessions/ directory, code paths V8 compiles) exist before the baseline.
      const warm = newTally();
      await churn(0, 40, warm);
      const baseline = await settled(observer, null);

      const tally = newTally();
      const started = Date.now();
      await churn(0, TOTAL / 2, tally);
      const half = await settled(observer, baseline.fds.length + FD_SLACK);
      await churn(TOTAL / 2, TOTAL, tally);
      const end = await settled(observer, baseline.fds.length + FD_SLACK);
      const churnMs = Date.now() - started;

      const listStarted = Date.now();
      const all = (await observer.ok('list', { include_closed: true })).sessions as { id: string; state: string }[];
      const listMs = Date.now() - listStarted;

      console.log(
        `churn: ${TOTAL} sessions in ${churnMs} ms; ${JSON.stringify(tally.byKind)}; ${JSON.stringify(Object.fromEntries(tally.variants))}\n` +
          `fds: baseline ${baseline.fds.length}, after 500 ${half.fds.length}, after 1000 ${end.fds.length}\n` +
          `rss: baseline ${MiB(baseline.rss)}, after 500 ${MiB(half.rss)}, after 1000 ${MiB(end.rss)}\n` +
          `held (heap + external): baseline ${MiB(baseline.held)}, after 500 ${MiB(half.held)}, after 1000 ${MiB(end.held)}\n` +
          `list include_closed: ${all.length} sessions in ${listMs} ms`,
      );

      expect(Object.values(tally.byKind).reduce((a, b) => a + b, 0)).toBe(TOTAL);
      for (const kind of KINDS) expect(tally.byKind[kind], kind).toBe(TOTAL / KINDS.length);
      // Every flavour ran (the bad-interpreter script may become an up-front refusal one day; either is fine).
      expect(tally.variants.size).toBe(11);

      // Every fd is released: no more than before (a failure lists them, with the baseline's).
      expect(end.fds.length, `fds now:\n${end.fds.join('\n')}\nbaseline:\n${baseline.fds.join('\n')}`).toBeLessThanOrEqual(baseline.fds.length + FD_SLACK);
      expect(half.fds.length, `fds after 500:\n${half.fds.join('\n')}`).toBeLessThanOrEqual(baseline.fds.length + FD_SLACK);
      expect(hubChildren()).toEqual([]);
      // Memory: what the hub holds comes back near the baseline, and what growth remains is
      // bounded and does not accelerate; RSS stays within a native leak's bound (see HELD_*, RSS_SLACK).
      expect(end.held, `held ${MiB(end.held)} vs baseline ${MiB(baseline.held)}`).toBeLessThan(baseline.held + HELD_SLACK);
      const firstHalf = half.held - baseline.held;
      const secondHalf = end.held - half.held;
      expect(secondHalf, `held after 1000 ${MiB(end.held)} vs after 500 ${MiB(half.held)}`).toBeLessThan(HELD_SECOND_HALF_MAX);
      expect(secondHalf, `second 500 added ${MiB(secondHalf)}, the first ${MiB(firstHalf)}`).toBeLessThan(Math.max(firstHalf, 0) + HELD_ACCELERATION_SLACK);
      expect(end.rss, `rss ${MiB(end.rss)} vs baseline ${MiB(baseline.rss)}`).toBeLessThan(baseline.rss + RSS_SLACK);

      // Closed sessions stay listed (transcripts on disk) and listing them all still answers.
      const closed = new Set(all.filter((s) => s.state === 'exited').map((s) => s.id));
      for (const id of tally.opened) expect(closed.has(id), `closed session ${id} is listed`).toBe(true);
      expect(all.length).toBe(closed.size);
    } finally {
      await observer.close();
    }
    await expectHubFine(hub);
  }, 180_000);
});
