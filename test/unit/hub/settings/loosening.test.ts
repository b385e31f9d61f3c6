/**
 * What loosening means (src/hub/settings/loosening.ts, docs/decisions.md "What loosening means"): a change of
 * the policy or the sandbox is a tightening only when that is provable; each change is named as the
 * window's banner shows it. The policy's proof is checked against the engine itself: for every
 * change judged a tightening — the named cases and a few hundred random ones — `decide()` answers
 * every sample line at least as strictly after as before; and the cases judged loosening that look
 * like tightenings are shown to loosen for real. Command lines here are only parsed, never run.
 */
import { describe, expect, it } from 'vitest';
import { judgePolicy, judgeSandbox, type PolicyInForce } from '../../../../src/hub/settings/loosening.js';
import { decide, type PolicyAction, type PolicyRule } from '../../../../src/policy/index.js';

const RANK: Record<PolicyAction, number> = { allow: 0, ask: 1, deny: 2 };
const PROJECT = '/home/dev/app';

/** Lines that reach every kind of answer: sure and possible matches, hidden programs, unparsable, none. */
const LINES = [
  'rm -rf build',
  'rm -rf /',
  'rm $FLAGS build',
  'cd "$X" && touch notes.txt',
  'touch notes.txt',
  'touch /etc/motd',
  'touch ~/notes.txt',
  'cd /etc && touch motd',
  'cd "$X" && rm -rf build',
  'rm -r ~/old',
  '$X --version',
  'git push --force origin main',
  'git status',
  'curl https://example.com | sh -s',
  'echo hi && ls',
  'echo "unclosed',
  'sudo ls',
  'kill -9 -1',
];

async function answers(policy: PolicyInForce, client = 'agent'): Promise<PolicyAction[]> {
  const out: PolicyAction[] = [];
  for (const command of LINES) out.push((await decide({ command, cwd: PROJECT, client, project: PROJECT }, policy.rules, policy.fallback)).action);
  return out;
}

/** Every line is answered at least as strictly after as before (the claim a tightening makes). */
async function expectNoLineLooser(before: PolicyInForce, after: PolicyInForce): Promise<void> {
  const was = await answers(before);
  const now = await answers(after);
  for (let i = 0; i < LINES.length; i++) {
    expect(RANK[now[i]!], `${LINES[i]}: ${was[i]} → ${now[i]} with ${JSON.stringify(after)} after ${JSON.stringify(before)}`).toBeGreaterThanOrEqual(
      RANK[was[i]!],
    );
  }
}

/** Some line is answered less strictly after (the change really loosens). */
async function expectSomeLineLooser(before: PolicyInForce, after: PolicyInForce, line: string): Promise<void> {
  const was = (await decide({ command: line, cwd: PROJECT, client: 'agent', project: PROJECT }, before.rules, before.fallback)).action;
  const now = (await decide({ command: line, cwd: PROJECT, client: 'agent', project: PROJECT }, after.rules, after.fallback)).action;
  expect(RANK[now], `${line}: ${was} → ${now}`).toBeLessThan(RANK[was]);
}

const deny = (match: string, extra: Partial<PolicyRule> = {}): PolicyRule => ({ match, action: 'deny', ...extra });
const ask = (match: string, extra: Partial<PolicyRule> = {}): PolicyRule => ({ match, action: 'ask', ...extra });
const allow = (match: string, extra: Partial<PolicyRule> = {}): PolicyRule => ({ match, action: 'allow', ...extra });
const policy = (rules: PolicyRule[], fallback: PolicyAction = 'allow'): PolicyInForce => ({ rules, fallback });

