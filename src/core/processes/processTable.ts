/**
 * Reading the OS process table, one platform per branch (docs/design.md §2.8).
 *
 * Linux reads /proc directly. macOS has no /proc, so it asks `ps`; what `ps` prints is read by
 * pure functions in macPs.ts, tested on every platform against recorded macOS output.
 * Nothing here signals anything; a process that vanishes mid-read is simply absent.
 */
import { execFile } from 'node:child_process';
import { closeSync, openSync, readdirSync, readSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { promisify } from 'node:util';
import { environmentValuesFromPs, parsePsTable, PS_ARGUMENTS_ARGS, PS_ENVIRONMENT_ARGS, psTableArgs } from './macPs.js';
import type { ProcessInfo } from './processInfo.js';

export { isAlive, type ProcessInfo } from './processInfo.js';

const execFileAsync = promisify(execFile);

const isMac = process.platform === 'darwin';
/** Processes read between two turns of the event loop while scanning the table. */
const SCAN_BATCH = 64;

/** The row of one process, or undefined when it does not exist (or cannot be read). */
export async function readProcess(pid: number): Promise<ProcessInfo | undefined> {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  if (isMac) return parsePsTable(await runPs(psTableArgs(['-p', String(pid)]))).get(pid);
  return readProcessSync(pid); // undefined: the process is gone (ENOENT/ESRCH), which is normal
}

/** Every process the OS lists right now, by pid (zombies included; filter with isAlive). */
export async function listProcesses(): Promise<Map<number, ProcessInfo>> {
  if (isMac) return parsePsTable(await runPs(psTableArgs(['-ax'])));
  const names = await readdir('/proc').catch(() => [] as string[]);
  const pids = names.filter((n) => /^\d+$/.test(n)).map(Number);
  const table = new Map<number, ProcessInfo>();
  for (const [i, pid] of pids.entries()) {
    if (i > 0 && i % SCAN_BATCH === 0) await nextTurn();
    const row = await readProcess(pid);
    if (row) table.set(row.pid, row);
  }
  return table;
}

/**
 * A process and everything below it (children, their children, …), Linux only: read from
 * /proc/<pid>/task/<tid>/children, a few small files for a session's handful of processes where
 * listProcesses reads every process on the machine. Undefined where the kernel has no children
 * files (CONFIG_PROC_CHILDREN), on macOS, or when `pid` is gone: ask listProcesses then.
 */
export function processTree(pid: number): ProcessInfo[] | undefined {
  if (isMac) return undefined;
  const root = readProcessSync(pid);
  if (!root) return undefined;
  const tree = [root];
  for (let i = 0; i < tree.length; i++) {
    const children = childPids(tree[i]!.pid);
    if (children === undefined) {
      if (i === 0) return undefined; // no children files on this kernel
      continue; // a process that ended meanwhile
    }
    for (const child of children) {
      const row = readProcessSync(child);
      if (row) tree.push(row);
    }
  }
  return tree;
}

/** The children of every thread of `pid`, or undefined when they cannot be read. */
function childPids(pid: number): number[] | undefined {
  try {
    const pids: number[] = [];
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      for (const child of readProcFile(`/proc/${pid}/task/${task}/children`).split(' ')) if (child !== '') pids.push(Number(child));
    }
    return pids;
  } catch {
    return undefined;
  }
}

function readProcessSync(pid: number): ProcessInfo | undefined {
  try {
    return parseStat(readProcFile(`/proc/${pid}/stat`));
  } catch {
    return undefined;
  }
}

/**
 * The values of one environment variable, as each process was started with it, for the given
 * pids: every `NAME=` entry (Linux: exact; macOS: see environmentValuesFromPs, where a value
 * that imitates the entry adds one). A pid is absent when the variable is unset or unreadable
 * (another user's process, a setuid program, a vanished pid).
 */
export async function environmentValues(name: string, pids: readonly number[]): Promise<Map<number, string[]>> {
  if (isMac) {
    const [withEnvironment, argumentsOnly] = await Promise.all([runPs([...PS_ENVIRONMENT_ARGS]), runPs([...PS_ARGUMENTS_ARGS])]);
    return environmentValuesFromPs(name, pids, withEnvironment, argumentsOnly);
  }
  const values = new Map<number, string[]>();
  for (const [i, pid] of pids.entries()) {
    if (i > 0 && i % SCAN_BATCH === 0) await nextTurn();
    const found = linuxEnvironmentValues(pid, `${name}=`);
    if (found.length > 0) values.set(pid, found);
  }
  return values;
}

function linuxEnvironmentValues(pid: number, prefix: string): string[] {
  try {
    const environ = readProcFile(`/proc/${pid}/environ`);
    return environ
      .split('\0')
      .filter((e) => e.startsWith(prefix))
      .map((e) => e.slice(prefix.length));
  } catch {
    return [];
  }
}

/** The one buffer every /proc read goes through; grown (and kept) for a larger environment. */
let procBuffer = Buffer.allocUnsafe(64 * 1024);

/**
 * A /proc file as text, read synchronously into the one reused buffer. A close scans the stat
 * and environ of every process on the machine (twice or more); with `fs.promises.readFile` that
 * was hundreds of concurrent requests per close, each with a fresh 64 KB buffer (procfs files
 * report size 0), and the hub's malloc heap grew with every closed session, for good
 * (test/adversarial/churn.test.ts; bounded concurrency with reused buffers still grew it).
 * procfs answers from memory, so a synchronous read is short, and a scan yields to the event
 * loop every SCAN_BATCH processes. The cost: reading an environ waits for that
 * process's memory-map lock, so a process stuck holding it would stall the hub for as long;
 * `processes.ts` reads the environ only of processes started after the session's shell.
 */
function readProcFile(file: string): string {
  const fd = openSync(file, 'r');
  try {
    let length = 0;
    for (;;) {
      if (length === procBuffer.length) {
        const bigger = Buffer.allocUnsafe(procBuffer.length * 2);
        procBuffer.copy(bigger);
        procBuffer = bigger;
      }
      const read = readSync(fd, procBuffer, length, procBuffer.length - length, null);
      if (read === 0) return procBuffer.toString('utf8', 0, length);
      length += read;
    }
  } finally {
    closeSync(fd);
  }
}

/** Lets other work run between batches of a long scan. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Parses /proc/<pid>/stat. The command name (field 2) may hold spaces and parentheses, so the
 * fields are counted from the LAST ')'. After it, field N of proc(5) is at index N - 3.
 */
function parseStat(text: string): ProcessInfo | undefined {
  const close = text.lastIndexOf(')');
  if (close < 0) return undefined;
  const pid = Number.parseInt(text, 10);
  const f = text
    .slice(close + 2)
    .trim()
    .split(' ');
  if (!Number.isInteger(pid) || f.length < 20) return undefined;
  const tty = f[4] ?? '0';
  return {
    pid,
    state: f[0] ?? '?',
    ppid: Number(f[1]),
    pgid: Number(f[2]),
    sid: Number(f[3]),
    tty: tty === '0' ? '' : tty,
    tpgid: Number(f[5]),
    startTime: f[19] ?? '', // field 22: start time in clock ticks after boot
  };
}

/** `ps` exits 1 when no process matched; that is an empty answer, not an error. */
async function runPs(args: string[]): Promise<string> {
  try {
    return (await execFileAsync('ps', args, { maxBuffer: 16 * 1024 * 1024 })).stdout;
  } catch (e) {
    const stdout = (e as { stdout?: unknown }).stdout;
    return typeof stdout === 'string' ? stdout : '';
  }
}
