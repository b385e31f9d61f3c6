/**
 * Reading what a blocked process waits on (src/core/processes/terminalWait.ts, docs/design.md
 * §2.6): /proc/<pid>/syscall lines, epoll fdinfo, `stty -a`, and the judgement of a wait. The
 * lines are as Linux printed them for the programs named (x64, captured from real PTYs); that a
 * real program is found is awaitingInput.test.ts's part.
 */
import { describe, expect, it } from 'vitest';
import {
  judgeWait,
  parseEpollInputs,
  parseSyscall,
  parseTerminalModes,
  WAIT_SYSCALLS,
  type WaitingProcess,
} from '../../../../src/core/processes/terminalWait.js';

describe('parseSyscall', () => {
  it('reads the call and its first arguments from real lines (x64)', () => {
    // python3's REPL and vim: pselect6 on nfds 1 (only fd 0 can be in the set).
    expect(parseSyscall('270 0x1 0x7ffd365759b0 0x0 0x0 0x0 0x0 0x7ffd36575920 0x7f9c2af1c954\n', 'x64')).toEqual({
      call: 'select',
      arg0: 1,
      arg1: 0x7ffd365759b0,
    });
    // zsh -f reads its terminal on fd 10.
    expect(parseSyscall('0 0xa 0x7ffea6c500df 0x1 0x8 0x0 0x55f24c609080 0x7ffea6c4ffb8 0x7f36801862ad', 'x64')).toMatchObject({ call: 'read', arg0: 10 });
    // fish: poll of 3 descriptors; htop: poll of 1.
    expect(parseSyscall('7 0x55b70e5fbbb0 0x3 0xffffffff 0xbb71db057b1789b2 0x0 0x55b70e5818e0 0x7ffdad1b0b20 0x7fb94d11a26f', 'x64')).toMatchObject({
      call: 'poll',
      arg1: 3,
    });
    // node: epoll_pwait on epoll fd 13.
    expect(parseSyscall('281 0xd 0x7ffe0f5d9040 0x400 0x1fa1 0x0 0x8 0x7ffe0f5d82e0 0x7f1731246cae', 'x64')).toMatchObject({ call: 'epoll', arg0: 13 });
  });

  it('is null for a running process, one between syscalls, and waits that are not on descriptors', () => {
    expect(parseSyscall('running', 'x64')).toBeNull();
    expect(parseSyscall('-1 0x7ffd36575920 0x7f9c2af1c954', 'x64')).toBeNull();
    expect(parseSyscall('', 'x64')).toBeNull();
    // wait4 (a build), clock_nanosleep (sleep), futex (a worker thread).
    expect(parseSyscall('61 0xffffffff 0x7ffc 0x0 0x0 0x0 0x0 0x7ffc 0x7f00', 'x64')).toBeNull();
    expect(parseSyscall('230 0x0 0x0 0x7ffc 0x7ffc 0x0 0x0 0x7ffc 0x7f00', 'x64')).toBeNull();
    expect(parseSyscall('202 0x1ad57734 0x189 0x0 0x0 0x0 0xffffffff 0x7f173093bc70 0x7f17311c3f16', 'x64')).toBeNull();
  });

  it('uses the arm64 numbers on arm64, where read is 63 and 0 is not a read', () => {
    expect(parseSyscall('63 0x0 0xffffd000 0x1 0x0 0x0 0x0 0xffffd000 0xffff0000', 'arm64')).toMatchObject({ call: 'read', arg0: 0 });
    expect(parseSyscall('72 0x1 0xffffd000 0x0 0x0 0x0 0x0 0xffffd000 0xffff0000', 'arm64')).toMatchObject({ call: 'select', arg0: 1 });
    expect(parseSyscall('73 0xffffd000 0x1 0x0 0x0 0x0 0x0 0xffffd000 0xffff0000', 'arm64')).toMatchObject({ call: 'poll', arg1: 1 });
    expect(parseSyscall('22 0x5 0xffffd000 0x400 0xffffffff 0x0 0x8 0xffffd000 0xffff0000', 'arm64')).toMatchObject({ call: 'epoll', arg0: 5 });
    expect(parseSyscall('0 0x0 0xffffd000 0x1 0x0 0x0 0x0 0xffffd000 0xffff0000', 'arm64')).toBeNull(); // io_setup
  });

  it('knows every waiting call on both architectures, and no number twice per architecture', () => {
    for (const arch of ['x64', 'arm64'] as const) {
      const calls = new Set(Object.values(WAIT_SYSCALLS[arch]));
      expect(calls).toEqual(new Set(['read', 'select', 'poll', 'epoll']));
    }
  });
});

