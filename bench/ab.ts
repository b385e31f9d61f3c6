/**
 * A/B: two hub configurations measured in one run, taking turns, so a difference between them
 * is not the machine's drift (on a shared 2-core VM a hub's `cat` swings by 2× within minutes).
 * A side is a checkout (built, with its node_modules) plus environment variables for its hub:
 *
 *   npm run build && node dist/bench/ab.js --cases=sustained,scrollback,flood,execute \
 *     [--a=DIR] [--b=DIR] [--a-env=K=V,K=V] [--b-env=K=V] [--a-name=on] [--b-name=off] \
 *     [--a-node=NODE] [--b-node=NODE] [--turns=5] [--mb=256] [--flood-mb=1024] [--calls=300]
 *
 * `--a`/`--b` default to this checkout, so `--b-env=SWITCHBOARD_AGENT_SCROLLBACK=5000` compares a
 * setting in one build; two checkouts compare two builds (a change and the commit before it);
 * `--a-node`/`--b-node` run a side's hubs on another Node (another V8), e.g. the one Electron ships.
 *
 * Cases (each alternates the sides' order from turn to turn, ABBA…, and prints medians with
 * their spread, min–max):
 * - `sustained`: both hubs run side by side, each with an agent's session and a viewer over
 *   /ws (as bench/sustained.ts). Each turn, each hub `cat`s the same file (in /dev/shm when it
 *   has room), node-pty alone reading it just before as the baseline; one uncounted turn first
 *   (a fresh hub's flood path is not optimized yet). Every `cat`'s bytes must be in output.log:
 *   the zero-loss check.
 * - `scrollback`: RSS per session holding 10 000 rows of scrollback (10 sessions, `seq` rows
 *   and rows full to the last column), after a full GC, a fresh hub per side and turn.
 * - `flood`: a fresh hub per side and turn, one session, a `--flood-mb` flood of 100-column
 *   lines: the hub's peak RSS during it (sampled every 100 ms), after a full GC, its rate and CPU.
 * - `execute`: `echo hi` round trips through the stdio shim, both hubs side by side, after
 *   2 000 warm-up calls each; `--calls` per side per turn.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { bareThroughput } from './baseline.js';
import { httpClient, processCpuMs, ROOT, rss, shimClient, sleep, startHub, stopAllHubs, tool, type BenchHub } from './hubProcess.js';
import { collectGarbage, DEFAULT_COLS, LONG_SCROLLBACK, scrollbackPerSession, SESSIONS } from './memory.js';
import { median, now, percentile } from './stats.js';
import { floodDir, openCatSession, transcriptCap, writeFlood, type CatSession } from './sustained.js';

interface Side {
  name: string;
  root: string;
  env: Record<string, string>;
  /** The Node binary its hubs run on. */
  node: string;
}

function arg(name: string): string | undefined {
  return process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
}

function envArg(value: string | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of value?.split(',').filter(Boolean) ?? []) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new Error(`--a-env/--b-env take K=V pairs separated by commas, got ${pair}`);
    env[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return env;
}

const sides: [Side, Side] = [
  { name: arg('a-name') ?? 'A', root: path.resolve(arg('a') ?? ROOT), env: envArg(arg('a-env')), node: arg('a-node') ?? process.execPath },
  { name: arg('b-name') ?? 'B', root: path.resolve(arg('b') ?? ROOT), env: envArg(arg('b-env')), node: arg('b-node') ?? process.execPath },
];
const cases = (arg('cases') ?? 'sustained').split(',');
const turns = Number(arg('turns') ?? 5);
const catMb = Number(arg('mb') ?? 256);
const floodMb = Number(arg('flood-mb') ?? 1024);
const calls = Number(arg('calls') ?? 300);
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-ab-'));

/** The sides' indices in turn `turn`'s order: A first in even turns, B first in odd ones. */
function order(turn: number): [0 | 1, 0 | 1] {
  return turn % 2 === 0 ? [0, 1] : [1, 0];
}

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

const MiB = 1024 * 1024;

/** `median (min–max)` of `values`, each formatted by `format`. */
function spread(values: number[], format: (value: number) => string): string {
  if (values.length === 0) return '—';
  return `${format(median(values))} (${format(Math.min(...values))}–${format(Math.max(...values))})`;
}

