/** The state badge a session row shows (renderer/src/sessionFormat.ts): words and tone per state. */
import { describe, expect, it } from 'vitest';
import { clientName, stateBadge, tabLabel } from '../../../renderer/src/sessionFormat.js';
import { agentSession, entry } from './fixtures.js';

describe('stateBadge', () => {
  it('says what a session awaiting input waits for: a line, keys, or the person for a secret', () => {
    const badge = (over: Parameters<typeof agentSession>[1]) => stateBadge(entry(agentSession('s1', { state: 'awaiting_input', ...over })), 0);
    expect(badge({ input_kind: 'line' })).toMatchObject({ text: 'awaiting input', tone: 'attention', title: 'The program is waiting for a line of input.' });
    expect(badge({ input_kind: 'screen' })).toMatchObject({ text: 'awaiting input', title: 'A full-screen program is waiting for keys.' });
    expect(badge({ input_kind: 'secret', secret: true })).toMatchObject({ text: 'needs you', tone: 'alert' });
    expect(badge({})).toMatchObject({ title: 'The program is waiting for input from the terminal.' });
  });

  it('an exit by a signal reads as a failure, with its code', () => {
    expect(stateBadge(entry(agentSession('s1', { state: 'exited', exit_code: 137 })), 0)).toMatchObject({ text: 'exited 137', tone: 'fail' });
    expect(stateBadge(entry(agentSession('s1', { state: 'exited', exit_code: 0 })), 0)).toMatchObject({ text: 'exited 0', tone: 'neutral' });
  });
});

describe("a remote's session (docs/design.md §4.7)", () => {
  it('its tab names the machine, and its agent by name without version or the machine it called from', () => {
    expect(clientName('claude-code 1.2.3 via laptop')).toBe('claude-code');
    expect(clientName('claude-code 1.2.3')).toBe('claude-code');
    const remote = agentSession('devbox:k3f9q2', { host: 'devbox', name: 'build', creator: { kind: 'agent', client: 'claude-code 1.2.3 via laptop' } });
    expect(tabLabel(remote)).toBe('devbox · claude-code · build');
    expect(tabLabel(agentSession('k3f9q2', { name: 'build' }))).toBe('claude-code · build');
  });
});
