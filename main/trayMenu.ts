/**
 * The tray menu as plain data (docs/design.md §5.1), built from the hub's session list by pure
 * functions: no Electron here, so every label, order and enabled flag is unit-tested.
 * `tray.ts` turns the model into an Electron `Menu` and runs the actions.
 *
 *   Open Switchboard
 *   ─────
 *   needs you: open <command> — <client>   ▸ Allow once | Allow for 30 min | Deny   …one per approval
 *                                            that no session shows yet (an agent's `open`)
 *   <badge> <client> — <state>[ · <command> · <running time>]   ▸ [Allow once | Allow for 30 min | Deny ─]
 *                                                                   Watch
 *   …one per session (agents' first, then the person's)           Take over | Hand back
 *   Stop everything <client> started (N)   …one per agent client   Interrupt
 *   ─────                                  with live sessions      Kill
 *   (with remotes, docs/design.md §4.7: the sessions and Stop items under a heading per machine,
 *    "This machine", then "<remote> — connected" / "— disconnected: <why>", settings' order)
 *   New terminal
 *   Copy MCP config ▸ Claude Code, Cursor, Claude Desktop, VS Code Close
 *   Settings…
 *   Start at login ✓
 *   ─────
 *   Quit Switchboard
 */
import type { ApprovalAnswer, UiApproval, UiNewApproval, UiRemote, UiSession } from '../src/ui-protocol/index.js';

/** The MCP hosts "Copy MCP config" offers, in menu order (`switchboard config <host>`). */
export const MCP_HOSTS = [
  { host: 'claude-code', title: 'Claude Code' },
  { host: 'cursor', title: 'Cursor' },
  { host: 'claude-desktop', title: 'Claude Desktop' },
  { host: 'vscode', title: 'VS Code' },
  { host: 'codex', title: 'Codex CLI' },
  { host: 'gemini', title: 'Gemini CLI' },
  { host: 'windsurf', title: 'Windsurf' },
  { host: 'zed', title: 'Zed' },
] as const;
type McpHost = (typeof MCP_HOSTS)[number]['host'];

/** What a menu item does when the person clicks it. */
export type TrayAction =
  | { type: 'open' }
  | { type: 'watch'; session: string }
  | { type: 'takeOver'; session: string }
  | { type: 'handBack'; session: string }
  | { type: 'interrupt'; session: string }
  | { type: 'kill'; session: string }
  | { type: 'close'; session: string }
  /** The person's answer to a command waiting for approval (docs/design.md §2.9). */
  | { type: 'answerApproval'; approval: string; answer: ApprovalAnswer }
  /** Close every live session this agent client opened (docs/design.md §2.8), here or on the remote `host`. */
  | { type: 'stopClient'; client: string; host?: string }
  | { type: 'newTerminal' }
  | { type: 'copyMcpConfig'; host: McpHost }
  | { type: 'settings' }
  | { type: 'toggleStartAtLogin' }
  | { type: 'quit' };

export type MenuItemModel =
  | { kind: 'separator' }
  | {
      kind: 'item';
      /** Stable id (`watch:k3f9q2`, `quit`): Electron's MenuItem id, and what tests look for. */
      id: string;
      label: string;
      enabled: boolean;
      /** Present only on checkbox items. */
      checked?: boolean;
      action?: TrayAction;
      submenu?: MenuItemModel[];
      toolTip?: string;
    };

export type MenuModel = MenuItemModel[];

interface TrayMenuOptions {
  startAtLogin: boolean;
  /** `app.setLoginItemSettings` works only on macOS and Windows. */
  startAtLoginSupported: boolean;
  /** How many sessions the menu lists before "… and N more" (the window lists them all). */
  maxSessions?: number;
  /**
   * A settings change that waits for the person (docs/design.md §5.5), each change named: the menu
   * says so and opens the window's settings; it is confirmed only in the window.
   */
  settingsWaiting?: readonly string[];
  /** Approvals of requests that would start a session (an agent's `open`): no session row shows them. */
  approvals?: readonly UiNewApproval[];
  /** The other machines the hub links to (docs/design.md §4.7): sessions are then listed by machine. */
  remotes?: readonly UiRemote[];
}

