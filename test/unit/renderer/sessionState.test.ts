import { describe, expect, it } from 'vitest';
import { UI_PROTOCOL_VERSION, type HubMessage, type UiSession } from '../../../src/ui-protocol/index.js';
import { initialState, MAX_AUTO_TABS, reduce, type Effect, type SessionEvent, type SessionState } from '../../../renderer/src/sessionState.js';
import { agentSession, personSession, record } from './fixtures.js';

/** Reduces events in order from `state`; the last transition's effects, and every effect on the way. */
function run(state: SessionState, ...events: SessionEvent[]): { state: SessionState; effects: Effect[]; all: Effect[] } {
  let effects: Effect[] = [];
  const all: Effect[] = [];
  for (const event of events) {
    const before = structuredClone(state);
    const next = reduce(state, event);
    // Pure: the state it was given is never changed.
    expect(state).toEqual(before);
    state = next.state;
    effects = next.effects;
    all.push(...effects);
  }
  return { state, effects, all };
}

let clock = 0;
const hub = (message: HubMessage, now = (clock += 10)): SessionEvent => ({ type: 'hub', message, now });
const listed = (...sessions: UiSession[]): SessionEvent => hub({ type: 'sessions', sessions });
const changed = (session: UiSession): SessionEvent => hub({ type: 'sessionChanged', session });
const connected: SessionEvent = { type: 'connection', status: 'open' };
const sends = (effects: Effect[]): unknown[] => effects.flatMap((effect) => (effect.type === 'send' ? [effect.message] : []));
const toasts = (effects: Effect[]): string[] => effects.flatMap((effect) => (effect.type === 'toast' ? [`${effect.tone}: ${effect.text}`] : []));

/** Connected, with the hub's first list of `sessions`. */
function withList(...sessions: UiSession[]): SessionState {
  return run(initialState(), connected, listed(...sessions)).state;
}

describe('the session state: connection', () => {
  it('starts connecting, with nothing known and nothing open', () => {
    const state = initialState();
    expect(state).toMatchObject({ connection: 'connecting', welcome: null, tabs: [], active: null, listReceived: false, settingsOpen: false });
    expect(state.sessions.size).toBe(0);
  });

  it('on open says hello and subscribes every open tab again (a new connection has no subscriptions)', () => {
    const open = withList(agentSession('a'), agentSession('b'));
    const dropped = run(open, { type: 'connection', status: 'closed' });
    expect(dropped.state.connection).toBe('closed');
    expect(dropped.effects).toEqual([]);
    const again = run(dropped.state, connected);
    expect(sends(again.effects)).toEqual([
      { type: 'hello', protocol: UI_PROTOCOL_VERSION },
      { type: 'subscribe', session: 'a' },
      { type: 'subscribe', session: 'b' },
    ]);
  });

  it('on open with the settings page showing asks for the hub’s settings too', () => {
    const shown = run(initialState(), { type: 'showSettings', show: true }, connected);
    expect(sends(shown.effects)).toEqual([{ type: 'hello', protocol: UI_PROTOCOL_VERSION }, { type: 'getSettings' }]);
  });

  it('keeps the welcome (version, flow control)', () => {
    const welcome = { type: 'welcome', protocol: 2, version: '0.1.0', flow: { ackEvery: 5000, highWatermark: 100000, lowWatermark: 5000 } } as const;
    expect(run(initialState(), hub(welcome)).state.welcome).toEqual(welcome);
  });
});

