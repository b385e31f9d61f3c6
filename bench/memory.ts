/**
 * Memory of a real hub (`switchboard serve`, VmRSS from /proc): idle before any client (what
 * an idle hub loads), then with one MCP client connected, then after its first session (opened
 * and closed: what all sessions share). Per session, as deltas over that warm hub: per idle
 * shell session (10 sessions, delta / 10); per agent session with its scrollback full at the
 * default setting (agentScrollback; `seq 1 20000` in each); per session at 10 000 lines of
 * scrollback (a second hub whose agent sessions get 10 000 lines: the same emulator as a
 * person's session with scrollback = 10 000), 1 s after the fill and after a full GC. Then
 * during, right after and some seconds after a flood of FLOOD MiB in one session. The
 * 10 000 lines are measured twice: `seq` (short rows, most of each blank) and rows filled to the
 * last column (nothing to drop, the worst case for scrollbackCompactor.ts). Baselines: a
 * bare `node -e` process, the hub's own RSS before, and for the 10 000 lines the same
 * terminals in a bare `@xterm/headless` process (xtermAlone.ts), all in the same run.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/client';
import WebSocket from 'ws';
import { bareNodeRss, httpClient, rss, sleep, startHub, tool, type BenchHub } from './hubProcess.js';
import { settle } from './settle.js';
import { mib, now, ratio, type Row } from './stats.js';

export const SESSIONS = 10;
/** Lines each session prints to fill its scrollback (more than any scrollback measured here). */
const FILL_LINES = 20_000;
/** Scrollback of the "person's session at 10 000 lines" row (the memory budget: ≤ 20 MB per session there). */
export const LONG_SCROLLBACK = 10_000;
/** The hub's default terminal size (settings.ts: defaultCols, defaultRows). */
export const DEFAULT_COLS = 120;
const DEFAULT_ROWS = 32;

/** Opens SESSIONS shells, each runs `true` (as an agent's first call does); their ids. */
export async function openSessions(agent: Client, prefix: string): Promise<string[]> {
  const sessions: string[] = [];
  for (let i = 0; i < SESSIONS; i++) sessions.push(String((await tool(agent, 'open', { name: `${prefix}-${i}` })).session));
  for (const session of sessions) await tool(agent, 'execute', { session, command: 'true' });
  return sessions;
}

/**
 * A hub's first session loads what every later one shares: xterm's module. One session is opened and closed first, so the per-session rows count
 * what each session adds, as the bare `@xterm/headless` baseline (module loaded before it
 * measures) does; this one-time cost has a row of its own.
 */
export async function warmUp(agent: Client): Promise<void> {
  const { session } = await tool(agent, 'open', { name: 'warm-up' });
  await tool(agent, 'execute', { session, command: 'true' });
  await tool(agent, 'kill', { session, close: true });
}

/**
 * Every session prints FILL_LINES lines (its scrollback full), then the hub's RSS. `width`:
 * 0 for `seq`'s own lines, else each line is the number zero-padded to that many columns.
 */
export async function fillScrollbacks(hub: BenchHub, agent: Client, sessions: string[], width = 0): Promise<number> {
  const command = width > 0 ? `seq -f '%0${width}g' 1 ${FILL_LINES}` : `seq 1 ${FILL_LINES}`;
  for (const session of sessions) {
    const result = await tool(agent, 'execute', { session, command, timeout_ms: 60_000 });
    if (result.total_lines !== FILL_LINES) throw new Error(`${command} counted ${String(result.total_lines)} lines`);
  }
  await sleep(1_000);
  return rss(hub.pid);
}

interface XtermAlone {
  afterFill: number;
  collected: number;
}

