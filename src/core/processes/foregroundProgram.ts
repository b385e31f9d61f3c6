import { execFile } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { promisify } from 'node:util';
import type { ForegroundProgram } from '../types.js';
import { probeTerminalInput } from './inputProbe.js';
import { isAlive, listProcesses, readProcess, type ProcessInfo } from './processTable.js';

const execFileAsync = promisify(execFile);

/**
 * Programs that read command lines: what is typed into one is a command (docs/design.md §2.9).
 * busybox counts, since `busybox sh` runs as busybox.
 */
const SHELL_PROGRAMS: ReadonlySet<string> = new Set([
  'sh',
  'bash',
  'rbash',
  'zsh',
  'dash',
  'ksh',
  'ksh93',
  'mksh',
  'pdksh',
  'oksh',
  'ash',
  'yash',
  'posh',
  'fish',
  'csh',
  'tcsh',
  'busybox',
  'nu',
  'elvish',
  'pwsh',
]);

/** The files a shell may take its commands from that are the terminal (or whatever the line connects to it). */
const TERMINAL_FILES = /^(-|\/dev\/(stdin|tty|fd\/\d+)|\/proc\/(self|thread-self|\d+)\/fd\/\d+)$/;

/**
 * Whether a shell started with these arguments reads command lines from the terminal: interactive,
 * `-s`, no script, or a script that is the terminal (`bash /dev/stdin`). A shell running a `-c`
 * string or a script file reads the terminal only for its own `read`s: data for a script that was
 * judged (or is out of reach, as any script is). argv[0] first; busybox's applet is argv[1].
 */
export function readsCommandLines(argv: readonly string[]): boolean {
  let args = argv.slice(1);
  if (path.basename(argv[0] ?? '').replace(/^-/, '') === 'busybox') {
    if (!/^(sh|ash|hush|bash)$/.test(args[0] ?? '')) return false;
    args = args.slice(1);
  }
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (arg === '--') return args[index + 1] === undefined || TERMINAL_FILES.test(args[index + 1] as string);
    if (arg.startsWith('--')) {
      if (arg === '--command' || arg.startsWith('--command=')) return false;
      if (arg === '--rcfile' || arg === '--init-file' || arg === '--init-command') index++;
      continue;
    }
    if (/^[-+][a-zA-Z]+$/.test(arg)) {
      if (arg.startsWith('-') && arg.includes('c')) return false;
      if (arg.includes('s') || arg.includes('i')) return true;
      if (/[oO]/.test(arg)) index++;
      continue;
    }
    return TERMINAL_FILES.test(arg);
  }
  return true;
}

/**
 * What reads the session's terminal next (docs/design.md §2.9, `send`): the terminal's foreground
 * process group, and the processes they started. A shell among them that has started nothing
 * (the session's own at its prompt, one the agent started, one reached by `exec`, one behind a
 * program that relays the terminal to another, such as `script`) is reading command lines; else
 * it is a program, and (given the terminal's path) whether it waits on the terminal now. Names
 * come from each process's executable, not its argv (which a process may set); `ownShell`, the
 * session's own shell's file, is a shell whatever its name. The process table unread is `unknown`.
 */
export async function foregroundProgram(sessionPid: number, ttyPath: string | undefined, ownShell?: string): Promise<ForegroundProgram> {
  const unknown: ForegroundProgram = { kind: 'unknown', name: null, pid: null, cwd: null };
  const session = await readProcess(sessionPid);
  if (!session || !isAlive(session) || session.tpgid <= 0) return unknown;
  const group = session.tpgid;
  if (process.platform !== 'linux') return macForeground(group, ttyPath);
  // The common case: the session's own shell leads the foreground group (at its prompt, or a builtin).
  if (group === sessionPid) {
    // The session's own shell is one whatever its name (a configured `/opt/bin/bash5`), while it still runs that executable.
    const own = ownShell !== undefined && (await programName(sessionPid)) === (await realName(ownShell));
    const name = own ? await programName(sessionPid) : await shellName(sessionPid);
    if (name !== null) return { kind: 'shell', name, pid: sessionPid, cwd: await processCwd(sessionPid) };
  }
  const table = await listProcesses();
  const shell = await idleShellIn(table, group, shellName);
  if (shell) return { kind: 'shell', name: shell.name, pid: shell.pid, cwd: await processCwd(shell.pid) };
  const leader = table.get(group);
  const name = leader ? await programName(group) : null;
  if (!ttyPath) return { kind: 'program', name, pid: group, cwd: null };
  return { kind: 'program', name, pid: group, cwd: null, reading: (await probeTerminalInput(group, ttyPath)).reading };
}

