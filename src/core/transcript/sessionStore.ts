import * as fs from 'node:fs';
import * as path from 'node:path';
import { ErrorCode, SwitchboardError } from '../errors.js';
import { COMMANDS_LOG, META_FILE, OUTPUT_LOG, type SessionMeta } from './transcript.js';
import type { CommandRecord, SessionInfo } from '../types.js';

/** Default retention of closed sessions (settings `retentionDays`, `retentionBytes`). */
export const DEFAULT_RETENTION_DAYS = 14;
export const DEFAULT_RETENTION_BYTES = 2 * 1024 * 1024 * 1024;

const DAY_MS = 24 * 60 * 60 * 1000;
/** A directory without meta.json younger than this may belong to a session still starting. */
const STARTING_GRACE_MS = 10 * 60 * 1000;
/** Session ids are short and plain; anything else never becomes a path. */
const SESSION_ID = /^[A-Za-z0-9_-]{1,64}$/;

interface SessionStoreOptions {
  /** True for sessions this hub runs: they are never listed as closed nor removed. */
  isLive?: (id: string) => boolean;
}

interface RetentionPolicy {
  /** Closed sessions that ended longer ago than this are removed. */
  days: number;
  /** Then the oldest closed sessions go until all transcripts together take less than this. */
  bytes: number;
  /** The clock (tests). */
  now?: number;
}

interface RetentionResult {
  removed: string[];
  freedBytes: number;
  /** What all session directories take after the run. */
  totalBytes: number;
}

/** One session directory as found on disk. */
interface StoredSession {
  id: string;
  dir: string;
  meta: SessionMeta | null;
}

/**
 * The sessions recorded under `<state>/sessions/`: what a hub lists and reads after the sessions
 * (or the hub that ran them) are gone. Reads only what the transcripts wrote; `applyRetention`
 * is the only thing that deletes.
 */
export class SessionStore {
  private readonly isLive: (id: string) => boolean;
  /** Parsed meta.json per session, reused while the file is unchanged. */
  private readonly metaCache = new Map<string, { mtimeMs: number; size: number; meta: SessionMeta | null }>();

  constructor(
    readonly root: string,
    options: SessionStoreOptions = {},
  ) {
    this.isLive = options.isLive ?? (() => false);
  }

  /** The directory of session `id` (whether or not it exists). */
  sessionDir(id: string): string {
    if (!SESSION_ID.test(id)) throw notFound(id);
    return path.join(this.root, id);
  }

  /** Whether a directory for `id` exists (live, closed, or a session that failed to start). */
  has(id: string): boolean {
    return SESSION_ID.test(id) && fs.existsSync(path.join(this.root, id));
  }

  /**
   * Sessions on disk that are not live in this hub, oldest first. One whose meta has no
   * `closed_at` was live when its hub died: it is reported `exited`, closed when its output.log
   * was last written, exit code unknown.
   */
  listClosed(): SessionInfo[] {
    const sessions: SessionInfo[] = [];
    for (const stored of this.scan()) {
      if (!stored.meta || this.isLive(stored.id)) continue;
      sessions.push(toInfo(stored));
    }
    return sessions.sort((a, b) => a.created_at.localeCompare(b.created_at));
  }

  /** A session's meta.json by id, or by name (the most recent session with that name). */
  find(ref: string): SessionMeta | null {
    if (SESSION_ID.test(ref)) {
      const meta = this.readMeta(ref);
      if (meta) return meta;
    }
    let found: SessionMeta | null = null;
    for (const stored of this.scan()) {
      if (stored.meta?.name !== ref) continue;
      if (!found || stored.meta.created_at > found.created_at) found = stored.meta;
    }
    return found;
  }

  /** meta.json of session `id`; null when the session is unknown or its meta unreadable. */
  readMeta(id: string): SessionMeta | null {
    if (!SESSION_ID.test(id)) return null;
    return this.cachedMeta(id, path.join(this.root, id));
  }

  /** As `find`, as the session list shows it (closed_at filled in for crashed sessions). */
  info(ref: string): SessionInfo | null {
    const meta = this.find(ref);
    return meta ? toInfo({ id: meta.id, dir: path.join(this.root, meta.id), meta }) : null;
  }

  /** The session's finished commands in order; a torn last line (a crash mid-write) is skipped. */
  commands(id: string): CommandRecord[] {
    const file = path.join(this.existingDir(id), COMMANDS_LOG);
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    return parseCommands(text);
  }