/** B's median against A's, as a change: `+12.3 %`. */
function change(a: number[], b: number[]): string {
  if (a.length === 0 || b.length === 0) return '—';
  const delta = median(b) / median(a) - 1;
  return `${delta >= 0 ? '+' : ''}${(delta * 100).toFixed(1)} %`;
}

const tables: string[] = [];

function table(title: string, rows: [metric: string, a: number[], b: number[], format: (value: number) => string][]): void {
  const lines = [
    `### ${title}`,
    '',
    `| metric | ${sides[0].name} | ${sides[1].name} | ${sides[1].name} vs ${sides[0].name} (medians) |`,
    '| --- | --- | --- | --- |',
  ];
  for (const [metric, a, b, format] of rows) lines.push(`| ${metric} | ${spread(a, format)} | ${spread(b, format)} | ${change(a, b)} |`);
  tables.push(lines.join('\n'));
}

const fixed = (digits: number) => (value: number) => value.toFixed(digits);
const mibs = (value: number): string => `${(value / MiB).toFixed(1)} MiB/s`;
const mebi = (value: number): string => `${(value / MiB).toFixed(1)} MiB`;
const millis = (value: number): string => `${Math.round(value)} ms`;
const millis2 = (value: number): string => `${value.toFixed(2)} ms`;

