/**
 * Whether an OS sandbox can start on this machine (docs/design.md §2.10), found by starting one:
 * bubblewrap on Linux (with the namespaces the sessions get), sandbox-exec on macOS. Where none
 * can, the reason and the one command that fixes it, which every agent result and the window
 * then show.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { unixSocketFilter } from './seccomp.js';
import { applySeccompPath } from './srtInternals.js';

export type SandboxAvailability =
  | {
      available: true;
      platform: 'linux';
      bwrap: string;
      /** Runs the launcher inside the sandbox (assets/sandbox/enter.bash). */
      bash: string;
      /** Bridges the filtering proxy into a sandbox without network; null: not installed. */
      socat: string | null;
      /** bubblewrap takes `--disable-userns` (0.8+). */
      disableUserns: boolean;
      /** The unix-socket filter for this architecture (seccomp.ts); null where none is written. */
      seccomp: Buffer | null;
      /** The library's apply-seccomp (srtInternals.ts), for sessions whose network is a list of domains; null where none ships. */
      applySeccomp: string | null;
    }
  | { available: true; platform: 'darwin'; sandboxExec: string }
  | { available: false; reason: string; fix: string };

/** How long the trial sandbox may take to start and exit. */
const PROBE_TIMEOUT_MS = 5_000;

/** Probes this machine: `env` gives PATH (the hub's). */
export function probeSandbox(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): SandboxAvailability {
  if (platform === 'darwin') {
    const sandboxExec = '/usr/bin/sandbox-exec';
    if (!isExecutable(sandboxExec))
      return { available: false, reason: `${sandboxExec} is missing`, fix: 'reinstall or update macOS: sandbox-exec is part of it' };
    return { available: true, platform: 'darwin', sandboxExec };
  }
  if (platform !== 'linux') return { available: false, reason: `Switchboard has no sandbox for ${platform}`, fix: 'run the agent in a container or a VM' };
  const bwrap = which('bwrap', env);
  if (!bwrap) return { available: false, reason: 'bubblewrap (bwrap) is not installed', fix: installCommand('bubblewrap', env) };
  const bash = which('bash', env);
  if (!bash) return { available: false, reason: 'bash is not installed (the sandbox starts programs through it)', fix: installCommand('bash', env) };
  const trial = (extra: string[]): string | undefined => {
    const run = spawnSync(
      bwrap,
      ['--unshare-user', '--unshare-pid', '--unshare-ipc', ...extra, '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--', bash, '-c', 'exit 0'],
      {
        env: { PATH: env.PATH ?? '' },
        timeout: PROBE_TIMEOUT_MS,
        encoding: 'utf8',
      },
    );
    if (run.error) return run.error.message;
    if (run.status !== 0) return (run.stderr || `exit ${run.status ?? run.signal}`).trim().split('\n')[0];
    return undefined;
  };
  // Sessions need bubblewrap to start as they use it, with and without a network of their own,
  // and use --disable-userns where it exists (0.8+). The usual machine answers all of it in one
  // trial with everything on; each trial blocks the hub's start (about 0.1 s, more on a loaded
  // machine), so the ones that tell what is missing run only when that one fails.
  const disableUserns = trial(['--unshare-net', '--disable-userns']) === undefined;
  if (!disableUserns) {
    const failed = trial([]) ?? trial(['--unshare-net']);
    if (failed !== undefined) return { available: false, ...userNamespaceTrouble(failed, bwrap) };
  }
  return {
    available: true,
    platform: 'linux',
    bwrap,
    bash,
    socat: which('socat', env) ?? null,
    disableUserns,
    seccomp: unixSocketFilter(),
    applySeccomp: applySeccompPath() ?? null,
  };
}

/** Why bubblewrap could not start, and the fix for the usual causes. */
function userNamespaceTrouble(message: string, bwrap: string): { reason: string; fix: string } {
  const sysctl = (name: string): string | undefined => {
    try {
      return fs.readFileSync(`/proc/sys/${name.replaceAll('.', '/')}`, 'utf8').trim();
    } catch {
      return undefined;
    }
  };
  const said = `bubblewrap could not start (${message})`;
  if (sysctl('kernel.apparmor_restrict_unprivileged_userns') === '1') {
    // Ubuntu 23.10+: a profile that lets bwrap alone create user namespaces; Ubuntu ships one.
    const shipped = '/usr/share/apparmor/extra-profiles/bwrap-userns-restrict';
    return {
      reason: `${said}: AppArmor keeps unprivileged programs from creating user namespaces (kernel.apparmor_restrict_unprivileged_userns=1), and ${bwrap} has no profile that allows it`,
      fix: fs.existsSync(shipped)
        ? `sudo ln -s ${shipped} /etc/apparmor.d/ && sudo systemctl reload apparmor`
        : "echo 'kernel.apparmor_restrict_unprivileged_userns=0' | sudo tee /etc/sysctl.d/60-userns.conf && sudo sysctl --system",
    };
  }
  if (sysctl('kernel.unprivileged_userns_clone') === '0') {
    return {
      reason: `${said}: unprivileged user namespaces are off (kernel.unprivileged_userns_clone=0)`,
      fix: "echo 'kernel.unprivileged_userns_clone=1' | sudo tee /etc/sysctl.d/60-userns.conf && sudo sysctl --system",
    };
  }
  if (sysctl('user.max_user_namespaces') === '0') {
    return {
      reason: `${said}: user namespaces are off (user.max_user_namespaces=0)`,
      fix: "echo 'user.max_user_namespaces=15000' | sudo tee /etc/sysctl.d/60-userns.conf && sudo sysctl --system",
    };
  }
  return { reason: said, fix: `run ${bwrap} --unshare-user --unshare-pid --ro-bind / / true to see why, and fix what it says` };
}

/** The command that installs a Debian/Fedora/Arch/… package here, by the package manager found. */
export function installCommand(pkg: string, env: NodeJS.ProcessEnv): string {
  if (which('apt-get', env)) return `sudo apt-get install ${pkg}`;
  if (which('dnf', env)) return `sudo dnf install ${pkg}`;
  if (which('pacman', env)) return `sudo pacman -S ${pkg}`;
  if (which('zypper', env)) return `sudo zypper install ${pkg}`;
  if (which('apk', env)) return `sudo apk add ${pkg}`;
  return `install the ${pkg} package`;
}

/** The first executable `name` on env.PATH. */
function which(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!path.isAbsolute(dir)) continue;
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}
