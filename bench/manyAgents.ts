/**
 * Many agents: 10 agents (9 MCP clients over HTTP and one over the real shim) with 5 shell
 * sessions each, calling `list` and `execute echo <token>` round-robin over their sessions,
 * all at once; first with no flood, then while an eleventh agent's session runs `yes`. Every
 * output must be exactly its own token (no cross-talk). Baseline: the same calls, no flood.
 */
import type { Client } from '@modelcontextprotocol/client';
import { httpClient, shimClient, startHub, tool, transcriptBytes } from './hubProcess.js';
import { mib, ms, now, percentile, ratio, type Row } from './stats.js';

const AGENTS = 10;
const SESSIONS = 5;

interface Agent {
  name: string;
  client: Client;
  sessions: string[];
}

interface Samples {
  list: number[];
  execute: number[];
  calls: number;
}

async function phase(agents: Agent[], rounds: number, label: string): Promise<Samples> {
  const samples: Samples = { list: [], execute: [], calls: 0 };
  await Promise.all(
    agents.map(async (agent, a) => {
      for (let round = 0; round < rounds; round++) {
        for (let s = 0; s < agent.sessions.length; s++) {
          const session = agent.sessions[s]!;
          let start = now();
          const listed = await tool(agent.client, 'list', {});
          samples.list.push(now() - start);
          if (!Array.isArray(listed.sessions)) throw new Error('list returned no sessions');
          const token = `${label}-a${a}-s${s}-r${round}`;
          start = now();
          const result = await tool(agent.client, 'execute', { session, command: `echo ${token}`, timeout_ms: 30_000 });
          samples.execute.push(now() - start);
          if (result.status !== 'completed' || result.output !== token || result.session !== session) {
            throw new Error(`cross-talk or failure in ${agent.name}/${session}: ${JSON.stringify(result).slice(0, 300)}`);
          }
          samples.calls += 2;
        }
      }
    }),
  );
  return samples;
}

export async function manyAgents(rows: Row[], rounds: number): Promise<void> {
  const started0 = now();
  const hub = await startHub();
  const clients: Client[] = [];
  try {
    const agents: Agent[] = [];
    for (let a = 0; a < AGENTS; a++) {
      const name = `bench-agent-${a}`;
      const client = a === 0 ? await shimClient(hub, name) : await httpClient(hub, name);
      clients.push(client);
      agents.push({ name, client, sessions: [] });
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

    let mark = started0;
    const lap = (label: string): void => {
      process.stderr.write(`    ${label}: ${((now() - mark) / 1000).toFixed(1)} s\n`);
      mark = now();
    };
    lap('open');
    await phase(agents, 1, 'warm');
    lap('warm');
    const quiet = await phase(agents, rounds, 'quiet');

    lap('quiet');
    const started = await tool(flooder, 'execute', { session: floodSession, command: 'yes', timeout_ms: 500, max_lines: 2 });
    if (started.status !== 'running') throw new Error(`yes is not running: ${String(started.status)}`);
    let loud: Samples;
    const floodFrom = transcriptBytes(hub, floodSession);
    const floodStart = now();
    let floodRate = 0;
    try {
      loud = await phase(agents, rounds, 'flood');
      floodRate = (transcriptBytes(hub, floodSession) - floodFrom) / ((now() - floodStart) / 1000);
    } finally {
      await tool(flooder, 'kill', { session: floodSession, signal: 'SIGINT' });
    }
    lap('flood');
    const stillFlooding = await tool(flooder, 'read', { session: floodSession, view: 'screen', wait: { exit: true, timeout_ms: 10_000 } });
    if (stillFlooding.state === 'running') throw new Error('yes did not stop after SIGINT');

    const n = quiet.execute.length;
    const mk = (name: string, value: number, base: number): Row => ({ case: name, value: ms(value), baseline: `${ms(base)} (same calls, no flood)`, ratio: ratio(value, base) });
    rows.push(
      mk(`${AGENTS} agents × ${SESSIONS} sessions during a \`yes\` flood: \`list\` p50 (n=${n})`, percentile(loud.list, 50), percentile(quiet.list, 50)),
      mk('… `list` p99', percentile(loud.list, 99), percentile(quiet.list, 99)),
      mk(`… \`execute echo\` p50 (n=${n})`, percentile(loud.execute, 50), percentile(quiet.execute, 50)),
      mk('… `execute echo` p99', percentile(loud.execute, 99), percentile(quiet.execute, 99)),
      {
        case: '… outputs that were exactly their own token (no cross-talk)',
        value: `${loud.execute.length}/${loud.execute.length}`,
        baseline: `${quiet.execute.length}/${quiet.execute.length}`,
        ratio: 'none',
      },
      { case: '… the flood meanwhile (bytes reaching its transcript)', value: `${mib(floodRate)}/s`, baseline: '—', ratio: '—' },
    );
  } finally {
    const stopping = now();
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await hub.stop();
    process.stderr.write(`    stop: ${((now() - stopping) / 1000).toFixed(1)} s\n`);
  }
}