describe('parseEpollInputs', () => {
  it("lists the members watched for input, as node's epoll set holding its terminal shows them", () => {
    const fdinfo = [
      'pos:\t0',
      'flags:\t02000002',
      'mnt_id:\t15',
      'ino:\t1057',
      'tfd:       14 events:       19 data:             e00000000  pos:0 ino:40a sdev:f',
      'tfd:       16 events:       19 data:            1000000000  pos:0 ino:40a sdev:f',
      'tfd:       20 events:       19 data:            1400000000  pos:0 ino:3 sdev:18',
      'tfd:       21 events:        4 data:            1500000000  pos:0 ino:3 sdev:18',
      'tfd:       22 events: 40000000 data:            1600000000  pos:0 ino:3 sdev:18',
      '',
    ].join('\n');
    // 21 waits only to write (EPOLLOUT); 22 is a one-shot member that fired (its events cleared).
    expect(parseEpollInputs(fdinfo)).toEqual([14, 16, 20]);
  });

  it('an empty set, or no fdinfo at all, has no members', () => {
    expect(parseEpollInputs('pos:\t0\nflags:\t02000002\nmnt_id:\t15\nino:\t1057\n')).toEqual([]);
    expect(parseEpollInputs('')).toEqual([]);
  });
});

describe('parseTerminalModes', () => {
  const stty = (lflags: string): string =>
    `speed 38400 baud; rows 24; columns 80; line = 0;\nintr = ^C; quit = ^\\; erase = ^?; kill = ^U; eof = ^D; min = 1; time = 0;\n-parenb -parodd cs8 hupcl -cstopb cread\n-ignbrk brkint -icrnl ixon iutf8\nopost onlcr\n${lflags}\n`;

  it('reads canonical and echo from `stty -a`: a line read, a password prompt, a line editor', () => {
    expect(parseTerminalModes(stty('isig icanon iexten echo echoe echok -echonl -noflsh echoctl echoke'))).toEqual({ canonical: true, echo: true });
    expect(parseTerminalModes(stty('isig icanon iexten -echo echoe echok -echonl -noflsh echoctl echoke'))).toEqual({ canonical: true, echo: false });
    expect(parseTerminalModes(stty('isig -icanon iexten -echo echoe echok -echonl -noflsh echoctl echoke'))).toEqual({ canonical: false, echo: false });
  });

  it('does not take echoe, echok or echonl for echo, and is null when the output says neither', () => {
    expect(parseTerminalModes('-icanon echoe echok echonl')).toBeNull();
    expect(parseTerminalModes('stty: /dev/pts/9: No such file or directory')).toBeNull();
  });
});

describe('judgeWait', () => {
  /** A process whose descriptors in `terminal` are the terminal, with the epoll sets given. */
  function proc(terminal: number[], epoll: Record<number, number[]> = {}): WaitingProcess {
    return {
      isTerminal: async (fd) => terminal.includes(fd),
      hasTerminalBelow: async (limit) => terminal.some((fd) => fd < limit),
      epollInputs: async (epfd) => epoll[epfd] ?? [],
    };
  }

  it('a read of the terminal is a wait on it; a read of anything else is not', async () => {
    expect(await judgeWait({ call: 'read', arg0: 10, arg1: 0 }, proc([0, 1, 2, 10]))).toBe('yes');
    expect(await judgeWait({ call: 'read', arg0: 3, arg1: 0 }, proc([0, 1, 2]))).toBe('no'); // cat of a pipe
  });

  it('select: the highest descriptor being the terminal is a wait on it; the terminal below it only in raw mode', async () => {
    expect(await judgeWait({ call: 'select', arg0: 1, arg1: 0 }, proc([0, 1, 2]))).toBe('yes'); // python3, bash, vim
    // A server selecting on its sockets 3 and 4 with stdin still the terminal.
    expect(await judgeWait({ call: 'select', arg0: 5, arg1: 0 }, proc([0, 1, 2]))).toBe('if-raw');
    expect(await judgeWait({ call: 'select', arg0: 5, arg1: 0 }, proc([]))).toBe('no');
    expect(await judgeWait({ call: 'select', arg0: 0, arg1: 0 }, proc([0]))).toBe('no'); // select as a sleep
  });

  it('poll: only when the process has the terminal open, and then only in raw mode', async () => {
    expect(await judgeWait({ call: 'poll', arg0: 0x7ffe, arg1: 3 }, proc([0, 1, 2]))).toBe('if-raw');
    expect(await judgeWait({ call: 'poll', arg0: 0x7ffe, arg1: 3 }, proc([]))).toBe('no'); // a daemon without a terminal
    expect(await judgeWait({ call: 'poll', arg0: 0, arg1: 0 }, proc([0]))).toBe('no'); // poll as a sleep
  });

  it('epoll: a wait on the terminal exactly when the set holds it for input', async () => {
    expect(await judgeWait({ call: 'epoll', arg0: 13, arg1: 0 }, proc([0, 1, 2, 20], { 13: [14, 16, 20] }))).toBe('yes'); // node's REPL
    expect(await judgeWait({ call: 'epoll', arg0: 9, arg1: 0 }, proc([0, 1, 2, 20], { 9: [10, 12], 13: [20] }))).toBe('no'); // node's worker thread
    expect(await judgeWait({ call: 'epoll', arg0: 3, arg1: 0 }, proc([0, 1, 2], { 3: [5, 6] }))).toBe('no'); // a node server
  });
});
