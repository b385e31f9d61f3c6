/**
 * The cheap holes (holeRows.ts) against decide() alone, under the review's rule
 * `rm -rf *` → deny and policyDefault allow: each is denied through what hides it, or asked
 * because the engine cannot see what runs. The same rows run live in
 * test/integration/liveBypass.test.ts. decide() only parses these lines.
 */
import { describe, expect, it } from 'vitest';
import { decide, type PolicyDecision } from '../../../src/policy/index.js';
import { HOLE_ROWS, HOLE_RULES, holeLine } from './holeRows.js';

const PROJECT = '/home/dev/app';

function explain(decision: PolicyDecision): string {
  return `${decision.reason}\n  ${decision.commands.map((c) => `${c.words.join(' ')} → ${c.action}${c.hidden ? ` [${c.hidden}]` : ''}`).join('\n  ')}`;
}

describe('policy: the cheap holes under rm -rf * → deny', () => {
  it.each(HOLE_ROWS.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
    const line = holeLine(row.line, '/tmp/sb-victim');
    const decision = await decide({ command: line, cwd: PROJECT, project: PROJECT, client: 'claude-code', interactive: true }, HOLE_RULES, 'allow');
    expect(decision.action, `${JSON.stringify(line)}: ${explain(decision)}`).toBe(row.expect);
  });

  it('under policyDefault deny, what the engine cannot see is denied, not asked', async () => {
    for (const row of HOLE_ROWS.filter((r) => r.expect === 'ask')) {
      const decision = await decide({ command: holeLine(row.line, '/tmp/v'), cwd: PROJECT, project: PROJECT, interactive: true }, HOLE_RULES, 'deny');
      expect(decision.action, row.line).toBe('deny');
    }
  });

  it('the same words, harmless, still run: the holes are closed by reading them, not by refusing the programs', async () => {
    const allowed = [
      'flock /tmp/x.lock make',
      'awk \'BEGIN{system("date")}\'',
      'awk -F: \'{print $1 | "sort"}\' /etc/passwd',
      "awk '/a|b/ { n++ } END { print n }' x",
      "sed -n 's/a/b/gp' x",
      "sed -e '1d' -e 's|x|y|g' x",
      "git -c alias.st='status --short' st",
      'git -c core.pager=cat log',
      'git rm -rf build',
      'echo rm -rf /tmp/x',
      "PS1='\\u@\\h:\\w\\$ '",
      "PROMPT_COMMAND='history -a'",
      'rm --rec build',
      'taskset -c 0 make -j1',
      'npx prettier --check .',
      'echo "$!" ${!name} [!a]',
    ];
    for (const line of allowed) {
      const decision = await decide({ command: line, cwd: PROJECT, project: PROJECT, interactive: true }, HOLE_RULES, 'allow');
      expect(decision.action, `${line}: ${explain(decision)}`).toBe('allow');
    }
  });
});
