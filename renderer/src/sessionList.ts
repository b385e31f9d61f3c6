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
import { groupSessions, type GroupMode } from './sessionGroups.js';

export interface SessionListHandlers {
  onOpen(id: string): void;
  onGroupMode(mode: GroupMode): void;
}

/** A session's row and the parts of it that change. */
interface RowElements {
  root: HTMLButtonElement;
  dot: HTMLElement;
  title: HTMLElement;
  sub: HTMLElement;
  state: HTMLElement;
  creator: HTMLElement;
  controller: HTMLElement;
  entry: SessionEntry;
}

/** A group's section, its header's parts, and where its rows go. */
interface GroupElements {
  root: HTMLElement;
  head: HTMLElement;
  title: HTMLElement;
  alert: HTMLElement;
  count: HTMLElement;
}

/**
 * Rows and groups are keyed (by session id, by group key): each is created once and updated in
 * place, so a row in focus or under the pointer stays the same element while agents change
 * their sessions many times a second.
 */
export class SessionList {
  private readonly body: HTMLElement;
  private readonly modeButtons: Record<GroupMode, HTMLButtonElement>;
  private readonly empty: HTMLElement;
  private readonly rows = new Map<string, RowElements>();
  private readonly groups = new Map<string, GroupElements>();

  constructor(
    root: HTMLElement,
    private readonly handlers: SessionListHandlers,
  ) {
    this.modeButtons = {
      agent: h('button', { class: 'seg', type: 'button', 'data-group': 'agent', onclick: () => handlers.onGroupMode('agent') }, 'Agent'),
      folder: h('button', { class: 'seg', type: 'button', 'data-group': 'folder', onclick: () => handlers.onGroupMode('folder') }, 'Folder'),
    };
    this.body = h('div', { class: 'session-groups', role: 'list' });
    this.empty = h('div', { class: 'sidebar-empty' }, 'No sessions yet.');
    clear(root);
    root.append(
      h('div', { class: 'sidebar-head' }, h('span', { class: 'sidebar-title' }, 'Sessions'), h('div', { class: 'segmented', role: 'group', 'aria-label': 'Group sessions by' }, this.modeButtons.agent, this.modeButtons.folder)),
      this.body,
    );
  }

  render(entries: SessionEntry[], mode: GroupMode, activeId: string | null, openIds: ReadonlySet<string>): void {
    this.modeButtons.agent.classList.toggle('on', mode === 'agent');
    this.modeButtons.folder.classList.toggle('on', mode === 'folder');
    const shownGroups = new Set<string>();
    const shownRows = new Set<string>();
    let nextGroup: Element | null = this.body.firstElementChild;
    if (entries.length === 0) {
      if (nextGroup !== this.empty) this.body.insertBefore(this.empty, nextGroup);
    } else {
      this.empty.remove();
      nextGroup = this.body.firstElementChild;
    }
    for (const group of entries.length === 0 ? [] : groupSessions(entries, mode)) {
      shownGroups.add(group.key);
      const section = this.groups.get(group.key) ?? this.createGroup(group.key);
      const attention = group.entries.filter((entry) => isNeedsYou(entry.info)).length;
      section.head.title = group.detail;
      section.title.textContent = group.title;
      section.alert.hidden = attention === 0;
      section.alert.textContent = String(attention);
      section.count.textContent = String(group.entries.length);
      if (section.root !== nextGroup) this.body.insertBefore(section.root, nextGroup);
      nextGroup = section.root.nextElementSibling;
      let nextRow: Element | null = section.head.nextElementSibling;
      for (const entry of group.entries) {
        const id = entry.info.id;
        shownRows.add(id);
        const row = this.rows.get(id) ?? this.createRow(id, entry);
        this.updateRow(row, entry, mode, id === activeId, openIds.has(id));
        if (row.root !== nextRow) section.root.insertBefore(row.root, nextRow);
        nextRow = row.root.nextElementSibling;
      }
    }
    for (const [id, row] of this.rows) {
      if (shownRows.has(id)) continue;
      row.root.remove();
      this.rows.delete(id);
    }
    for (const [key, section] of this.groups) {
      if (shownGroups.has(key)) continue;
      section.root.remove();
      this.groups.delete(key);
    }
  }

  /** Re-reads the running times (once a second). */
  tick(): void {
    for (const row of this.rows.values()) {
      if (row.entry.info.state === 'running') row.state.textContent = stateBadge(row.entry, performance.now()).text;
    }
  }

  private createGroup(key: string): GroupElements {
    const title = h('span', { class: 'group-title' });
    const alert = h('span', { class: 'group-alert', title: 'Sessions that need you' });
    const count = h('span', { class: 'group-count' });
    const head = h('header', { class: 'group-head' }, title, alert, count);
    const root = h('section', { class: 'session-group', 'data-group-key': key }, head);
    const group = { root, head, title, alert, count };
    this.groups.set(key, group);
    return group;
  }

  private createRow(id: string, entry: SessionEntry): RowElements {
    const dot = h('span', { class: 'dot' });
    const title = h('span', { class: 'row-title' });
    const sub = h('span', { class: 'row-sub' });
    const state = h('span', { class: 'badge' });
    const creator = h('span', { class: 'chip creator' });
    const controller = h('span', { class: 'chip controller' });
    const root = h(
      'button',
      { class: 'session-row', type: 'button', role: 'listitem', 'data-session': id, onclick: () => this.handlers.onOpen(id) },
      dot,
      h('span', { class: 'row-main' }, title, sub),
      h('span', { class: 'row-side' }, state, h('span', { class: 'row-chips' }, creator, controller)),
    );
    const row = { root, dot, title, sub, state, creator, controller, entry };
    this.rows.set(id, row);
    return row;
  }

  private updateRow(row: RowElements, entry: SessionEntry, mode: GroupMode, active: boolean, open: boolean): void {
    row.entry = entry;
    const info = entry.info;
    const badge = stateBadge(entry, performance.now());
    const agent = isAgentSession(info);
    row.root.className = `session-row tone-${badge.tone}${active ? ' active' : ''}${open ? ' open' : ''}${info.state === 'exited' ? ' exited' : ''}`;
    row.root.dataset.state = isNeedsYou(info) ? 'needs_you' : info.state;
    row.dot.className = `dot tone-${badge.tone}`;
    row.title.title = `${sessionTitle(info)} (${info.id})`;
    row.title.textContent = sessionTitle(info);
    const busy = info.state === 'running' || info.state === 'awaiting_input';
    row.sub.className = busy ? 'row-sub mono' : 'row-sub';
    row.sub.title = busy ? (info.command ?? '') : (info.cwd ?? '');
    row.sub.textContent = busy ? (info.command ?? shortPath(info.cwd)) : mode === 'agent' ? shortPath(info.cwd) : creatorName(info);
    row.state.className = `badge tone-${badge.tone}`;
    row.state.title = badge.title;
    row.state.textContent = badge.text;
    row.creator.className = `chip creator ${agent ? 'agent' : 'user'}`;
    row.creator.title = creatorDetail(info);
    row.creator.textContent = agent ? 'agent' : 'you';
    const controllerDefault = (agent && info.controller === 'agent') || (!agent && info.controller === 'user');
    row.controller.className = `chip controller${controllerDefault ? ' quiet' : ' loud'}`;
    row.controller.title = info.controller === 'user' ? 'You control the keyboard' : 'Agents control the keyboard';
    row.controller.textContent = info.controller === 'user' ? '⌨ you' : '⌨ agent';
  }
}