export type TrayIconState = 'idle' | 'running' | 'attention';

/** Why a session wants the person, or null. */
type Attention = 'needs_you' | 'awaiting_input' | 'failed' | null;

const DEFAULT_MAX_SESSIONS = 20;

/** An agent drives it: opened by an agent, or the person's own session handed to agents. */
export function agentDriven(session: UiSession): boolean {
  return session.creator.kind === 'agent' || session.controller === 'agent';
}

/**
 * Whether a session needs the person. Only sessions an agent drives count: the person's
 * own terminal waiting for the person's own typing is not news.
 *  - `needs_you`: a command waiting for the person's approval, or a secret (echo-off) prompt
 *    only the person may answer;
 *  - `awaiting_input`: the foreground program waits for the terminal;
 *  - `failed`: at its prompt after a command that exited non-zero (cleared by the next command).
 */
export function sessionAttention(session: UiSession): Attention {
  if (!agentDriven(session) || session.closed_at !== undefined) return null;
  if (session.approval) return 'needs_you';
  if (session.state === 'awaiting_input') return session.secret ? 'needs_you' : 'awaiting_input';
  if (session.state === 'idle' && session.last_exit_code !== null && session.last_exit_code !== 0) return 'failed';
  return null;
}

/** The menu-bar icon: attention beats running beats idle; only agent-driven sessions count, and approvals no session shows. */
export function trayIconState(sessions: readonly UiSession[], approvals: readonly UiNewApproval[] = []): TrayIconState {
  if (approvals.length > 0) return 'attention';
  let running = false;
  for (const session of sessions) {
    if (sessionAttention(session) !== null) return 'attention';
    if (agentDriven(session) && session.state === 'running' && session.closed_at === undefined) running = true;
  }
  return running ? 'running' : 'idle';
}

/** The tray's tooltip: one line saying what the icon means. */
export function trayToolTip(sessions: readonly UiSession[], approvals: readonly UiNewApproval[] = []): string {
  const live = sessions.filter((s) => s.state !== 'exited' && s.closed_at === undefined);
  const attention = sessions.filter((s) => sessionAttention(s) !== null).length + approvals.length;
  const running = live.filter((s) => agentDriven(s) && s.state === 'running').length;
  const parts = [`${live.length} ${live.length === 1 ? 'session' : 'sessions'}`];
  if (running > 0) parts.push(`${running} agent ${running === 1 ? 'command' : 'commands'} running`);
  if (attention > 0) parts.push(`${attention} ${attention === 1 ? 'needs' : 'need'} you`);
  return `Switchboard — ${parts.join(', ')}`;
}

/** `1.2 s`, `45 s`, `3m 07s`, `2h 05m`. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (ms < 10_000) return `${(Math.max(0, ms) / 1000).toFixed(1)} s`;
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, '0')}m`;
}

/** Agent badge + who: `🤖 claude-code 1.0.3`, or `👤 You` for the person's own terminal. */
export function sessionWho(session: UiSession): string {
  if (session.creator.kind === 'agent') return `🤖 ${session.creator.client || 'agent'}`;
  return session.controller === 'agent' ? '👤 Yours, handed to agents' : '👤 You';
}

/** The state part of a session's label. */
function sessionStateText(session: UiSession): string {
  const attention = sessionAttention(session);
  if (attention === 'needs_you' && session.approval) return `needs you: approve ${truncate(session.approval.command, 40)}`;
  if (attention === 'needs_you') return 'needs you: password prompt';
  if (session.state === 'awaiting_input') return 'waiting for input';
  if (session.state === 'exited' || session.closed_at !== undefined) {
    return session.exit_code === null ? 'exited' : `exited (${session.exit_code})`;
  }
  if (session.state === 'running') return 'running';
  if (attention === 'failed') return `idle · last command failed (${session.last_exit_code})`;
  return 'idle';
}

