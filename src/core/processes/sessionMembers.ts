/**
 * Which rows of a process table belong to a session (docs/design.md §2.8): pure, so the rules are
 * tested on any platform against a table as Linux or macOS reports it
 * (test/unit/core/processes/macPs.test.ts). Reading the table and signalling are processes.ts's.
 */
import { isAlive, type ProcessInfo } from './processInfo.js';

/** What identifies a session's processes; captured once so a rescan after the shell died still works. */
export interface SessionAnchor {
  sessionId: string;
  shellPid: number;
  /** The shell's start time when it was seen; a row at shellPid with another one is not our shell. */
  shellStartTime: string | undefined;
  tty: string;
  sid: number | undefined;
}

interface AnchorSource {
  sessionId: string;
  shellPid: number;
  /** The session's terminal (Linux tty_nr, macOS tty name); read from the shell when omitted. */
  ttyNr: number | string | undefined;
  /** The hub's own pid: its terminal and session are never a session's. */
  hubPid: number;
  platform: NodeJS.Platform;
}

export function anchorFrom(table: Map<number, ProcessInfo>, source: AnchorSource): SessionAnchor {
  const { sessionId, shellPid, ttyNr } = source;
  const shell = table.get(shellPid);
  const hub = table.get(source.hubPid);
  const tty = ttyNr !== undefined && ttyNr !== 0 ? String(ttyNr) : (shell?.tty ?? '');
  // node-pty makes the shell a session leader, so its session id is its pid; that holds even
  // after it exited (a pid is not reused while it names a live session). macOS reports none.
  const leads = shell ? shell.sid === shell.pid : source.platform !== 'darwin';
  return {
    sessionId,
    shellPid,
    shellStartTime: shell?.startTime,
    // A "shell" that shares the hub's terminal or session (not in a pty of its own) must not
    // pull in every process of the person's terminal: then only tree, groups and mark count.
    tty: tty !== hub?.tty ? tty : '',
    sid: leads && shellPid !== hub?.sid ? shellPid : undefined,
  };
}

/**
 * Only processes that started no earlier than the shell can be the session's: the rest keep
 * their environment unread (a read of another process's environ waits on its memory map).
 */
export function candidatesOf(anchor: SessionAnchor, table: Map<number, ProcessInfo>): ProcessInfo[] {
  return [...table.values()].filter((row) => !startedBefore(row, anchor));
}

/**
 * The session's live processes, sorted by pid: seeds among the candidates (the shell, its tty,
 * its session id, the mark `marks` holds per pid: every SESSION_ENV value it was started with),
 * closed over the process tree and process groups. Never `hubPid`, its ancestors or pid 1.
 */
export function membersOf(anchor: SessionAnchor, table: Map<number, ProcessInfo>, marks: Map<number, readonly string[]>, hubPid: number): ProcessInfo[] {
  const excluded = hubLineage(table, hubPid);
  const members = new Set<number>();
  for (const row of candidatesOf(anchor, table)) {
    if (!excluded.has(row.pid) && isSeed(row, anchor, marks.get(row.pid))) members.add(row.pid);
  }
  // Close over the tree and over process groups: a parent killed later can reveal children.
  for (let grew = true; grew;) {
    grew = false;
    for (const row of table.values()) {
      if (members.has(row.pid) || excluded.has(row.pid)) continue;
      if (members.has(row.ppid) || members.has(row.pgid)) {
        members.add(row.pid);
        grew = true;
      }
    }
  }
  return [...members]
    .map((pid) => table.get(pid))
    .filter((row): row is ProcessInfo => row !== undefined && isAlive(row))
    .sort((a, b) => a.pid - b.pid);
}

/**
 * Whether `row` started before the session's shell (Linux: clock ticks since boot). Such a
 * process cannot be in the session: not its child, not in its process session, and on its tty
 * number only because a closed terminal's number was reused. macOS start times are dates as
 * text: never treated as earlier.
 */
function startedBefore(row: ProcessInfo, anchor: SessionAnchor): boolean {
  if (anchor.shellStartTime === undefined || !/^\d+$/.test(row.startTime) || !/^\d+$/.test(anchor.shellStartTime)) return false;
  return Number(row.startTime) < Number(anchor.shellStartTime);
}

function isSeed(row: ProcessInfo, anchor: SessionAnchor, marks: readonly string[] | undefined): boolean {
  if (marks?.includes(anchor.sessionId)) return true;
  if (row.pid === anchor.shellPid) return row.startTime === anchor.shellStartTime;
  if (anchor.sid !== undefined && anchor.sid > 1 && row.sid === anchor.sid) return true;
  // A tty number is reused by the next pty; a process marked for another session is not ours.
  return anchor.tty !== '' && row.tty === anchor.tty && marks === undefined;
}

/** The hub and its ancestors: never part of a session, whatever their tty or environment. */
function hubLineage(table: Map<number, ProcessInfo>, hubPid: number): Set<number> {
  const lineage = new Set<number>([0, 1]);
  for (let pid = hubPid; pid > 1 && !lineage.has(pid);) {
    lineage.add(pid);
    pid = table.get(pid)?.ppid ?? 0;
  }
  return lineage;
}
