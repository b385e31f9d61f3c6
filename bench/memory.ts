/**
 * Memory of a real hub (`switchboard serve`, VmRSS from /proc): idle; per idle shell session
 * (10 sessions, delta / 10); per session with its scrollback full at the default setting
 * (`seq 1 20000` in each); during, right after and some seconds after a flood of FLOOD MiB in
 * one session. Baselines: a bare `node -e` process in the same run, and the hub's own idle RSS.
 */
import { bareNodeRss, httpClient, rss, sleep, startHub, tool } from './hubProcess.js';
import { mib, now, ratio, type Row } from './stats.js';

const SESSIONS = 10;

export async function memory(rows: Row[], floodMiB: number): Promise<void> {
  const bare = bareNodeRss();
  const hub = await startHub();
  try {
    const agent = await httpClient(hub, 'bench-memory');
    try {
      await sleep(1_000);
      const idle = rss(hub.pid);
      const sessions: string[] = [];
      for (let i = 0; i < SESSIONS; i++) sessions.push(String((await tool(agent, 'open', { name: `mem-${i}` })).session));
      // Each session has run one command (as an agent's first call does) before it is weighed.
      for (const session of sessions) await tool(agent, 'execute', { session, command: 'true' });
      await sleep(1_000);
      const withIdle = rss(hub.pid);
      for (const session of sessions) {
        const result = await tool(agent, 'execute', { session, command: 'seq 1 20000', timeout_ms: 60_000 });
        if (result.total_lines !== 20_000) throw new Error(`seq 1 20000 counted ${String(result.total_lines)} lines`);
      }
      await sleep(1_000);
      const withFull = rss(hub.pid);

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
      // Settled: RSS once it has stopped falling (sampled each second, at most 15 s).
      let settled = after;
      for (let i = 0; i < 15; i++) {
        await sleep(1_000);
        const next = rss(hub.pid);
        const stable = Math.abs(next - settled) < 1024 * 1024;
        settled = next;
        if (stable && i >= 2) break;
      }
      const perIdle = (withIdle - idle) / SESSIONS;
      const perFull = (withFull - idle) / SESSIONS;
      rows.push(
        { case: 'hub RSS, idle (`switchboard serve`, no session)', value: mib(idle), baseline: `${mib(bare)} (bare \`node -e\`)`, ratio: ratio(idle, bare) },
        { case: `RSS per idle shell session (${SESSIONS} open, delta / ${SESSIONS})`, value: mib(perIdle), baseline: `${mib(idle)} (idle hub)`, ratio: ratio(perIdle, idle) },
        {
          case: `RSS per session with full default scrollback (\`seq 1 20000\` in each, delta / ${SESSIONS})`,
          value: mib(perFull),
          baseline: `${mib(idle)} (idle hub)`,
          ratio: ratio(perFull, idle),
        },
        {
          case: `hub RSS, peak during a ${floodMiB} MiB flood in one session (${(floodMs / 1000).toFixed(1)} s)`,
          value: mib(peak),
          baseline: `${mib(withFull)} (same hub before the flood)`,
          ratio: ratio(peak, withFull),
        },
        { case: 'hub RSS right after the flood', value: mib(after), baseline: `${mib(withFull)} (before the flood)`, ratio: ratio(after, withFull) },
        { case: 'hub RSS after it settles (stable for 2 s, ≤ 15 s)', value: mib(settled), baseline: `${mib(withFull)} (before the flood)`, ratio: ratio(settled, withFull) },
      );
    } finally {
      await agent.close();
    }
  } finally {
    await hub.stop();
  }
}