describe('the session state: the hub’s list', () => {
  it('the first list opens a tab for each live session, the first in front, subscribing each (not the ended ones)', () => {
    const { state, all } = run(initialState(), connected, listed(agentSession('a'), agentSession('x', { state: 'exited', exit_code: 0 }), personSession('p')));
    expect(state.tabs).toEqual(['a', 'p']);
    expect(state.active).toBe('a');
    expect([...state.sessions.keys()]).toEqual(['a', 'x', 'p']);
    expect(sends(all).filter((message) => (message as { type: string }).type === 'subscribe')).toEqual([
      { type: 'subscribe', session: 'a' },
      { type: 'subscribe', session: 'p' },
    ]);
    // Coming to front by itself neither steals the keyboard nor asks for focus.
    expect(all.filter((effect) => effect.type === 'focus')).toEqual([]);
    expect(all).toContainEqual({ type: 'activated', session: 'a' });
  });

  it('the first list opens at most MAX_AUTO_TABS tabs by itself', () => {
    const many = Array.from({ length: MAX_AUTO_TABS + 3 }, (_, index) => agentSession(`s${index}`));
    const state = withList(...many);
    expect(state.tabs).toHaveLength(MAX_AUTO_TABS);
    expect(state.sessions.size).toBe(MAX_AUTO_TABS + 3);
  });

  it('no tab is subscribed while disconnected (the connection’s open subscribes them)', () => {
    const { state, all } = run(initialState(), listed(agentSession('a')));
    expect(state.tabs).toEqual(['a']);
    expect(sends(all)).toEqual([]);
  });

  it('a later list (a reconnect) opens the sessions that appeared meanwhile, also past the limit, and never reopens a closed one', () => {
    const many = Array.from({ length: MAX_AUTO_TABS + 2 }, (_, index) => agentSession(`s${index}`));
    let state = withList(...many);
    state = run(state, { type: 'closeTab', session: 's0' }).state;
    const later = run(state, listed(...many, agentSession('new')));
    expect(later.state.tabs).not.toContain('s0');
    expect(later.state.tabs).not.toContain(`s${MAX_AUTO_TABS}`); // heard of before: not opened now either
    expect(later.state.tabs.at(-1)).toBe('new');
  });

  it('a session missing from a later list is removed: its records go, its tab closes without unsubscribing', () => {
    let state = withList(agentSession('a'), agentSession('b'));
    state = run(state, hub({ type: 'commands', session: 'b', records: [record(1)] })).state;
    const { state: next, effects } = run(state, listed(agentSession('a')));
    expect([...next.sessions.keys()]).toEqual(['a']);
    expect(next.records.has('b')).toBe(false);
    expect(next.tabs).toEqual(['a']);
    expect(sends(effects).filter((message) => (message as { type: string }).type === 'unsubscribe')).toEqual([]);
  });

  it('keeps when each session’s record arrived (running times count from it)', () => {
    const { state } = run(initialState(), hub({ type: 'sessions', sessions: [agentSession('a', { state: 'running', running_ms: 2_000 })] }, 1_234));
    expect(state.sessions.get('a')).toEqual({ info: expect.objectContaining({ id: 'a', running_ms: 2_000 }), receivedAt: 1_234 });
  });
});

describe('the session state: sessions as they change', () => {
  it('a new live session opens a tab behind the one in front; an ended or a known one does not', () => {
    let state = withList(agentSession('a'));
    const { state: next, effects } = run(state, changed(agentSession('b')));
    expect(next.tabs).toEqual(['a', 'b']);
    expect(next.active).toBe('a');
    expect(sends(effects)).toEqual([{ type: 'subscribe', session: 'b' }]);
    state = run(next, changed(agentSession('c', { state: 'exited', exit_code: 1 }))).state;
    expect(state.tabs).toEqual(['a', 'b']);
    expect(state.sessions.has('c')).toBe(true);
  });

  it('the first session heard of comes to front (nothing else is there)', () => {
    const { state } = run(initialState(), connected, listed(), changed(agentSession('a')));
    expect(state.active).toBe('a');
  });

  it('an update replaces the session’s record, the tabs stay as they are', () => {
    let state = withList(agentSession('a'), agentSession('b'));
    state = run(state, { type: 'closeTab', session: 'b' }).state;
    const { state: next, effects } = run(state, changed(agentSession('b', { state: 'running', command: 'make' })));
    expect(next.sessions.get('b')?.info).toMatchObject({ state: 'running', command: 'make' });
    expect(next.tabs).toEqual(['a']);
    expect(effects).toEqual([]);
  });

  it('a removed session goes with its tab; the next tab comes to front', () => {
    const state = withList(agentSession('a'), agentSession('b'), agentSession('c'));
    const { state: next, effects } = run(state, hub({ type: 'sessionRemoved', id: 'a' }));
    expect(next.sessions.has('a')).toBe(false);
    expect(next.tabs).toEqual(['b', 'c']);
    expect(next.active).toBe('b');
    expect(effects).toEqual([{ type: 'activated', session: 'b' }]);
  });

  it('a frame in a tab behind another marks it as active until it comes to front; one in front, or in no tab, does not', () => {
    let state = withList(agentSession('a'), agentSession('b'), agentSession('x', { state: 'exited', exit_code: 0 }));
    const frame = (session: string): SessionEvent => hub({ type: 'frame', session, seq: 1, end: 10, data: new Uint8Array([65]) });
    const same = run(state, frame('a'));
    expect(same.state).toBe(state); // nothing changed: the same object
    expect(run(state, frame('x')).state).toBe(state);
    state = run(state, frame('b')).state;
    expect([...state.activity]).toEqual(['b']);
    expect(run(state, frame('b')).state).toBe(state);
    state = run(state, { type: 'activate', session: 'b' }).state;
    expect(state.activity.size).toBe(0);
  });

  it('snapshots and `behind` change nothing here (the views take them)', () => {
    const state = withList(agentSession('a'));
    expect(run(state, hub({ type: 'snapshot', session: 'a', seq: 1, data: '', cols: 80, rows: 24, through: 0 })).state).toBe(state);
    expect(run(state, hub({ type: 'behind', session: 'a' })).state).toBe(state);
  });
});

