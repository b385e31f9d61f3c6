import { execFile } from 'node:child_process';
import * as fs from 'node:fs/promises';
import { promisify } from 'node:util';
import type { InputKind } from '../types.js';
import { groupWaitFromPs, PS_WAIT_ARGS } from './macPs.js';
import { listProcesses, processTree, readProcess } from './processTable.js';
import { judgeWait, parseEpollInputs, parseSyscall, parseTerminalModes, type TerminalModes, type WaitingProcess } from './terminalWait.js';

const execFileAsync = promisify(execFile);

/**
 * Does the terminal's foreground job wait for the terminal, and in which mode is the terminal?
 * (docs/design.md §2.6.) Asked only after output has been quiet, so the cost (a few /proc
 * reads, one `stty`) never lands on the byte path.
 *
 * Linux: a thread of a process of the foreground group blocked in a read of the terminal, or in
 * select/poll/epoll with the terminal among what it waits on (judgeWait in terminalWait.ts).
 * macOS: `ps` wait channels: `ttyin` is a read of the terminal; `select` (select and poll) and
 * `kqread` (kqueue) count when the terminal is out of canonical mode. Neither can tell which
 * descriptors a select or kqueue holds.
 */
export interface InputProbe {
  reading: boolean;
  /** Echo off in canonical mode (a password prompt); only meaningful when `reading`. */
  secret: boolean;
  /**
   * Canonical mode and echo both off while reading: what a line editor (readline, zle, fish's
   * reader) or a full-screen program sets while it waits for keys. Absent when the mode is unknown.
   */
  keyByKey?: boolean;
}

/**
 * What kind of input a job waiting on the terminal wants: a secret (echo off, canonical), keys
 * for a full-screen program (the alternate screen is up), else a line (a canonical read, or a
 * line editor at its prompt). A raw-mode program is never a password prompt.
 */
export function inputKind(probe: Pick<InputProbe, 'secret'>, fullScreen: boolean): InputKind {
  if (probe.secret) return 'secret';
  return fullScreen ? 'screen' : 'line';
}

export async function probeTerminalInput(foregroundGroup: number, ttyPath: string): Promise<InputProbe> {
  const wait =
    process.platform === 'linux' ? await linuxGroupWait(foregroundGroup, ttyPath) : process.platform === 'darwin' ? await macGroupWait(foregroundGroup) : 'no';
  if (wait === 'no') return { reading: false, secret: false };
  const modes = await terminalModes(ttyPath);
  // Without the mode, only a wait known to include the terminal counts, and it is no secret.
  if (!modes) return wait === 'yes' ? { reading: true, secret: false } : { reading: false, secret: false };
  if (wait === 'if-raw' && modes.canonical) return { reading: false, secret: false };
  return { reading: true, secret: modes.canonical && !modes.echo, keyByKey: !modes.canonical && !modes.echo };
}

async function linuxGroupWait(pgid: number, ttyPath: string): Promise<'yes' | 'if-raw' | 'no'> {
  let found: 'if-raw' | 'no' = 'no';
  for (const pid of await groupMembers(pgid)) {
    const tasks = await fs.readdir(`/proc/${pid}/task`).catch(() => [String(pid)]);
    const waiter = waitingProcess(pid, ttyPath);
    for (const task of tasks) {
      const line = await fs.readFile(`/proc/${pid}/task/${task}/syscall`, 'utf8').catch(() => '');
      const blocked = parseSyscall(line, process.arch);
      if (!blocked) continue;
      const verdict = await judgeWait(blocked, waiter);
      if (verdict === 'yes') return 'yes';
      if (verdict === 'if-raw') found = 'if-raw';
    }
  }
  return found;
}

/** The device number of `/dev/tty` (5, 0): whoever opens it gets their own controlling terminal. */
const DEV_TTY_RDEV = (5 << 8) | 0;

/**
 * A process's descriptors as judgeWait asks about them, each looked up once. A descriptor is the
 * terminal when it is the same device, whatever name it was opened by: in the sandbox the
 * terminal is also `/dev/console` (bubblewrap binds it there, and zsh opens its own handle on
 * the terminal by that name), a path the hub's /proc does not show as the terminal's.
 */
function waitingProcess(pid: number, ttyPath: string): WaitingProcess {
  const known = new Map<number, Promise<boolean>>();
  let terminal: Promise<number | undefined> | undefined;
  const terminalDevice = (): Promise<number | undefined> =>
    (terminal ??= fs.stat(ttyPath).then(
      (stat) => (stat.isCharacterDevice() ? stat.rdev : undefined),
      () => undefined,
    ));
  const isTerminal = (fd: number): Promise<boolean> => {
    let answer = known.get(fd);
    if (!answer) {
      answer = Promise.all([fs.stat(`/proc/${pid}/fd/${fd}`), terminalDevice()]).then(
        ([stat, device]) => stat.isCharacterDevice() && (stat.rdev === device || stat.rdev === DEV_TTY_RDEV),
        () => false,
      );
      known.set(fd, answer);
    }
    return answer;
  };
  return {
    isTerminal,
    async hasTerminalBelow(limit) {
      const fds = (await fs.readdir(`/proc/${pid}/fd`).catch(() => [] as string[])).map(Number).filter((fd) => fd < limit);
      // The terminal is nearly always 0: one lookup in the common case.
      for (const fd of fds.sort((a, b) => a - b)) if (await isTerminal(fd)) return true;
      return false;
    },
    async epollInputs(epfd) {
      return parseEpollInputs(await fs.readFile(`/proc/${pid}/fdinfo/${epfd}`, 'utf8').catch(() => ''));
    },
  };
}

/**
 * Members of a process group, the leader first. They are in the leader's session, and nearly
 * always below its session leader (the terminal's first process: a pipeline's processes are
 * the shell's children), so they are looked for in that process tree (processTable.ts). The
 * whole process table is read only when the tree cannot be (the leader or its session leader
 * gone, a kernel without children files): a probe runs every quiet period of a running job,
 * and reading every process on a busy machine (780 here) cost about 18 ms of CPU each time,
 * against well under 1 ms for a session's few processes.
 */
async function groupMembers(pgid: number): Promise<number[]> {
  const sid = (await readProcess(pgid))?.sid;
  const rows = (sid !== undefined && processTree(sid)) || [...(await listProcesses()).values()];
  return [pgid, ...rows.filter((row) => row.pgid === pgid && row.pid !== pgid).map((row) => row.pid)];
}

/** Wait channels of the group's processes, from one `ps` of all (read in macPs.ts). */
async function macGroupWait(pgid: number): Promise<'yes' | 'if-raw' | 'no'> {
  try {
    return groupWaitFromPs((await execFileAsync('ps', [...PS_WAIT_ARGS])).stdout, pgid);
  } catch {
    return 'no';
  }
}

async function terminalModes(ttyPath: string): Promise<TerminalModes | null> {
  try {
    const flag = process.platform === 'darwin' ? '-f' : '-F';
    const { stdout } = await execFileAsync('stty', [flag, ttyPath, '-a']);
    return parseTerminalModes(stdout);
  } catch {
    return null;
  }
}
