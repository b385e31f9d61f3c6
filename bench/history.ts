/**
 * The history index at scale (docs/design.md §2.7): a state dir holding 100 000
 * finished commands across 1 000 sessions (commands.jsonl + meta.json, as hubs write them), a hub
 * started on it that builds history.db from them, then `history` queries through the stdio shim
 * (text, folder, failed-only) against a `list` round trip on the same connection; and what a
 * finished command costs the hub's event loop: queueing it for the worker, against writing it to
 * SQLite right there.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { SessionStore } from '../src/core/index.js';
import type { CommandRecord, FinishedCommand } from '../src/core/index.js';
import { HistoryDb, type HistoryRow } from '../src/hub/history/historyDb.js';
import { HistoryIndex } from '../src/hub/history/historyIndex.js';
import { shimClient, startHub, tool } from './hubProcess.js';
import { median, ms, now, percentile, ratio, type Row } from './stats.js';

const COMMANDS = [
  'npm test',
  'npm run build',
  'git status',
  'git commit -m "wip"',
  'ls -la',
  'cargo build --release',
  'pytest -x tests/',
  'make -j4',
  'docker compose up -d',
  'grep -rn TODO src/',
];
const PROJECTS = 50;

function record(seq: number, startedAt: number, i: number): CommandRecord {
  return {
    seq,
    command: `${COMMANDS[i % COMMANDS.length]} # ${i}`,
    cwd: `/home/dev/project-${i % PROJECTS}${i % 3 === 0 ? '/src' : ''}`,
    started_at: startedAt,
    ended_at: startedAt + 1_200,
    exit_code: i % 10 === 3 ? 1 : 0,
    output_start_byte: seq * 1_000,
    output_end_byte: seq * 1_000 + 800,
    total_lines: 40,
    output_head: 'line one of the output\nline two\nline three\nline four\nline five',
  };
}

/** `sessions` × `perSession` commands on disk, as hubs leave them. */
function fillStateDir(home: string, sessions: number, perSession: number): void {
  const start = Date.now() - sessions * perSession * 2_000;
  let i = 0;
  for (let s = 0; s < sessions; s++) {
    const id = `bench${String(s).padStart(5, '0')}`;
    const dir = path.join(home, 'sessions', id);
    fs.mkdirSync(dir, { recursive: true });
    const lines: string[] = [];
    for (let seq = 1; seq <= perSession; seq++, i++) lines.push(JSON.stringify(record(seq, start + i * 2_000, i)));
    fs.writeFileSync(path.join(dir, 'commands.jsonl'), `${lines.join('\n')}\n`);
    const meta = {
      version: 1,
      id,
      name: null,
      creator: s % 4 === 0 ? { kind: 'user' } : { kind: 'agent', client: 'bench-agent 1.0.0' },
      program: '/bin/bash',
      cwd: '/home/dev',
      pid: 1,
      title: '',
      created_at: new Date(start).toISOString(),
      closed_at: new Date().toISOString(),
      exit_code: 0,
      last_exit_code: 0,
      rows: 24,
      cols: 80,
    };
    fs.writeFileSync(path.join(dir, 'meta.json'), JSON.stringify(meta));
  }
}

async function timeCalls(client: Client, name: string, args: Record<string, unknown>, count: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = now();
    await tool(client, name, args);
    samples.push(now() - start);
  }
  return samples;
}