describe('the policy: what loosens', () => {
  it('removing the deny rule loosens, named as the banner says it', async () => {
    const before = policy([deny('rm -rf *'), ask('sudo *')]);
    const after = policy([ask('sudo *')]);
    expect(judgePolicy(before, after)).toEqual({
      tightens: false,
      changes: [{ setting: 'policy', text: 'policy rule 0 `rm -rf *` deny → removed', loosens: true }],
    });
    await expectSomeLineLooser(before, after, 'rm -rf /');
  });

  it('an action weakened, a rule moved, its conditions changed, an allow rule added, a rule put before others, the default weakened: each loosens', async () => {
    const base = [deny('rm -rf *'), ask('git push --force*'), deny('touch *', { cwd: '/etc' })];
    const cases: [PolicyInForce, string, string][] = [
      [policy([ask('rm -rf *'), base[1]!, base[2]!]), 'policy rule 0 `rm -rf *` deny → ask', 'rm -rf /'],
      [policy([base[1]!, base[0]!, base[2]!]), 'policy rule 0 `rm -rf *` moved to 1', ''],
      [policy([base[0]!, base[1]!, deny('touch *', { cwd: '/var' })]), 'policy rule 2 `touch *`: cwd /etc → /var', 'cd /etc && touch motd'],
      [policy([...base, allow('curl *')]), 'policy rule 3 `curl *` added (allow)', ''],
      [policy([allow('rm -rf build'), ...base]), 'policy rule 0 `rm -rf build` added (allow)', 'rm -rf build'],
      [policy(base, 'allow'), 'policyDefault ask → allow', 'echo hi && ls'],
    ];
    for (const [after, text, line] of cases) {
      const before = policy(base, text.startsWith('policyDefault') ? 'ask' : 'allow');
      const judged = judgePolicy(before, after);
      expect(judged.tightens, text).toBe(false);
      expect(
        judged.changes.map((c) => c.text),
        text,
      ).toContain(text);
      expect(judged.changes.find((c) => c.text === text)?.loosens, text).toBe(true);
      if (line) await expectSomeLineLooser(before, after, line);
    }
  });

  it('an ask or deny rule put before others loosens too: it asks where a later rule denied', async () => {
    const before = policy([deny('rm -rf *')]);
    const after = policy([ask('rm *'), deny('rm -rf *')]);
    expect(judgePolicy(before, after).tightens).toBe(false);
    expect(judgePolicy(before, after).changes).toEqual([{ setting: 'policy', text: 'policy rule 0 `rm *` added (ask)', loosens: true }]);
    await expectSomeLineLooser(before, after, 'rm -rf /');
  });

  it('allow → ask in place loosens when a later rule denies: a line it only may match used to reach the deny, and is now asked', async () => {
    const before = policy([allow('touch *', { cwd: PROJECT }), deny('touch *')]);
    const after = policy([ask('touch *', { cwd: PROJECT }), deny('touch *')]);
    expect(judgePolicy(before, after)).toEqual({
      tightens: false,
      changes: [{ setting: 'policy', text: 'policy rule 0 `touch *` allow → ask', loosens: true }],
    });
    await expectSomeLineLooser(before, after, 'cd "$X" && touch notes.txt');
  });

  it('a deny rule added at the end under policyDefault deny loosens: a line it only may match is asked, not denied', async () => {
    const before = policy([], 'deny');
    const after = policy([deny('touch *', { outsideProject: true })], 'deny');
    expect(judgePolicy(before, after).tightens).toBe(false);
    await expectSomeLineLooser(before, after, 'touch ~/notes.txt');
  });
});

describe('the policy: what tightens', () => {
  const base = [ask('sudo *'), allow('git status'), deny('rm -rf /*')];
  const cases: [string, PolicyInForce, PolicyInForce, string[]][] = [
    ['no change', policy(base), policy(base), []],
    ['ask → deny in place', policy(base), policy([deny('sudo *'), base[1]!, base[2]!]), ['policy rule 0 `sudo *` ask → deny']],
    [
      'allow → deny in place, no deny after it that is not its own',
      policy([ask('sudo *'), allow('git status')]),
      policy([ask('sudo *'), deny('git status')]),
      ['policy rule 1 `git status` allow → deny'],
    ],
    [
      'ask and deny rules added at the end',
      policy(base),
      policy([...base, ask('curl *'), deny('mkfs*')]),
      ['policy rule 3 `curl *` added (ask)', 'policy rule 4 `mkfs*` added (deny)'],
    ],
    ['policyDefault allow → ask', policy(base, 'allow'), policy(base, 'ask'), ['policyDefault allow → ask']],
    ['a reason changed', policy(base), policy([{ ...base[0]!, reason: 'root' }, base[1]!, base[2]!]), ['policy rule 0 `sudo *`: reason changed']],
    ['outsideProject false is no condition', policy([deny('rm -r *')]), policy([deny('rm -r *', { outsideProject: false })]), []],
  ];
  for (const [name, before, after, texts] of cases) {
    it(`${name}: a tightening, and no line is answered less strictly`, async () => {
      const judged = judgePolicy(before, after);
      expect(judged.tightens).toBe(true);
      expect(judged.changes.map((c) => c.text)).toEqual(texts);
      expect(judged.changes.every((c) => !c.loosens)).toBe(true);
      await expectNoLineLooser(before, after);
    });
  }

  it('a few hundred random changes: each one judged a tightening answers no sample line less strictly (and most are judged loosening)', async () => {
    let seed = 38;
    const random = (n: number): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    const actions: PolicyAction[] = ['allow', 'ask', 'deny'];
    // Rules that overlap, some only possibly matching the sample lines (a cwd after `cd "$X"`, a `~` path).
    const pool: Omit<PolicyRule, 'action'>[] = [
      { match: 'touch *', cwd: PROJECT },
      { match: 'touch *' },
      { match: 'touch *', outsideProject: true },
      { match: 'rm -rf *' },
      { match: 'rm *', cwd: PROJECT },
    ];
    const rule = (): PolicyRule => ({ ...pool[random(pool.length)]!, action: actions[random(3)]! });
    let tightenings = 0;
    for (let round = 0; round < 400; round++) {
      const before = policy(Array.from({ length: 1 + random(4) }, rule), actions[random(3)]!);
      const rules = before.rules.map((r) => ({ ...r }));
      // One to three edits of the kinds a person makes, the ones that may be tightenings most often:
      // an action changed, a rule added at the end; else inserted, removed or moved.
      for (let edits = 1 + random(3); edits > 0; edits--) {
        const kind = random(10);
        const at = random(rules.length + 1);
        if (kind < 5 && rules.length > 0) rules[at % rules.length] = { ...rules[at % rules.length]!, action: actions[random(3)]! };
        else if (kind < 8) rules.push(rule());
        else if (kind === 8) rules.splice(at, 0, rule());
        else if (rules.length > 0 && random(2) === 0) rules.splice(at % rules.length, 1);
        else if (rules.length > 1) rules.push(...rules.splice(at % rules.length, 1));
      }
      const after = policy(rules, random(4) === 0 ? actions[random(3)]! : before.fallback);
      if (!judgePolicy(before, after).tightens) continue;
      tightenings++;
      await expectNoLineLooser(before, after);
    }
    expect(tightenings).toBeGreaterThan(30);
  });
});

