/**
 * `<state>/history.db` (docs/design.md §2.7): one row per finished command of every session, a
 * full-text index on the command line. Synchronous (node:sqlite's `DatabaseSync` API), so it runs
 * in the history worker (historyWorker.ts), never on the hub's event loop. The database is derived
 * data: a missing, replaced or corrupt file is recreated and refilled from commands.jsonl.
 */
import * as fs from 'node:fs';
import { DatabaseSync, type DatabaseSyncInstance, type StatementSyncInstance } from '@photostructure/sqlite';
import type { HistoryEntry, HistoryQuery } from '../../core/index.js';
import { ftsQuery, likePattern } from './historyQuery.js';

/** Bump when the schema changes: an older file is dropped and rebuilt (it only mirrors commands.jsonl). */
const SCHEMA_VERSION = 1;

/** A row as the hub sends it to the worker. */
export interface HistoryRow {
  session: string;
  session_name: string | null;
  seq: number;
  command: string;
  cwd: string | null;
  exit_code: number | null;
  /** Epoch ms. */
  started_at: number;
  duration_ms: number | null;
  creator: string;
  output_head: string;
  output_start_byte: number;
  output_end_byte: number | null;
}

/** What the index holds of one session: to tell which of its commands.jsonl lines are missing. */
export interface IndexedSession {
  count: number;
  maxSeq: number;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS commands (
  id INTEGER PRIMARY KEY,
  session TEXT NOT NULL,
  session_name TEXT,
  seq INTEGER NOT NULL,
  command TEXT NOT NULL,
  cwd TEXT,
  exit_code INTEGER,
  started_at INTEGER NOT NULL,
  duration_ms INTEGER,
  creator TEXT NOT NULL,
  output_head TEXT NOT NULL DEFAULT '',
  output_start_byte INTEGER NOT NULL,
  output_end_byte INTEGER,
  UNIQUE (session, seq)
);
CREATE INDEX IF NOT EXISTS commands_started ON commands (started_at);
CREATE INDEX IF NOT EXISTS commands_cwd ON commands (cwd);
CREATE INDEX IF NOT EXISTS commands_failed ON commands (started_at) WHERE exit_code IS NOT NULL AND exit_code <> 0;
CREATE VIRTUAL TABLE IF NOT EXISTS commands_fts USING fts5 (command, content = 'commands', content_rowid = 'id');
CREATE TRIGGER IF NOT EXISTS commands_ai AFTER INSERT ON commands BEGIN
  INSERT INTO commands_fts (rowid, command) VALUES (new.id, new.command);
END;
CREATE TRIGGER IF NOT EXISTS commands_ad AFTER DELETE ON commands BEGIN
  INSERT INTO commands_fts (commands_fts, rowid, command) VALUES ('delete', old.id, old.command);
END;
`;

/** Words matching more than 1/MANY_MATCHES of all commands do not drive a search (see `search`). */
const MANY_MATCHES = 50;

const COLUMNS = 'session, seq, command, cwd, exit_code, started_at, duration_ms, creator, output_head';

interface HistoryDbOptions {
  /** How long a write waits for another connection's lock before it fails (SQLITE_BUSY). */
  busyTimeoutMs: number;
}

export class HistoryDb {
  private readonly db: DatabaseSyncInstance;
  private readonly insert: StatementSyncInstance;
  private readonly removeSession: StatementSyncInstance;
  /** The file's identity when opened: a file deleted or replaced under us is noticed (`isStale`). */
  private readonly inode: number;
  /** Rows in the table, kept as rows are added and removed (for the query plan of `search`). */
  private rows: number;

  constructor(
    readonly file: string,
    options: HistoryDbOptions,
  ) {
    this.db = new DatabaseSync(file, { timeout: options.busyTimeoutMs });
    try {
      this.db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
      const version = (this.db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version;
      if (version !== SCHEMA_VERSION && version !== 0) {
        this.db.exec(
          'DROP TRIGGER IF EXISTS commands_ai; DROP TRIGGER IF EXISTS commands_ad; DROP TABLE IF EXISTS commands_fts; DROP TABLE IF EXISTS commands;',
        );
      }
      this.db.exec(SCHEMA);
      this.db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
      this.insert = this.db.prepare(
        `INSERT OR IGNORE INTO commands (session, session_name, seq, command, cwd, exit_code, started_at, duration_ms, creator, output_head, output_start_byte, output_end_byte)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      this.removeSession = this.db.prepare('DELETE FROM commands WHERE session = ?');
      this.inode = fs.statSync(file).ino;
      this.rows = (this.db.prepare('SELECT count(*) AS n FROM commands').get() as { n: number }).n;
    } catch (error) {
      this.db.close();
      throw error;
    }
  }

  /** The file was deleted or replaced since it was opened: writes would go nowhere anyone reads. */
  isStale(): boolean {
    try {
      return fs.statSync(this.file).ino !== this.inode;
    } catch {
      return true;
    }
  }

  /** Rows in one transaction; a (session, seq) already indexed is left as it is. Returns rows added. */
  add(rows: readonly HistoryRow[]): number {
    let added = 0;
    this.transaction(() => {
      for (const r of rows) {
        const result = this.insert.run(
          r.session,
          r.session_name,
          r.seq,
          r.command,
          r.cwd,
          r.exit_code,
          r.started_at,
          r.duration_ms,
          r.creator,
          r.output_head,
          r.output_start_byte,
          r.output_end_byte,
        );
        added += Number(result.changes);
      }
    });
    this.rows += added;
    return added;
  }

  /** Forgets these sessions' commands (retention removed their transcripts). */
  remove(sessions: readonly string[]): void {
    this.transaction(() => {
      for (const session of sessions) this.rows -= Number(this.removeSession.run(session).changes);
    });
  }

  /** What is indexed per session. */
  indexed(): Record<string, IndexedSession> {
    const result: Record<string, IndexedSession> = {};
    for (const row of this.db.prepare('SELECT session, count(*) AS n, max(seq) AS m FROM commands GROUP BY session').all() as {
      session: string;
      n: number;
      m: number;
    }[]) {
      result[row.session] = { count: row.n, maxSeq: row.m };
    }
    return result;
  }

  /** The newest matches first, at most `limit`, and how many match in all. */
  search(query: HistoryQuery): { commands: HistoryEntry[]; total: number } {
    const where: string[] = [];
    const params: (string | number)[] = [];
    const words = query.text ? ftsQuery(query.text) : { match: null, literals: [] };
    // SQLite cannot know how many commands the words match; the full-text index can, cheaply.
    // Few: the matches drive the query. Many: the other filters' indexes do, or the time index
    // walked newest first, each match checked against the words' set (`+id`: not used to look up).
    const matched =
      words.match === null ? 0 : (this.db.prepare('SELECT count(*) AS n FROM commands_fts WHERE commands_fts MATCH ?').get(words.match) as { n: number }).n;
    const wordsDrive = matched * MANY_MATCHES <= this.rows;
    if (words.match !== null) {
      where.push(`${wordsDrive ? 'id' : '+id'} IN (SELECT rowid FROM commands_fts WHERE commands_fts MATCH ?)`);
      params.push(words.match);
    }
    for (const literal of words.literals) {
      where.push("command LIKE ? ESCAPE '\\'");
      params.push(likePattern(literal));
    }
    if (query.cwd !== undefined) {
      // This folder and below, as a range the index serves ('0' follows '/').
      const base = query.cwd === '/' ? '' : query.cwd.replace(/\/+$/, '');
      where.push('(cwd = ? OR (cwd >= ? AND cwd < ?))');
      params.push(base === '' ? '/' : base, `${base}/`, `${base}0`);
    }
    if (query.session !== undefined) {
      where.push('(session = ? OR session_name = ?)');
      params.push(query.session, query.session);
    }
    if (query.status === 'failed') where.push('exit_code IS NOT NULL AND exit_code <> 0');
    if (query.status === 'succeeded') where.push('exit_code = 0');
    if (query.client !== undefined) {
      // A client name matches with or without its version ("claude-code" finds "claude-code 2.1.0").
      where.push("(lower(creator) = lower(?) OR lower(substr(creator, 1, length(?) + 1)) = lower(?) || ' ')");
      params.push(query.client, query.client, query.client);
    }
    if (query.since !== undefined) {
      where.push('started_at >= ?');
      params.push(query.since);
    }
    const clause = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
    const onlyWords = words.match !== null && where.length === 1;
    const total = onlyWords ? matched : (this.db.prepare(`SELECT count(*) AS n FROM commands ${clause}`).get(...params) as { n: number }).n;
    const walk = onlyWords && !wordsDrive ? 'INDEXED BY commands_started' : '';
    const rows = this.db.prepare(`SELECT ${COLUMNS} FROM commands ${walk} ${clause} ORDER BY started_at DESC LIMIT ?`).all(...params, query.limit) as (Omit<
      HistoryEntry,
      'started_at'
    > & { started_at: number })[];
    return { commands: rows.map((row) => ({ ...row, started_at: new Date(row.started_at).toISOString() })), total };
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
  }

  private transaction(body: () => void): void {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      body();
      this.db.exec('COMMIT');
    } catch (error) {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      throw error;
    }
  }
}