describe('the session state: the timeline', () => {
  it('keeps a session’s records in seq order; a finished command replaces its running record or joins the end', () => {
    let state = withList(agentSession('a'));
    state = run(state, hub({ type: 'commands', session: 'a', records: [record(3), record(1), record(2, { ended_at: null, exit_code: null })] })).state;
    expect(state.records.get('a')?.map((r) => r.seq)).toEqual([1, 2, 3]);
    const before = state.records.get('a');
    state = run(state, hub({ type: 'command', session: 'a', record: record(2, { exit_code: 1 }) })).state;
    expect(state.records.get('a')?.map((r) => [r.seq, r.exit_code])).toEqual([
      [1, 0],
      [2, 1],
      [3, 0],
    ]);
    expect(before?.[1]?.exit_code).toBeNull(); // the list it had is untouched
    state = run(state, hub({ type: 'command', session: 'a', record: record(4) })).state;
    expect(state.records.get('a')?.map((r) => r.seq)).toEqual([1, 2, 3, 4]);
  });

  it('a command of a session with no list yet starts one', () => {
    const state = run(withList(agentSession('a')), hub({ type: 'command', session: 'a', record: record(7) })).state;
    expect(state.records.get('a')?.map((r) => r.seq)).toEqual([7]);
  });
});

describe('the session state: tabs the person opens, brings to front and closes', () => {
  it('opening a session’s tab (a sidebar row) subscribes, brings it to front and focuses it', () => {
    let state = withList(agentSession('a'), agentSession('x', { state: 'exited', exit_code: 0 }));
    const { state: next, effects } = run(state, { type: 'openTab', session: 'x' });
    expect(next.tabs).toEqual(['a', 'x']);
    expect(next.active).toBe('x');
    expect(effects).toEqual([
      { type: 'send', message: { type: 'subscribe', session: 'x' } },
      { type: 'activated', session: 'x' },
      { type: 'focus', session: 'x' },
    ]);
    // An open tab is brought to front, not subscribed twice.
    state = run(next, { type: 'activate', session: 'a' }).state;
    expect(run(state, { type: 'openTab', session: 'x' }).effects).toEqual([
      { type: 'activated', session: 'x' },
      { type: 'focus', session: 'x' },
    ]);
  });

  it('a session the hub has not listed opens no tab', () => {
    const state = withList(agentSession('a'));
    expect(run(state, { type: 'openTab', session: 'nope' })).toEqual({ state, effects: [], all: [] });
  });

  it('bringing a tab to front (again) focuses it; a session without a tab is not brought to front', () => {
    const state = withList(agentSession('a'), agentSession('b'));
    const { state: next, effects } = run(state, { type: 'activate', session: 'b' });
    expect(next.active).toBe('b');
    expect(effects).toEqual([
      { type: 'activated', session: 'b' },
      { type: 'focus', session: 'b' },
    ]);
    expect(run(next, { type: 'activate', session: 'b' }).effects).toEqual(effects);
    expect(run(next, { type: 'activate', session: 'gone' }).state).toBe(next);
  });

  it('closing a tab unsubscribes; closing the one in front brings its right neighbour (else the left one) to front, unfocused', () => {
    let state = withList(agentSession('a'), agentSession('b'), agentSession('c'));
    state = run(state, { type: 'activate', session: 'b' }).state;
    let step = run(state, { type: 'closeTab', session: 'b' });
    expect(step.state.tabs).toEqual(['a', 'c']);
    expect(step.state.active).toBe('c');
    expect(step.effects).toEqual([
      { type: 'send', message: { type: 'unsubscribe', session: 'b' } },
      { type: 'activated', session: 'c' },
    ]);
    step = run(step.state, { type: 'closeTab', session: 'c' });
    expect(step.state.active).toBe('a');
    step = run(step.state, { type: 'closeTab', session: 'a' });
    expect(step.state).toMatchObject({ tabs: [], active: null });
    expect(step.state.sessions.size).toBe(3); // the sessions keep running
  });

  it('closing a tab behind another keeps the one in front; closing no tab changes nothing', () => {
    const state = withList(agentSession('a'), agentSession('b'));
    const { state: next, effects } = run(state, { type: 'closeTab', session: 'b' });
    expect(next.active).toBe('a');
    expect(effects).toEqual([{ type: 'send', message: { type: 'unsubscribe', session: 'b' } }]);
    expect(run(next, { type: 'closeTab', session: 'b' }).state).toBe(next);
  });

  it('a terminal the person opened comes to front, focused, once the hub says it is done', () => {
    let state = withList(agentSession('a'));
    state = run(state, changed(personSession('p'))).state;
    expect(state.active).toBe('a');
    const { state: next, effects } = run(state, hub({ type: 'done', for: 'openTerminal', session: 'p' }));
    expect(next.active).toBe('p');
    expect(effects).toEqual([
      { type: 'activated', session: 'p' },
      { type: 'focus', session: 'p' },
    ]);
  });
});

