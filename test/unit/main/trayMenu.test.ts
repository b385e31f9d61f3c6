/**
 * The tray menu model and icon state (docs/design.md §5.1): pure functions of the hub's sessions.
 */
import { describe, expect, it } from 'vitest';
import type { UiSession } from '../../../src/ui-protocol/index.js';
import { HOSTS } from '../../../src/hub/hostConfig/hostConfig.js';
import {
  MCP_HOSTS,
  buildTrayMenu,
  formatDuration,
  sessionAttention,
  trayIconState,
  trayToolTip,
  type MenuItemModel,
  type MenuModel,
} from '../../../main/trayMenu.js';

let counter = 0;
function session(overrides: Partial<UiSession> = {}): UiSession {
  counter += 1;
  return {
    id: `s${counter}`,
    name: null,
    creator: { kind: 'agent', client: 'claude-code 1.0.3' },
    controller: 'agent',
    state: 'idle',
    cwd: '/home/dev/project',
    command: null,
    running_ms: null,
    last_exit_code: null,
    exit_code: null,
    rows: 32,
    cols: 120,
    pid: 1000 + counter,
    program: '/bin/bash',
    title: '',
    created_at: `2025-01-01T00:00:${String(counter).padStart(2, '0')}.000Z`,
    ...overrides,
  };
}

type Item = Extract<MenuItemModel, { kind: 'item' }>;
const items = (menu: MenuModel): Item[] => menu.filter((i): i is Item => i.kind === 'item');
const byId = (menu: MenuModel, id: string): Item => {
  const found = items(menu).find((i) => i.id === id);
  if (!found)
    throw new Error(
      `no item ${id} in ${items(menu)
        .map((i) => i.id)
        .join(', ')}`,
    );
  return found;
};
/** The menu as `label` lines, `---` for separators (what a person reads, in order). */
const outline = (menu: MenuModel): string[] => menu.map((i) => (i.kind === 'separator' ? '---' : i.label));
const OPTIONS = { startAtLogin: false, startAtLoginSupported: true };

