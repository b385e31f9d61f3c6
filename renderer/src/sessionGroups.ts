/**
 * How the sidebar groups sessions: by agent (the creator's client name, the person's own
 * sessions last) or by project folder (cwd), each group's sessions oldest first. Pure.
 */
import type { UiRemote } from '../../src/ui-protocol/index.js';
import { creatorName, shortPath, type SessionEntry } from './sessionFormat.js';

export type GroupMode = 'agent' | 'folder';

export interface SessionGroup {
  /** Stable across updates: `agent:<client>`, `user`, or `cwd:<folder>`. */
  key: string;
  title: string;
  /** The header's tooltip. */
  detail: string;
  entries: SessionEntry[];
}

export function groupSessions(entries: Iterable<SessionEntry>, mode: GroupMode): SessionGroup[] {
  const groups = new Map<string, SessionGroup>();
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

/** One machine's sessions in the sidebar: this one (`remote` absent) or a remote, with how its link is. */
export interface MachineSection {
  /** `local`, or the remote's name. */
  key: string;
  title: string;
  remote?: UiRemote;
  entries: SessionEntry[];
}

/**
 * The sidebar by machine (docs/design.md §4.7): this machine first, then every remote in settings'
 * order, each shown even with no session (its state says whether it is connected, and why not).
 * A session whose remote was removed meanwhile is listed under its `host` all the same.
 */
export function machineSections(entries: Iterable<SessionEntry>, remotes: readonly UiRemote[]): MachineSection[] {
  const sections = new Map<string, MachineSection>([['local', { key: 'local', title: 'This machine', entries: [] }]]);
  for (const remote of remotes) sections.set(remote.name, { key: remote.name, title: remote.name, remote, entries: [] });
  for (const entry of entries) {
    const host = entry.info.host ?? 'local';
    let section = sections.get(host);
    if (!section) {
      section = { key: host, title: host, entries: [] };
      sections.set(host, section);
    }
    section.entries.push(entry);
  }
  return [...sections.values()];
}
