/**
 * Kill and close against real processes: bash in a real pty (node-pty), driven by typing.
 * Linux only (it reads /proc to check the results independently of the code under test).
 */
import { spawn as spawnChild } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import * as pty from 'node-pty';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SESSION_ENV } from '../../src/core/shell/marks.js';
import { within } from './helpers/within.js';
import { sandboxedLaunch, TEST_SANDBOX } from './helpers/testSandbox.js';
import {
  escalateKill,
  foregroundProcessGroup,
  killWithSignal,
  processIdentity,
  sessionProcesses,
  signalGroupIfLeaderSame,
  signalIfSame,
  terminateSession,
  untilOnItsTerminal,
} from '../../src/core/processes/processes.js';

const linux = process.platform === 'linux';

// ---- an independent /proc oracle -----------------------------------------------------------------

function stat(pid: number): { state: string; pgid: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: f[0] ?? '?', pgid: Number(f[2]) };
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  const s = stat(pid);
  return s !== undefined && s.state !== 'Z' && s.state !== 'X';
}

function readOr(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** Live pids started with SESSION_ENV=<id>, with their command lines. */
function marked(sessionId: string): Map<number, string> {
  const found = new Map<number, string>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (!readOr(`/proc/${pid}/environ`).split('\0').includes(`${SESSION_ENV}=${sessionId}`)) continue;
    if (alive(pid)) found.set(pid, readOr(`/proc/${pid}/cmdline`).split('\0').join(' ').trim());
  }
  return found;
}

/** Polls a condition until it holds or the deadline passes (for states the OS cannot announce). */
async function eventually<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

// ---- a real shell in a real pty --------------------------------------------------------------------

class Shell {
  readonly pty: pty.IPty;
  output = '';
  exited: Promise<void>;
  /** The shell's own pid: the PTY's child, or in the sandboxed run the bash inside bubblewrap (found at its prompt). */
  private shellPid: number;

  constructor(
    readonly id: string,
    spawned: { file: string; args: string[]; env: Record<string, string> },
  ) {
    this.pty = pty.spawn(spawned.file, spawned.args, { name: 'xterm-256color', cols: 200, rows: 50, cwd: tmpdir(), env: spawned.env });
    this.shellPid = this.pty.pid;
    this.pty.onData((d) => (this.output += d));
    this.exited = new Promise((resolve) => this.pty.onExit(() => resolve()));
  }

  /** bash in a PTY; in the sandboxed run (SWITCHBOARD_TEST_SANDBOX=1), inside bubblewrap, as a sandboxed session starts it. */
  static async start(): Promise<Shell> {
    const id = `t${randomBytes(4).toString('hex')}`;
    const env = Object.fromEntries(Object.entries({ ...process.env, [SESSION_ENV]: id, PS1: '$ ' }).filter((e): e is [string, string] => e[1] !== undefined));
    return new Shell(id, await sandboxedLaunch({ file: 'bash', args: ['--norc', '--noprofile', '-i'], env, shell: true, cwd: tmpdir() }));
  }

  /** At its prompt the shell leads the group in front of the terminal: in the sandbox, that is how it is found. */
  async foundAtPrompt(): Promise<void> {
    if (!TEST_SANDBOX) return;
    this.shellPid = (await foregroundProcessGroup(this.pty.pid)) ?? this.pty.pid;
  }

  get pid(): number {
    return this.shellPid;
  }

  /** The PTY's own child (the session's process, as the core knows it): the shell, or bubblewrap around it. */
  get ptyPid(): number {
    return this.pty.pid;
  }

  type(line: string): void {
    this.pty.write(`${line}\r`);
  }

  /** Waits for output matching `pattern` (written so the echoed input cannot match it). */
  async waitFor(pattern: RegExp, timeoutMs = 10_000): Promise<RegExpMatchArray> {
    return eventually(() => this.output.match(pattern) ?? undefined, timeoutMs);
  }

  /**
   * Types a simple command and waits until it runs in the foreground: the terminal's group changed
   * AND the program was exec'd. (Between fork and exec the child is still bash, which would swallow
   * a SIGINT: a real race, but not the one these tests are about.)
   */
  async startForeground(command: string): Promise<number> {
    const own = stat(this.pid)?.pgid;
    this.type(command);
    return eventually(async () => {
      const fg = await foregroundProcessGroup(this.pid);
      if (fg === undefined || fg === own) return undefined;
      const running = [...marked(this.id)].some(([pid, cmd]) => cmd === command && stat(pid)?.pgid === fg);
      return running ? fg : undefined;
    });
  }

