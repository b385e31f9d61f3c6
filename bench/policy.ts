/**
 * What the person's policy costs per command line (docs/design.md §2.9): decide() with the
 * default rules over a few hundred lines as agents send them (bench/policyLines.ts), each timed
 * `rounds` times after a warm-up, its median per line; the median and p95 over the lines. The
 * baseline is tree-sitter-bash parsing the same line alone (the parse decide() starts with),
 * so the ratio is what the engine adds to the parser. The first call, which loads the grammar's
 * WebAssembly, is reported on its own.
 */
import { DEFAULT_POLICY, decide } from '../src/policy/index.js';
import { bashParser } from '../src/policy/shellParser.js';
import { POLICY_LINES } from './policyLines.js';
import { median, ms, now, percentile, ratio, type Row } from './stats.js';

const INPUT = { cwd: '/home/dev/app', project: '/home/dev/app', client: 'bench' };

export async function policyDecisions(rows: Row[], rounds: number): Promise<void> {
  const firstStart = now();
  await decide({ command: 'git status', ...INPUT }, DEFAULT_POLICY, 'allow');
  const first = now() - firstStart;
  const parser = await bashParser();

  // Warm-up: V8 optimizes the engine's code only after it ran many times.
  for (let round = 0; round < 5; round++) for (const line of POLICY_LINES) await decide({ command: line, ...INPUT }, DEFAULT_POLICY, 'allow');

  const perLine: number[] = [];
  const parsePerLine: number[] = [];
  const asked = new Set<string>();
  for (const line of POLICY_LINES) {
    const samples: number[] = [];
    const parses: number[] = [];
    for (let round = 0; round < rounds; round++) {
      let start = now();
      const decision = await decide({ command: line, ...INPUT }, DEFAULT_POLICY, 'allow');
      samples.push(now() - start);
      if (decision.action !== 'allow') asked.add(line);
      start = now();
      parser.parse(line)?.delete();
      parses.push(now() - start);
    }
    perLine.push(median(samples));
    parsePerLine.push(median(parses));
  }
  const [value, base] = [median(perLine), median(parsePerLine)];
  rows.push(
    {
      case: `policy: \`decide()\` with the default rules, per line, median / p95 over ${POLICY_LINES.length} agent lines (${asked.size} asked), ${rounds} runs each`,
      value: `${ms(value)} / ${ms(percentile(perLine, 95))}`,
      baseline: `${ms(base)} / ${ms(percentile(parsePerLine, 95))}: tree-sitter-bash parsing the line alone`,
      ratio: `${ratio(value, base)} / ${ratio(percentile(perLine, 95), percentile(parsePerLine, 95))}`,
    },
    { case: '… the first `decide()` of a hub (loads the grammar)', value: ms(first), baseline: '—', ratio: '—' },
  );
}
