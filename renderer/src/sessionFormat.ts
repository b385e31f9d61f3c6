/**
 * How a session reads in the UI: its label, the agent's name, the state badge, durations and
 * short paths. Pure functions over the protocol's `UiSession`, shared by the list, the tabs,
 * the toolbar and the status line.
 */
import type { UiSession } from '../../src/ui-protocol/index.js';

/** A session as the page knows it: the hub's record plus when it arrived (for elapsed times). */
export interface SessionEntry {
  info: UiSession;
  /** `performance.now()` when `info` arrived; `running_ms` counts from there. */
  receivedAt: number;
}

type BadgeTone = 'neutral' | 'busy' | 'attention' | 'alert' | 'ok' | 'fail';

interface StateBadge {
  text: string;
  tone: BadgeTone;
  title: string;
}

/** `claude-code 1.2.3` → `claude-code`; the person's own sessions → `You`. */
export function creatorName(info: UiSession): string {
  return info.creator.kind === 'user' ? 'You' : clientName(info.creator.client);
}

/**
 * An MCP client's name without its version: `claude-code 1.2.3` → `claude-code`; on a remote's
 * session, without the machine it called from either (`claude-code 1.2.3 via laptop`).
 */
export function clientName(client: string): string {
  const trimmed = client.trim().replace(/ via \S+$/, '');
  const space = trimmed.lastIndexOf(' ');
  return space > 0 && /\d/.test(trimmed.slice(space + 1)) ? trimmed.slice(0, space) : trimmed || 'agent';
}

/** The agent's full client string (with version), for tooltips and group headers. */
export function creatorDetail(info: UiSession): string {
  return info.creator.kind === 'user' ? 'Opened by you' : `Opened by agent ${info.creator.client}`;
}

export function isAgentSession(info: UiSession): boolean {
  return info.creator.kind === 'agent';
}

/** What the tab says: the machine (a remote's, docs/design.md §4.7), the agent's name and the session's name (or id). */
export function tabLabel(info: UiSession): string {
  const who = info.creator.kind === 'agent' ? creatorName(info) : 'terminal';
  return `${info.host ? `${info.host} · ` : ''}${who} · ${info.name ?? info.id}`;
}

/** The session's headline in the list: its name, else its program and id. */
export function sessionTitle(info: UiSession): string {
  if (info.name) return info.name;
  const program = info.program.split('/').pop() || info.program;
  return `${program} ${info.id}`;
}

/** The person must act: a command waits for their approval, or a secret prompt for their typing. */
export function isNeedsYou(info: UiSession): boolean {
  return (info.approval !== undefined && info.state !== 'exited') || (info.state === 'awaiting_input' && info.secret === true);
}

export function runningMs(entry: SessionEntry, now: number): number {
  return (entry.info.running_ms ?? 0) + Math.max(0, now - entry.receivedAt);
}

export function stateBadge(entry: SessionEntry, now: number): StateBadge {
  const info = entry.info;
  if (info.approval && info.state !== 'exited') {
    return { text: 'needs you', tone: 'alert', title: `Waiting for your approval: ${info.approval.command}` };
  }
  switch (info.state) {
    case 'exited': {
      const code = info.exit_code;
      const failed = code !== null && code !== 0;
      return {
        text: code === null ? 'exited' : `exited ${code}`,
        tone: failed ? 'fail' : 'neutral',
        title: code === null ? 'The session ended.' : `The session ended with exit code ${code}.`,
      };
    }
    case 'awaiting_input':
      return isNeedsYou(info)
        ? { text: 'needs you', tone: 'alert', title: 'A password or secret prompt is waiting: take over and type it (never recorded).' }
        : { text: 'awaiting input', tone: 'attention', title: awaitingTitle(info.input_kind) };
    case 'running': {
      const elapsed = runningMs(entry, now);
      return {
        text: elapsed < 1000 ? 'running' : `running ${formatElapsed(elapsed)}`,
        tone: 'busy',
        title: info.command ? `Running: ${info.command}` : 'A command is running.',
      };
    }
    default:
      return { text: 'idle', tone: 'neutral', title: 'At the shell prompt.' };
  }
}

function awaitingTitle(kind: UiSession['input_kind']): string {
  if (kind === 'screen') return 'A full-screen program is waiting for keys.';
  if (kind === 'line') return 'The program is waiting for a line of input.';
  return 'The program is waiting for input from the terminal.';
}

/** A finished command's duration: `7ms`, `850ms`, `1.2s`, `12s`, `3m 04s`, `2h 00m`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)}s`;
  return formatElapsed(ms);
}

/** A running time, to the second: `12s`, `3m 04s`, `2h 00m`. */
export function formatElapsed(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, '0')}m`;
}

/** `/home/ada/src/switchboard/packages/ui` → `…/packages/ui` (keeps the last two parts). */
export function shortPath(path: string | null, parts = 2): string {
  if (!path) return '—';
  const home = /^\/(home|Users)\/[^/]+/.exec(path);
  const shown = home ? `~${path.slice(home[0].length)}` : path;
  const pieces = shown.split('/').filter(Boolean);
  if (pieces.length <= parts + (shown.startsWith('~') ? 1 : 0)) return shown || '/';
  return `…/${pieces.slice(-parts).join('/')}`;
}

export function formatClock(epochMs: number): string {
  const date = new Date(epochMs);
  return `${String(date.getHours()).padStart(2, '0')}:${String(date.getMinutes()).padStart(2, '0')}:${String(date.getSeconds()).padStart(2, '0')}`;
}