  /** Proves the shell still answers. */
  async usable(): Promise<void> {
    const n = Math.floor(Math.random() * 1000);
    this.type(`echo AFTER-$((${n}+1))`);
    await this.waitFor(new RegExp(`AFTER-${n + 1}`));
  }
}

const shells: Shell[] = [];

async function openShell(): Promise<Shell> {
  const shell = await Shell.start();
  shells.push(shell);
  shell.type('echo READY-$$');
  await shell.waitFor(/READY-\d+/);
  await shell.foundAtPrompt();
  return shell;
}

afterEach(async () => {
  // Leave nothing behind even when a test failed half-way.
  for (const shell of shells.splice(0)) {
    for (const pid of marked(shell.id).keys()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    try {
      shell.pty.kill('SIGKILL');
    } catch {
      /* already gone */
    }
    await within(shell.exited, 2000, 'the shell to exit').catch(() => undefined);
  }
});

// ---- tests ---------------------------------------------------------------------------------------

describe.runIf(linux)('processes (checked through /proc: Linux only)', () => {
  describe('foregroundProcessGroup', () => {
    it("is the shell's own group at the prompt and another while sleep runs", async () => {
      const shell = await openShell();
      const own = stat(shell.pid)?.pgid;
      expect(own).toBe(shell.pid);
      expect(await foregroundProcessGroup(shell.pid)).toBe(own);

      const fg = await shell.startForeground('sleep 1000');
      expect(fg).not.toBe(own);
      const sleepPid = [...marked(shell.id)].find(([, cmd]) => cmd === 'sleep 1000')?.[0];
      expect(stat(sleepPid ?? -1)?.pgid).toBe(fg);
    });

    it('is undefined for a pid that does not exist', async () => {
      expect(await foregroundProcessGroup(2 ** 22 + 1)).toBeUndefined();
    });
  });

  describe('escalateKill', () => {
    const target = (shell: Shell) => ({ kind: 'foreground', shellPid: shell.pid }) as const;

    it('ends plain sleep with SIGINT, and the shell is usable afterwards', async () => {
      const shell = await openShell();
      await shell.startForeground('sleep 1000');
      expect(await escalateKill(target(shell), { waitsMs: [300] })).toBe('SIGINT');
      await shell.usable();
    });

    it('needs SIGTERM when SIGINT is ignored', async () => {
      const shell = await openShell();
      shell.type(`bash -c "trap '' INT; echo ARMED-\\$\\$; sleep 1000"`);
      await shell.waitFor(/ARMED-\d+/);
      expect(await escalateKill(target(shell), { waitsMs: [300] })).toBe('SIGTERM');
      await shell.usable();
    });

    it('needs SIGKILL when SIGINT and SIGTERM are ignored, each sent once the wait asked for has passed', async () => {
      const shell = await openShell();
      shell.type(`bash -c "trap '' INT TERM; echo ARMED-\\$\\$; sleep 1000"`);
      await shell.waitFor(/ARMED-\d+/);
      // The waits run on a fake clock, so what is checked is the waits escalateKill keeps, not
      // the machine's speed: while a signal is expected to be ignored, the clock jumps to the end
      // of each nap; once SIGKILL is sent it creeps (1 ms a turn of the real event loop) so the
      // kernel can deliver it. What takes real time (reading /proc) runs between the jumps.
      const sent: [string, number][] = [];
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
      const realKill = process.kill.bind(process);
      const kill = vi.spyOn(process, 'kill').mockImplementation((pid: number, signal?: string | number) => {
        if (pid < 0) sent.push([String(signal), Date.now() - clockAtStart]);
        return realKill(pid, signal);
      });
      const clockAtStart = Date.now();
      try {
        let result: Awaited<ReturnType<typeof escalateKill>> | undefined;
        let settled = false;
        void escalateKill(target(shell), { waitsMs: [300, 300, 600_000] }).then((signal) => {
          result = signal;
          settled = true;
        });
        while (!settled) {
          if (sent.some(([signal]) => signal === 'SIGKILL')) await vi.advanceTimersByTimeAsync(1);
          else await vi.advanceTimersToNextTimerAsync();
          await new Promise((resolve) => setImmediate(resolve));
        }
        expect(result).toBe('SIGKILL');
        // (fake milliseconds) SIGCONT follows SIGINT and SIGTERM, so a stopped job acts on them.
        expect(sent).toEqual([
          ['SIGINT', 0],
          ['SIGCONT', 0],
          ['SIGTERM', 300],
          ['SIGCONT', 300],
          ['SIGKILL', 600],
        ]);
      } finally {
        kill.mockRestore();
        vi.useRealTimers();
      }
      await shell.usable();
    });

    it('resolves null at the prompt without signalling anything', async () => {
      const shell = await openShell();
      expect(await escalateKill(target(shell), { waitsMs: [300] })).toBeNull();
      await shell.usable();
    });

    it('wakes on the caller event instead of waiting out the wait', async () => {
      const shell = await openShell();
      // The job outlives SIGINT (the loop goes on after the trap), and says it got it.
      shell.type(`bash -c "trap 'echo GOT-\\$((6*7))' INT; echo ARMED-\\$\\$; while :; do sleep 1; done"`);
      await shell.waitFor(/ARMED-\d+/);
      let done = false;
      const listeners = new Set<() => void>();
      const onDone = (l: () => void) => (listeners.add(l), { dispose: () => listeners.delete(l) });
      // The caller learns the job is done (as shell integration would) once the SIGINT landed.
      void shell.waitFor(/GOT-42/).then(() => ((done = true), listeners.forEach((l) => l())));
      // Neither the wait nor a poll can end this early (both far past the test's timeout): only the wake.
      const woken = escalateKill(target(shell), { waitsMs: [600_000], pollMs: 600_000, isDone: () => done, onDone });
      expect(await within(woken, 10_000, 'escalateKill to return once the caller said the job is done')).toBe('SIGINT');
      expect(listeners.size).toBe(0); // the subscription was disposed
    });

    it('sends only the one signal asked for', async () => {
      const shell = await openShell();
      shell.type(`bash -c "trap '' TERM; echo ARMED-\\$\\$; sleep 1000"`);
      await shell.waitFor(/ARMED-\d+/);
      expect(await killWithSignal(target(shell), 'SIGTERM', { waitMs: 300 })).toBeNull();
      expect(await foregroundProcessGroup(shell.pid)).not.toBe(shell.pid); // still running
      expect(await killWithSignal(target(shell), 'SIGINT', { waitMs: 2000 })).toBe('SIGINT');
      await shell.usable();
    });

    it('kills a whole process group given by its leader', async () => {
      const child = spawnChild('sleep', ['1000'], { detached: true, stdio: 'ignore' });
      const exited = new Promise<NodeJS.Signals | null>((r) => child.on('exit', (_c, s) => r(s)));
      const leader = await eventually(() => processIdentity(child.pid ?? -1));
      expect(await escalateKill({ kind: 'group', leader }, { waitsMs: [2000] })).toBe('SIGINT');
      expect(await exited).toBe('SIGINT');
    });

    it('kills a program that does not lead its group yet (a PTY child before its setsid) once it does', async () => {
      // forkpty returns in the parent before the child's setsid: on a loaded machine a kill of a
      // program just opened came first, found no group, signalled nothing, and the program ran on.
      // This child stays in the test's group for a moment, then leads its own, as that child does.
      const script = 'import os, sys, time\nprint("forked", flush=True)\nsys.stdin.readline()\nos.setsid()\ntime.sleep(1000)';
      const child = spawnChild('python3', ['-c', script], { stdio: ['pipe', 'pipe', 'ignore'] });
      const exited = new Promise<NodeJS.Signals | null>((r) => child.on('exit', (_c, s) => r(s)));
      await new Promise((r) => child.stdout?.once('data', r));
      const leader = await eventually(() => processIdentity(child.pid ?? -1));
      expect(stat(leader.pid)?.pgid).not.toBe(leader.pid);
      const killed = escalateKill({ kind: 'group', leader }, { waitsMs: [2000], signals: ['SIGKILL'] });
      // Given up at once, the kill would have answered null by now, having signalled nothing.
      const meanwhile = await Promise.race([killed, new Promise((resolve) => setTimeout(() => resolve('still waiting'), 300))]);
      expect(meanwhile).toBe('still waiting');
      child.stdin?.write('\n'); // now it runs setsid, while the kill waits for its group
      expect(await killed).toBe('SIGKILL');
      expect(await exited).toBe('SIGKILL');
    });
  });

  describe('untilOnItsTerminal', () => {
    it('resolves once the process leads its session and has its terminal in front, as a PTY child does after forkpty', async () => {
      // Stays in the test's group, with no terminal, until told; then does what forkpty's child
      // does: setsid, and opens a terminal, which becomes its controlling one.
      const script = [
        'import os, pty, sys, time',
        'master, slave = pty.openpty()',
        'name = os.ttyname(slave)',
        'print("forked", flush=True)',
        'sys.stdin.readline()',
        'os.setsid()',
        'os.close(os.open(name, os.O_RDWR))',
        'print("on its terminal", flush=True)',
        'time.sleep(1000)',
      ].join('\n');
      const child = spawnChild('python3', ['-c', script], { stdio: ['pipe', 'pipe', 'ignore'] });
      try {
        await new Promise((r) => child.stdout?.once('data', r));
        const pid = child.pid ?? -1;
        const settled = untilOnItsTerminal(pid);
        const meanwhile = await Promise.race([settled.then(() => 'settled'), new Promise((resolve) => setTimeout(() => resolve('still waiting'), 300))]);
        expect(meanwhile).toBe('still waiting');
        child.stdin?.write('\n');
        await settled;
        const now = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const fields = now.slice(now.lastIndexOf(')') + 2).split(' ');
        expect({ pgid: Number(fields[2]), tpgid: Number(fields[5]) }).toEqual({ pgid: pid, tpgid: pid });
      } finally {
        child.kill('SIGKILL');
      }
    });
  });

  describe('sessionProcesses', () => {
    it('finds the shell and its children, never the hub', async () => {
      const shell = await openShell();
      shell.type('sleep 1000 & echo BG-$!');
      const printed = Number((await shell.waitFor(/BG-(\d+)/))[1]);
      const bg = await eventually(() => [...marked(shell.id)].find(([, cmd]) => cmd === 'sleep 1000')?.[0]);
      // In the sandbox the shell counts pids in a namespace of its own: $! is not the hub's number.
      if (!TEST_SANDBOX) expect(bg).toBe(printed);
      const pids = await sessionProcesses(shell.id, shell.ptyPid);
      expect(pids).toContain(shell.pid);
      expect(pids).toContain(bg);
      expect(pids).not.toContain(process.pid);
      expect(pids).not.toContain(process.ppid);
    });

    it("does not take the hub's terminal or session for the session's", async () => {
      // Same session and tty as the test runner: only the process itself may come back.
      const child = spawnChild('sleep', ['1000'], { stdio: 'ignore' });
      try {
        const pid = (await eventually(() => processIdentity(child.pid ?? -1))).pid;
        expect(await sessionProcesses('not-a-session', pid)).toEqual([pid]);
      } finally {
        child.kill('SIGKILL');
      }
    });
    it('takes no process that started before the shell, even one carrying the session mark', async () => {
      const id = `older-${process.pid}-${Date.now()}`;
      const env = { ...process.env, SWITCHBOARD_SESSION: id };
      const children = [spawnChild('sleep', ['1000'], { stdio: 'ignore', env })];
      try {
        const older = await eventually(() => processIdentity(children[0]!.pid ?? -1));
        // A "shell" started at a later clock tick than `older` (ticks are 10 ms), then a marked child of the session.
        const shell = await eventually(async () => {
          const candidate = spawnChild('sleep', ['1000'], { stdio: 'ignore' });
          children.push(candidate);
          const identity = await eventually(() => processIdentity(candidate.pid ?? -1));
          return Number(identity.startTime) > Number(older.startTime) ? identity : undefined;
        });
        const marked = spawnChild('sleep', ['1000'], { stdio: 'ignore', env });
        children.push(marked);
        await eventually(() => processIdentity(marked.pid ?? -1));
        const pids = await sessionProcesses(id, shell.pid);
        expect(pids).toContain(marked.pid);
        expect(pids).not.toContain(older.pid);
      } finally {
        for (const child of children) child.kill('SIGKILL');
      }
    });
  });

  describe('terminateSession', () => {
    it('leaves nothing: background, nohup, setsid, double-forked and foreground', async () => {
      const shell = await openShell();
      shell.type('sleep 1001 &');
      shell.type('nohup sleep 1002 >/dev/null 2>&1 &');
      shell.type('setsid sleep 1003 &');
      shell.type('( (sleep 1004 &) & )');
      shell.type('sleep 1005');
      const expected = ['sleep 1001', 'sleep 1002', 'sleep 1003', 'sleep 1004', 'sleep 1005'];
      // All five exec'd (so nohup's SIG_IGN is in place): found by their mark, independently.
      const found = await eventually(() => {
        const byCmd = new Map([...marked(shell.id)].map(([pid, cmd]) => [cmd, pid]));
        return expected.every((c) => byCmd.has(c)) ? byCmd : undefined;
      });
      const pids = expected.map((c) => found.get(c) as number);
      const setsidPid = found.get('sleep 1003') as number;
      expect(stat(setsidPid)?.pgid).toBe(setsidPid); // really left the shell's session and groups

      const killed = await terminateSession(shell.id, shell.ptyPid, { graceMs: 500 });

      for (const pid of [...pids, shell.pid]) expect(alive(pid), `pid ${pid}`).toBe(false);
      expect(marked(shell.id).size).toBe(0);
      // In the sandbox the hang-up ends bubblewrap, and the kernel ends every process of its pid
      // namespace with it: nothing is left for a SIGKILL round to find.
      if (!TEST_SANDBOX) {
        expect(killed).toContain(found.get('sleep 1002')); // nohup ignores SIGHUP
        expect(killed).toContain(setsidPid); // only the environment mark finds it
      }
      expect(await sessionProcesses(shell.id, shell.ptyPid)).toEqual([]);
      await within(shell.exited, 5000, 'the pty to report the shell exited');
    });

    it("once the session's terminal is closed, a process on its number (the next terminal's) is not the session's", async () => {
      const shell = await openShell();
      // Someone else's shell, started after the session's, on another terminal: its number
      // stands for the session's once that is closed and the number handed out again.
      const other = pty.spawn('bash', ['--norc', '--noprofile', '-i'], {
        name: 'xterm-256color',
        cols: 80,
        rows: 24,
        cwd: tmpdir(),
        env: { ...process.env, PS1: '$ ' },
      });
      try {
        const ttyNr = await eventually(() => {
          const text = readOr(`/proc/${other.pid}/stat`);
          const tty = Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[4]);
          return tty > 0 ? tty : undefined;
        });
        expect(await sessionProcesses(shell.id, shell.ptyPid, ttyNr)).toContain(other.pid); // on "its" terminal

        await terminateSession(shell.id, shell.ptyPid, { graceMs: 200, ttyNr, ttyOpen: () => false });
        expect(alive(shell.pid)).toBe(false);
        expect(alive(other.pid), "the other terminal's shell").toBe(true);
      } finally {
        other.kill('SIGKILL');
      }
    });

    it('kills a shell that ignores SIGHUP', async () => {
      const shell = await openShell();
      shell.type("trap '' HUP; echo ARMED-$((2+3))");
      await shell.waitFor(/ARMED-5/);
      const killed = await terminateSession(shell.id, shell.ptyPid, { graceMs: 200 });
      // In the sandbox, bubblewrap takes the HUP and its pid namespace ends the shell with it.
      if (!TEST_SANDBOX) expect(killed).toContain(shell.pid);
      expect(alive(shell.pid)).toBe(false);
    });
  });

  describe('recycled pids', () => {
    it('signalIfSame does not signal a live process whose start time differs', async () => {
      const child = spawnChild('sleep', ['1000'], { stdio: 'ignore' });
      const exited = new Promise<NodeJS.Signals | null>((r) => child.on('exit', (_c, s) => r(s)));
      const identity = await eventually(() => processIdentity(child.pid ?? -1));
      expect(await signalIfSame({ ...identity, startTime: '1' }, 'SIGKILL')).toBe(false);
      expect(await signalIfSame(identity, 'SIGTERM')).toBe(true);
      // A pending SIGKILL would have won; the process died of the SIGTERM alone.
      expect(await exited).toBe('SIGTERM');
      expect(await processIdentity(identity.pid)).toBeUndefined();
      expect(await signalIfSame(identity, 'SIGTERM')).toBe(false); // gone: no throw
    });

    it('signalGroupIfLeaderSame checks the leader the same way', async () => {
      const child = spawnChild('sleep', ['1000'], { detached: true, stdio: 'ignore' });
      const exited = new Promise<NodeJS.Signals | null>((r) => child.on('exit', (_c, s) => r(s)));
      const leader = await eventually(() => processIdentity(child.pid ?? -1));
      expect(await signalGroupIfLeaderSame({ ...leader, startTime: '1' }, 'SIGKILL')).toBe(false);
      expect(await signalGroupIfLeaderSame(leader, 'SIGTERM')).toBe(true);
      expect(await exited).toBe('SIGTERM');
    });
  });
});
