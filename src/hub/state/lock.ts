import * as fs from 'node:fs';
import * as path from 'node:path';
import { processAlive, readHubInfo } from '../common/hubInfo.js';

const LOCK_FILE = 'hub.lock';
/** Serialises the removal of a stale lock, so two starters never both "recover" it. */
const BREAK_FILE = 'hub.lock.break';
/** A break file older than this was left by a crash mid-recovery. */
const BREAK_STALE_MS = 10_000;

/** Another live process holds the state dir. */
export class HubLockedError extends Error {
  constructor(
    readonly pid: number,
    readonly port: number | null,
    stateDir: string,
  ) {
    const where = port === null ? '' : ` (http://127.0.0.1:${port})`;
    super(`Another Switchboard hub (pid ${pid}${where}) already runs for ${stateDir}; stop it first, or set SWITCHBOARD_HOME to use another state directory.`);
    this.name = 'HubLockedError';
  }
}

export interface HubLock {
  readonly file: string;
  release(): void;
}

/**
 * One hub per state dir: `hub.lock` created O_EXCL holding our pid. A lock whose pid is dead
 * is recovered; a live one throws HubLockedError naming it. (A pid reused by an unrelated
 * process after a crash looks live: the error names the pid and the file to delete.)
 */
export function acquireHubLock(stateDir: string): HubLock {
  const file = path.join(stateDir, LOCK_FILE);
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      const fd = fs.openSync(file, 'wx', 0o600);
      try {
        fs.writeSync(fd, `${process.pid}\n`);
      } finally {
        fs.closeSync(fd);
      }
      return { file, release: () => releaseLock(file) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = readLockPid(file);
    if (holder !== undefined && holder !== process.pid && processAlive(holder)) {
      throw new HubLockedError(holder, readHubInfo(stateDir)?.port ?? null, stateDir);
    }
    breakStaleLock(stateDir, file, holder);
  }
  throw new Error(`Could not take ${file} (it keeps changing); is another hub starting right now?`);
}

function releaseLock(file: string): void {
  if (readLockPid(file) === process.pid) fs.rmSync(file, { force: true });
}

/** The pid in the lock; undefined while it is being written (empty) or unreadable. */
function readLockPid(file: string): number | undefined {
  try {
    const pid = Number.parseInt(fs.readFileSync(file, 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Removes the lock only if, under the break file, it still names the dead pid we saw. */
function breakStaleLock(stateDir: string, file: string, stalePid: number | undefined): void {
  const breakFile = path.join(stateDir, BREAK_FILE);
  try {
    fs.closeSync(fs.openSync(breakFile, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    try {
      if (Date.now() - fs.statSync(breakFile).mtimeMs > BREAK_STALE_MS) fs.rmSync(breakFile, { force: true });
    } catch {
      // Gone meanwhile: the next attempt retries.
    }
    sleepSync(20);
    return;
  }
  try {
    // An empty lock (a starter between open and write) is only stale once it is old.
    const current = readLockPid(file);
    const emptyAndOld = current === undefined && stalePid === undefined && ageMs(file) > 2_000;
    if ((current !== undefined && current === stalePid) || emptyAndOld) fs.rmSync(file, { force: true });
    else if (current === undefined) sleepSync(20);
  } finally {
    fs.rmSync(breakFile, { force: true });
  }
}

function ageMs(file: string): number {
  try {
    return Date.now() - fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
