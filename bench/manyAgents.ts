/**
 * Many agents: 10 agents with 5 shell sessions each (5 agents over the real
 * stdio shim, as MCP hosts launch it, and 5 over HTTP), all working at once. Each agent goes
 * over its sessions in turn like an agent does, only far faster: `list`, `execute echo <token>`,
 * then one command of MIX, with THINK_MIN_MS–THINK_MAX_MS between calls (an LLM takes seconds
 * between calls; this is ~50× busier). Measured: `list` and `execute echo` latency p50/p99,
 * first with no flood (the baseline), then while an eleventh agent's session runs `yes`. Every
 * echo must come back as exactly its own token from its own session (no cross-talk), and every
 * command of the mix must complete.
 *
 * Saturation: the same agents calling `list` and `execute echo` back to back with no pause
 * (a closed loop), with and without the flood. Latency there is queueing behind the other nine
 * agents on two cores, so it is reported next to the throughput: the headroom, not a target.
 */
import type { Client } from '@modelcontextprotocol/client';
import { httpClient, shimClient, sleep, startHub, tool, transcriptBytes, type Sc } from './hubProcess.js';
import { mib, ms, now, percentile, ratio, type Row } from './stats.js';

const AGENTS = 10;
/** Agents 0 … SHIM_AGENTS-1 come through the stdio shim, the rest over HTTP. */
const SHIM_AGENTS = 5;
const SESSIONS = 5;
const THINK_MIN_MS = 20;
const THINK_MAX_MS = 80;

/** The mixed commands, one per session per round; each must complete with `check` true. */
const MIX: { command: string; check: (result: Sc) => boolean }[] = [
  { command: 'ls -la /usr/bin | head -n 40', check: (r) => r.exit_code === 0 && String(r.output).split('\n').length === 40 },
  { command: 'seq 1 5000', check: (r) => r.exit_code === 0 && r.total_lines === 5000 },
  { command: 'sleep 0.3', check: (r) => r.exit_code === 0 },
  { command: 'cat /etc/os-release', check: (r) => r.exit_code === 0 && String(r.output).includes('NAME=') },
  { command: "printf '\\r10%%\\r50%%\\r100%%\\n'", check: (r) => r.exit_code === 0 && r.output === '100%' },
  { command: 'cd /tmp && pwd', check: (r) => r.exit_code === 0 && r.output === '/tmp' && r.cwd === '/tmp' },
  { command: 'wc -l < /etc/passwd', check: (r) => r.exit_code === 0 && /^\d+$/.test(String(r.output)) },
];

interface Agent {
  name: string;
  transport: 'shim' | 'http';
  client: Client;
  sessions: string[];
}

interface Samples {
  list: number[];
  execute: number[];
  /** `execute echo` by transport. */
  byTransport: { shim: number[]; http: number[] };
  calls: number;
  ms: number;
}

function think(paced: boolean): Promise<void> {
  return paced ? sleep(THINK_MIN_MS + Math.random() * (THINK_MAX_MS - THINK_MIN_MS)) : Promise.resolve();
}

/** Every agent runs `rounds` rounds over its sessions; paced: with think time and the mix. */
async function phase(agents: Agent[], rounds: number, label: string, paced: boolean): Promise<Samples> {
  const samples: Samples = { list: [], execute: [], byTransport: { shim: [], http: [] }, calls: 0, ms: 0 };
  const started = now();
  await Promise.all(
    agents.map(async (agent, a) => {
      for (let round = 0; round < rounds; round++) {
        for (let s = 0; s < agent.sessions.length; s++) {
          const session = agent.sessions[s]!;
          await think(paced);
          let start = now();
          const listed = await tool(agent.client, 'list', {});
          samples.list.push(now() - start);
          if (!Array.isArray(listed.sessions)) throw new Error('list returned no sessions');

          await think(paced);
          const token = `${label}-a${a}-s${s}-r${round}`;
          start = now();
          const result = await tool(agent.client, 'execute', { session, command: `echo ${token}`, timeout_ms: 30_000 });
          const took = now() - start;
          samples.execute.push(took);
          samples.byTransport[agent.transport].push(took);
          if (result.status !== 'completed' || result.output !== token || result.session !== session) {
            throw new Error(`cross-talk or failure in ${agent.name}/${session}: ${JSON.stringify(result).slice(0, 300)}`);
          }
          samples.calls += 2;
          if (!paced) continue;

          await think(paced);
          const mixed = MIX[(a + s + round) % MIX.length]!;
          const other = await tool(agent.client, 'execute', { session, command: mixed.command, timeout_ms: 30_000, max_lines: 100 });
          if (other.status !== 'completed' || !mixed.check(other)) {
            throw new Error(`${agent.name}/${session}: \`${mixed.command}\` came back wrong: ${JSON.stringify(other).slice(0, 300)}`);
          }
          samples.calls++;
        }
      }
    }),
  );
  samples.ms = now() - started;
  return samples;
}

/** Runs `body` while the flooder's session runs `yes`; the flood's rate in bytes/s. */
async function duringFlood<T>(flooder: Client, session: string, transcript: () => number, body: () => Promise<T>): Promise<{ value: T; rate: number }> {
  const started = await tool(flooder, 'execute', { session, command: 'yes', timeout_ms: 500, max_lines: 2 });
  if (started.status !== 'running') throw new Error(`yes is not running: ${String(started.status)}`);
  const from = transcript();
  const start = now();
  try {
    const value = await body();
    return { value, rate: (transcript() - from) / ((now() - start) / 1000) };
  } finally {
    await tool(flooder, 'kill', { session, signal: 'SIGINT' });
    const stopped = await tool(flooder, 'read', { session, view: 'screen', wait: { exit: true, timeout_ms: 10_000 } });
    if (stopped.state === 'running') throw new Error('yes did not stop after SIGINT');
  }
}

