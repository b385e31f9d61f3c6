/**
 * How the sidebar groups sessions: by agent (the creator's client name, the person's own
 * sessions last) or by project folder (cwd), each group's sessions oldest first. Pure.
 */
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
