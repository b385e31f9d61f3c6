import * as fs from 'node:fs';
import * as path from 'node:path';
import { HUB_INFO_FILE } from './socketProtocol.js';

/** `<state>/hub.json`: who holds this state dir and where to reach it (socketProtocol.ts). */
export interface HubInfo {
  pid: number;
  started_at: string;
  /** Absolute path of the unix socket, or null when the hub does not listen on one. */
  socket: string | null;
  /** The HTTP port actually bound (also when settings asked for 0), or null without HTTP. */
  port: number | null;
  version: string;
  /** Whether agents' sessions get a sandbox here, and if not why and how to fix it (docs/design.md §2.10), as the hub found at start. */
  sandbox?: { available: boolean; summary: string };
  /** The other machines it links to (docs/design.md §4.7), rewritten as each connects or drops. */
  remotes?: HubRemoteInfo[];
}

/** A remote as `switchboard status` and `remote list` show it. */
export interface HubRemoteInfo {
  name: string;
  destination: string;
  state: 'connecting' | 'connected' | 'disconnected';
  since: string;
  problem?: { code: string; message: string };
  version?: string;
  retry_at?: string;
}

function hubInfoPath(stateDir: string): string {
  return path.join(stateDir, HUB_INFO_FILE);
}

/** Written 0600 through a temp file + rename, so readers never see half a file. */
export function writeHubInfo(stateDir: string, info: HubInfo): void {
  const file = hubInfoPath(stateDir);
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
  fs.chmodSync(temp, 0o600);
  fs.renameSync(temp, file);
}

export function readHubInfo(stateDir: string): HubInfo | undefined {
  try {
    const raw = JSON.parse(fs.readFileSync(hubInfoPath(stateDir), 'utf8')) as Partial<HubInfo>;
    if (typeof raw.pid !== 'number') return undefined;
    return {
      pid: raw.pid,
      started_at: String(raw.started_at ?? ''),
      socket: typeof raw.socket === 'string' ? raw.socket : null,
      port: typeof raw.port === 'number' ? raw.port : null,
      version: String(raw.version ?? ''),
      ...(typeof raw.sandbox?.available === 'boolean' && typeof raw.sandbox.summary === 'string'
        ? { sandbox: { available: raw.sandbox.available, summary: raw.sandbox.summary } }
        : {}),
      ...(Array.isArray(raw.remotes)
        ? { remotes: raw.remotes.filter((remote): remote is HubRemoteInfo => typeof remote?.name === 'string' && typeof remote.state === 'string') }
        : {}),
    };
  } catch {
    return undefined;
  }
}

/** Removes hub.json only while it still names `pid` (a successor's file is left alone). */
export function removeHubInfo(stateDir: string, pid = process.pid): void {
  if (readHubInfo(stateDir)?.pid === pid) fs.rmSync(hubInfoPath(stateDir), { force: true });
}

/** True while `pid` is a process we could signal (EPERM: it exists but is not ours). */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