export async function manyAgents(rows: Row[], rounds: number): Promise<void> {
  const started0 = now();
  const hub = await startHub();
  const clients: Client[] = [];
  try {
    const agents: Agent[] = [];
    for (let a = 0; a < AGENTS; a++) {
      const name = `bench-agent-${a}`;
      const transport = a < SHIM_AGENTS ? 'shim' : 'http';
      const client = transport === 'shim' ? await shimClient(hub, name) : await httpClient(hub, name);
      clients.push(client);
      agents.push({ name, transport, client, sessions: [] });
    }
    const flooder = await httpClient(hub, 'bench-flooder');
    clients.push(flooder);
    // Agents open their sessions at the same time, each one after the other.
    await Promise.all(
      agents.map(async (agent) => {
        for (let s = 0; s < SESSIONS; s++) agent.sessions.push(String((await tool(agent.client, 'open', { name: `${agent.name}-${s}` })).session));
      }),
    );
    const floodSession = String((await tool(flooder, 'open', { name: 'flood' })).session);
    const floodBytes = (): number => transcriptBytes(hub, floodSession);

    let mark = started0;
    const lap = (label: string): void => {
      process.stderr.write(`    ${label}: ${((now() - mark) / 1000).toFixed(1)} s\n`);
      mark = now();
    };
    lap('open');
    // Every command of the mix once, then ~1 000 back-to-back calls: a fresh hub runs its
    // per-call code interpreted for its first ~2 000 calls (WARM_UP_CALLS in run.ts), and the
    // figures are a running hub's; the quiet phase adds 600 more before the flood.
    await phase(agents, 1, 'warm', true);
    await phase(agents, 10, 'warm-busy', false);
    lap('warm');
    const quiet = await phase(agents, rounds, 'quiet', true);
    lap('quiet');
    const loud = await duringFlood(flooder, floodSession, floodBytes, () => phase(agents, rounds, 'flood', true));
    lap('flood');
    const saturated = await phase(agents, rounds, 'busy', false);
    lap('saturated');
    const saturatedLoud = await duringFlood(flooder, floodSession, floodBytes, () => phase(agents, rounds, 'busy-flood', false));
    lap('saturated, flood');

    const n = quiet.execute.length;
    const vsQuiet = (name: string, value: number, base: number): Row => ({
      case: name,
      value: ms(value),
      baseline: `${ms(base)} (same calls, no flood)`,
      ratio: ratio(value, base),
    });
    const loudSamples = loud.value;
    const perSecond = (samples: Samples): number => samples.calls / (samples.ms / 1000);
    rows.push(
      vsQuiet(
        `${AGENTS} agents × ${SESSIONS} sessions (${SHIM_AGENTS} via shim, ${AGENTS - SHIM_AGENTS} via HTTP, mixed commands, ${THINK_MIN_MS}–${THINK_MAX_MS} ms between calls) during a \`yes\` flood: \`list\` p50 (n=${n})`,
        percentile(loudSamples.list, 50),
        percentile(quiet.list, 50),
      ),
      vsQuiet('… `list` p99', percentile(loudSamples.list, 99), percentile(quiet.list, 99)),
      vsQuiet(`… \`execute echo\` p50 (n=${n})`, percentile(loudSamples.execute, 50), percentile(quiet.execute, 50)),
      vsQuiet('… `execute echo` p99', percentile(loudSamples.execute, 99), percentile(quiet.execute, 99)),
      vsQuiet('… `execute echo` p99, agents via the shim', percentile(loudSamples.byTransport.shim, 99), percentile(quiet.byTransport.shim, 99)),
      vsQuiet('… `execute echo` p99, agents via HTTP', percentile(loudSamples.byTransport.http, 99), percentile(quiet.byTransport.http, 99)),
      {
        case: '… echoes that were exactly their own token, mixed commands complete and right (no cross-talk)',
        value: `${loudSamples.execute.length}/${loudSamples.execute.length}`,
        baseline: `${quiet.execute.length}/${quiet.execute.length}`,
        ratio: 'none',
      },
      { case: '… the flood meanwhile (bytes reaching its transcript)', value: `${mib(loud.rate)}/s`, baseline: '—', ratio: '—' },
      {
        case: `saturation: the same ${AGENTS} agents calling \`list\` + \`execute echo\` back to back, during the flood: calls/s`,
        value: `${perSecond(saturatedLoud.value).toFixed(0)}/s`,
        baseline: `${perSecond(saturated).toFixed(0)}/s (no flood)`,
        ratio: ratio(perSecond(saturatedLoud.value), perSecond(saturated)),
      },
      vsQuiet(
        '… `execute echo` p99 at saturation (queueing behind the other agents)',
        percentile(saturatedLoud.value.execute, 99),
        percentile(saturated.execute, 99),
      ),
    );
  } finally {
    const stopping = now();
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await hub.stop();
    process.stderr.write(`    stop: ${((now() - stopping) / 1000).toFixed(1)} s\n`);
  }
}
