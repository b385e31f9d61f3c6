/**
 * The hub's side of the history index (docs/design.md §2.7): finished commands queued and sent to
 * the history worker once per turn of the event loop, so a command's completion never waits on
 * the database; the index filled from each session's commands.jsonl when it is new, was deleted or
 * replaced, or was out of reach; sessions removed by retention removed from it; searches answered
 * by the worker. A database that cannot be opened or written never stops a session: the hub logs
 * once, searches say why, and the index catches up when it can be written again.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { FinishedCommand, HistoryPage, HistoryQuery, SessionStore } from '../../core/index.js';
import { packageRoot } from '../../packageInfo.js';
import type { HistoryRow, IndexedSession } from './historyDb.js';
import type { HistoryReply, HistoryRequest, HistoryWorkerData } from './historyWorker.js';
import type { Logger } from '../common/logger.js';

/** The history database's file name in the state dir. */
const HISTORY_DB = 'history.db';
/** How long the worker waits for another process's lock before a write gives up (it is retried). */
const BUSY_TIMEOUT_MS = 5_000;
/** While the database is out of reach, how often to try again. */
const RETRY_MS = 30_000;
/** How long a closing worker may take to leave by itself. */
const CLOSE_WAIT_MS = 5_000;
/** Rows per message when filling the index from transcripts. */
const FILL_BATCH = 2_000;

/** `person` for the person's sessions, else the agent client's name and version. */
function creatorName(creator: FinishedCommand['creator']): string {
  return creator.kind === 'agent' ? creator.client : 'person';
}

interface HistoryIndexOptions {
  stateDir: string;
  store: SessionStore;
  logger: Pick<Logger, 'warn' | 'info'>;
  /** The worker script (tests, bench); default: historyWorker.js beside this module, else in dist/. */
  workerFile?: string;
}

/** What the `history` tool (and later the UI's search) asks of the hub. */
export interface HistorySearch {
  search(query: HistoryQuery): Promise<HistoryPage>;
}

export class HistoryIndex implements HistorySearch {
  readonly file: string;
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, (reply: HistoryReply) => void>();
  private queue: HistoryRow[] = [];
  private flushScheduled: NodeJS.Immediate | null = null;
  /** Why the index is out of reach, or null while it works. */
  private unavailable: string | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  /** Filling from the transcripts: sessions done and in all, while it runs. */
  private filling: { done: number; of: number } | null = null;
  private fillAgain = false;
  private fillRun: Promise<void> | null = null;
  /** Whether the database was asked to open: at the first command, search or removal, not at start. */
  private started = false;
  private disposed = false;

  constructor(private readonly options: HistoryIndexOptions) {
    this.file = path.join(options.stateDir, HISTORY_DB);
  }

  /** A command finished: queued, sent with the others of this turn. Never throws, never waits. */
  add(finished: FinishedCommand): void {
    if (this.disposed) return;
    this.start();
    this.queue.push(toRow(finished.session, finished.name, finished.creator, finished.record));
    this.flushScheduled ??= setImmediate(() => this.flush());
  }

  /** Retention removed these sessions' transcripts: their commands leave the index. */
  remove(sessions: string[]): void {
    if (this.disposed || sessions.length === 0) return;
    this.start();
    this.flush();
    void this.request({ op: 'remove', sessions });
  }

  async search(query: HistoryQuery): Promise<HistoryPage> {
    if (query.cwd !== undefined) query = { ...query, cwd: normalizeFolder(query.cwd) };
    this.flush(); // commands finished before the question are in the answer
    if (!this.start() && this.unavailable !== null) await this.request({ op: 'open' }); // maybe back: try now
    const reply = await this.request({ op: 'search', query });
    if (!reply.ok) return { commands: [], total: 0, note: unavailableNote(reply.reason) };
    const page = reply.value as HistoryPage;
    const filling = this.filling;
    if (filling)
      page.note = `The index is catching up with the transcripts (${filling.done} of ${filling.of} sessions read); older commands may be missing for a moment.`;
    return page;
  }

  /** Sends what is queued, then closes the database and the worker. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.flush();
    this.disposed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const worker = this.worker;
    if (worker) {
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      await this.request({ op: 'close' });
      // The worker leaves by itself after `close` (see historyWorker.ts); terminate only one that does not.
      const timer = setTimeout(() => void worker.terminate(), CLOSE_WAIT_MS);
      await exited;
      clearTimeout(timer);
      this.worker = null;
    }
  }

  /**
   * Opens the database (the worker fills it from the transcripts once it is open) on first use:
   * a hub nobody runs a command in starts no worker thread and loads no SQLite (CPU and memory
   * at every start). Requests reach the worker in order, so the open comes first. True if it
   * started now.
   */
  private start(): boolean {
    if (this.started) return false;
    this.started = true;
    void this.request({ op: 'open' });
    return true;
  }

  private flush(): void {
    if (this.flushScheduled) clearImmediate(this.flushScheduled);
    this.flushScheduled = null;
    if (this.queue.length === 0) return;
    const rows = this.queue;
    this.queue = [];
    // Not awaited: the reply only reports a failure (the rows come back from commands.jsonl).
    void this.request({ op: 'add', rows });
  }

  /** One request to the worker; a failure of the worker or the database becomes `ok: false`, never a throw. */
  private request(body: DistributiveOmit<HistoryRequest, 'id'>): Promise<HistoryReply> {
    const id = this.nextId++;
    let worker: Worker;
    try {
      worker = this.ensureWorker();
    } catch (error) {
      const reply: HistoryReply = { id, ok: false, reason: `the history worker could not start: ${(error as Error).message}` };
      this.handleReply(reply);
      return Promise.resolve(reply);
    }
    return new Promise((resolve) => {
      this.pending.set(id, (reply) => {
        this.handleReply(reply);
        resolve(reply);
      });
      worker.postMessage({ ...body, id } as HistoryRequest);
    });
  }