describe('the session state: the app’s commands (tray, notifications)', () => {
  it('Watch brings a listed session’s tab to front (closing the settings page)', () => {
    let state = withList(agentSession('a'), agentSession('x', { state: 'exited', exit_code: 0 }));
    state = run(state, { type: 'showSettings', show: true }).state;
    const { state: next, effects } = run(state, { type: 'appCommand', command: { type: 'watch', session: 'x' } });
    expect(next).toMatchObject({ active: 'x', settingsOpen: false, watchWhenListed: null });
    expect(effects).toContainEqual({ type: 'focus', session: 'x' });
  });

  it('Watch of a session not listed yet opens its tab as soon as the hub lists it', () => {
    let state = withList(agentSession('a'));
    state = run(state, { type: 'appCommand', command: { type: 'watch', session: 'p' } }).state;
    expect(state).toMatchObject({ active: 'a', watchWhenListed: 'p' });
    const { state: next, effects } = run(state, changed(personSession('p')));
    expect(next).toMatchObject({ active: 'p', watchWhenListed: null, tabs: ['a', 'p'] });
    expect(effects).toContainEqual({ type: 'focus', session: 'p' });
  });

  it('Settings opens the settings page and asks the hub for its settings', () => {
    const { state, effects } = run(withList(), { type: 'appCommand', command: { type: 'settings' } });
    expect(state.settingsOpen).toBe(true);
    expect(sends(effects)).toEqual([{ type: 'getSettings' }]);
  });

  it('keeps the app’s notification settings', () => {
    const settings = { notifications: true, notifyAfterMs: 60_000 };
    expect(run(initialState(), { type: 'notificationSettings', settings }).state.notificationSettings).toEqual(settings);
  });
});

describe('the session state: the settings page and the hub’s answers', () => {
  const refused: HubMessage = { type: 'error', code: 'BAD_SETTING', message: 'maxLines must be at most 10000', for: 'setSettings' };

  it('opening it clears the last refusal and asks for the hub’s settings (only while connected); closing asks nothing', () => {
    let state = run(initialState(), hub(refused)).state;
    expect(state.hubSettingsError).toBe('maxLines must be at most 10000');
    const offline = run(state, { type: 'showSettings', show: true });
    expect(offline.state).toMatchObject({ settingsOpen: true, hubSettingsError: null });
    expect(offline.effects).toEqual([]);
    state = run(offline.state, { type: 'showSettings', show: false }, connected).state;
    expect(sends(run(state, { type: 'showSettings', show: true }).effects)).toEqual([{ type: 'getSettings' }]);
    expect(run(state, { type: 'showSettings', show: false }).effects).toEqual([]);
  });

  it('a refused change shows on the page when it is open, as a toast when it is not', () => {
    const open = run(initialState(), { type: 'showSettings', show: true }).state;
    const onPage = run(open, hub(refused));
    expect(onPage.state.hubSettingsError).toBe('maxLines must be at most 10000');
    expect(toasts(onPage.effects)).toEqual([]);
    const closed = run(initialState(), hub(refused));
    expect(toasts(closed.effects)).toEqual(['error: BAD_SETTING: maxLines must be at most 10000']);
  });

  it('a change clears the refusal and sends that one setting', () => {
    const state = run(initialState(), { type: 'showSettings', show: true }, hub(refused)).state;
    const { state: next, effects } = run(state, { type: 'changeHubSetting', key: 'maxLines', value: 4 });
    expect(next.hubSettingsError).toBeNull();
    expect(sends(effects)).toEqual([{ type: 'setSettings', changes: { maxLines: 4 } }]);
  });

  it('keeps the hub’s settings as it last told them', () => {
    const settings: HubMessage = { type: 'hubSettings', file: '/s/settings.json', settings: [] };
    expect(run(initialState(), hub(settings)).state.hubSettings).toEqual(settings);
  });
});

