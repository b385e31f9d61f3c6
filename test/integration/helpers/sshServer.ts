/**
 * A real OpenSSH server for the remote tests (docs/design.md §4.7): Debian's /usr/sbin/sshd on a
 * loopback port picked free from the OS, with host and user keys made for the test (ssh-keygen)
 * under a temp folder, its own sshd_config (no PAM, StrictModes off for temp folders, the
 * authorized keys and pid file in the temp folder, `-D -e`), and an ssh_config for the client side
 * that reads nothing of the machine's ~/.ssh: its own key, known_hosts, no agent.
 *
 * The "remote machine" is this one seen through a login of its own: sshd runs in a mount namespace
 * (bubblewrap) whose /etc/passwd gives this user a home under the temp folder with an empty
 * .bashrc, so the login shell ssh runs commands in reads no rc file of the machine's (a login
 * shell run by sshd sources ~/.bashrc). sshd's `SetEnv` gives that login SWITCHBOARD_HOME (the
 * remote hub's own state folder) and SWITCHBOARD_PORT=0, as a machine's own configuration would.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { pollUntil } from './poll.js';

export const SSHD = '/usr/sbin/sshd';

export interface SshServer {
  /** The temp folder holding everything of this server. */
  dir: string;
  port: number;
  /** The remote login's home (empty .bashrc). */
  home: string;
  /** The remote hub's state folder (SWITCHBOARD_HOME of every login). */
  remoteState: string;
  /** An ssh_config for the client side: `Host sbremote` (the right host key) and `Host sbremote-wrongkey`. */
  clientConfig: string;
  /** The destination that logs in with the right key and host key. */
  host: string;
  /** The same server, but known_hosts holds another key for it (ssh refuses: host key changed). */
  wrongKeyHost: string;
  /** An ssh_config whose key the server does not accept. */
  refusedConfig: string;
  pid: number;
  /** sshd's children: one per open connection (kill one to cut that link from the server's side). */
  connectionPids(): number[];
  stop(): Promise<void>;
}

/** A port the OS says is free now (sshd cannot take port 0). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function keygen(file: string): string {
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'switchboard-test', '-f', file], { stdio: 'ignore' });
  return fs.readFileSync(`${file}.pub`, 'utf8').trim();
}

export async function startSshServer(options: { setEnv?: Record<string, string> } = {}): Promise<SshServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-ssh-'));
  const home = path.join(dir, 'home');
  const remoteState = path.join(dir, 'state');
  fs.mkdirSync(home, { mode: 0o700 });
  fs.writeFileSync(path.join(home, '.bashrc'), '');
  fs.writeFileSync(path.join(home, '.profile'), '');
  const hostKey = keygen(path.join(dir, 'host_key'));
  const otherHostKey = keygen(path.join(dir, 'other_host_key'));
  const userKey = keygen(path.join(dir, 'user_key'));
  keygen(path.join(dir, 'refused_key'));
  fs.writeFileSync(path.join(dir, 'authorized_keys'), `${userKey}\n`, { mode: 0o600 });
  const user = os.userInfo();
  // This user, with a home of the test's: the login reads no rc file of the machine's.
  const passwd = fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith(`${user.username}:`));
  passwd.push(`${user.username}:x:${user.uid}:${user.gid}:switchboard test:${home}:/bin/bash`);
  fs.writeFileSync(path.join(dir, 'passwd'), `${passwd.join('\n')}\n`);
  const port = await freePort();
  const setEnv = { SWITCHBOARD_HOME: remoteState, SWITCHBOARD_PORT: '0', ...options.setEnv };
  fs.writeFileSync(
    path.join(dir, 'sshd_config'),
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${path.join(dir, 'host_key')}`,
      `PidFile ${path.join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${path.join(dir, 'authorized_keys')}`,
      'StrictModes no',
      'UsePAM no',
      'PermitRootLogin prohibit-password',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PubkeyAuthentication yes',
      'AllowTcpForwarding no',
      'X11Forwarding no',
      `SetEnv ${Object.entries(setEnv)
        .map(([name, value]) => `${name}=${value}`)
        .join(' ')}`,
      '',
    ].join('\n'),
  );
  const knownHosts = path.join(dir, 'known_hosts');
  fs.writeFileSync(knownHosts, `sbremote ${hostKey}\nsbremote-refused ${hostKey}\n`);
  const wrongKnownHosts = path.join(dir, 'known_hosts_wrong');
  fs.writeFileSync(wrongKnownHosts, `sbremote-wrongkey ${otherHostKey}\n`);
  const hostBlock = (alias: string, key: string, known: string): string[] => [
    `Host ${alias}`,
    '  HostName 127.0.0.1',
    `  Port ${port}`,
    `  User ${user.username}`,
    `  HostKeyAlias ${alias}`,
    `  IdentityFile ${key}`,
    '  IdentitiesOnly yes',
    '  IdentityAgent none',
    `  UserKnownHostsFile ${known}`,
    '  GlobalKnownHostsFile /dev/null',
    '  StrictHostKeyChecking yes',
    '  LogLevel ERROR',
    '',
  ];
  const clientConfig = path.join(dir, 'ssh_config');
  fs.writeFileSync(
    clientConfig,
    [...hostBlock('sbremote', path.join(dir, 'user_key'), knownHosts), ...hostBlock('sbremote-wrongkey', path.join(dir, 'user_key'), wrongKnownHosts)].join(
      '\n',
    ),
  );
  const refusedConfig = path.join(dir, 'ssh_config_refused');
  fs.writeFileSync(refusedConfig, hostBlock('sbremote-refused', path.join(dir, 'refused_key'), knownHosts).join('\n'));

  const root = user.uid === 0;
  const child: ChildProcess = spawn(
    'bwrap',
    [
      ...(root ? [] : ['--unshare-user', '--uid', String(user.uid), '--gid', String(user.gid)]),
      '--dev-bind',
      '/',
      '/',
      '--tmpfs',
      '/run',
      '--perms',
      '0755',
      '--dir',
      '/run/sshd',
      '--ro-bind',
      path.join(dir, 'passwd'),
      '/etc/passwd',
      '--die-with-parent',
      '--',
      SSHD,
      '-D',
      '-e',
      '-f',
      path.join(dir, 'sshd_config'),
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sshd did not listen within 10 s:\n${log}`)), 10_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      if (log.includes(`Server listening on 127.0.0.1 port ${port}`)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`sshd exited with ${String(code)} before listening:\n${log}`));
    });
  });
  // sshd writes its pid file just after it starts listening.
  const pidFile = path.join(dir, 'sshd.pid');
  await pollUntil(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim() !== '', 'sshd wrote its pid file', { timeoutMs: 5_000 });
  const pid = Number(fs.readFileSync(pidFile, 'utf8').trim());
  return {
    dir,
    port,
    home,
    remoteState,
    clientConfig,
    host: 'sbremote',
    wrongKeyHost: 'sbremote-wrongkey',
    refusedConfig,
    pid,
    connectionPids: () => childrenOf(pid),
    async stop() {
      // Connections sshd forked outlive the listener; they belong to this test.
      const connections = childrenOf(pid);
      if (child.exitCode === null) {
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        signal(pid, 'SIGTERM');
        for (const connection of connections) signal(connection, 'SIGTERM');
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // gone already
  }
}

/** The pids whose parent is `pid` (Linux /proc). */
function childrenOf(pid: number): number[] {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}
