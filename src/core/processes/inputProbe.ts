import { execFile } from 'node:child_process';
import * as fs from 'node:fs/promises';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/**
 * Is the terminal's foreground job blocked reading the terminal, and is echo off?
 * (docs/design.md §2.6.) Asked only after output has been quiet, so the cost (a few /proc
 * reads, one `stty`) never lands on the byte path.
 *
 * Linux: a process of the foreground group whose current syscall (/proc/<pid>/syscall) is a
 * read on a descriptor that is this terminal. Programs that wait in poll/epoll (Node's
 * readline, for one) are not detected: they could as well be waiting on the network.
 * macOS: `ps` reports `ttyin` as the wait channel of a process reading its terminal.
 */
export interface InputProbe {
  reading: boolean;
  /** Terminal echo is off (a password prompt); only meaningful when `reading`. */
  secret: boolean;
}

/** read, readv, pread64, preadv per architecture. */
const READ_SYSCALLS: Record<string, readonly number[]> = {
  x64: [0, 17, 19, 295],
  arm64: [63, 65, 67, 69],
};

export async function probeTerminalInput(foregroundGroup: number, ttyPath: string): Promise<InputProbe> {
  const reading =
    process.platform === 'linux'
      ? await linuxGroupReadsTerminal(foregroundGroup, ttyPath)
      : process.platform === 'darwin'
        ? await macGroupReadsTerminal(foregroundGroup)
        : false;
  if (!reading) return { reading: false, secret: false };
  return { reading: true, secret: await echoIsOff(ttyPath) };
}

async function linuxGroupReadsTerminal(pgid: number, ttyPath: string): Promise<boolean> {
  const reads = READ_SYSCALLS[process.arch] ?? READ_SYSCALLS.x64!;
  for (const pid of await groupMembers(pgid)) {
    const syscall = await fs.readFile(`/proc/${pid}/syscall`, 'utf8').catch(() => '');
    const [nr, fdHex] = syscall.trim().split(' ');
    if (nr === undefined || !reads.includes(Number(nr)) || fdHex === undefined) continue;
    const fd = Number.parseInt(fdHex, 16);
    const target = await fs.readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
    if (target === ttyPath || target === '/dev/tty') return true;
  }
  return false;
}

/** Members of a process group: the leader first (the common case), then a /proc scan. */
async function groupMembers(pgid: number): Promise<number[]> {
  const members = [pgid];
  const entries = await fs.readdir('/proc').catch(() => [] as string[]);
  for (const entry of entries) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === pgid) continue;
    const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid) members.push(pid);
  }
  return members;
}

async function macGroupReadsTerminal(pgid: number): Promise<boolean> {
  try {
    const { stdout } = await execFileAsync('ps', ['-g', String(pgid), '-o', 'wchan=']);
    return stdout.split('\n').some((line) => line.trim() === 'ttyin');
  } catch {
    return false;
  }
}

async function echoIsOff(ttyPath: string): Promise<boolean> {
  try {
    const flag = process.platform === 'darwin' ? '-f' : '-F';
    const { stdout } = await execFileAsync('stty', [flag, ttyPath]);
    return /(^|\s)-echo(\s|$)/.test(stdout);
  } catch {
    return false;
  }
}
