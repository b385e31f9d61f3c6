import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { pollUntil } from './poll.js';

/**
 * True while `pid` names a live process (a zombie counts as dead). Linux: its /proc stat;
 * elsewhere (macOS): `ps -o stat=`, which prints nothing for a pid that is gone. The same answer
 * on both, so an assertion that a process is gone cannot pass merely because /proc is missing.
 */
export function alive(pid: number): boolean {
  const state = processState(pid);
  return state !== null && !/^[ZX]/.test(state);
}

/** True while the process table has `pid` at all, a zombie included (signal 0: portable). */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // someone else's: it exists
  }
}

/** The process's state letter(s) as `ps` shows them (`S`, `R+`, `Z`…), or null when there is no such process. */
function processState(pid: number): string | null {
  if (process.platform === 'linux') {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2)[0] ?? null;
    } catch {
      return null;
    }
  }
  try {
    return execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null; // ps exits 1 when no process matched
  }
}

/** How many file descriptors this process has open: /dev/fd lists them on Linux (→ /proc/self/fd) and macOS alike. */
export function openFdCount(): number {
  return readdirSync('/dev/fd').length;
}

/** A process's resident memory in KiB: Linux's /proc status (VmRSS), elsewhere (macOS) `ps -o rss=`, also KiB. */
export function residentKb(pid: number): number {
  const kb =
    process.platform === 'linux'
      ? Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1])
      : Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim());
  if (!Number.isFinite(kb) || kb <= 0) throw new Error(`no resident memory for pid ${pid}`);
  return kb;
}

/**
 * The machine's pid of a process a session started, found by the session's mark in its
 * environment and its command line. In the Linux sandbox a session has pids of its own, so the
 * `$!` its shell prints names some other process out here; elsewhere (macOS) `inside` is already
 * the machine's pid. `$!` is printed once the shell forked, before the child's exec: until then
 * the child still shows the shell's command line, so it is looked for until it shows its own
 * (bounded; two at once is an error at once).
 */
export async function machinePid(session: string, commandLine: RegExp, inside: number): Promise<number> {
  if (process.platform !== 'linux') return inside;
  let found: number[] = [];
  await pollUntil(() => {
    found = sessionProcesses(session, commandLine);
    if (found.length > 1) throw new Error(`expected one process of session ${session} running ${commandLine}, found ${found.length}`);
    return found.length === 1;
  }, `a process of session ${session} running ${commandLine}`);
  return found[0]!;
}

function sessionProcesses(session: string, commandLine: RegExp): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environ = readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim();
      if (environ.includes(`SWITCHBOARD_SESSION=${session}`) && commandLine.test(argv)) found.push(Number(entry));
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}