export async function historyAtScale(rows: Row[], sessions: number, perSession: number, queries: number): Promise<void> {
  const total = sessions * perSession;
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-bench-history-'));
  fillStateDir(home, sessions, perSession);
  const started = now();
  const hub = await startHub({ SWITCHBOARD_HOME: home });
  try {
    const client = await shimClient(hub, 'bench-history');
    // The hub builds the index from the transcripts in the background; done once all are in and no note says it is catching up.
    const deadline = Date.now() + 300_000;
    for (;;) {
      const page = await tool(client, 'history', { limit: 1 });
      if (page.total === total && page.note === undefined) break;
      if (Date.now() > deadline) throw new Error(`history.db did not reach ${total} rows within 300 s: ${JSON.stringify(page).slice(0, 300)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const rebuilt = now() - started;
    const size =
      fs.statSync(path.join(home, 'history.db')).size +
      (fs.existsSync(path.join(home, 'history.db-wal')) ? fs.statSync(path.join(home, 'history.db-wal')).size : 0);

    const cases: [string, Record<string, unknown>][] = [
      ['text (`npm test`, 10 % match)', { query: 'npm test' }],
      ['cwd (one project and below, 2 %)', { cwd: '/home/dev/project-7' }],
      ['failed only (10 %)', { status: 'failed' }],
      ['text + cwd + failed + since 7d', { query: 'pytest', cwd: '/home/dev/project-3', status: 'failed', since: '7d' }],
    ];
    await timeCalls(client, 'list', {}, 20);
    const baseline = median(await timeCalls(client, 'list', {}, queries));
    for (const [label, args] of cases) {
      await timeCalls(client, 'history', args, 20);
      const samples = await timeCalls(client, 'history', args, queries);
      rows.push({
        case: `\`history\` ${label} over ${total.toLocaleString('en')} commands via the shim, median / p95 (n=${queries})`,
        value: `${ms(median(samples))} / ${ms(percentile(samples, 95))}`,
        baseline: `${ms(baseline)}: \`list\` (no sessions open), same connection`,
        ratio: ratio(median(samples), baseline),
      });
    }
    rows.push({
      case: `history.db built by a hub started on ${sessions} sessions' commands.jsonl (start to all ${total.toLocaleString('en')} searchable)`,
      value: `${(rebuilt / 1_000).toFixed(1)} s, ${(size / 2 ** 20).toFixed(1)} MiB`,
      baseline: '—',
      ratio: '—',
    });
    await client.close();
  } finally {
    await hub.stop();
  }
  await writeCost(rows, 20_000);
}

/**
 * The event loop's share of one finished command: `HistoryIndex.add` and the flush that posts it
 * to the worker (one command per turn, the worst case for batching), against `HistoryDb.add` of
 * one row in one transaction on the main thread (what the loop would pay without the worker).
 */
async function writeCost(rows: Row[], count: number): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-bench-historywrite-'));
  try {
    const index = new HistoryIndex({
      stateDir: dir,
      store: new SessionStore(path.join(dir, 'sessions')),
      logger: { warn: () => undefined, info: () => undefined },
    });
    const flush = (index as unknown as { flush(): void }).flush.bind(index);
    const samples: number[] = [];
    const start = now();
    for (let i = 0; i < count; i++) {
      const finished: FinishedCommand = {
        session: `w${i % 20}`,
        name: null,
        creator: { kind: 'agent', client: 'bench 1.0' },
        record: record(Math.floor(i / 20) + 1, Date.now(), i),
      };
      const t = now();
      index.add(finished);
      flush();
      samples.push(now() - t);
      if (i % 100 === 99) await new Promise((resolve) => setImmediate(resolve)); // let replies in, as a live hub would
    }
    const page = await index.search({ status: 'any', limit: 1 });
    const committed = now() - start;
    if (page.total !== count) throw new Error(`the worker indexed ${page.total} of ${count} commands`);
    await index.dispose();

    const db = new HistoryDb(path.join(dir, 'direct.db'), { busyTimeoutMs: 5_000 });
    const direct: number[] = [];
    for (let i = 0; i < Math.min(count, 5_000); i++) {
      const r = record(i + 1, Date.now(), i);
      const row: HistoryRow = {
        session: 'd',
        session_name: null,
        seq: r.seq,
        command: r.command,
        cwd: r.cwd,
        exit_code: r.exit_code,
        started_at: r.started_at,
        duration_ms: 1_200,
        creator: 'bench 1.0',
        output_head: r.output_head!,
        output_start_byte: 0,
        output_end_byte: 1,
      };
      const t = now();
      db.add([row]);
      direct.push(now() - t);
    }
    db.close();
    rows.push({
      case: `a finished command's cost to the event loop: queue + post to the history worker, median / p99 (n=${count.toLocaleString('en')})`,
      value: `${(median(samples) * 1_000).toFixed(1)} / ${(percentile(samples, 99) * 1_000).toFixed(1)} µs`,
      baseline: `${(median(direct) * 1_000).toFixed(0)} / ${(percentile(direct, 99) * 1_000).toFixed(0)} µs: one row, one transaction, on the main thread`,
      ratio: ratio(median(samples), median(direct)),
    });
    rows.push({
      case: `… the worker's throughput, ${count.toLocaleString('en')} commands posted one per turn until all searchable`,
      value: `${((committed / count) * 1_000).toFixed(1)} µs per command`,
      baseline: '—',
      ratio: '—',
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
