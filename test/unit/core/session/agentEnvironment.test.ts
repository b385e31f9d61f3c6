/**
 * What agents' sessions get, and the person's `agentEnv` over it (src/core/session/agentEnvironment.ts,
 * buildSessionEnv; docs/design.md §2.2). The behaviour with real git, man and shells is proven in
 * test/integration/agentEnvironment.test.ts; here, the rules of the setting.
 */
import { describe, expect, it } from 'vitest';
import { ErrorCode, SwitchboardError } from '../../../../src/core/errors.js';
import { AGENT_ENV_DEFAULTS, agentEnvEntryProblem, agentEnvironment } from '../../../../src/core/session/agentEnvironment.js';
import { buildSessionEnv } from '../../../../src/core/session/sessionEnv.js';

const PERSON = { PATH: '/usr/bin:/bin', EDITOR: 'vim', PAGER: 'less', GIT_PAGER: 'delta' };

describe('agent environment', () => {
  it("an agent's session gets the defaults over the person's editor and pager; the person's own session keeps them", () => {
    const agent = buildSessionEnv({ sessionId: 'abc234', creator: { kind: 'agent', client: 'x 1' }, base: PERSON });
    expect(agent).toMatchObject(AGENT_ENV_DEFAULTS);
    expect(agent).toMatchObject({ EDITOR: 'true', PAGER: 'cat', GIT_PAGER: 'cat', GIT_EDITOR: 'true', SYSTEMD_PAGER: '' });
    const person = buildSessionEnv({ sessionId: 'abc235', creator: { kind: 'user' }, base: PERSON });
    expect(person).toMatchObject({ EDITOR: 'vim', PAGER: 'less', GIT_PAGER: 'delta' });
    for (const name of ['GIT_EDITOR', 'GIT_SEQUENCE_EDITOR', 'GIT_MERGE_AUTOEDIT', 'VISUAL', 'MANPAGER', 'GH_PAGER', 'SYSTEMD_PAGER'])
      expect(person, name).not.toHaveProperty(name);
  });

  it('agentEnv: NAME=value sets (value may hold = or be empty), NAME alone keeps the inherited value or none, a later entry wins; open env wins over all', () => {
    const env = buildSessionEnv({
      sessionId: 'abc236',
      creator: { kind: 'agent', client: 'x 1' },
      base: PERSON,
      agentEnv: ['EDITOR', 'GIT_EDITOR', 'GIT_PAGER=less -R', 'EXTRA=a=b', 'EMPTY=', 'PAGER=more', 'PAGER=most'],
      extra: { PAGER: 'from-open' },
    });
    expect(env).toMatchObject({ EDITOR: 'vim', GIT_PAGER: 'less -R', EXTRA: 'a=b', EMPTY: '', PAGER: 'from-open', VISUAL: 'true' });
    expect(env).not.toHaveProperty('GIT_EDITOR');
    expect(agentEnvironment(['PAGER=more', 'PAGER=most']).PAGER).toBe('most');
  });

  it('refuses entries that are not NAME=value or NAME, or name what the shell integration needs, saying what to write', () => {
    expect(agentEnvEntryProblem('EDITOR')).toBeUndefined();
    expect(agentEnvEntryProblem('EDITOR=code --wait')).toBeUndefined();
    expect(agentEnvEntryProblem('=x')).toMatch(/must be NAME=value, or NAME alone/);
    expect(agentEnvEntryProblem('MY-VAR=1')).toMatch(/letters, digits and _/);
    expect(agentEnvEntryProblem('2X=1')).toMatch(/not starting with a digit/);
    for (const name of ['BASH_ENV', 'ZDOTDIR', 'PROMPT_COMMAND', 'LD_PRELOAD', 'SWITCHBOARD_SESSION'])
      expect(agentEnvEntryProblem(`${name}=x`), name).toMatch(new RegExp(`^${name} cannot be set`));
    expect(agentEnvEntryProblem('X=a\0b')).toMatch(/NUL byte/);
    let thrown: unknown;
    try {
      agentEnvironment(['ok=1', 'not ok']);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SwitchboardError);
    expect(thrown).toMatchObject({ code: ErrorCode.InvalidArgument, message: expect.stringMatching(/^setting agentEnv: "not ok" must be/) });
  });
});
