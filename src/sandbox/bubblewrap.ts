/**
 * The Linux sandbox's command line: bubblewrap around the session's program (docs/design.md
 * §2.10, docs/decisions.md "The sandbox"). Pure: the mounts and namespaces for one session.
 *
 * Not `--new-session`: the session's PTY belongs to the sandboxed program alone (no unsandboxed
 * process reads it), so TIOCSTI cannot push keys into anyone else's terminal, and a new session
 * would cost the program its controlling terminal: no job control, no Ctrl-C.
 */
import type { FilesystemMode } from './settings.js';

export interface BubblewrapPlan {
  /** The folder the program starts in. */
  cwd: string;
  filesystem: FilesystemMode;
  /** Folders it may write (with filesystem `project`; existing real paths). */
  writable: readonly string[];
  /** Paths inside writable folders kept read-only (git hooks and config). */
  readOnly: readonly string[];
  /** Paths it may neither read nor write; the hub's state folder is one. A folder shows empty, a file as /dev/null. */
  denied: readonly { path: string; folder: boolean }[];
  /** The system temp folder (writable, or a private tmpfs with filesystem `read-only`). */
  tmp: string;
  /**
   * `on`: the machine's network; `off`: a network namespace of its own (loopback only);
   * `proxy`: no network but the filtering proxy's socket, bound in at the same path.
   */
  network: { mode: 'on' } | { mode: 'off' } | { mode: 'proxy'; socket: string };
  /** bubblewrap 0.8+: no user namespace inside, so no mount can be undone from within. */
  disableUserns: boolean;
  /** A descriptor bubblewrap reads a seccomp program from (see seccomp.ts). */
  seccompFd?: number;
}

/** bubblewrap's options for `plan`, up to and including `--`; the command follows. */
export function bubblewrapArgs(plan: BubblewrapPlan): string[] {
  const args = [
    '--die-with-parent',
    // Its own user namespace (also as root: no capabilities outside it), process ids (it cannot
    // see or signal the hub, nor reach its files through /proc/<pid>/root) and System V IPC.
    '--unshare-user',
    '--unshare-pid',
    '--unshare-ipc',
  ];
  if (plan.network.mode !== 'on') args.push('--unshare-net');
  if (plan.disableUserns) args.push('--disable-userns');
  if (plan.seccompFd !== undefined) args.push('--seccomp', String(plan.seccompFd));
  args.push(plan.filesystem === 'off' ? '--bind' : '--ro-bind', '/', '/');
  args.push('--dev', '/dev', '--proc', '/proc');
  if (plan.filesystem === 'project') {
    for (const dir of plan.writable) args.push('--bind', dir, dir);
    for (const entry of plan.readOnly) args.push('--ro-bind', entry, entry);
  } else if (plan.filesystem === 'read-only') {
    // Temp files work, and vanish with the session.
    args.push('--tmpfs', plan.tmp);
  }
  if (plan.network.mode === 'proxy') args.push('--bind', plan.network.socket, plan.network.socket);
  // Last, so a denied path inside a writable folder stays denied.
  for (const entry of plan.denied) {
    if (entry.folder) args.push('--tmpfs', entry.path, '--remount-ro', entry.path);
    else args.push('--ro-bind', '/dev/null', entry.path);
  }
  args.push('--chdir', plan.cwd, '--');
  return args;
}
