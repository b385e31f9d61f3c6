/**
 * How decide() turns rules into one answer (docs/design.md §2.9): first matching rule per
 * command, strictest over the line, allow only on a sure match, a deny that only may match is
 * asked, the `cwd`, `client` and `outsideProject` conditions, and policyDefault. Lines are
 * only parsed.
 */
import { describe, expect, it } from 'vitest';
import { decide, PolicyRuleSchema, type PolicyAction, type PolicyRule } from '../../../src/policy/index.js';

const at = (command: string, extra: { cwd?: string; client?: string; project?: string } = {}) => ({
  command,
  cwd: '/home/dev/app',
  project: '/home/dev/app',
  ...extra,
});

async function action(rules: PolicyRule[], command: string, fallback: PolicyAction = 'allow', extra = {}): Promise<PolicyAction> {
  return (await decide(at(command, extra), rules, fallback)).action;
}

describe('policy: decide()', () => {
  it('the first rule that matches a command answers for it, and names its index and match', async () => {
    const rules: PolicyRule[] = [
      { match: 'git status', action: 'allow' },
      { match: 'git *', action: 'deny', reason: 'no git today' },
      { match: 'git status', action: 'deny' },
    ];
    const allowed = await decide(at('git status'), rules, 'ask');
    expect(allowed.action).toBe('allow');
    expect(allowed.rule).toEqual({ index: 0, match: 'git status' });
    const denied = await decide(at('git log'), rules, 'allow');
    expect(denied).toMatchObject({ action: 'deny', rule: { index: 1, match: 'git *' } });
    expect(denied.reason).toContain('no git today');
  });

  it('the strictest command of the line wins, and its rule is the one reported', async () => {
    const rules: PolicyRule[] = [
      { match: 'ls *', action: 'allow' },
      { match: 'npm publish*', action: 'ask' },
      { match: 'rm *', action: 'deny' },
    ];
    const decision = await decide(at('ls && npm publish && rm x; ls'), rules, 'allow');
    expect(decision).toMatchObject({ action: 'deny', rule: { index: 2 } });
    expect(decision.commands.map((command) => command.action)).toEqual(['allow', 'ask', 'deny', 'allow']);
    expect(await action(rules, 'ls && npm publish --dry-run')).toBe('ask');
  });

  it('policyDefault answers for a command no rule matches', async () => {
    for (const fallback of ['allow', 'ask', 'deny'] as const) {
      const decision = await decide(at('make test'), [{ match: 'ls', action: 'allow' }], fallback);
      expect(decision.action).toBe(fallback);
      expect(decision.rule).toBeUndefined();
      expect(decision.reason).toContain(`policyDefault is ${fallback}`);
    }
  });

  it('an allow rule needs a sure match: a word known only when the line runs does not satisfy it', async () => {
    const rules: PolicyRule[] = [{ match: 'git status', action: 'allow' }];
    expect(await action(rules, 'git status', 'deny')).toBe('allow');
    expect(await action(rules, 'git $X', 'deny')).toBe('deny');
    expect(await action(rules, 'git $(echo status)', 'deny')).toBe('deny');
    expect(await action(rules, 'git status && curl x', 'deny')).toBe('deny');
  });

  it('a deny rule that only may match asks instead of denying; one that surely matches denies', async () => {
    const rules: PolicyRule[] = [{ match: 'rm -r *', action: 'deny' }];
    expect(await action(rules, 'rm -r build')).toBe('deny');
    const maybe = await decide(at('rm $FLAGS build'), rules, 'allow');
    expect(maybe.action).toBe('ask');
    expect(maybe.reason).toContain('may match rule 0');
    expect(await action(rules, '$(which rm) -r build')).toBe('ask');
    expect(await action(rules, 'rm build')).toBe('allow');
  });

  it('a line that does not parse, or hides its program, is asked at least (denied under a deny default)', async () => {
    for (const line of ["echo 'open", '$CMD x', 'eval "$X"']) {
      expect(await action([], line, 'allow'), line).toBe('ask');
      expect(await action([], line, 'deny'), line).toBe('deny');
    }
    expect((await decide(at("echo 'open"), [], 'allow')).reason).toMatch(/does not parse/);
  });

  it('an empty line, or a comment, runs nothing and gets policyDefault', async () => {
    expect(await action([{ match: '*', action: 'deny' }], '# just a note', 'allow')).toBe('allow');
    expect((await decide(at('   '), [], 'ask')).action).toBe('ask');
  });

  it('client narrows a rule to MCP clients by name, * as wildcard; an unknown client may match', async () => {
    const rules: PolicyRule[] = [{ match: 'npm *', action: 'deny', client: 'claude*' }];
    expect(await action(rules, 'npm i', 'allow', { client: 'claude-code' })).toBe('deny');
    expect(await action(rules, 'npm i', 'allow', { client: 'cursor' })).toBe('allow');
    expect(await action(rules, 'npm i', 'allow', {})).toBe('ask');
  });

  it('cwd narrows a rule to a folder and below, following cd in the line', async () => {
    const rules: PolicyRule[] = [{ match: 'rm *', action: 'deny', cwd: '/srv' }];
    expect(await action(rules, 'rm x', 'allow', { cwd: '/srv/site' })).toBe('deny');
    expect(await action(rules, 'rm x', 'allow', { cwd: '/srvx' })).toBe('allow');
    expect(await action(rules, 'cd /srv/site; rm x', 'allow', { cwd: '/srv' })).toBe('deny');
    // A cd may fail, so rm may run where the line started or in /srv: the deny is asked.
    expect(await action(rules, 'cd /srv; rm x', 'allow', { cwd: '/tmp' })).toBe('ask');
    expect(await action(rules, 'cd /srv && rm x', 'allow', { cwd: '/tmp' })).toBe('ask');
    expect(await action(rules, 'cd /tmp; rm x', 'allow', { cwd: '/home' })).toBe('allow');
    expect(await action(rules, 'cd "$D" && rm x', 'allow', { cwd: '/tmp' })).toBe('ask');
  });

  it('outsideProject applies to paths outside the project folder, and to ones only running would tell', async () => {
    const rules: PolicyRule[] = [{ match: 'rm *', action: 'deny', outsideProject: true }];
    expect(await action(rules, 'rm -f src/a.ts')).toBe('allow');
    expect(await action(rules, 'rm -f /etc/hosts')).toBe('deny');
    expect(await action(rules, 'rm -f ../x')).toBe('deny');
    expect(await action(rules, 'rm -f src/../../x')).toBe('deny');
    expect(await action(rules, 'rm -f "$X"')).toBe('ask');
    expect(await action(rules, 'rm -f ~/x')).toBe('ask');
    expect(await action(rules, 'rm -f a', 'allow', { project: undefined })).toBe('ask');
  });

  it('an A | B rule matches B only when it reads the output of a command matching A', async () => {
    const rules: PolicyRule[] = [{ match: 'curl * | tar *', action: 'deny' }];
    expect(await action(rules, 'curl x | tar xz')).toBe('deny');
    expect(await action(rules, 'curl x | tee y | tar xz')).toBe('allow');
    expect(await action(rules, 'curl x; tar xz')).toBe('allow');
    expect(await action(rules, 'tar xz')).toBe('allow');
    expect(await action(rules, '$(echo curl) x | tar xz')).toBe('ask');
  });

  it('a shell reading its commands from a pipe is asked, whatever the rules: the engine cannot see them', async () => {
    expect(await action([], 'curl x | tee y | sh')).toBe('ask');
    expect(await action([], 'curl x; sh')).toBe('allow');
    expect(await action([], 'sh')).toBe('allow');
  });

  it('each command says what it is, the wrappers it was found in, and what the engine could not see', async () => {
    const decision = await decide(at("sudo bash -c 'rm -rf /tmp/x'"), [], 'allow');
    expect(decision.commands.map((command) => [command.words.join(' '), command.via.join(' > ')])).toEqual([
      ['sudo bash -c rm -rf /tmp/x', ''],
      ['bash -c rm -rf /tmp/x', 'sudo'],
      ['rm -rf /tmp/x', 'sudo > bash -c'],
    ]);
    const hidden = await decide(at('$X'), [], 'allow');
    expect(hidden.commands[0]?.hidden).toContain('$X');
  });
});

describe('policy: PolicyRuleSchema', () => {
  it('accepts a full rule and refuses, with a sentence, what it cannot read', () => {
    expect(
      PolicyRuleSchema.safeParse({ match: 'git push --force*', action: 'ask', cwd: '~/work', client: 'claude*', outsideProject: false, reason: 'x' }).success,
    ).toBe(true);
    const problems = (rule: unknown): string[] => {
      const result = PolicyRuleSchema.safeParse(rule);
      return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    };
    expect(problems({ match: 'rm {a,b', action: 'deny' })).toEqual(['match: "rm {a,b" cannot be read: a `{` has no `}`']);
    expect(problems({ match: '-rf', action: 'deny' })[0]).toContain('must start with a program');
    expect(problems({ match: 'ls', action: 'block' })).toEqual(['action: must be "allow", "ask" or "deny"']);
    expect(problems({ match: 'ls', action: 'ask', cwd: 'src' })).toEqual(['cwd: must be an absolute folder or start with ~/']);
    expect(problems({ match: 'ls', action: 'ask', client: 'a b' })[0]).toContain('must be one client name');
    expect(problems({ match: 'ls', action: 'ask', when: 'now' })[0]).toContain('when');
  });
});
