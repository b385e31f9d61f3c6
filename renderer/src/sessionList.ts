/**
 * The sidebar: every session, grouped by agent (the creator's client name) or by project folder
 * (cwd), each with badges for its creator, its controller and its state.
 */
import { clear, h } from './dom.js';
import {
  creatorDetail,
  creatorName,
  isAgentSession,
  isNeedsYou,
  sessionTitle,
  shortPath,
  stateBadge,
  type SessionEntry,
} from './sessionFormat.js';

export type GroupMode = 'agent' | 'folder';

export interface SessionListHandlers {
  onOpen(id: string): void;
  onGroupMode(mode: GroupMode): void;
}

interface Group {
  key: string;
  title: string;
  detail: string;
  entries: SessionEntry[];
}

export class SessionList {
  private readonly body: HTMLElement;
  private readonly modeButtons: Record<GroupMode, HTMLButtonElement>;
  private readonly badgeUpdaters: (() => void)[] = [];

  constructor(
    root: HTMLElement,
    private readonly handlers: SessionListHandlers,
  ) {
    this.modeButtons = {
      agent: h('button', { class: 'seg', type: 'button', 'data-group': 'agent', onclick: () => handlers.onGroupMode('agent') }, 'Agent'),
      folder: h('button', { class: 'seg', type: 'button', 'data-group': 'folder', onclick: () => handlers.onGroupMode('folder') }, 'Folder'),
    };
    this.body = h('div', { class: 'session-groups', role: 'list' });
    clear(root);
    root.append(
      h('div', { class: 'sidebar-head' }, h('span', { class: 'sidebar-title' }, 'Sessions'), h('div', { class: 'segmented', role: 'group', 'aria-label': 'Group sessions by' }, this.modeButtons.agent, this.modeButtons.folder)),
      this.body,
    );
  }

  render(entries: SessionEntry[], mode: GroupMode, activeId: string | null, openIds: ReadonlySet<string>): void {
    this.modeButtons.agent.classList.toggle('on', mode === 'agent');
    this.modeButtons.folder.classList.toggle('on', mode === 'folder');
    this.badgeUpdaters.length = 0;
    clear(this.body);
    if (entries.length === 0) {
      this.body.append(h('div', { class: 'sidebar-empty' }, 'No sessions yet.'));
      return;
    }
    for (const group of groupEntries(entries, mode)) {
      const attention = group.entries.filter((entry) => isNeedsYou(entry.info)).length;
      this.body.append(
        h(
          'section',
          { class: 'session-group', 'data-group-key': group.key },
          h(
            'header',
            { class: 'group-head', title: group.detail },
            h('span', { class: 'group-title' }, group.title),
            attention > 0 ? h('span', { class: 'group-alert', title: 'Sessions that need you' }, String(attention)) : null,
            h('span', { class: 'group-count' }, String(group.entries.length)),
          ),
          ...group.entries.map((entry) => this.row(entry, mode, entry.info.id === activeId, openIds.has(entry.info.id))),
        ),
      );
    }
  }

  /** Re-reads the running times (once a second). */
  tick(): void {
    for (const update of this.badgeUpdaters) update();
  }

  private row(entry: SessionEntry, mode: GroupMode, active: boolean, open: boolean): HTMLElement {
    const info = entry.info;
    const badge = stateBadge(entry, performance.now());
    const stateEl = h('span', { class: `badge tone-${badge.tone}`, title: badge.title }, badge.text);
    if (info.state === 'running') {
      this.badgeUpdaters.push(() => {
        stateEl.textContent = stateBadge(entry, performance.now()).text;
      });
    }
    const subtitle =
      info.state === 'running' || info.state === 'awaiting_input'
        ? h('span', { class: 'row-sub mono', title: info.command ?? '' }, info.command ?? shortPath(info.cwd))
        : h('span', { class: 'row-sub', title: info.cwd ?? '' }, mode === 'agent' ? shortPath(info.cwd) : creatorName(info));
    const agent = isAgentSession(info);
    const controllerDefault = (agent && info.controller === 'agent') || (!agent && info.controller === 'user');
    return h(
      'button',
      {
        class: `session-row tone-${badge.tone}${active ? ' active' : ''}${open ? ' open' : ''}${info.state === 'exited' ? ' exited' : ''}`,
        type: 'button',
        role: 'listitem',
        'data-session': info.id,
        'data-state': isNeedsYou(info) ? 'needs_you' : info.state,
        onclick: () => this.handlers.onOpen(info.id),
      },
      h('span', { class: `dot tone-${badge.tone}` }),
      h('span', { class: 'row-main' }, h('span', { class: 'row-title', title: `${sessionTitle(info)} (${info.id})` }, sessionTitle(info)), subtitle),
      h(
        'span',
        { class: 'row-side' },
        stateEl,
        h(
          'span',
          { class: 'row-chips' },
          h('span', { class: `chip creator ${agent ? 'agent' : 'user'}`, title: creatorDetail(info) }, agent ? 'agent' : 'you'),
          h(
            'span',
            { class: `chip controller${controllerDefault ? ' quiet' : ' loud'}`, title: info.controller === 'user' ? 'You control the keyboard' : 'Agents control the keyboard' },
            info.controller === 'user' ? '⌨ you' : '⌨ agent',
          ),
        ),
      ),
    );
  }
}

function groupEntries(entries: SessionEntry[], mode: GroupMode): Group[] {
  const groups = new Map<string, Group>();
  for (const entry of entries) {
    const info = entry.info;
    let key: string;
    let title: string;
    let detail: string;
    if (mode === 'agent') {
      key = info.creator.kind === 'agent' ? `agent:${info.creator.client}` : 'user';
      title = creatorName(info);
      detail = info.creator.kind === 'agent' ? `Agent: ${info.creator.client}` : 'Sessions you opened';
    } else {
      key = `cwd:${info.cwd ?? ''}`;
      title = shortPath(info.cwd, 2);
      detail = info.cwd ?? 'Folder not reported yet';
    }
    let group = groups.get(key);
    if (!group) {
      group = { key, title, detail, entries: [] };
      groups.set(key, group);
    }
    group.entries.push(entry);
  }
  const list = [...groups.values()];
  for (const group of list) group.entries.sort((a, b) => a.info.created_at.localeCompare(b.info.created_at));
  // Agents first (alphabetically), the person's own sessions last; folders alphabetically.
  return list.sort((a, b) => (a.key === 'user' ? 1 : 0) - (b.key === 'user' ? 1 : 0) || a.title.localeCompare(b.title));
}
