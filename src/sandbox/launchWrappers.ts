/**
 * How a session's planned program is started inside the sandbox (docs/design.md §2.10): the
 * command the PTY spawns instead. Linux: bubblewrap, then the launcher script inside it; macOS:
 * `sandbox-exec` with the library's Seatbelt profile.
 */
import * as path from 'node:path';
import { packageRoot } from '../packageInfo.js';
import { bubblewrapArgs, type BubblewrapPlan } from './bubblewrap.js';
import { DomainProxy, PROXY_PORT_INSIDE } from './domainProxy.js';
import { seatbeltCommand, type SeatbeltRequest } from './srtInternals.js';

/** The program a session planned (the core's `PlannedLaunch`). */
interface Launch {
  file: string;
  args: string[];
  env: Record<string, string>;
  /** A shell (its own job control) rather than a program. */
  shell: boolean;
}

interface Spawn {
  file: string;
  args: string[];
  env: Record<string, string>;
}

export interface Wrapper {
  wrap(launch: Launch): Spawn | Promise<Spawn>;
}

/** The descriptor bubblewrap reads the seccomp program from (a single digit: any sh redirects it). */
const SECCOMP_FD = 9;

/**
 * assets/sandbox/enter.bash, which bash runs as a script file (its text as argv would show in every
 * process listing); in the packaged app from beside app.asar (electron-builder.yml asarUnpack).
 */
function enterScript(): string {
  return path.join(packageRoot(), 'assets', 'sandbox', 'enter.bash').replace(/app\.asar([/\\])/, 'app.asar.unpacked$1');
}

interface LinuxWrapperOptions {
  bwrap: string;
  bash: string;
  plan: Omit<BubblewrapPlan, 'seccompFd'>;
  /** The seccomp program's file (seccomp.ts), or null. Not with the proxy: see `applySeccomp`. */
  seccompFile: string | null;
  /**
   * With the proxy, the listener inside (socat) must open a unix socket to reach it, so the
   * filter cannot be on from the start: the library's apply-seccomp puts it on the session's
   * program, in a pid namespace of its own where the unfiltered listener is out of reach. Null:
   * none for this architecture (the session says its unix sockets are not refused).
   */
  applySeccomp: string | null;
}

/**
 * bubblewrap, then bash running the launcher (enter.bash): a program runs as a job of an
 * interactive bash (`-i`), so it has a process group of its own in front of the terminal; a
 * shell is exec'd. With a seccomp program, bash opens it on fd 9 for bubblewrap and exec's it.
 */
export function linuxWrapper(options: LinuxWrapperOptions): Wrapper {
  return {
    wrap(launch) {
      const network = options.plan.network;
      const proxy = network.mode === 'proxy' ? ['--proxy', network.socket, String(PROXY_PORT_INSIDE), options.applySeccomp ?? ''] : [];
      const inside = [
        options.bash,
        '--norc',
        '--noprofile',
        ...(launch.shell ? [] : ['-i']),
        enterScript(),
        launch.shell ? 'shell' : 'program',
        ...proxy,
        launch.file,
        ...launch.args,
      ];
      const env = network.mode === 'proxy' ? { ...launch.env, ...DomainProxy.environment() } : launch.env;
      if (options.seccompFile === null || network.mode === 'proxy') return { file: options.bwrap, args: [...bubblewrapArgs(options.plan), ...inside], env };
      const bwrap = [options.bwrap, ...bubblewrapArgs({ ...options.plan, seccompFd: SECCOMP_FD }), ...inside];
      return { file: options.bash, args: ['-c', `exec "$@" ${SECCOMP_FD}<"$0"`, options.seccompFile, ...bwrap], env };
    },
  };
}

export interface MacWrapperOptions extends Omit<SeatbeltRequest, 'command'> {
  /** The temp folder programs inside get (`TMPDIR`): one the profile lets them write. */
  tmp: string;
}

/** `/bin/sh -c` running `sandbox-exec` with the Seatbelt profile (not run on a Mac by this project's tests). */
export function macWrapper(options: MacWrapperOptions): Wrapper {
  return {
    async wrap(launch) {
      // The library's wrapper sets TMPDIR to a folder of Claude Code's; ours is the one writable here.
      const command = `TMPDIR=${shellQuote(options.tmp)} exec ${[launch.file, ...launch.args].map(shellQuote).join(' ')}`;
      const line = await seatbeltCommand({ ...options, command });
      return { file: '/bin/sh', args: ['-c', line], env: launch.env };
    },
  };
}

/** One word for a POSIX shell. */
function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
