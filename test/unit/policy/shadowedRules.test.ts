import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY, decide, shadowedDenies, type PolicyRule } from '../../../src/policy/index.js';

describe('policy: a deny rule an earlier rule shadows', () => {
  it('is warned about, naming the earlier rule, when an ask or allow rule before it matches the same commands', async () => {
    const rules: PolicyRule[] = [...DEFAULT_POLICY, { match: 'rm -rf *', action: 'deny' }];
    const warnings = shadowedDenies(rules);
    expect(warnings).toEqual([
      {
        index: DEFAULT_POLICY.length,
        message: expect.stringMatching(
          /^Rule 1 \(rm -r \*, ask\) comes first .* \(where its conditions hold\): they are asked, not denied\. Move this rule above rule 1/,
        ),
      },
    ]);
    // The warning is true: the deny never answers a command the ask rule takes.
    const decision = await decide({ command: 'rm -rf /etc', cwd: '/home/dev/app', project: '/home/dev/app' }, rules, 'allow');
    expect(decision).toMatchObject({ action: 'ask', rule: { index: 1 } });
  });

  it('covers each alternative of the deny rule’s program and an allow rule before it', () => {
    expect(
      shadowedDenies([
        { match: 'su *', action: 'allow' },
        { match: '{sudo,su} rm *', action: 'deny' },
      ]),
    ).toMatchObject([{ index: 1, message: expect.stringContaining('they are allowed, not denied') }]);
  });

  it('is silent where the rules do not overlap, or the deny comes first', () => {
    expect(
      shadowedDenies([
        { match: 'git status', action: 'allow' },
        { match: 'rm -rf *', action: 'deny' },
      ]),
    ).toEqual([]);
    expect(
      shadowedDenies([
        { match: 'rm -rf *', action: 'deny' },
        { match: 'rm -r *', action: 'ask' },
      ]),
    ).toEqual([]);
    expect(
      shadowedDenies([
        { match: 'git push', action: 'ask' },
        { match: 'git push --force*', action: 'deny' },
      ]),
    ).toEqual([]);
  });
});
