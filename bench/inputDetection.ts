/**
 * How soon `execute` says a program waits for input, and what watching for it costs.
 *
 * Latency: each program of test/integration/awaitingInput.test.ts's waiting rows is run with
 * `execute` in a fresh agent session, timed from the call to its `awaiting_input` answer, median
 * over `runs`. The baseline is the quiet period the hub waits before it looks
 * (`awaitingInputQuietMs`): what is above it is the probe's own time and the program's start.
 *
 * Cost: the hub's CPU (all threads, and the `stty` children it reaped) over `windowMs` with 50
 * sessions idle at their prompt, and with 50 sessions each waiting in `read` (awaiting_input),
 * against the same hub with no session over the same window. The watcher probes only after
 * output went quiet and never an idle shell, so both should stay near the baseline.
 */
import * as fs from 'node:fs';
import type { Client } from '@modelcontextprotocol/client';
import { httpClient, sleep, startHub, tool, type BenchHub } from './hubProcess.js';
import { median, ms, now, ratio, type Row } from './stats.js';

const QUIET_MS = 1_500;
/** A full-screen program needs less quiet before the hub looks (inputWatcher.ts). */
const SCREEN_QUIET_MS = 300;
const SESSIONS = 50;

interface Waiting {
  name: string;
  command: string;
  kind: 'line' | 'secret' | 'screen';
}

const WAITING: Waiting[] = [
  { name: 'bash `read -p`', command: "read -p 'name? ' x", kind: 'line' },
  { name: 'bash `read -s` (password)', command: "read -s -p 'pw: ' x", kind: 'secret' },
  { name: 'python3 `input()`', command: `python3 -c 'input("name? ")'`, kind: 'line' },
  { name: 'python3 REPL', command: 'python3', kind: 'line' },
  {
    name: 'node readline question',
    command: `node -e 'require("readline").createInterface({input:process.stdin,output:process.stdout}).question("node? ",()=>process.exit(0))'`,
    kind: 'line',
  },
  { name: 'node REPL', command: 'node', kind: 'line' },
  { name: 'nested `bash --norc`', command: 'bash --norc', kind: 'line' },
  { name: 'vim', command: 'vim -n -u NONE bench-vim.txt', kind: 'screen' },
  { name: '`seq 1 1000 | less`', command: 'seq 1 1000 | less', kind: 'screen' },
  { name: 'htop', command: 'htop', kind: 'screen' },
];

/** CPU (ms) of a process and of the children it has reaped (Linux /proc: utime, stime, cutime, cstime). */
function cpuWithChildrenMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 1000) / 100;
}

/** The kernel counts CPU in 10 ms ticks: none in a window means less than one. */
function cpu(value: number): string {
  return value === 0 ? '0 ms (under one 10 ms tick)' : ms(value);
}

async function cpuOver(hub: BenchHub, windowMs: number): Promise<number> {
  const before = cpuWithChildrenMs(hub.pid);
  await sleep(windowMs);
  return cpuWithChildrenMs(hub.pid) - before;
}

async function openShells(agent: Client, prefix: string): Promise<string[]> {
  const sessions: string[] = [];
  for (let i = 0; i < SESSIONS; i++) sessions.push(String((await tool(agent, 'open', { name: `${prefix}-${i}` })).session));
  return sessions;
}

async function latency(agent: Client, row: Waiting, runs: number): Promise<number[]> {
  const samples: number[] = [];
  for (let run = 0; run < runs; run++) {
    const session = String((await tool(agent, 'open', { name: `latency-${run}` })).session);
    const start = now();
    const answer = await tool(agent, 'execute', { session, command: row.command, timeout_ms: 20_000, max_lines: 5 });
    samples.push(now() - start);
    if (answer.status !== 'awaiting_input' || answer.input_kind !== row.kind) {
      throw new Error(`${row.name}: expected awaiting_input (${row.kind}), got ${JSON.stringify(answer).slice(0, 300)}`);
    }
    await tool(agent, 'kill', { session, close: true });
  }
  return samples;
}

export async function inputDetection(rows: Row[], runs: number, windowMs: number): Promise<void> {
  const hub = await startHub({ SWITCHBOARD_MAX_SESSIONS: String(SESSIONS * 2 + 10) });
  try {
    const agent = await httpClient(hub, 'bench-input');
    for (const row of WAITING) {
      const samples = await latency(agent, row, runs);
      const quiet = row.kind === 'screen' ? SCREEN_QUIET_MS : QUIET_MS;
      rows.push({
        case: `\`execute\` → \`awaiting_input\` (${row.kind}): ${row.name}, median (n=${runs})`,
        value: ms(median(samples)),
        baseline: `${ms(quiet)} (the quiet period before the hub looks${row.kind === 'screen' ? ', full screen' : ''})`,
        ratio: ratio(median(samples), quiet),
      });
    }

    const empty = await cpuOver(hub, windowMs);
    const idle = await openShells(agent, 'idle');
    await sleep(QUIET_MS * 2); // the shells' start-up output is over before the window opens
    const idleCpu = await cpuOver(hub, windowMs);
    const waiting = await openShells(agent, 'waiting');
    for (const session of waiting) {
      const answer = await tool(agent, 'execute', { session, command: "read -p 'name? ' x", timeout_ms: 20_000 });
      if (answer.status !== 'awaiting_input') throw new Error(`read in ${session}: ${JSON.stringify(answer).slice(0, 300)}`);
    }
    await sleep(QUIET_MS * 2); // the last answers' transcripts and timers are done before the window opens
    const waitingCpu = await cpuOver(hub, windowMs);
    const window = `${windowMs / 1000} s`;
    rows.push(
      {
        case: `hub CPU over ${window} with ${SESSIONS} shells idle at their prompt (all threads and reaped children)`,
        value: cpu(idleCpu),
        baseline: `${cpu(empty)} (the same hub, no session, same window)`,
        ratio: empty > 0 ? ratio(idleCpu, empty) : '—',
      },
      {
        case: `… with ${SESSIONS} more sessions each waiting in \`read\` (awaiting_input)`,
        value: cpu(waitingCpu),
        baseline: `${cpu(empty)} (no session)`,
        ratio: empty > 0 ? ratio(waitingCpu, empty) : '—',
      },
    );
    for (const session of [...idle, ...waiting]) await tool(agent, 'kill', { session, close: true });
    await agent.close();
  } finally {
    await hub.stop();
  }
}
