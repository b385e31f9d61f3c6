/**
 * Big output through the real shim: `seq 1 200000` by `execute` (complete counts, head + tail),
 * then the whole output paged with `read` view `command`. Baseline: node-pty alone running the
 * same `seq` to its exit, in the same run.
 */
import { bareRun } from './baseline.js';
import { shimClient, startHub, tool } from './hubProcess.js';
import { median, ms, now, ratio, type Row } from './stats.js';

const LINES = 200_000;
const PAGE = 50_000;

export async function bigOutput(rows: Row[], reps: number): Promise<void> {
  const hub = await startHub();
  try {
    const shim = await shimClient(hub, 'bench-big');
    try {
      const warm = await tool(shim, 'execute', { command: 'echo warm' });
      const session = String(warm.session);
      const executes: number[] = [];
      const pagings: number[] = [];
      let pages = 0;
      for (let rep = 0; rep < reps; rep++) {
        const start = now();
        const result = await tool(shim, 'execute', { session, command: `seq 1 ${LINES}`, timeout_ms: 60_000 });
        executes.push(now() - start);
        const output = String(result.output);
        if (result.status !== 'completed' || result.exit_code !== 0) throw new Error(`seq did not complete: ${result.status}`);
        if (result.total_lines !== LINES) throw new Error(`execute counted ${String(result.total_lines)} lines, not ${LINES}`);
        if (!output.startsWith('1\n2\n3\n') || !output.endsWith(`\n${LINES - 1}\n${LINES}`)) throw new Error('execute output lacks the head or the tail');
        // Page the whole output and check every line is there, in order.
        const seq = result.command_seq;
        const pageStart = now();
        let offset = 0;
        let expected = 1;
        pages = 0;
        while (offset < LINES) {
          const page = await tool(shim, 'read', { session, view: 'command', seq, offset, limit: PAGE });
          const lines = String(page.content).split('\n');
          if (page.total_lines !== LINES) throw new Error(`read counted ${String(page.total_lines)} lines`);
          for (const line of lines) {
            if (line !== String(expected)) throw new Error(`read page at offset ${offset}: line ${JSON.stringify(line)} where ${expected} was due`);
            expected++;
          }
          offset += lines.length;
          pages++;
          if (pages > LINES / PAGE + 2) throw new Error('read did not advance');
        }
        pagings.push(now() - pageStart);
      }
      const bare: number[] = [];
      for (let rep = 0; rep < reps; rep++) bare.push((await bareRun('/usr/bin/seq', ['1', String(LINES)])).ms);
      const base = median(bare);
      rows.push(
        {
          case: `execute \`seq 1 ${LINES}\` via shim, complete counts + head/tail (median of ${reps})`,
          value: ms(median(executes)),
          baseline: `${ms(base)} (node-pty alone runs \`seq\` to exit)`,
          ratio: ratio(median(executes), base),
        },
        {
          case: `then \`read\` view command, all ${LINES} lines in ${pages} pages of ${PAGE}, checked`,
          value: ms(median(pagings)),
          baseline: `${ms(base)} (same)`,
          ratio: ratio(median(pagings), base),
        },
      );
    } finally {
      await shim.close();
    }
  } finally {
    await hub.stop();
  }
}