describe('buildTrayMenu', () => {
  it('with no sessions: Open, "No sessions", then the fixed items in docs/design.md §5.1 order', () => {
    const menu = buildTrayMenu([], OPTIONS);
    expect(outline(menu)).toEqual([
      'Open Switchboard',
      '---',
      'No sessions',
      '---',
      'New terminal',
      'Copy MCP config',
      'Settings…',
      'Start at login',
      '---',
      'Quit Switchboard',
    ]);
    expect(byId(menu, 'no-sessions').enabled).toBe(false);
    expect(byId(menu, 'newTerminal').action).toEqual({ type: 'newTerminal' });
    expect(byId(menu, 'settings').action).toEqual({ type: 'settings' });
    expect(byId(menu, 'quit').action).toEqual({ type: 'quit' });
    expect(byId(menu, 'open').action).toEqual({ type: 'open' });
  });

  it('a settings change waiting for the person: an item under Open that opens the settings, its changes in the tooltip', () => {
    const menu = buildTrayMenu([], { ...OPTIONS, settingsWaiting: ['policy rule 0 `rm -rf *` deny → removed', 'maxLines 200 → 7'] });
    expect(outline(menu).slice(0, 3)).toEqual(['Open Switchboard', 'Settings change waiting — review…', '---']);
    expect(byId(menu, 'settingsWaiting')).toMatchObject({
      enabled: true,
      action: { type: 'settings' },
      toolTip: 'policy rule 0 `rm -rf *` deny → removed; maxLines 200 → 7',
    });
    expect(outline(buildTrayMenu([], { ...OPTIONS, settingsWaiting: [] })).slice(0, 2)).toEqual(['Open Switchboard', '---']);
  });

  it('Copy MCP config has one item per host switchboard config knows', () => {
    const copy = byId(buildTrayMenu([], OPTIONS), 'copyMcpConfig');
    expect(copy.action).toBeUndefined();
    expect(items(copy.submenu ?? []).map((i) => [i.label, i.action])).toEqual([
      ['Claude Code', { type: 'copyMcpConfig', host: 'claude-code' }],
      ['Cursor', { type: 'copyMcpConfig', host: 'cursor' }],
      ['Claude Desktop', { type: 'copyMcpConfig', host: 'claude-desktop' }],
      ['VS Code', { type: 'copyMcpConfig', host: 'vscode' }],
      ['Codex CLI', { type: 'copyMcpConfig', host: 'codex' }],
      ['Gemini CLI', { type: 'copyMcpConfig', host: 'gemini' }],
      ['Windsurf', { type: 'copyMcpConfig', host: 'windsurf' }],
      ['Zed', { type: 'copyMcpConfig', host: 'zed' }],
    ]);
    // Every host of `switchboard config`, so the menu cannot fall behind it.
    expect(MCP_HOSTS.map((h) => h.host).sort()).toEqual([...HOSTS].sort());
  });

  it('Start at login is a checkbox reflecting the setting, disabled where the OS has no login items', () => {
    expect(byId(buildTrayMenu([], { startAtLogin: true, startAtLoginSupported: true }), 'startAtLogin')).toMatchObject({
      checked: true,
      enabled: true,
      action: { type: 'toggleStartAtLogin' },
    });
    expect(byId(buildTrayMenu([], { startAtLogin: false, startAtLoginSupported: false }), 'startAtLogin')).toMatchObject({ checked: false, enabled: false });
  });

  it('lists every session with agent badge, client name, state, running command and time', () => {
    const idle = session();
    const running = session({ state: 'running', command: 'npm test', running_ms: 65_000 });
    const awaiting = session({ state: 'awaiting_input', command: 'npm init', running_ms: 3_000 });
    const secret = session({
      state: 'awaiting_input',
      secret: true,
      command: 'sudo apt update',
      running_ms: 12_000,
      creator: { kind: 'agent', client: 'cursor 0.42' },
    });
    const failed = session({ last_exit_code: 2 });
    const exited = session({ state: 'exited', exit_code: 0, closed_at: '2025-01-01T01:00:00.000Z' });
    const mine = session({ creator: { kind: 'user' }, controller: 'user' });
    const takenOver = session({ controller: 'user', state: 'running', command: 'vim notes.md', running_ms: 125_000 });
    const menu = buildTrayMenu([idle, running, awaiting, secret, failed, exited, mine, takenOver], OPTIONS);

    const label = (s: UiSession): string => byId(menu, `session:${s.id}`).label;
    expect(label(idle)).toBe('🤖 claude-code 1.0.3 — idle');
    expect(label(running)).toBe('🤖 claude-code 1.0.3 — running · npm test · 1m 05s');
    expect(label(awaiting)).toBe('🤖 claude-code 1.0.3 — waiting for input · npm init · 3.0 s');
    expect(label(secret)).toBe('🤖 cursor 0.42 — needs you: password prompt · sudo apt update · 12 s');
    expect(label(failed)).toBe('🤖 claude-code 1.0.3 — idle · last command failed (2)');
    expect(label(exited)).toBe('🤖 claude-code 1.0.3 — exited (0)');
    expect(label(mine)).toBe('👤 You — idle');
    expect(label(takenOver)).toBe('🤖 claude-code 1.0.3 — running · vim notes.md · 2m 05s · you have control');

    // Order: those needing the person first, then agents' live sessions, the person's, ended.
    const order = items(menu)
      .filter((i) => i.id.startsWith('session:'))
      .map((i) => i.id.slice('session:'.length));
    expect(order).toEqual([awaiting.id, secret.id, failed.id, idle.id, running.id, takenOver.id, mine.id, exited.id]);
    // Sessions, then one stop item per agent client, sit between Open and New terminal, framed by separators.
    const lines = outline(menu);
    expect(lines.slice(0, 2)).toEqual(['Open Switchboard', '---']);
    expect(lines.slice(10)).toEqual([
      'Stop everything claude-code 1.0.3 started (5 sessions)',
      'Stop everything cursor 0.42 started (1 session)',
      '---',
      'New terminal',
      'Copy MCP config',
      'Settings…',
      'Start at login',
      '---',
      'Quit Switchboard',
    ]);
  });

  it('each session has Watch, Take over / Hand back, Interrupt, Kill, Close, enabled by state', () => {
    const idle = session();
    const running = session({ state: 'running', command: 'sleep 100', running_ms: 1_000 });
    const awaiting = session({ state: 'awaiting_input', command: 'read x', running_ms: 1_000 });
    const takenOver = session({ controller: 'user', state: 'running', command: 'top', running_ms: 1_000 });
    const mine = session({ creator: { kind: 'user' }, controller: 'user' });
    const exited = session({ state: 'exited', exit_code: 1 });
    const menu = buildTrayMenu([idle, running, awaiting, takenOver, mine, exited], OPTIONS);
    const sub = (s: UiSession): [string, boolean, unknown][] => items(byId(menu, `session:${s.id}`).submenu ?? []).map((i) => [i.label, i.enabled, i.action]);
    const a = (type: string, s: UiSession) => ({ type, session: s.id });

    expect(sub(idle)).toEqual([
      ['Watch', true, a('watch', idle)],
      ['Take over', true, a('takeOver', idle)],
      ['Interrupt (Ctrl-C)', false, a('interrupt', idle)],
      ['Kill', false, a('kill', idle)],
      ['Close', true, a('close', idle)],
    ]);
    expect(sub(running).map(([l, e]) => [l, e])).toEqual([
      ['Watch', true],
      ['Take over', true],
      ['Interrupt (Ctrl-C)', true],
      ['Kill', true],
      ['Close', true],
    ]);
    expect(sub(awaiting).map(([l, e]) => [l, e])).toEqual(sub(running).map(([l, e]) => [l, e]));
    expect(sub(takenOver)[1]).toEqual(['Hand back', true, a('handBack', takenOver)]);
    expect(sub(mine)[1]).toEqual(['Hand to agents', true, a('handBack', mine)]);
    expect(sub(exited)).toEqual([
      ['Watch', true, a('watch', exited)],
      ['Take over', false, a('takeOver', exited)],
      ['Interrupt (Ctrl-C)', false, a('interrupt', exited)],
      ['Kill', false, a('kill', exited)],
      ['Remove from list', true, a('close', exited)],
    ]);
  });

  it('offers to stop everything each agent client started, counting only its live sessions', () => {
    const a1 = session({ creator: { kind: 'agent', client: 'cursor 2' } });
    const a2 = session({ creator: { kind: 'agent', client: 'cursor 2' }, state: 'running', command: 'make', running_ms: 5 });
    const ended = session({ creator: { kind: 'agent', client: 'cursor 2' }, state: 'exited', exit_code: 0 });
    const b = session({ creator: { kind: 'agent', client: 'claude-code 1.0.3' } });
    const mine = session({ creator: { kind: 'user' }, controller: 'agent' });
    const menu = buildTrayMenu([a1, a2, ended, b, mine], OPTIONS);
    const stops = items(menu).filter((i) => i.id.startsWith('stopClient:'));
    expect(stops.map((i) => [i.label, i.action])).toEqual([
      ['Stop everything claude-code 1.0.3 started (1 session)', { type: 'stopClient', client: 'claude-code 1.0.3' }],
      ['Stop everything cursor 2 started (2 sessions)', { type: 'stopClient', client: 'cursor 2' }],
    ]);
    // After the sessions, before New terminal.
    const ids = items(menu).map((i) => i.id);
    expect(ids.indexOf('stopClient:cursor 2')).toBeGreaterThan(ids.indexOf(`session:${a1.id}`));
    expect(ids.indexOf('stopClient:cursor 2')).toBeLessThan(ids.indexOf('newTerminal'));
    expect(items(buildTrayMenu([ended, mine], OPTIONS)).some((i) => i.id.startsWith('stopClient:'))).toBe(false);
  });

  it('caps the list and points to the window for the rest', () => {
    const many = Array.from({ length: 25 }, () => session());
    const menu = buildTrayMenu(many, { ...OPTIONS, maxSessions: 20 });
    expect(items(menu).filter((i) => i.id.startsWith('session:'))).toHaveLength(20);
    expect(byId(menu, 'more-sessions')).toMatchObject({ label: '… and 5 more (Open Switchboard)', action: { type: 'open' } });
  });

  it('with remotes: sessions under a heading per machine (this one first), a remote saying why it is down; Stop items per machine; a remote approval answered from the menu', () => {
    const here = session();
    const approval = {
      id: 'devbox:ap-1',
      command: 'make deploy',
      cwd: '/srv',
      client: 'claude-code 1.0.3 via laptop',
      rule: { index: 0, match: 'make deploy*' },
      reason: 'rule 0 asks',
      asked_at: '2025-01-01T00:00:00.000Z',
    };
    const there = session({ id: 'devbox:k3f9q2', host: 'devbox', approval } as Partial<UiSession>);
    const remotes = [
      { name: 'devbox', destination: 'ada@devbox', state: 'connected' as const, since: '2025-01-01T00:00:00.000Z' },
      {
        name: 'gpu',
        destination: 'gpu.lan',
        state: 'disconnected' as const,
        since: '2025-01-01T00:00:00.000Z',
        problem: { code: 'key_refused', message: 'gpu.lan refused your ssh key' },
      },
    ];
    const menu = buildTrayMenu([there, here], { ...OPTIONS, remotes });
    const ids = items(menu).map((i) => i.id);
    expect(ids.slice(1, 9)).toEqual([
      'machine:',
      `session:${here.id}`,
      'stopClient:claude-code 1.0.3',
      'machine:devbox',
      'session:devbox:k3f9q2',
      'stopClient:devbox:claude-code 1.0.3',
      'machine:gpu',
      'no-sessions:gpu',
    ]);
    expect(byId(menu, 'machine:').label).toBe('This machine');
    expect(byId(menu, 'machine:devbox')).toMatchObject({ label: 'devbox — connected', enabled: false });
    expect(byId(menu, 'machine:gpu')).toMatchObject({ label: 'gpu — disconnected: gpu.lan refused your ssh key', toolTip: 'gpu.lan refused your ssh key' });
    expect(byId(menu, 'stopClient:devbox:claude-code 1.0.3').action).toEqual({ type: 'stopClient', client: 'claude-code 1.0.3', host: 'devbox' });
    expect(byId(menu, 'session:devbox:k3f9q2').label).toContain('needs you: approve make deploy');
    const allow = byId(menu, 'session:devbox:k3f9q2').submenu!.find((i) => i.kind === 'item' && i.id === 'allowOnce:devbox:k3f9q2') as Item;
    expect(allow.action).toEqual({ type: 'answerApproval', approval: 'devbox:ap-1', answer: 'allow_once' });
    expect(trayIconState([there, here])).toBe('attention');
    expect(ids.indexOf('newTerminal')).toBeGreaterThan(ids.indexOf('no-sessions:gpu'));
  });

  it('is plain data (serializable, no functions)', () => {
    const menu = buildTrayMenu([session({ state: 'running', command: 'make', running_ms: 10 })], OPTIONS);
    expect(JSON.parse(JSON.stringify(menu))).toEqual(menu);
  });
});

