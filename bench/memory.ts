/**
 * Memory of a real hub (`switchboard serve`, VmRSS from /proc): idle before any client (what
 * an idle hub loads), then with one MCP client connected; per idle shell session (10 sessions,
 * delta / 10); per agent session with its scrollback full at the default setting
 * (agentScrollback; `seq 1 20000` in each); per session at 10 000 lines of scrollback (a second
 * hub whose agent sessions get 10 000 lines: the same emulator as a person's session with
 * scrollback = 10 000); during, right after and some seconds after a flood of FLOOD MiB in one
 * session. Baselines: a bare `node -e` process in the same run, and the hub's own idle RSS.
 */
import type { Client } from '@modelcontextprotocol/client';
import { bareNodeRss, httpClient, rss, sleep, startHub, tool, type BenchHub } from './hubProcess.js';
import { mib, now, ratio, type Row } from './stats.js';

const SESSIONS = 10;
/** Lines each session prints to fill its scrollback (more than any scrollback measured here). */
const FILL_LINES = 20_000;
/** Scrollback of the "person's session at 10 000 lines" row (issue 6: ≤ 20 MB per session there). */
const LONG_SCROLLBACK = 10_000;
/** Longest wait for RSS to come back after the flood. */
const SETTLE_S = 40;

/** Opens SESSIONS shells, each runs `true` (as an agent's first call does); their ids. */
async function openSessions(agent: Client, prefix: string): Promise<string[]> {
  const sessions: string[] = [];
  for (let i = 0; i < SESSIONS; i++) sessions.push(String((await tool(agent, 'open', { name: `${prefix}-${i}` })).session));
  for (const session of sessions) await tool(agent, 'execute', { session, command: 'true' });
  return sessions;
}

/** Every session prints FILL_LINES lines (its scrollback full), then the hub's RSS. */
async function fillScrollbacks(hub: BenchHub, agent: Client, sessions: string[]): Promise<number> {
  for (const session of sessions) {
    const result = await tool(agent, 'execute', { session, command: `seq 1 ${FILL_LINES}`, timeout_ms: 60_000 });
    if (result.total_lines !== FILL_LINES) throw new Error(`seq 1 ${FILL_LINES} counted ${String(result.total_lines)} lines`);
  }
  await sleep(1_000);
  return rss(hub.pid);
}

export async function memory(rows: Row[], floodMiB: number): Promise<void> {
  const bare = bareNodeRss();
  const hub = await startHub();
  try {
    // Idle: listening, no client has reached it yet.
    await sleep(1_000);
    const idle = rss(hub.pid);
    const agent = await httpClient(hub, 'bench-memory');
    try {
      await sleep(1_000);
      const connected = rss(hub.pid);
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
        result = await tool(agent, 'execute', { session: flood, command: `head -c ${floodMiB}M /dev/zero | tr '\\0' a | fold -w 100`, timeout_ms: 600_000, max_lines: 4 }, 660_000);
      } finally {
        clearInterval(sampler);
      }
      const floodMs = now() - start;
      if (result.status !== 'completed') throw new Error(`flood did not complete: ${String(result.status)}`);
      const after = rss(hub.pid);
      peak = Math.max(peak, after);
      // Settled: V8 keeps the heap it grew until its memory reducer runs, ~15 s after the
      // allocations stop (measured: flat for 14 s, then down at once). Sampled each second until
      // RSS is back within 10 % of the pre-flood figure and steady for 2 s, at most SETTLE_S.
      let settled = after;
      let settledAfter = 0;
      for (let i = 1; i <= SETTLE_S; i++) {
        await sleep(1_000);
        const next = rss(hub.pid);
        const steady = Math.abs(next - settled) < 1024 * 1024;
        settled = next;
        settledAfter = i;
        if (steady && next <= withFull * 1.1) break;
      }
      const perIdle = (withIdle - connected) / SESSIONS;
      const perFull = (withFull - connected) / SESSIONS;
      rows.push(
        { case: 'hub RSS, idle (`switchboard serve`, no client yet)', value: mib(idle), baseline: `${mib(bare)} (bare \`node -e\`)`, ratio: ratio(idle, bare) },
        { case: 'hub RSS, one MCP client connected (HTTP), no session', value: mib(connected), baseline: `${mib(idle)} (idle hub)`, ratio: ratio(connected, idle) },
        { case: `RSS per idle shell session (${SESSIONS} open, delta / ${SESSIONS})`, value: mib(perIdle), baseline: `${mib(connected)} (hub, client connected)`, ratio: ratio(perIdle, connected) },
        {
          case: `RSS per agent session with full default scrollback (agentScrollback; \`seq 1 ${FILL_LINES}\` in each, delta / ${SESSIONS})`,
          value: mib(perFull),
          baseline: `${mib(connected)} (hub, client connected)`,
          ratio: ratio(perFull, connected),
        },
        {
          case: `hub RSS, peak during a ${floodMiB} MiB flood in one session (${(floodMs / 1000).toFixed(1)} s)`,
          value: mib(peak),
          baseline: `${mib(withFull)} (same hub before the flood)`,
          ratio: ratio(peak, withFull),
        },
        { case: 'hub RSS right after the flood', value: mib(after), baseline: `${mib(withFull)} (before the flood)`, ratio: ratio(after, withFull) },
        {
          case: `hub RSS after it settles (${settledAfter} s later; back within 10 % and steady, or ${SETTLE_S} s)`,
          value: mib(settled),
          baseline: `${mib(withFull)} (before the flood)`,
          ratio: ratio(settled, withFull),
        },
      );
    } finally {
      await agent.close();
    }
  } finally {
    await hub.stop();
  }
  rows.push(await longScrollback());
}

/** Per session at LONG_SCROLLBACK lines, in a hub of its own. */
async function longScrollback(): Promise<Row> {
  const hub = await startHub({ SWITCHBOARD_AGENT_SCROLLBACK: String(LONG_SCROLLBACK) });
  try {
    const agent = await httpClient(hub, 'bench-memory-long');
    try {
      await sleep(1_000);
      const connected = rss(hub.pid);
      const sessions = await openSessions(agent, 'long');
      const withFull = await fillScrollbacks(hub, agent, sessions);
      const perFull = (withFull - connected) / SESSIONS;
      return {
        case: `RSS per session at ${LONG_SCROLLBACK} lines of scrollback, full (a person's session with scrollback = ${LONG_SCROLLBACK}; delta / ${SESSIONS})`,
        value: mib(perFull),
        baseline: `${mib(connected)} (its hub, client connected)`,
        ratio: ratio(perFull, connected),
      };
    } finally {
      await agent.close();
    }
  } finally {
    await hub.stop();
  }
}
