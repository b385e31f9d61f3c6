/**
 * The Linux sandbox's bubblewrap options (src/sandbox/bubblewrap.ts): namespaces, mounts per
 * filesystem mode and network, denied paths last, and never `--new-session` (docs/decisions.md,
 * "The sandbox"). The options are run for real in test/integration/sandbox.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { bubblewrapArgs, type BubblewrapPlan } from '../../../src/sandbox/bubblewrap.js';

const plan: BubblewrapPlan = {
  cwd: '/work/app/src',
  filesystem: 'project',
  writable: ['/work/app', '/tmp', '/home/me/.npm'],
  readOnly: ['/work/app/.git/hooks', '/work/app/.git/config'],
  denied: [
    { path: '/home/me/.local/state/switchboard', folder: true },
    { path: '/work/app/.env', folder: false },
  ],
  tmp: '/tmp',
  network: { mode: 'on' },
  disableUserns: true,
};

/** The pairs or triples an option takes, as they appear. */
function options(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const width = ['--bind', '--ro-bind'].includes(arg) ? 3 : ['--tmpfs', '--remount-ro', '--dev', '--proc', '--chdir', '--seccomp'].includes(arg) ? 2 : 1;
    out.push(args.slice(i, i + width).join(' '));
    i += width - 1;
  }
  return out;
}

describe('bubblewrapArgs', () => {
  it('project: the machine read-only, the writable folders bound back, git hooks and config read-only, denied paths hidden last', () => {
    const args = bubblewrapArgs(plan);
    expect(args.at(-1)).toBe('--');
    expect(options(args)).toEqual([
      '--die-with-parent',
      '--unshare-user',
      '--unshare-pid',
      '--unshare-ipc',
      '--disable-userns',
      '--ro-bind / /',
      '--dev /dev',
      '--proc /proc',
      '--bind /work/app /work/app',
      '--bind /tmp /tmp',
      '--bind /home/me/.npm /home/me/.npm',
      '--ro-bind /work/app/.git/hooks /work/app/.git/hooks',
      '--ro-bind /work/app/.git/config /work/app/.git/config',
      '--tmpfs /home/me/.local/state/switchboard',
      '--remount-ro /home/me/.local/state/switchboard',
      '--ro-bind /dev/null /work/app/.env',
      '--chdir /work/app/src',
      '--',
    ]);
  });

  it('never starts a new session: the PTY stays the program’s controlling terminal', () => {
    for (const filesystem of ['project', 'read-only', 'off'] as const) expect(bubblewrapArgs({ ...plan, filesystem })).not.toContain('--new-session');
  });

  it('read-only: nothing bound writable, a private tmpfs for temp files', () => {
    const args = options(bubblewrapArgs({ ...plan, filesystem: 'read-only' }));
    expect(args).toContain('--ro-bind / /');
    expect(args).toContain('--tmpfs /tmp');
    expect(args.filter((arg) => arg.startsWith('--bind '))).toEqual([]);
  });

  it('off: the machine writable, the denied paths still hidden', () => {
    const args = options(bubblewrapArgs({ ...plan, filesystem: 'off' }));
    expect(args).toContain('--bind / /');
    expect(args).toContain('--tmpfs /home/me/.local/state/switchboard');
    expect(args).not.toContain('--bind /work/app /work/app');
  });

  it('network off: a namespace of its own; a list of domains: that and the proxy socket', () => {
    expect(bubblewrapArgs(plan)).not.toContain('--unshare-net');
    expect(bubblewrapArgs({ ...plan, network: { mode: 'off' } })).toContain('--unshare-net');
    const proxied = bubblewrapArgs({ ...plan, network: { mode: 'proxy', socket: '/tmp/switchboard-proxy-x/proxy.sock' } });
    expect(proxied).toContain('--unshare-net');
    expect(options(proxied)).toContain('--bind /tmp/switchboard-proxy-x/proxy.sock /tmp/switchboard-proxy-x/proxy.sock');
  });

  it('loads the seccomp program from the descriptor given, and leaves --disable-userns out when asked', () => {
    const args = options(bubblewrapArgs({ ...plan, seccompFd: 9, disableUserns: false }));
    expect(args).toContain('--seccomp 9');
    expect(args).not.toContain('--disable-userns');
  });
});
