/**
 * The table of known bypass shapes (bypassRows.ts) against the default policy: each shape is
 * caught by the rule it hides from, or asked because the engine cannot see what runs, or, out
 * of reach, allowed as docs/design.md §2.9 says. decide() only parses these lines.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY, decide } from '../../../src/policy/index.js';
import { ROWS, type Row } from './bypassRows.js';

const PROJECT = '/home/dev/app';

async function check(row: Row): Promise<void> {
  const decision = await decide({ command: row.line, cwd: PROJECT, project: PROJECT, client: 'claude-code' }, DEFAULT_POLICY, 'allow');
  const seen = decision.commands.map(
    (command) =>
      `${command.words.join(' ')} → ${command.action}${command.rule ? ` (${command.rule.match})` : ''}${command.hidden ? ` [${command.hidden}]` : ''}`,
  );
  const context = `${JSON.stringify(row.line)}: ${decision.reason}\n  ${seen.join('\n  ')}`;
  expect(decision.action, context).toBe(row.action);
  if (row.rule !== undefined) {
    expect(
      decision.commands.some((command) => command.rule?.match === row.rule && command.action === row.action),
      context,
    ).toBe(true);
  }
  if (row.hidden) {
    // Asked because part of it is known only when it runs, not because a rule matched for sure.
    expect(decision.rule === undefined || decision.reason.includes('may match'), context).toBe(true);
    expect(decision.commands.some((command) => command.hidden !== undefined) || /does not parse|nests/.test(decision.reason), context).toBe(true);
  }
  if (row.action === 'allow')
    expect(
      decision.commands.every((command) => command.action === 'allow'),
      context,
    ).toBe(true);
}

describe('policy: the known bypass shapes against DEFAULT_POLICY', () => {
  for (const [shape, rows] of Object.entries(ROWS)) {
    describe(shape, () => {
      it.each(rows.map((row) => [JSON.stringify(row.line), row] as const))('%s', async (_name, row) => {
        await check(row);
      });
    });
  }

  it('every default rule is exercised by some row', () => {
    const used = new Set(Object.values(ROWS).flatMap((rows) => rows.map((row) => row.rule)));
    expect(DEFAULT_POLICY.map((rule) => rule.match).filter((match) => !used.has(match))).toEqual([]);
  });
});
