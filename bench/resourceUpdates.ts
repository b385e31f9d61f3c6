/**
 * What a subscription to a session's screen costs (docs/design.md §3.7): a flood (`seq`, by
 * `execute` through the real shim) in a session whose screen a client subscribed to, against the
 * same flood in a session nobody subscribed to, the two taking turns in one hub: wall time, the
 * hub's main-thread CPU, and the updates the subscriber got (at most two a second).
 */
import { mainThreadCpuMs, shimClient, startHub, tool } from './hubProcess.js';
import { median, ms, now, ratio, type Row } from './stats.js';

export async function resourceUpdatesCost(rows: Row[], reps: number, lines: number): Promise<void> {
  const hub = await startHub();
  try {
    const client = await shimClient(hub, 'bench-resources');
    try {
      const updates: number[] = [];
      client.setNotificationHandler('notifications/resources/updated', () => void updates.push(now()));
      const watched = String((await tool(client, 'open', {})).session);
      const unwatched = String((await tool(client, 'open', {})).session);
      await client.subscribeResource({ uri: `switchboard://sessions/${watched}/screen` });
      const run = async (session: string): Promise<{ ms: number; cpu: number; updates: number[] }> => {
        const before = updates.length;
        const cpu = mainThreadCpuMs(hub.pid) ?? 0;
        const start = now();
        const sc = await tool(client, 'execute', { session, command: `seq 1 ${lines}`, timeout_ms: 120_000 }, 120_000);
        const elapsed = now() - start;
        if (sc.status !== 'completed' || sc.total_lines !== lines) throw new Error(`seq did not complete: ${JSON.stringify(sc).slice(0, 200)}`);
        return { ms: elapsed, cpu: (mainThreadCpuMs(hub.pid) ?? 0) - cpu, updates: updates.slice(before) };
      };
      await run(unwatched); // warm-up: the first flood of a hub loads and optimizes more
      const plain: { ms: number; cpu: number }[] = [];
      const subscribed: { ms: number; cpu: number; updates: number[] }[] = [];
      // Alternated, so a slower moment of the machine falls on both.
      for (let rep = 0; rep < reps; rep++) {
        plain.push(await run(unwatched));
        subscribed.push(await run(watched));
      }
      const wall = median(subscribed.map((r) => r.ms));
      const perRun = median(subscribed.map((r) => r.updates.length));
      // The closest two updates of one run, as they arrived (the hub spaces them 500 ms apart).
      const gaps = subscribed.flatMap((r) => r.updates.slice(1).map((at, i) => at - r.updates[i]!));
      const closest = gaps.length > 0 ? `, the closest two ${Math.round(Math.min(...gaps))} ms apart` : '';
      rows.push({
        case: `resources: execute \`seq 1 ${lines}\` via the shim in a session whose screen is subscribed (${perRun} updates a run${closest}; median of ${reps}, alternated)`,
        value: ms(wall),
        baseline: `${ms(median(plain.map((r) => r.ms)))}: the same in a session nobody subscribed to`,
        ratio: ratio(wall, median(plain.map((r) => r.ms))),
      });
      const cpu = median(subscribed.map((r) => r.cpu));
      rows.push({
        case: "… the hub's main-thread CPU per run",
        value: ms(cpu),
        baseline: ms(median(plain.map((r) => r.cpu))),
        ratio: ratio(cpu, median(plain.map((r) => r.cpu))),
      });
    } finally {
      await client.close();
    }
  } finally {
    await hub.stop();
  }
}