describe('the session state: what the hub says done or refused', () => {
  it('a kill that stopped something, or found nothing, says so', () => {
    const state = withList(agentSession('a'));
    expect(toasts(run(state, hub({ type: 'done', for: 'kill', session: 'a', ended_by: 'SIGTERM' })).effects)).toEqual(['info: Stopped by SIGTERM.']);
    expect(toasts(run(state, hub({ type: 'done', for: 'kill', session: 'a', ended_by: null })).effects)).toEqual(['info: Nothing was running.']);
  });

  it('keeps the settings change that waits for the person until the hub says none does; confirm and discard say what happened', () => {
    const held = {
      id: 'h1',
      settings: ['policy'],
      changes: [{ setting: 'policy', source: 'settings.json' as const, text: 'policy rule 0 `rm -rf *` deny → removed', loosens: true }],
    };
    const waiting = run(initialState(), hub({ type: 'heldSettings', held }));
    expect(waiting.state.heldSettings).toEqual(held);
    expect(run(waiting.state, hub({ type: 'heldSettings', held: null })).state.heldSettings).toBeNull();
    expect(toasts(run(waiting.state, hub({ type: 'done', for: 'confirmSettings' })).effects)).toEqual(['info: The settings change is in force.']);
    expect(toasts(run(waiting.state, hub({ type: 'done', for: 'discardSettings' })).effects)).toEqual([
      'info: Discarded: settings.json holds what is in force again.',
    ]);
    expect(toasts(run(waiting.state, hub({ type: 'error', code: 'NOT_WAITING', message: 'edited again', for: 'confirmSettings' })).effects)).toEqual([
      'error: NOT_WAITING: edited again',
    ]);
  });

  it('a replaced token says HTTP clients need the new one', () => {
    expect(toasts(run(initialState(), hub({ type: 'tokenRotated' })).effects)).toEqual([
      'info: The hub’s token was replaced: HTTP clients need the new one from the state directory.',
    ]);
  });

  it('a refused take over drops the keys waiting for it and says why', () => {
    const { effects } = run(withList(agentSession('a')), hub({ type: 'error', code: 'SESSION_NOT_FOUND', message: 'gone', for: 'takeOver', session: 'a' }));
    expect(effects).toEqual([
      { type: 'takeOverRefused', session: 'a' },
      { type: 'toast', text: 'SESSION_NOT_FOUND: gone', tone: 'error' },
    ]);
  });

  it('a refused ack is not worth a word (a tab closed while its frames were acknowledged)', () => {
    expect(run(initialState(), hub({ type: 'error', code: 'NOT_SUBSCRIBED', message: 'x', for: 'ack', session: 'a' })).effects).toEqual([]);
  });

  it('other done messages change nothing', () => {
    const state = withList(agentSession('a'));
    for (const done of ['interrupt', 'handBack', 'takeOver', 'close'] as const)
      expect(run(state, hub({ type: 'done', for: done, session: 'a' }))).toEqual({ state, effects: [], all: [] });
  });
});

describe('the session state: approvals no session shows', () => {
  it('keeps the hub’s list of them (an agent’s open waiting for the person), replaced whole each time, without opening a tab', () => {
    const approval = {
      id: 'ap-1',
      tool: 'open' as const,
      command: 'echo hi',
      cwd: '/tmp',
      client: 'agent 1.0',
      rule: null,
      reason: 'asked',
      asked_at: '2030-01-01T00:00:00Z',
    };
    const { state, effects } = run(withList(), hub({ type: 'approvals', approvals: [approval] }));
    expect(state.newApprovals).toEqual([approval]);
    expect(state.tabs).toEqual([]);
    expect(effects).toEqual([]);
    expect(run(state, hub({ type: 'approvals', approvals: [] })).state.newApprovals).toEqual([]);
  });

  it("keeps the hub's list of remotes, as it last said it (docs/design.md §4.7)", () => {
    const remotes = [
      {
        name: 'devbox',
        destination: 'ada@devbox',
        state: 'disconnected' as const,
        since: '2026-01-01T00:00:00Z',
        problem: { code: 'key_refused', message: 'refused' },
      },
    ];
    const { state } = run(initialState(), connected, hub({ type: 'remotes', remotes }));
    expect(state.remotes).toEqual(remotes);
    expect(run(state, hub({ type: 'remotes', remotes: [] })).state.remotes).toEqual([]);
  });
});