  private handleReply(reply: HistoryReply): void {
    if (this.disposed) return;
    if (!reply.ok) {
      this.markUnavailable(reply.reason);
      return;
    }
    if (reply.notice) this.options.logger.warn(`history: ${reply.notice}`);
    if (this.unavailable !== null) {
      this.options.logger.info('history: the index can be written again; catching up from the transcripts');
      this.unavailable = null;
      if (this.retryTimer) clearTimeout(this.retryTimer);
      this.retryTimer = null;
      this.fill();
    } else if (reply.opened) {
      this.fill();
    }
  }

  /** Logs once per outage, then retries now and then (a search retries at once). */
  private markUnavailable(reason: string): void {
    if (this.unavailable === null) {
      this.options.logger.warn(
        `history: ${this.file} is unavailable (${reason}); commands still run and are recorded in their transcripts, and the index catches up once it can be written`,
      );
    }
    this.unavailable = reason;
    this.retryTimer ??= setTimeout(() => {
      this.retryTimer = null;
      if (!this.disposed) void this.request({ op: 'open' });
    }, RETRY_MS);
    this.retryTimer.unref();
  }

  /**
   * Brings the index in line with the transcripts on disk: commands.jsonl lines it lacks are
   * added, sessions no longer on disk removed. Reads one session at a time, off the event loop's
   * critical path (async reads); runs again if asked while it runs.
   */
  private fill(): void {
    if (this.fillRun) {
      this.fillAgain = true;
      return;
    }
    this.fillRun = this.fillOnce()
      .catch((error: unknown) => this.markUnavailable(`reading the transcripts failed: ${(error as Error).message}`))
      .finally(() => {
        this.fillRun = null;
        this.filling = null;
        if (this.fillAgain && !this.disposed) {
          this.fillAgain = false;
          this.fill();
        }
      });
  }

  private async fillOnce(): Promise<void> {
    const reply = await this.request({ op: 'indexed' });
    if (!reply.ok) return;
    const indexed = reply.value as Record<string, IndexedSession>;
    const { store } = this.options;
    const ids = store.ids();
    const onDisk = new Set(ids);
    const gone = Object.keys(indexed).filter((id) => !onDisk.has(id));
    if (gone.length > 0) await this.request({ op: 'remove', sessions: gone });
    this.filling = { done: 0, of: ids.length };
    let batch: HistoryRow[] = [];
    for (const id of ids) {
      if (this.disposed) return;
      const records = await store.readCommands(id);
      const known = indexed[id];
      this.filling.done++;
      if (records.length === 0 || (known && known.count >= records.length && known.maxSeq >= (records.at(-1)?.seq ?? 0))) continue;
      const meta = store.readMeta(id);
      const creator = meta ? creatorName(meta.creator) : 'unknown';
      for (const record of records) {
        if (record.ended_at === null) continue;
        batch.push(toRow(id, meta?.name ?? null, creator, record));
      }
      if (batch.length >= FILL_BATCH) {
        const sent = await this.request({ op: 'add', rows: batch });
        batch = [];
        if (!sent.ok) return;
      }
    }
    if (batch.length > 0) await this.request({ op: 'add', rows: batch });
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    if (this.disposed) throw new Error('the hub is shutting down');
    const data: HistoryWorkerData = { file: this.file, busyTimeoutMs: BUSY_TIMEOUT_MS };
    const worker = new Worker(this.options.workerFile ?? workerScript(), { workerData: data });
    worker.unref();
    worker.on('message', (reply: HistoryReply) => {
      const resolve = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      resolve?.(reply);
    });
    const stopped = (why: string): void => {
      if (this.worker !== worker) return;
      this.worker = null;
      for (const [id, resolve] of [...this.pending]) {
        this.pending.delete(id);
        resolve({ id, ok: false, reason: why });
      }
    };
    worker.on('error', (error) => stopped(`the history worker failed: ${error.message}`));
    worker.on('exit', (code) => stopped(`the history worker exited (code ${code})`));
    this.worker = worker;
    return worker;
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

function toRow(session: string, name: string | null, creator: FinishedCommand['creator'] | string, record: FinishedCommand['record']): HistoryRow {
  return {
    session,
    session_name: name,
    seq: record.seq,
    command: record.command,
    cwd: record.cwd,
    exit_code: record.exit_code,
    started_at: record.started_at,
    duration_ms: record.ended_at === null ? null : record.ended_at - record.started_at,
    creator: typeof creator === 'string' ? creator : creatorName(creator),
    output_head: record.output_head ?? '',
    output_start_byte: record.output_start_byte,
    output_end_byte: record.output_end_byte,
  };
}

function unavailableNote(reason: string): string {
  return `The history index is unavailable (${reason}); it catches up once it can be written. Each session's commands are still in its transcript: list {"include_closed":true}, then read {"session":"…","view":"command","seq":…}.`;
}

/** An absolute folder as sessions record theirs: `~` expanded, no `.`/`..`, no trailing slash. */
function normalizeFolder(folder: string): string {
  const expanded = folder === '~' || folder.startsWith('~/') ? path.join(os.homedir(), folder.slice(1)) : folder;
  return path.resolve(expanded);
}

/** historyWorker.js beside this module when built; from the sources (tests), the built one in dist/. */
function workerScript(): string {
  const here = fileURLToPath(new URL('./historyWorker.js', import.meta.url));
  return fs.existsSync(here) ? here : path.join(packageRoot(), 'dist', 'src', 'hub', 'history', 'historyWorker.js');
}