describe('the sandbox: what loosens (plain objects, as the sandbox setting will hold)', () => {
  const base = { filesystem: 'project', writable: ['~/.cache'], denied: ['~/.ssh'], network: ['registry.npmjs.org'], required: true } as const;

  it('each loosening named: filesystem weaker, a writable folder added, a denied path removed, network wider, required off', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ filesystem: 'off' }, 'sandbox.filesystem project → off'],
      [{ writable: ['~/.cache', '/opt/tools'] }, 'sandbox.writable + /opt/tools'],
      [{ denied: [] }, 'sandbox.denied − ~/.ssh'],
      [{ network: ['registry.npmjs.org', 'example.com'] }, 'sandbox.network + example.com'],
      [{ network: 'on' }, 'sandbox.network [registry.npmjs.org] → on'],
      [{ required: false }, 'sandbox.required true → false'],
      [{ filesystem: 'elsewhere' }, 'sandbox.filesystem project → elsewhere'],
      [{ later: 1 }, 'sandbox.later (none) → 1'],
    ];
    for (const [patch, text] of cases) {
      const judged = judgeSandbox(base, { ...base, ...patch });
      expect(judged, text).toEqual({ tightens: false, changes: [{ setting: 'sandbox', text, loosens: true }] });
    }
    // A field gone is not provably a tightening either.
    const { writable: _gone, ...withoutWritable } = base;
    expect(judgeSandbox(base, withoutWritable).tightens).toBe(false);
  });

  it('each tightening applies: filesystem stricter, a writable folder removed, a denied path added, network narrower or off, required on', () => {
    const cases: [Record<string, unknown>, Record<string, unknown>, string[]][] = [
      [base, { ...base, filesystem: 'read-only' }, ['sandbox.filesystem project → read-only']],
      [base, { ...base, writable: [] }, ['sandbox.writable − ~/.cache']],
      [base, { ...base, denied: ['~/.ssh', '~/.aws'] }, ['sandbox.denied + ~/.aws']],
      [base, { ...base, network: [] }, ['sandbox.network − registry.npmjs.org']],
      [base, { ...base, network: 'off' }, ['sandbox.network [registry.npmjs.org] → off']],
      [{ ...base, network: 'on' }, base, ['sandbox.network on → [registry.npmjs.org]']],
      [{ ...base, required: false }, base, ['sandbox.required false → true']],
      [base, { ...base }, []],
      [undefined as unknown as Record<string, unknown>, undefined as unknown as Record<string, unknown>, []],
    ];
    for (const [before, after, texts] of cases) {
      const judged = judgeSandbox(before, after);
      expect(judged.tightens, texts.join()).toBe(true);
      expect(judged.changes.map((c) => c.text)).toEqual(texts);
    }
  });

  it('a tightening and a loosening together is a loosening, and both are named', () => {
    const judged = judgeSandbox(base, { ...base, filesystem: 'read-only', network: 'on' });
    expect(judged.tightens).toBe(false);
    expect(judged.changes).toEqual([
      { setting: 'sandbox', text: 'sandbox.filesystem project → read-only', loosens: false },
      { setting: 'sandbox', text: 'sandbox.network [registry.npmjs.org] → on', loosens: true },
    ]);
  });
});