  /** As `commands`, read without blocking (the history index reads every session's at start); [] when gone. */
  async readCommands(id: string): Promise<CommandRecord[]> {
    try {
      return parseCommands(await fs.promises.readFile(path.join(this.sessionDir(id), COMMANDS_LOG), 'utf8'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  }

  /** Every session directory's id, live and closed. */
  ids(): string[] {
    return this.scan().map((stored) => stored.id);
  }

  /** Size of the session's output.log in bytes. */
  outputSize(id: string): number {
    try {
      return fs.statSync(path.join(this.existingDir(id), OUTPUT_LOG)).size;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw error;
    }
  }

  /**
   * Bytes `[start, end)` of the session's output.log, clamped to what the file holds (a
   * truncated transcript, or a live one still growing). `end` defaults to the end of the file.
   */
  readOutput(id: string, start: number, end?: number): Buffer {
    const file = path.join(this.existingDir(id), OUTPUT_LOG);
    let fd: number;
    try {
      fd = fs.openSync(file, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return Buffer.alloc(0);
      throw error;
    }
    try {
      const size = fs.fstatSync(fd).size;
      const from = Math.max(0, Math.min(start, size));
      const to = Math.max(from, Math.min(end ?? size, size));
      const buffer = Buffer.alloc(to - from);
      let done = 0;
      while (done < buffer.length) {
        const read = fs.readSync(fd, buffer, done, buffer.length - done, from + done);
        if (read === 0) break;
        done += read;
      }
      return done === buffer.length ? buffer : buffer.subarray(0, done);
    } finally {
      fs.closeSync(fd);
    }
  }

  /**
   * Removes closed sessions that ended more than `days` ago, then the oldest closed ones until
   * every session directory together takes less than `bytes` (live ones count, but are never
   * touched). Directories without a readable meta.json (a session that failed to start) are
   * closed sessions too.
   */
  applyRetention(policy: RetentionPolicy): RetentionResult {
    const now = policy.now ?? Date.now();
    const cutoff = now - policy.days * DAY_MS;
    const candidates: { id: string; dir: string; endedAt: number; bytes: number }[] = [];
    let totalBytes = 0;
    for (const stored of this.scan()) {
      const bytes = directorySize(stored.dir);
      totalBytes += bytes;
      if (this.isLive(stored.id)) continue;
      const ended = endedAt(stored);
      // No closed_at and its process still runs: another hub may own it (a recycled pid only
      // keeps it until it is older than `days`).
      if (stored.meta && !stored.meta.closed_at && ended >= cutoff && processAlive(stored.meta.pid)) continue;
      // No meta.json yet and written a moment ago: a session still starting.
      if (!stored.meta && now - ended < STARTING_GRACE_MS) continue;
      candidates.push({ id: stored.id, dir: stored.dir, endedAt: ended, bytes });
    }
    candidates.sort((a, b) => a.endedAt - b.endedAt);
    const removed: string[] = [];
    let freedBytes = 0;
    for (const candidate of candidates) {
      if (candidate.endedAt >= cutoff && totalBytes - freedBytes < policy.bytes) break;
      try {
        fs.rmSync(candidate.dir, { recursive: true, force: true });
      } catch {
        continue; // Gone already or not ours to remove: try the next one.
      }
      this.metaCache.delete(candidate.id);
      removed.push(candidate.id);
      freedBytes += candidate.bytes;
    }
    return { removed, freedBytes, totalBytes: totalBytes - freedBytes };
  }

  private existingDir(id: string): string {
    const dir = this.sessionDir(id);
    if (!fs.existsSync(dir)) throw notFound(id);
    return dir;
  }

  private scan(): StoredSession[] {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(this.root, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const sessions: StoredSession[] = [];
    const seen = new Set<string>();
    for (const entry of entries) {
      if (!entry.isDirectory() || !SESSION_ID.test(entry.name)) continue;
      const dir = path.join(this.root, entry.name);
      seen.add(entry.name);
      sessions.push({ id: entry.name, dir, meta: this.cachedMeta(entry.name, dir) });
    }
    for (const id of this.metaCache.keys()) if (!seen.has(id)) this.metaCache.delete(id);
    return sessions;
  }

  private cachedMeta(id: string, dir: string): SessionMeta | null {
    const file = path.join(dir, META_FILE);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(file);
    } catch {
      this.metaCache.delete(id);
      return null;
    }
    const cached = this.metaCache.get(id);
    if (cached && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size) return cached.meta;
    let meta: SessionMeta | null = null;
    try {
      const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as SessionMeta;
      if (parsed && parsed.id === id && typeof parsed.created_at === 'string') meta = parsed;
    } catch {
      meta = null;
    }
    this.metaCache.set(id, { mtimeMs: stat.mtimeMs, size: stat.size, meta });
    return meta;
  }
}

function parseCommands(text: string): CommandRecord[] {
  const records: CommandRecord[] = [];
  for (const line of text.split('\n')) {
    if (line.length === 0) continue;
    try {
      records.push(JSON.parse(line) as CommandRecord);
    } catch {
      // Torn write: ignore the fragment.
    }
  }
  return records;
}

function toInfo(stored: StoredSession): SessionInfo {
  const meta = stored.meta as SessionMeta;
  const closedAt = meta.closed_at ?? new Date(lastWrite(stored.dir) ?? Date.parse(meta.created_at)).toISOString();
  return {
    id: meta.id,
    name: meta.name,
    creator: meta.creator,
    controller: meta.creator.kind === 'agent' ? 'agent' : 'user',
    state: 'exited',
    cwd: meta.cwd,
    command: null,
    running_ms: null,
    last_exit_code: meta.last_exit_code ?? null,
    exit_code: meta.closed_at ? meta.exit_code : null,
    rows: meta.rows,
    cols: meta.cols,
    pid: meta.pid,
    program: meta.program,
    title: meta.title ?? '',
    created_at: meta.created_at,
    closed_at: closedAt,
  };
}

/** When a session ended: its closed_at, else (crash, failed start) its output's last write. */
function endedAt(stored: StoredSession): number {
  const closed = stored.meta?.closed_at ? Date.parse(stored.meta.closed_at) : Number.NaN;
  if (Number.isFinite(closed)) return closed;
  return lastWrite(stored.dir) ?? 0;
}

function lastWrite(dir: string): number | null {
  for (const name of [OUTPUT_LOG, META_FILE]) {
    try {
      return fs.statSync(path.join(dir, name)).mtimeMs;
    } catch {
      // Try the next file.
    }
  }
  return null;
}

function directorySize(dir: string): number {
  let total = 0;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    try {
      total += fs.statSync(path.join(dir, name)).size;
    } catch {
      // Removed meanwhile.
    }
  }
  return total;
}

function processAlive(pid: number | undefined): boolean {
  if (!pid || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function notFound(id: string): SwitchboardError {
  return new SwitchboardError(ErrorCode.SessionNotFound, `No session "${id}" on record. Call list with include_closed to see the sessions kept on disk.`);
}