async function sustained(): Promise<void> {
  const dir = floodDir(work, catMb);
  const flood = writeFlood(path.join(dir, 'flood.txt'), catMb, () => `${'The quick brown fox jumps over the lazy dog 0123456789 '.repeat(2).trim()}\n`);
  const hubs: BenchHub[] = [];
  try {
    for (const side of sides) hubs.push(await startHub({ ...transcriptCap(flood.size, 1 + turns), ...side.env }, [], side.root, side.node));
    const sessions: [CatSession, CatSession] = [await openCatSession(hubs[0]!), await openCatSession(hubs[1]!)];
    const by = sides.map(() => ({
      ratio: [] as number[],
      rate: [] as number[],
      bare: [] as number[],
      main: [] as number[],
      process: [] as number[],
      lost: 0,
      paired: [] as number[],
    }));
    for (let turn = 0; turn <= turns; turn++) {
      const ratios: number[] = [0, 0];
      for (const index of order(turn)) {
        const bare = await bareThroughput(flood.file);
        const bareRate = bare.bytes / (bare.ms / 1000);
        const run = await sessions[index]!.cat(flood.file, flood.size, flood.expected);
        const lost = Math.max(0, flood.expected - run.kept);
        ratios[index] = run.rate / bareRate;
        log(
          `sustained turn ${turn}${turn === 0 ? ' (uncounted)' : ''} ${sides[index]!.name}: ${mibs(run.rate)} vs ${mibs(bareRate)} alone = ${ratios[index]!.toFixed(2)}×, main ${run.mainCpuMs} ms, process ${run.processCpuMs} ms${lost > 0 ? `, LOST ${lost}` : ''}`,
        );
        const into = by[index]!;
        into.lost += lost;
        if (turn === 0) continue;
        into.ratio.push(ratios[index]!);
        into.rate.push(run.rate);
        into.bare.push(bareRate);
        if (run.mainCpuMs !== null) into.main.push(run.mainCpuMs);
        if (run.processCpuMs !== null) into.process.push(run.processCpuMs);
      }
      if (turn > 0) by[1]!.paired.push(ratios[1]! / ratios[0]!);
    }
    await Promise.all(sessions.map((session) => session.close()));
    const [a, b] = by as [(typeof by)[0], (typeof by)[0]];
    table(`sustained: \`cat\` of ${catMb} MiB with a viewer, ${turns} turns (+1 uncounted), node-pty alone before each`, [
      ['throughput / node-pty alone just before', a.ratio, b.ratio, fixed(2)],
      ['throughput', a.rate, b.rate, mibs],
      ['node-pty alone (the baselines)', a.bare, b.bare, mibs],
      ["hub's main thread CPU per `cat`", a.main, b.main, millis],
      ["hub's CPU per `cat`, all threads", a.process, b.process, millis],
    ]);
    tables.push(
      `${sides[1].name}'s ratio / ${sides[0].name}'s in the same turn: ${spread(b.paired, fixed(2))}; bytes lost (output.log vs the file, every \`cat\` incl. the uncounted): ${sides[0].name} ${a.lost}, ${sides[1].name} ${b.lost}`,
    );
    if (a.lost + b.lost > 0) process.exitCode = 1;
  } finally {
    await Promise.all(hubs.map((hub) => hub.stop()));
    if (dir !== work) fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** RSS per session holding LONG_SCROLLBACK rows (`width` 0: `seq`; else rows full to that width), after a full GC, in a fresh hub of `side`. */
async function scrollbackRss(side: Side, width: number): Promise<number> {
  return (await scrollbackPerSession(width, 'bench-ab-scrollback', side)).collected;
}

async function scrollback(): Promise<void> {
  const by = { seq: [[], []] as [number[], number[]], full: [[], []] as [number[], number[]] };
  for (let turn = 0; turn < turns; turn++) {
    for (const index of order(turn)) {
      for (const kind of ['seq', 'full'] as const) {
        const perSession = await scrollbackRss(sides[index]!, kind === 'seq' ? 0 : DEFAULT_COLS);
        by[kind][index].push(perSession);
        log(`scrollback turn ${turn} ${sides[index]!.name} ${kind}: ${mebi(perSession)} per session`);
      }
    }
  }
  table(`scrollback: RSS per session at ${LONG_SCROLLBACK} rows (${SESSIONS} sessions, ${DEFAULT_COLS} columns), after a full GC, ${turns} turns`, [
    ['`seq` rows', ...by.seq, mebi],
    ['rows full to the last column', ...by.full, mebi],
  ]);
}

interface FloodRun {
  before: number;
  peak: number;
  collected: number;
  rate: number;
  cpu: number | null;
}

/** A fresh hub of `side`, one session, a `floodMb` flood of 100-column lines: RSS around it. */
async function floodRss(side: Side): Promise<FloodRun> {
  const hub = await startHub(side.env, ['--inspect=127.0.0.1:0'], side.root, side.node);
  try {
    const agent: Client = await httpClient(hub, 'bench-ab-flood');
    try {
      const { session } = await tool(agent, 'execute', { command: 'true' });
      await sleep(1_000);
      const before = rss(hub.pid);
      let peak = before;
      const sampler = setInterval(() => {
        try {
          peak = Math.max(peak, rss(hub.pid));
        } catch {
          /* the hub is gone: the call below fails and says so */
        }
      }, 100);
      const cpuBefore = processCpuMs(hub.pid);
      const start = now();
      let result;
      try {
        result = await tool(
          agent,
          'execute',
          { session, command: `head -c ${floodMb}M /dev/zero | tr '\\0' a | fold -w 100`, timeout_ms: 600_000, max_lines: 4 },
          660_000,
        );
      } finally {
        clearInterval(sampler);
      }
      const elapsed = now() - start;
      const cpuAfter = processCpuMs(hub.pid);
      if (result.status !== 'completed') throw new Error(`flood did not complete: ${String(result.status)}`);
      peak = Math.max(peak, rss(hub.pid));
      await collectGarbage(hub);
      await sleep(1_000);
      return {
        before,
        peak,
        collected: rss(hub.pid),
        rate: (floodMb * MiB) / (elapsed / 1000),
        cpu: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore,
      };
    } finally {
      await agent.close();
    }
  } finally {
    await hub.stop();
  }
}

async function flood(): Promise<void> {
  const by = sides.map(() => ({
    before: [] as number[],
    peak: [] as number[],
    growth: [] as number[],
    collected: [] as number[],
    rate: [] as number[],
    cpu: [] as number[],
  }));
  for (let turn = 0; turn < turns; turn++) {
    for (const index of order(turn)) {
      const run = await floodRss(sides[index]!);
      const into = by[index]!;
      into.before.push(run.before);
      into.peak.push(run.peak);
      into.growth.push(run.peak - run.before);
      into.collected.push(run.collected);
      into.rate.push(run.rate);
      if (run.cpu !== null) into.cpu.push(run.cpu);
      log(
        `flood turn ${turn} ${sides[index]!.name}: before ${mebi(run.before)}, peak ${mebi(run.peak)}, after GC ${mebi(run.collected)}, ${mibs(run.rate)}, CPU ${run.cpu} ms`,
      );
    }
  }
  const [a, b] = by as [(typeof by)[0], (typeof by)[0]];
  table(`flood: ${floodMb} MiB of 100-column lines in one session, a fresh hub per side and turn, ${turns} turns`, [
    ['hub RSS before', a.before, b.before, mebi],
    ['hub RSS, peak during the flood', a.peak, b.peak, mebi],
    ['peak − before', a.growth, b.growth, mebi],
    ['hub RSS after a full GC', a.collected, b.collected, mebi],
    ['flood rate', a.rate, b.rate, mibs],
    ["hub's CPU, all threads", a.cpu, b.cpu, millis],
  ]);
}

async function execute(): Promise<void> {
  const hubs: BenchHub[] = [];
  const clients: Client[] = [];
  try {
    for (const side of sides) hubs.push(await startHub({ SWITCHBOARD_RATE_LIMIT_PER_SECOND: '1000000', ...side.env }, [], side.root, side.node));
    for (const hub of hubs) clients.push(await shimClient(hub, 'bench-ab-execute'));
    const sessions: string[] = [];
    for (const client of clients) sessions.push(String((await tool(client, 'execute', { command: 'echo warm' })).session));
    const roundTrips = async (index: number, count: number): Promise<number[]> => {
      const samples: number[] = [];
      for (let i = 0; i < count; i++) {
        const start = now();
        const result = await tool(clients[index]!, 'execute', { command: 'echo hi', session: sessions[index] });
        samples.push(now() - start);
        if (result.output !== 'hi') throw new Error(`execute returned ${JSON.stringify(result.output)}`);
      }
      return samples;
    };
    // A fresh hub's per-call code runs in V8's interpreter at first (run.ts, WARM_UP_CALLS).
    for (let i = 0; i < 4; i++) for (const index of [0, 1]) await roundTrips(index, 500);
    const all: [number[], number[]] = [[], []];
    const medians: [number[], number[]] = [[], []];
    const p95s: [number[], number[]] = [[], []];
    for (let turn = 0; turn < turns; turn++) {
      for (const index of order(turn)) {
        const samples = await roundTrips(index, calls);
        all[index].push(...samples);
        medians[index].push(median(samples));
        p95s[index].push(percentile(samples, 95));
        log(`execute turn ${turn} ${sides[index]!.name}: median ${millis2(median(samples))}, p95 ${millis2(percentile(samples, 95))}`);
      }
    }
    table(`execute: \`echo hi\` through the stdio shim, ${turns} turns of ${calls} calls per side (after 2 000 each)`, [
      ["each turn's median", ...medians, millis2],
      ["each turn's p95", ...p95s, millis2],
    ]);
    tables.push(
      `all calls: ${sides[0].name} median ${millis2(median(all[0]))} p95 ${millis2(percentile(all[0], 95))}; ${sides[1].name} median ${millis2(median(all[1]))} p95 ${millis2(percentile(all[1], 95))}`,
    );
  } finally {
    await Promise.all(clients.map((client) => client.close()));
    await Promise.all(hubs.map((hub) => hub.stop()));
  }
}

async function main(): Promise<void> {
  const describe = (side: Side): string =>
    `${side.name}: ${side.root}${side.node === process.execPath ? '' : ` on ${side.node}`}${
      Object.keys(side.env).length > 0
        ? ` with ${Object.entries(side.env)
            .map(([k, v]) => `${k}=${v}`)
            .join(' ')}`
        : ''
    }`;
  const header = `A/B ${new Date().toISOString().slice(0, 16)} · ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'} · ${os.platform()} ${os.release()} · Node ${process.version}\n${describe(sides[0])}\n${describe(sides[1])}`;
  log(header);
  const run: Record<string, () => Promise<void>> = { sustained, scrollback, flood, execute };
  for (const name of cases) {
    const measure = run[name];
    if (!measure) throw new Error(`unknown case ${name}; cases: ${Object.keys(run).join(', ')}`);
    await measure();
  }
  console.log(`${header}\n\n${tables.join('\n\n')}`);
  fs.rmSync(work, { recursive: true, force: true });
}

main().catch(async (error: unknown) => {
  process.stderr.write(`ab failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  await stopAllHubs();
  fs.rmSync(work, { recursive: true, force: true });
  process.exit(1);
});
