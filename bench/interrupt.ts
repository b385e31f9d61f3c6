/**
 * Stopping a command while it floods, as an agent does it: `send` ctrl+c with `wait.exit` (the
 * answer comes with the shell's D mark) and `kill` with SIGINT (the answer comes once the job
 * has ended), each timed from the call to its answer while the session prints as fast as it can
 * (`base64 /dev/urandom`, `yes`, running `floodMs` first), beside the same calls on a quiet
 * `sleep` in the same run (the baseline).
 *
 * test/adversarial/flood.test.ts asserts that both work during a 60 s flood (the D mark with
 * exit 130, `ended_by: SIGINT` within the hub's kill wait); how long they take is this figure,
 * which depends on the machine and so is measured, not asserted.
 */
import { httpClient, sleep, startHub, tool } from './hubProcess.js';
import { median, ms, now, ratio, type Row } from './stats.js';

async function timed(call: () => Promise<unknown>): Promise<number> {
  const start = now();
  await call();
  return now() - start;
}

export async function interruptUnderFlood(rows: Row[], runs: number, floodMs: number): Promise<void> {
  const hub = await startHub();
  try {
    const agent = await httpClient(hub, 'bench-interrupt');
    const session = String((await tool(agent, 'open', {})).session);
    const start = async (command: string): Promise<void> => {
      const started = await tool(agent, 'execute', { session, command, timeout_ms: 300, max_lines: 2 });
      if (started.status !== 'running') throw new Error(`${command} is not running: ${JSON.stringify(started).slice(0, 300)}`);
    };
    const ctrlC = { flood: [] as number[], quiet: [] as number[] };
    const kill = { flood: [] as number[], quiet: [] as number[] };
    for (let run = 0; run < runs; run++) {
      for (const [command, samples] of [
        ['base64 /dev/urandom', ctrlC.flood],
        ['sleep 1000', ctrlC.quiet],
      ] as const) {
        await start(command);
        await sleep(floodMs);
        let answer: Record<string, unknown> = {};
        samples.push(await timed(async () => (answer = await tool(agent, 'send', { session, keys: ['ctrl+c'], wait: { exit: true, timeout_ms: 30_000 } }))));
        if (answer.waited !== 'exit') throw new Error(`ctrl+c did not end ${command}: ${JSON.stringify(answer).slice(0, 300)}`);
      }
      for (const [command, samples] of [
        ['yes', kill.flood],
        ['sleep 1000', kill.quiet],
      ] as const) {
        await start(command);
        await sleep(floodMs);
        let answer: Record<string, unknown> = {};
        samples.push(await timed(async () => (answer = await tool(agent, 'kill', { session, signal: 'SIGINT' }))));
        if (answer.ended_by !== 'SIGINT') throw new Error(`kill SIGINT did not end ${command}: ${JSON.stringify(answer).slice(0, 300)}`);
      }
    }
    const vsQuiet = (name: string, value: number, base: number): Row => ({
      case: name,
      value: ms(value),
      baseline: `${ms(base)} (the same on a quiet sleep)`,
      ratio: ratio(value, base),
    });
    rows.push(
      vsQuiet(
        `\`send\` ctrl+c with wait.exit, answered, ${floodMs / 1000} s into \`base64 /dev/urandom\`, median (n=${runs})`,
        median(ctrlC.flood),
        median(ctrlC.quiet),
      ),
      vsQuiet(`\`kill\` SIGINT, answered, ${floodMs / 1000} s into \`yes\`, median (n=${runs})`, median(kill.flood), median(kill.quiet)),
    );
    await agent.close();
  } finally {
    await hub.stop();
  }
}
