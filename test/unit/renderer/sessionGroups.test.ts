import { describe, expect, it } from 'vitest';
import { groupSessions } from '../../../renderer/src/sessionGroups.js';
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
});