/** A shell reading command lines with no live child, among the foreground group and everything it started (looked up only for those). */
async function idleShellIn(
  table: Map<number, ProcessInfo>,
  group: number,
  shellOf: (pid: number) => Promise<string | null>,
): Promise<{ pid: number; name: string } | undefined> {
  const children = new Map<number, number[]>();
  for (const row of table.values()) {
    if (!isAlive(row)) continue;
    const list = children.get(row.ppid) ?? [];
    list.push(row.pid);
    children.set(row.ppid, list);
  }
  const queue = [...table.values()].filter((row) => row.pgid === group && isAlive(row)).map((row) => row.pid);
  const seen = new Set<number>();
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    if (seen.has(pid)) continue;
    seen.add(pid);
    const kids = children.get(pid) ?? [];
    const name = kids.length === 0 ? await shellOf(pid) : null;
    if (name !== null) return { pid, name };
    queue.push(...kids);
  }
  return undefined;
}

/** The process's shell name when it is a shell that reads command lines from the terminal, else null (Linux). */
async function shellName(pid: number): Promise<string | null> {
  const name = await programName(pid);
  if (name === null || !SHELL_PROGRAMS.has(name)) return null;
  const cmdline = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => null);
  // Unreadable: taken as reading them (the strict answer).
  if (cmdline === null) return name;
  return readsCommandLines(cmdline.split('\0').filter((arg, index, all) => arg !== '' || index < all.length - 1)) ? name : null;
}

/** The basename of a process's executable (Linux), else its command name. */
async function programName(pid: number): Promise<string | null> {
  const exe = await fs.readlink(`/proc/${pid}/exe`).catch(() => null);
  if (exe) return path.basename(exe.replace(/ \(deleted\)$/, ''));
  const comm = await fs.readFile(`/proc/${pid}/comm`, 'utf8').catch(() => null);
  return comm === null ? null : comm.trim();
}

/** The basename of the file an executable path resolves to (symlinks followed, as /proc/<pid>/exe shows it). */
async function realName(file: string): Promise<string | null> {
  return fs.realpath(file).then(
    (real) => path.basename(real),
    () => null,
  );
}

async function processCwd(pid: number): Promise<string | null> {
  return fs.readlink(`/proc/${pid}/cwd`).catch(() => null);
}

/** Untested here (Linux CI): `ps` gives every process's command name; no working directory. */
async function macForeground(group: number, ttyPath: string | undefined): Promise<ForegroundProgram> {
  try {
    const { stdout } = await execFileAsync('ps', ['-A', '-o', 'pid=,ppid=,pgid=,stat=,comm='], { maxBuffer: 16 * 1024 * 1024 });
    const { stdout: args } = await execFileAsync('ps', ['-A', '-ww', '-o', 'pid=,args='], { maxBuffer: 16 * 1024 * 1024 });
    const table = new Map<number, ProcessInfo>();
    const names = new Map<number, string>();
    const argvs = new Map<number, string[]>();
    for (const line of args.split('\n')) {
      const m = /^\s*(\d+)\s+(.*)$/.exec(line);
      // Arguments with spaces cannot be told apart here (an untested port): split on blanks.
      if (m) argvs.set(Number(m[1]), (m[2] ?? '').split(/\s+/));
    }
    for (const line of stdout.split('\n')) {
      const m = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(.+?)\s*$/.exec(line);
      if (!m) continue;
      const pid = Number(m[1]);
      table.set(pid, { pid, ppid: Number(m[2]), pgid: Number(m[3]), sid: undefined, tty: '', tpgid: -1, state: (m[4] ?? '?').charAt(0), startTime: '' });
      names.set(pid, path.basename((m[5] ?? '').replace(/^-/, '')));
    }
    const shell = await idleShellIn(table, group, async (pid) => {
      const name = names.get(pid);
      return name !== undefined && SHELL_PROGRAMS.has(name) && readsCommandLines(argvs.get(pid) ?? [name]) ? name : null;
    });
    if (shell) return { kind: 'shell', name: shell.name, pid: shell.pid, cwd: null };
    const name = names.get(group) ?? null;
    if (!ttyPath) return { kind: 'program', name, pid: group, cwd: null };
    return { kind: 'program', name, pid: group, cwd: null, reading: (await probeTerminalInput(group, ttyPath)).reading };
  } catch {
    return { kind: 'unknown', name: null, pid: null, cwd: null };
  }
}