describe('trayIconState', () => {
  it('idle with no sessions, or only idle / ended / the person’s own activity', () => {
    expect(trayIconState([])).toBe('idle');
    expect(trayIconState([session(), session({ state: 'exited', exit_code: 1 })])).toBe('idle');
    const mine = { creator: { kind: 'user' as const }, controller: 'user' as const };
    expect(trayIconState([session({ ...mine, state: 'running', command: 'vim' })])).toBe('idle');
    expect(trayIconState([session({ ...mine, state: 'awaiting_input', secret: true })])).toBe('idle');
    expect(trayIconState([session({ ...mine, last_exit_code: 1 })])).toBe('idle');
  });

  it('running while an agent command runs (also in the person’s session handed to agents)', () => {
    expect(trayIconState([session(), session({ state: 'running', command: 'make' })])).toBe('running');
    expect(trayIconState([session({ creator: { kind: 'user' }, controller: 'agent', state: 'running' })])).toBe('running');
  });

  it('attention for awaiting input, a secret prompt, or a failed last command; it beats running', () => {
    const running = session({ state: 'running' });
    expect(trayIconState([running, session({ state: 'awaiting_input' })])).toBe('attention');
    expect(trayIconState([running, session({ state: 'awaiting_input', secret: true })])).toBe('attention');
    expect(trayIconState([running, session({ last_exit_code: 127 })])).toBe('attention');
    // A new command clears the failure: running again is "running", success is "idle".
    expect(trayIconState([session({ state: 'running', last_exit_code: 1 })])).toBe('running');
    expect(trayIconState([session({ last_exit_code: 0 })])).toBe('idle');
  });

  it('follows one session through its states', () => {
    const s = session();
    const states: [Partial<UiSession>, string][] = [
      [{}, 'idle'],
      [{ state: 'running', command: 'npm test' }, 'running'],
      [{ state: 'awaiting_input' }, 'attention'],
      [{ state: 'awaiting_input', secret: true }, 'attention'],
      [{ state: 'running', secret: undefined }, 'running'],
      [{ state: 'idle', last_exit_code: 1 }, 'attention'],
      [{ state: 'idle', last_exit_code: 0 }, 'idle'],
      [{ state: 'exited', exit_code: 0 }, 'idle'],
    ];
    expect(states.map(([patch]) => trayIconState([{ ...s, ...patch }]))).toEqual(states.map(([, icon]) => icon));
  });

  it('sessionAttention names why', () => {
    expect(sessionAttention(session({ state: 'awaiting_input', secret: true }))).toBe('needs_you');
    expect(sessionAttention(session({ state: 'awaiting_input' }))).toBe('awaiting_input');
    expect(sessionAttention(session({ last_exit_code: 3 }))).toBe('failed');
    expect(sessionAttention(session())).toBeNull();
  });

  it('the tooltip says the same in words', () => {
    expect(trayToolTip([])).toBe('Switchboard — 0 sessions');
    expect(trayToolTip([session({ state: 'running' }), session({ state: 'awaiting_input', secret: true })])).toBe(
      'Switchboard — 2 sessions, 1 agent command running, 1 needs you',
    );
  });
});

