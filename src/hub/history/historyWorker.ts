/**
 * The history worker (docs/design.md §2.7): a worker thread that owns `<state>/history.db`, so no
 * write, lock wait (busy_timeout) or fsync of the database ever runs on the hub's event loop.
 * Requests come from historyIndex.ts, one at a time in order; each gets one reply. Loads only the
 * database code, never the core.
 */
import * as fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { HistoryDb, type HistoryRow } from './historyDb.js';
import type { HistoryQuery } from '../../core/index.js';

export type HistoryRequest =
  | { id: number; op: 'open' }
  | { id: number; op: 'add'; rows: HistoryRow[] }
  | { id: number; op: 'remove'; sessions: string[] }
  | { id: number; op: 'indexed' }
  | { id: number; op: 'search'; query: HistoryQuery }
  | { id: number; op: 'close' };

export type HistoryReply =
  | {
      id: number;
      ok: true;
      value: unknown;
      /** This request (re)created or reopened the database: it must be filled from commands.jsonl. */
      opened: boolean;
      /** Something the hub should log once (a corrupt file moved aside). */
      notice?: string;
    }
  | { id: number; ok: false; reason: string };

export interface HistoryWorkerData {
  file: string;
  busyTimeoutMs: number;
}

/** SQLite's primary codes for a file that is not (or no longer) a sound database. */
const SQLITE_CORRUPT = 11;
const SQLITE_NOTADB = 26;

const { file, busyTimeoutMs } = workerData as HistoryWorkerData;
let db: HistoryDb | null = null;

function open(): { opened: boolean; notice?: string } {
  if (db && !db.isStale()) return { opened: false };
  db?.close();
  db = null;
  try {
    db = new HistoryDb(file, { busyTimeoutMs });
    return { opened: true };
  } catch (error) {
    if (!isCorrupt(error)) throw error;
    // Derived data: move the bad file aside (kept for a post-mortem) and start a new one.
    const aside = `${file}.corrupt`;
    fs.renameSync(file, aside);
    for (const suffix of ['-wal', '-shm']) fs.rmSync(`${file}${suffix}`, { force: true });
    db = new HistoryDb(file, { busyTimeoutMs });
    return { opened: true, notice: `${file} was not a sound database (${describe(error)}); moved it to ${aside} and rebuilt the index from the transcripts` };
  }
}

function handle(request: HistoryRequest): HistoryReply {
  if (request.op === 'close') {
    db?.close();
    db = null;
    return { id: request.id, ok: true, value: null, opened: false };
  }
  const state = open();
  const current = db!;
  let value: unknown = null;
  switch (request.op) {
    case 'add':
      value = current.add(request.rows);
      break;
    case 'remove':
      current.remove(request.sessions);
      break;
    case 'indexed':
      value = current.indexed();
      break;
    case 'search':
      value = current.search(request.query);
      break;
    case 'open':
      break;
  }
  return { id: request.id, ok: true, value, ...state };
}

parentPort!.on('message', (request: HistoryRequest) => {
  let reply: HistoryReply;
  try {
    reply = handle(request);
  } catch (error) {
    if (isCorrupt(error)) {
      // Found bad while in use: the next request moves it aside and starts over.
      db?.close();
      db = null;
      try {
        fs.renameSync(file, `${file}.corrupt`);
      } catch {
        // Nothing to move: the next open says what is wrong.
      }
    }
    reply = { id: request.id, ok: false, reason: describe(error) };
  }
  parentPort!.postMessage(reply);
  // Ends the thread by emptying its loop: a terminate() that lands while a statement runs can
  // abort the whole process (the SQLite binding throws during its teardown).
  if (request.op === 'close') parentPort!.close();
});

function isCorrupt(error: unknown): boolean {
  const code = (error as { errcode?: number }).errcode;
  return code !== undefined && ((code & 0xff) === SQLITE_CORRUPT || (code & 0xff) === SQLITE_NOTADB);
}

function describe(error: unknown): string {
  const e = error as { message?: string; sqliteCodeName?: string; code?: string };
  const code = e.sqliteCodeName ?? e.code;
  return `${e.message ?? String(error)}${code ? ` (${code})` : ''}`;
}
