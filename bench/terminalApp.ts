/**
 * What the terminal app costs (docs/design.md §3.7), each beside a baseline of the same run:
 *
 *   - its document, `dist/apps/terminal.html`, raw and gzipped, against xterm.js's own minified
 *     module (what any view of a terminal carries);
 *   - a `screen_updates` call with nothing new, against `list` (the cheapest tool call);
 *   - a first call (the screen with 100 rows of scrollback), against `read` view `screen` in `ansi`;
 *   - a flood (`seq`, by `execute`) while a view asks every 500 ms, and while one asks as fast as it
 *     can, against the same flood with no view: what a view costs the hub when it costs the most.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { ROOT, startHub, tool, type BenchHub } from './hubProcess.js';
import { median, ms, now, ratio, type Row } from './stats.js';

const APPS = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };

async function appsClient(hub: BenchHub): Promise<Client> {
  const client = new Client({ name: 'bench-apps-host', version: '1.0.0' }, { capabilities: APPS });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${hub.port}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${hub.token}` } } }),
  );
  return client;
}

function kib(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

function documentSize(rows: Row[]): void {
  const html = fs.readFileSync(path.join(ROOT, 'dist', 'apps', 'terminal.html'));
  const xterm = fs.readFileSync(path.join(ROOT, 'node_modules', '@xterm', 'xterm', 'lib', 'xterm.mjs'));
  const [htmlGz, xtermGz] = [gzipSync(html, { level: 9 }).length, gzipSync(xterm, { level: 9 }).length];
  rows.push({
    case: 'terminal app: dist/apps/terminal.html, raw / gzipped',
    value: `${kib(html.length)} / ${kib(htmlGz)}`,
    baseline: `${kib(xterm.length)} / ${kib(xtermGz)}: xterm.js's minified module alone`,
    ratio: `${ratio(html.length, xterm.length)} / ${ratio(htmlGz, xtermGz)}`,
  });
}

async function timed(turns: number, call: () => Promise<unknown>): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < turns; i++) {
    const start = now();
    await call();
    samples.push(now() - start);
  }
  return median(samples);
}

/** A flood of `lines` lines, with a view asking every `gapMs` after its previous answer (none: no view). */
async function flood(client: Client, session: string, lines: number, gapMs: number | null): Promise<{ ms: number; calls: number; screenBytes: number }> {
  let done = false;
  let calls = 0;
  let screenBytes = 0;
  let since: number | undefined;
  let resizes = 0;
  const view = (async () => {
    if (gapMs === null) return;
    while (!done) {
      const answer = await tool(client, 'screen_updates', { session, ...(since !== undefined ? { since, resizes } : {}) });
      calls++;
      if (typeof answer.screen === 'string') screenBytes += answer.screen.length;
      since = answer.seq as number;
      resizes = answer.resizes as number;
      if (gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
    }
  })();
  const start = now();
  const ran = await tool(client, 'execute', { session, command: `seq 1 ${lines}`, timeout_ms: 120_000 }, 120_000);
  const elapsed = now() - start;
  done = true;
  await view;
  if (ran.status !== 'completed') throw new Error(`seq did not complete: ${JSON.stringify(ran).slice(0, 200)}`);
  return { ms: elapsed, calls, screenBytes };
}

export async function terminalAppCost(rows: Row[], turns: number, reps: number, lines: number): Promise<void> {
  documentSize(rows);
  const hub = await startHub();
  try {
    const client = await appsClient(hub);
    try {
      const session = String((await tool(client, 'execute', { command: 'seq 1 5000' })).session);
      const first = await tool(client, 'screen_updates', { session });
      const cursor = { session, since: first.seq, resizes: first.resizes };
      // Warm both paths first.
      for (let i = 0; i < 50; i++) await Promise.all([tool(client, 'screen_updates', cursor), tool(client, 'list', {})]);
      const idle = await timed(turns, () => tool(client, 'screen_updates', cursor));
      const list = await timed(turns, () => tool(client, 'list', {}));
      rows.push({
        case: `terminal app: \`screen_updates\` with nothing new, via HTTP (median of ${turns})`,
        value: ms(idle),
        baseline: `${ms(list)}: \`list\``,
        ratio: ratio(idle, list),
      });
      const screen = await timed(turns, () => tool(client, 'screen_updates', { session }));
      const read = await timed(turns, () => tool(client, 'read', { session, view: 'screen', format: 'ansi' }));
      rows.push({
        case: `terminal app: a first call, the 120×32 screen and 100 rows of scrollback (median of ${turns})`,
        value: ms(screen),
        baseline: `${ms(read)}: \`read\` view \`screen\`, \`ansi\``,
        ratio: ratio(screen, read),
      });

      const none: number[] = [];
      const paced: number[] = [];
      const eager: number[] = [];
      let pacedCalls = 0;
      let eagerCalls = 0;
      let eagerBytes = 0;
      // Alternated, so a slower moment of the machine falls on all three.
      for (let rep = 0; rep < reps; rep++) {
        none.push((await flood(client, session, lines, null)).ms);
        const p = await flood(client, session, lines, 500);
        paced.push(p.ms);
        pacedCalls += p.calls;
        const e = await flood(client, session, lines, 0);
        eager.push(e.ms);
        eagerCalls += e.calls;
        eagerBytes += e.screenBytes;
      }
      rows.push({
        case: `terminal app: execute \`seq 1 ${lines}\` via HTTP while a view asks every 500 ms (${Math.round(pacedCalls / reps)} calls a run; median of ${reps})`,
        value: ms(median(paced)),
        baseline: `${ms(median(none))}: the same with no view`,
        ratio: ratio(median(paced), median(none)),
      });
      rows.push({
        case: `… while a view asks back to back (${Math.round(eagerCalls / reps)} calls a run, ${kib(eagerBytes / Math.max(1, eagerCalls))} a screen)`,
        value: ms(median(eager)),
        baseline: 'same',
        ratio: ratio(median(eager), median(none)),
      });
    } finally {
      await client.close();
    }
  } finally {
    await hub.stop();
  }
}