/** The same terminals in a bare `@xterm/headless` process (xtermAlone.ts): per terminal, bytes. */
async function xtermAlone(cols: number, rows: number, scrollback: number, width: number): Promise<XtermAlone> {
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'xtermAlone.js');
  const args = [SESSIONS, cols, rows, scrollback, FILL_LINES, width].map(String);
  const child = spawn(process.execPath, ['--expose-gc', script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const killer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(killer);
  if (code !== 0) throw new Error(`xtermAlone exited with ${String(code)} (killed after 120 s if null): ${out}`);
  return JSON.parse(out) as XtermAlone;
}

/** `settleSeconds`: how long to wait for RSS to come back after the flood (before the full GC). */
export async function memory(rows: Row[], floodMiB: number, settleSeconds: number): Promise<void> {
  const bare = bareNodeRss();
  // The inspector (~0.5 MiB) lets the bench ask for a full GC after the flood.
  const hub = await startHub({}, ['--inspect=127.0.0.1:0']);
  try {
    // Idle: listening, no client has reached it yet.
    await sleep(1_000);
    const idle = rss(hub.pid);
    const agent = await httpClient(hub, 'bench-memory');
    try {
      await sleep(1_000);
      const connected = rss(hub.pid);
      await warmUp(agent);
      await sleep(1_000);
      const warm = rss(hub.pid);
      const sessions = await openSessions(agent, 'mem');
      await sleep(1_000);
      const withIdle = rss(hub.pid);
      const withFull = await fillScrollbacks(hub, agent, sessions);

      // The flood: floodMiB of 100-column lines through one session; RSS sampled while it runs.
      const flood = sessions[0]!;
      let peak = withFull;
      const sampler = setInterval(() => {
        try {
          peak = Math.max(peak, rss(hub.pid));
        } catch {
          /* the hub is gone: the call below fails and says so */
        }
      }, 100);
      const start = now();
      let result;
      try {
        result = await tool(
          agent,
          'execute',
          { session: flood, command: `head -c ${floodMiB}M /dev/zero | tr '\\0' a | fold -w 100`, timeout_ms: 600_000, max_lines: 4 },
          660_000,
        );
      } finally {
        clearInterval(sampler);
      }
      const floodMs = now() - start;
      if (result.status !== 'completed') throw new Error(`flood did not complete: ${String(result.status)}`);
      const after = rss(hub.pid);
      peak = Math.max(peak, after);
      // Settled: back within 10 % of the pre-flood figure and steady (settle.ts).
      const settled = await settle(() => rss(hub.pid), withFull * 1.1, settleSeconds);
      // What the hub still holds, whenever V8 gets to collect what the flood left.
      await collectGarbage(hub);
      const collected = rss(hub.pid);
      const perIdle = (withIdle - warm) / SESSIONS;
      const perFull = (withFull - warm) / SESSIONS;
      rows.push(
        { case: 'hub RSS, idle (`switchboard serve`, no client yet)', value: mib(idle), baseline: `${mib(bare)} (bare \`node -e\`)`, ratio: ratio(idle, bare) },
        {
          case: 'hub RSS, one MCP client connected (HTTP), no session',
          value: mib(connected),
          baseline: `${mib(idle)} (idle hub)`,
          ratio: ratio(connected, idle),
        },
        {
          case: "hub RSS after its first session, opened and closed (one-time: xterm's module)",
          value: mib(warm),
          baseline: `${mib(connected)} (hub, client connected)`,
          ratio: ratio(warm, connected),
        },
        {
          case: `RSS per idle shell session (${SESSIONS} open, delta / ${SESSIONS} over the warm hub)`,
          value: mib(perIdle),
          baseline: `${mib(warm)} (hub after its first session)`,
          ratio: ratio(perIdle, warm),
        },
        {
          case: `RSS per agent session with full default scrollback (agentScrollback; \`seq 1 ${FILL_LINES}\` in each, delta / ${SESSIONS})`,
          value: mib(perFull),
          baseline: `${mib(warm)} (hub after its first session)`,
          ratio: ratio(perFull, warm),
        },
        {
          case: `hub RSS, peak during a ${floodMiB} MiB flood in one session (${(floodMs / 1000).toFixed(1)} s)`,
          value: mib(peak),
          baseline: `${mib(withFull)} (same hub before the flood)`,
          ratio: ratio(peak, withFull),
        },
        { case: 'hub RSS right after the flood', value: mib(after), baseline: `${mib(withFull)} (before the flood)`, ratio: ratio(after, withFull) },
        {
          case: `hub RSS after it settles (${settled.seconds} s later; back within 10 % and steady, or ${settleSeconds} s)`,
          value: mib(settled.value),
          baseline: `${mib(withFull)} (before the flood)`,
          ratio: ratio(settled.value, withFull),
        },
        {
          case: '… after a full GC (what the hub still holds)',
          value: mib(collected),
          baseline: `${mib(withFull)} (before the flood)`,
          ratio: ratio(collected, withFull),
        },
      );
    } finally {
      await agent.close();
    }
  } finally {
    await hub.stop();
  }
  // Side by side: separate hubs and baselines, each measuring only its own RSS (~15 s each).
  const [short, full] = await Promise.all([longScrollback(0), longScrollback(DEFAULT_COLS)]);
  rows.push(...short, ...full);
}

/**
 * A full garbage collection in a hub started with `--inspect=127.0.0.1:0` (the inspector's
 * HeapProfiler.collectGarbage), so its RSS shows what it holds rather than when V8's memory
 * reducer last ran (15–40 s after allocations stop, later on a busy machine).
 */
export async function collectGarbage(hub: BenchHub): Promise<void> {
  const url = /Debugger listening on (ws:\/\/\S+)/.exec(hub.startupLog)?.[1];
  if (!url) throw new Error(`the hub did not start its inspector: ${hub.startupLog.slice(0, 300)}`);
  const ws = new WebSocket(url);
  try {
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no answer to HeapProfiler.collectGarbage within 30 s')), 30_000);
      ws.on('message', (raw: Buffer) => {
        if ((JSON.parse(raw.toString()) as { id?: number }).id !== 1) return;
        clearTimeout(timer);
        resolve();
      });
      ws.send(JSON.stringify({ id: 1, method: 'HeapProfiler.collectGarbage' }));
    });
  } finally {
    ws.close();
  }
}

