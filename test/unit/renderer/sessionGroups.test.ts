import { describe, expect, it } from 'vitest';
import { groupSessions, machineSections } from '../../../renderer/src/sessionGroups.js';
import { agentSession, entry, personSession } from './fixtures.js';

const claudeOld = entry(agentSession('c1', { created_at: '2026-01-01T10:00:00Z', cwd: '/home/ada/src/app' }));
const claudeNew = entry(agentSession('c2', { created_at: '2026-01-01T11:00:00Z', cwd: '/srv/api' }));
const cursor = entry(agentSession('k1', { creator: { kind: 'agent', client: 'cursor 0.47' }, created_at: '2026-01-01T09:00:00Z', cwd: '/srv/api' }));
const aider = entry(agentSession('a1', { creator: { kind: 'agent', client: 'aider' }, created_at: '2026-01-01T12:00:00Z', cwd: null }));
const mine = entry(personSession('p1', { created_at: '2026-01-01T08:00:00Z', cwd: '/home/ada/src/app' }));

describe('grouping the sidebar', () => {
  it('by agent: one group per client (without its version), alphabetically, the person’s own last; oldest session first', () => {
    const groups = groupSessions([mine, claudeNew, cursor, claudeOld, aider], 'agent');
    expect(groups.map((group) => [group.key, group.title, group.detail, group.entries.map((e) => e.info.id)])).toEqual([
      ['agent:aider', 'aider', 'Agent: aider', ['a1']],
      ['agent:claude-code 1.2.3', 'claude-code', 'Agent: claude-code 1.2.3', ['c1', 'c2']],
      ['agent:cursor 0.47', 'cursor', 'Agent: cursor 0.47', ['k1']],
      ['user', 'You', 'Sessions you opened', ['p1']],
    ]);
  });

  it('by folder: one group per cwd (short path as title, the full one as tooltip), alphabetically; an unknown folder too', () => {
    const groups = groupSessions([mine, claudeNew, cursor, claudeOld, aider], 'folder');
    // Titles in the locale's order (punctuation weighs least): '—', '/srv/api', '~/src/app'.
    expect(groups.map((group) => [group.key, group.title, group.detail, group.entries.map((e) => e.info.id)])).toEqual([
      ['cwd:', '—', 'Folder not reported yet', ['a1']],
      ['cwd:/srv/api', '/srv/api', '/srv/api', ['k1', 'c2']],
      ['cwd:/home/ada/src/app', '~/src/app', '/home/ada/src/app', ['p1', 'c1']],
    ]);
  });

  it('nothing to group: no groups', () => {
    expect(groupSessions([], 'agent')).toEqual([]);
  });

  it("by machine: this one first, then every remote in settings' order (even without sessions), a removed remote's sessions under their host", () => {
    const devbox = entry(agentSession('devbox:d1', { host: 'devbox' }));
    const gone = entry(agentSession('old:o1', { host: 'old' }));
    const remotes = [
      {
        name: 'gpu',
        destination: 'gpu.lan',
        state: 'disconnected' as const,
        since: '2026-01-01T00:00:00Z',
        problem: { code: 'unreachable', message: 'gpu.lan does not answer' },
      },
      { name: 'devbox', destination: 'ada@devbox', state: 'connected' as const, since: '2026-01-01T00:00:00Z' },
    ];
    const sections = machineSections([devbox, mine, gone, claudeOld], remotes);
    expect(sections.map((section) => [section.key, section.title, section.remote?.state, section.entries.map((e) => e.info.id)])).toEqual([
      ['local', 'This machine', undefined, ['p1', 'c1']],
      ['gpu', 'gpu', 'disconnected', []],
      ['devbox', 'devbox', 'connected', ['devbox:d1']],
      ['old', 'old', undefined, ['old:o1']],
    ]);
  });
});
