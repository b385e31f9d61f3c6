/**
 * What a blocked process waits on, from what Linux shows of it without ptrace (docs/design.md
 * §2.6): the syscall it is blocked in (/proc/<pid>/syscall), its descriptors, an epoll set's
 * members (/proc/<pid>/fdinfo/<epfd>), and the terminal's mode (`stty -a`). Pure parsing and
 * judging; the reads are in inputProbe.ts.
 */

/** How a process waits: a blocking read, or a wait on a set of descriptors. */
type WaitCall = 'read' | 'select' | 'poll' | 'epoll';

/**
 * The waiting syscalls by number. arm64 (the generic table) has no select, poll or epoll_wait:
 * only pselect6, ppoll and epoll_pwait.
 *
 * | call         | x64 | arm64 |
 * | read         |   0 |    63 |
 * | pread64      |  17 |    67 |
 * | readv        |  19 |    65 |
 * | preadv       | 295 |    69 |
 * | preadv2      | 327 |   286 |
 * | select       |  23 |     – |
 * | pselect6     | 270 |    72 |
 * | poll         |   7 |     – |
 * | ppoll        | 271 |    73 |
 * | epoll_wait   | 232 |     – |
 * | epoll_pwait  | 281 |    22 |
 * | epoll_pwait2 | 441 |   441 |
 */
export const WAIT_SYSCALLS: Readonly<Record<'x64' | 'arm64', Readonly<Record<number, WaitCall>>>> = {
  x64: {
    0: 'read',
    17: 'read',
    19: 'read',
    295: 'read',
    327: 'read',
    23: 'select',
    270: 'select',
    7: 'poll',
    271: 'poll',
    232: 'epoll',
    281: 'epoll',
    441: 'epoll',
  },
  arm64: { 63: 'read', 67: 'read', 65: 'read', 69: 'read', 286: 'read', 72: 'select', 73: 'poll', 22: 'epoll', 441: 'epoll' },
};

/** A waiting syscall and its first two arguments (the rest are pointers we cannot follow). */
interface BlockedCall {
  call: WaitCall;
  /** read: the fd; select: nfds (highest fd + 1); poll: the array (unreadable); epoll: the epoll fd. */
  arg0: number;
  /** poll: how many descriptors it polls. */
  arg1: number;
}

/**
 * A line of /proc/<pid>/syscall: `<nr> <arg0> … <arg5> <sp> <pc>` (hex arguments) while blocked
 * in a syscall; `running` or `-1 <sp> <pc>` otherwise. null unless it is one of the waits above.
 */
export function parseSyscall(line: string, arch: string): BlockedCall | null {
  const table = WAIT_SYSCALLS[arch === 'arm64' ? 'arm64' : 'x64'];
  const fields = line.trim().split(/\s+/);
  if (fields.length < 3 || !/^\d+$/.test(fields[0]!)) return null;
  const call = table[Number(fields[0])];
  if (!call) return null;
  const arg0 = Number.parseInt(fields[1]!, 16);
  const arg1 = Number.parseInt(fields[2]!, 16);
  if (!Number.isFinite(arg0) || !Number.isFinite(arg1)) return null;
  return { call, arg0, arg1 };
}

/** EPOLLIN: the member is watched for input (a one-shot member that fired has it cleared). */
const EPOLLIN = 0x1;

/**
 * The members of an epoll set watched for input, from /proc/<pid>/fdinfo/<epfd>: one line per
 * member, `tfd: <fd> events: <hex mask> data: … pos:… ino:… sdev:…`.
 */
export function parseEpollInputs(fdinfo: string): number[] {
  const fds: number[] = [];
  for (const match of fdinfo.matchAll(/^tfd:\s*(\d+)\s+events:\s*([0-9a-f]+)/gim)) {
    if (Number.parseInt(match[2]!, 16) & EPOLLIN) fds.push(Number(match[1]));
  }
  return fds;
}

/** The terminal's line discipline, as `stty -a` prints it (`icanon`/`-icanon`, `echo`/`-echo`). */
export interface TerminalModes {
  /** Canonical (line) mode: the kernel edits the line and hands it over on Enter. */
  canonical: boolean;
  echo: boolean;
}

/** null when the output does not say both. */
export function parseTerminalModes(stty: string): TerminalModes | null {
  const words = new Set(stty.split(/[\s;]+/));
  const flag = (name: string): boolean | null => (words.has(name) ? true : words.has(`-${name}`) ? false : null);
  const canonical = flag('icanon');
  const echo = flag('echo');
  return canonical === null || echo === null ? null : { canonical, echo };
}

/** What judging a wait asks of the waiting process. */
export interface WaitingProcess {
  /** Its descriptor `fd` is this terminal. */
  isTerminal(fd: number): Promise<boolean>;
  /** One of its descriptors below `limit` is this terminal. */
  hasTerminalBelow(limit: number): Promise<boolean>;
  /** The members of its epoll set `epfd` watched for input. */
  epollInputs(epfd: number): Promise<number[]>;
}

/**
 * Does this wait include the terminal?
 * - `yes`: a read of it; a select whose highest descriptor (nfds - 1) is it; an epoll set that
 *   holds it for input.
 * - `if-raw`: a select that may hold it (it is below nfds, not the highest), or a poll by a
 *   process that has it open (the poll array is in the process's memory, which only ptrace could
 *   read). These count only when the terminal is out of canonical mode: a line editor or a
 *   full-screen program switched it; a server that never touched it left it canonical.
 * - `no`: anything else.
 */
export async function judgeWait(blocked: BlockedCall, process: WaitingProcess): Promise<'yes' | 'if-raw' | 'no'> {
  const { isTerminal, hasTerminalBelow, epollInputs } = process;
  switch (blocked.call) {
    case 'read':
      return (await isTerminal(blocked.arg0)) ? 'yes' : 'no';
    case 'select': {
      const nfds = blocked.arg0;
      if (nfds <= 0) return 'no';
      if (await isTerminal(nfds - 1)) return 'yes';
      return (await hasTerminalBelow(nfds)) ? 'if-raw' : 'no';
    }
    case 'poll':
      return blocked.arg1 > 0 && (await hasTerminalBelow(Infinity)) ? 'if-raw' : 'no';
    case 'epoll': {
      for (const fd of await epollInputs(blocked.arg0)) if (await isTerminal(fd)) return 'yes';
      return 'no';
    }
  }
}