/** Where a scrollback hub runs: environment over the defaults, the checkout and the Node binary (bench/ab.ts compares two). */
export interface HubSide {
  env?: Record<string, string>;
  root?: string;
  node?: string;
}

/**
 * RSS per session holding LONG_SCROLLBACK rows, in a hub of its own started with the inspector:
 * 1 s after the fill, and after a full GC. `width`: 0 for `seq`'s lines, else lines of that many
 * columns (fillScrollbacks).
 */
export async function scrollbackPerSession(width: number, client: string, side: HubSide = {}): Promise<{ afterFill: number; collected: number }> {
  const hub = await startHub({ SWITCHBOARD_AGENT_SCROLLBACK: String(LONG_SCROLLBACK), ...side.env }, ['--inspect=127.0.0.1:0'], side.root, side.node);
  try {
    const agent = await httpClient(hub, client);
    try {
      await warmUp(agent);
      await collectGarbage(hub);
      await sleep(1_000);
      const warm = rss(hub.pid);
      const sessions = await openSessions(agent, 'long');
      const withFull = await fillScrollbacks(hub, agent, sessions, width);
      await collectGarbage(hub);
      await sleep(1_000);
      return { afterFill: (withFull - warm) / SESSIONS, collected: (rss(hub.pid) - warm) / SESSIONS };
    } finally {
      await agent.close();
    }
  } finally {
    await hub.stop();
  }
}

/**
 * Per session at LONG_SCROLLBACK lines (scrollbackPerSession) beside the same terminals in a
 * bare `@xterm/headless` process measured the same way.
 */
async function longScrollback(width: number): Promise<Row[]> {
  const bare = await xtermAlone(DEFAULT_COLS, DEFAULT_ROWS, LONG_SCROLLBACK, width);
  const { afterFill: perFull, collected: perCollected } = await scrollbackPerSession(width, 'bench-memory-long');
  const lines = width > 0 ? `\`seq -f '%0${width}g'\`: every row full to the last column` : '`seq`';
  const label = `(${DEFAULT_COLS}×${DEFAULT_ROWS}, a person's session with scrollback = ${LONG_SCROLLBACK}; ${lines}; delta / ${SESSIONS})`;
  return [
    {
      case: `RSS per session at ${LONG_SCROLLBACK} lines of scrollback, full, 1 s after ${label}`,
      value: mib(perFull),
      baseline: `${mib(bare.afterFill)} (bare \`@xterm/headless\`, same terminals, 1 s after)`,
      ratio: ratio(perFull, bare.afterFill),
    },
    {
      case: '… after a full GC (what the session holds; V8 gets there by itself 15–40 s later)',
      value: mib(perCollected),
      baseline: `${mib(bare.collected)} (bare \`@xterm/headless\`, after a full GC)`,
      ratio: ratio(perCollected, bare.collected),
    },
  ];
}