describe('approvals no session shows (an agent’s open)', () => {
  const approval = {
    id: 'ap-1',
    tool: 'open' as const,
    command: 'rm -rf /tmp/x',
    cwd: '/home/me',
    client: 'claude-code 1.0',
    rule: { index: 0, match: 'rm -rf *' },
    reason: 'asked',
    asked_at: '2030-01-01T00:00:00Z',
  };

  it('are a row each under Open Switchboard, with Allow once, Allow for 30 min and Deny; the icon and tooltip say so', () => {
    const menu = buildTrayMenu([], {
      startAtLogin: false,
      startAtLoginSupported: true,
      approvals: [approval, { ...approval, id: 'ap-2', rule: null, unsandboxed: true, command: 'bash -l' }],
    });
    const rows = menu.filter((item): item is Extract<MenuItemModel, { kind: 'item' }> => item.kind === 'item' && item.id.startsWith('approval:'));
    expect(menu.indexOf(rows[0]!)).toBe(2);
    expect(rows.map((row) => row.label)).toEqual([
      'needs you: open rm -rf /tmp/x — claude-code 1.0',
      'needs you: open bash -l — claude-code 1.0 (outside the sandbox)',
    ]);
    expect(rows[0]!.submenu).toMatchObject([
      { id: 'allowOnce:ap-1', action: { type: 'answerApproval', approval: 'ap-1', answer: 'allow_once' } },
      { id: 'allow30m:ap-1', enabled: true, action: { answer: 'allow_30m' } },
      { id: 'deny:ap-1', action: { answer: 'deny' } },
    ]);
    // No rule asked: only once.
    expect(rows[1]!.submenu?.[1]).toMatchObject({ id: 'allow30m:ap-2', enabled: false });
    expect(rows[1]!.toolTip).toContain('outside the sandbox');
    expect(trayIconState([], [approval])).toBe('attention');
    expect(trayToolTip([], [approval])).toBe('Switchboard — 0 sessions, 1 needs you');
  });
});

describe('formatDuration', () => {
  it('reads like a person would say it', () => {
    expect(formatDuration(0)).toBe('0.0 s');
    expect(formatDuration(1_234)).toBe('1.2 s');
    expect(formatDuration(45_000)).toBe('45 s');
    expect(formatDuration(187_000)).toBe('3m 07s');
    expect(formatDuration(7_500_000)).toBe('2h 05m');
  });
});