function truncate(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/** One line per session: badge + client, name, state, running command and time. */
function sessionLabel(session: UiSession): string {
  const parts = [sessionWho(session)];
  if (session.name) parts.push(`“${truncate(session.name, 24)}”`);
  let label = `${parts.join(' ')} — ${sessionStateText(session)}`;
  if ((session.state === 'running' || session.state === 'awaiting_input') && session.command) {
    label += ` · ${truncate(session.command, 40)}`;
  }
  if (session.running_ms !== null && session.state !== 'exited') label += ` · ${formatDuration(session.running_ms)}`;
  if (session.controller === 'user' && session.creator.kind === 'agent' && session.state !== 'exited') label += ' · you have control';
  return label;
}

/** The submenu of one session: Watch, Take over / Hand back, Interrupt, Kill, Close. */
function sessionSubmenu(session: UiSession): MenuItemModel[] {
  const id = session.id;
  const live = session.state !== 'exited' && session.closed_at === undefined;
  const busy = live && (session.state === 'running' || session.state === 'awaiting_input');
  const control: MenuItemModel =
    session.controller === 'agent'
      ? { kind: 'item', id: `takeOver:${id}`, label: 'Take over', enabled: live, action: { type: 'takeOver', session: id } }
      : {
          kind: 'item',
          id: `handBack:${id}`,
          label: session.creator.kind === 'agent' ? 'Hand back' : 'Hand to agents',
          enabled: live,
          action: { type: 'handBack', session: id },
        };
  const approval = live ? session.approval : undefined;
  const answers: MenuItemModel[] = approval ? [...approvalAnswers(approval, id), { kind: 'separator' }] : [];
  return [
    ...answers,
    { kind: 'item', id: `watch:${id}`, label: 'Watch', enabled: true, action: { type: 'watch', session: id } },
    control,
    { kind: 'separator' },
    { kind: 'item', id: `interrupt:${id}`, label: 'Interrupt (Ctrl-C)', enabled: busy, action: { type: 'interrupt', session: id } },
    { kind: 'item', id: `kill:${id}`, label: 'Kill', enabled: busy, action: { type: 'kill', session: id } },
    { kind: 'item', id: `close:${id}`, label: live ? 'Close' : 'Remove from list', enabled: true, action: { type: 'close', session: id } },
  ];
}

/** Allow once, Allow for 30 min, Deny for one approval; `key` makes the items' ids (a session's id, or the approval's). */
function approvalAnswers(approval: UiApproval, key: string): MenuItemModel[] {
  return [
    {
      kind: 'item',
      id: `allowOnce:${key}`,
      label: 'Allow once',
      enabled: true,
      action: { type: 'answerApproval', approval: approval.id, answer: 'allow_once' },
    },
    {
      kind: 'item',
      id: `allow30m:${key}`,
      label: 'Allow for 30 min',
      // A grant is for a rule: a line no rule asked about can only be allowed once.
      enabled: approval.rule !== null,
      action: { type: 'answerApproval', approval: approval.id, answer: 'allow_30m' },
      toolTip: approval.rule ? `This agent, rule ${approval.rule.index} (${approval.rule.match}), for 30 minutes.` : 'No rule asked: allow it once or deny it.',
    },
    { kind: 'item', id: `deny:${key}`, label: 'Deny', enabled: true, action: { type: 'answerApproval', approval: approval.id, answer: 'deny' } },
  ];
}

/** What the person approves: the command, where, which agent, which rule. */
function approvalToolTip(approval: UiApproval): string {
  const rule = approval.rule ? `rule ${approval.rule.index} (${approval.rule.match})` : 'no rule';
  const outside = approval.unsandboxed ? ' — outside the sandbox' : '';
  return `${approval.command} — in ${approval.cwd ?? 'an unknown folder'} — asked by ${approval.client}${outside} — ${rule}: ${approval.reason}`;
}

/** One row per approval no session shows yet: what would start, and its answers. */
function newApprovalItems(approvals: readonly UiNewApproval[]): MenuItemModel[] {
  return approvals.map((approval) => ({
    kind: 'item' as const,
    id: `approval:${approval.id}`,
    label: `needs you: ${approval.tool === 'open' ? 'open' : 'run'} ${truncate(approval.command, 40)} — ${truncate(approval.client, 24)}${approval.unsandboxed ? ' (outside the sandbox)' : ''}`,
    enabled: true,
    submenu: approvalAnswers(approval, approval.id),
    toolTip: approvalToolTip(approval),
  }));
}

/** Agents' sessions first (attention first among them), then the person's; oldest first within. */
function menuOrder(sessions: readonly UiSession[]): UiSession[] {
  const rank = (s: UiSession): number => {
    if (sessionAttention(s) !== null) return 0;
    if (s.state === 'exited' || s.closed_at !== undefined) return 3;
    return agentDriven(s) ? 1 : 2;
  };
  return [...sessions].sort((a, b) => rank(a) - rank(b) || a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
}

/** How many live sessions each agent client opened, clients by name. */
function liveSessionsByClient(sessions: readonly UiSession[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const s of sessions) {
    if (s.creator.kind !== 'agent' || s.state === 'exited' || s.closed_at !== undefined) continue;
    counts.set(s.creator.client, (counts.get(s.creator.client) ?? 0) + 1);
  }
  return new Map([...counts].sort(([a], [b]) => a.localeCompare(b)));
}

/** "Stop everything <client> started", one per agent client with live sessions (on the remote `host`, when given). */
function stopClientItems(sessions: readonly UiSession[], host?: string): MenuItemModel[] {
  return [...liveSessionsByClient(sessions)].map(([client, count]) => ({
    kind: 'item' as const,
    id: host ? `stopClient:${host}:${client}` : `stopClient:${client}`,
    label: `Stop everything ${truncate(client || 'agent', 32)} started (${count} ${count === 1 ? 'session' : 'sessions'})`,
    enabled: true,
    action: { type: 'stopClient' as const, client, ...(host ? { host } : {}) },
    toolTip: `Closes every session this agent opened${host ? ` on ${host}` : ''}, with everything running in them.`,
  }));
}

/** One session's row: its label, its submenu, what it is about. */
function sessionItem(session: UiSession): MenuItemModel {
  return {
    kind: 'item',
    id: `session:${session.id}`,
    label: sessionLabel(session),
    enabled: true,
    submenu: sessionSubmenu(session),
    toolTip: session.approval
      ? approvalToolTip(session.approval)
      : [session.cwd, session.command].filter((x): x is string => Boolean(x)).join(' — ') || session.id,
  };
}

/** A machine's heading: this one, or a remote and how its link is (why it is down). */
function machineHeading(name: string, remote: UiRemote | undefined): MenuItemModel {
  const state = !remote
    ? ''
    : remote.state === 'connected'
      ? ' — connected'
      : remote.state === 'connecting'
        ? ' — connecting…'
        : ` — disconnected${remote.problem ? `: ${truncate(remote.problem.message, 48)}` : ''}`;
  return {
    kind: 'item',
    id: `machine:${name}`,
    label: remote ? `${name}${state}` : 'This machine',
    enabled: false,
    ...(remote ? { toolTip: remote.problem && remote.state !== 'connected' ? remote.problem.message : remote.destination } : {}),
  };
}

/** The sessions by machine (docs/design.md §4.7): this one first, then each remote; at most `max` rows in all. */
function sessionsByMachine(ordered: readonly UiSession[], remotes: readonly UiRemote[], max: number): MenuItemModel[] {
  const machines = new Map<string, { remote?: UiRemote; sessions: UiSession[] }>([['', { sessions: [] }]]);
  for (const remote of remotes) machines.set(remote.name, { remote, sessions: [] });
  for (const session of ordered) {
    const key = session.host ?? '';
    if (!machines.has(key)) machines.set(key, { sessions: [] });
    machines.get(key)!.sessions.push(session);
  }
  const items: MenuItemModel[] = [];
  let shown = 0;
  for (const [name, machine] of machines) {
    items.push(machineHeading(name, machine.remote));
    if (machine.sessions.length === 0) items.push({ kind: 'item', id: `no-sessions:${name}`, label: '   No sessions', enabled: false });
    for (const session of machine.sessions) {
      if (shown++ < max) items.push(sessionItem(session));
    }
    items.push(...stopClientItems(machine.sessions, name || undefined));
  }
  if (ordered.length > max)
    items.push({ kind: 'item', id: 'more-sessions', label: `… and ${ordered.length - max} more (Open Switchboard)`, enabled: true, action: { type: 'open' } });
  return items;
}

/** The whole tray menu for the hub's current sessions. */
export function buildTrayMenu(sessions: readonly UiSession[], options: TrayMenuOptions): MenuModel {
  const max = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const ordered = menuOrder(sessions);
  const menu: MenuModel = [{ kind: 'item', id: 'open', label: 'Open Switchboard', enabled: true, action: { type: 'open' } }];
  const waiting = options.settingsWaiting ?? [];
  if (waiting.length > 0) {
    menu.push({
      kind: 'item',
      id: 'settingsWaiting',
      label: 'Settings change waiting — review…',
      enabled: true,
      action: { type: 'settings' },
      toolTip: waiting.join('; '),
    });
  }
  menu.push({ kind: 'separator' });
  menu.push(...newApprovalItems(options.approvals ?? []));

  if (options.remotes && options.remotes.length > 0) {
    menu.push(...sessionsByMachine(ordered, options.remotes, max));
    return [...menu, ...footer(options)];
  }
  if (ordered.length === 0) {
    menu.push({ kind: 'item', id: 'no-sessions', label: 'No sessions', enabled: false });
  }
  for (const session of ordered.slice(0, max)) menu.push(sessionItem(session));
  if (ordered.length > max) {
    menu.push({ kind: 'item', id: 'more-sessions', label: `… and ${ordered.length - max} more (Open Switchboard)`, enabled: true, action: { type: 'open' } });
  }
  menu.push(...stopClientItems(sessions));
  return [...menu, ...footer(options)];
}

/** New terminal, Copy MCP config, Settings, Start at login, Quit. */
function footer(options: TrayMenuOptions): MenuModel {
  return [
    { kind: 'separator' },
    { kind: 'item', id: 'newTerminal', label: 'New terminal', enabled: true, action: { type: 'newTerminal' } },
    {
      kind: 'item',
      id: 'copyMcpConfig',
      label: 'Copy MCP config',
      enabled: true,
      submenu: MCP_HOSTS.map(({ host, title }) => ({
        kind: 'item' as const,
        id: `copyMcpConfig:${host}`,
        label: title,
        enabled: true,
        action: { type: 'copyMcpConfig' as const, host },
      })),
    },
    { kind: 'item', id: 'settings', label: 'Settings…', enabled: true, action: { type: 'settings' } },
    {
      kind: 'item',
      id: 'startAtLogin',
      label: 'Start at login',
      enabled: options.startAtLoginSupported,
      checked: options.startAtLogin,
      action: { type: 'toggleStartAtLogin' },
      ...(options.startAtLoginSupported ? {} : { toolTip: 'Use your desktop’s autostart settings on this system.' }),
    },
    { kind: 'separator' },
    { kind: 'item', id: 'quit', label: 'Quit Switchboard', enabled: true, action: { type: 'quit' } },
  ];
}
