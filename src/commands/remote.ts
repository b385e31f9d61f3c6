/**
 * `switchboard remote add NAME DESTINATION [--command PATH] [--ssh-config FILE]`, `remote list
 * [--json]`, `remote remove NAME` (docs/design.md §4.7): the `remotes` setting, changed through the
 * running hub as the person changes it on the settings page (signed in with the UI key over the
 * socket), or, when no hub runs, by the settings' one writer here while holding the hub's lock.
 * `add` then says whether the link came up, or why not, in the words the window uses.
 */
import * as path from 'node:path';
import {
  acquireHubLock,
  changeRemotesThroughHub,
  defaultStateDir,
  describeSettingsIssues,
  ensureStateDir,
  HubLockedError,
  loadSettings,
  processAlive,
  readHubInfo,
  RemoteEntrySchema,
  SettingsEditor,
  SOCKET_FILE,
  type HubRemoteInfo,
  type RemoteEntry,
} from '../hub/index.js';

const USAGE = `Usage: switchboard remote <add|list|remove>
  remote add NAME DESTINATION [--command PATH] [--ssh-config FILE]
            show NAME's sessions here and let agents reach it: DESTINATION is what you give ssh
            (host, user@host, a ~/.ssh/config alias, ssh://user@host:port). Your ssh keys or
            agent must log in without a prompt, and Switchboard must be installed there
            (--command: its path when it is not on the PATH of a non-interactive ssh shell).
  remote list [--json]
            the remotes and whether each is connected (and why not)
  remote remove NAME
            stop showing NAME; its sessions go on running there
`;

/** How long `add` waits to say whether the new link came up. */
const CONNECT_WAIT_MS = 30_000;

export async function run(argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  if (verb === undefined || verb === '--help' || verb === '-h') {
    (verb === undefined ? process.stderr : process.stdout).write(USAGE);
    return verb === undefined ? 2 : 0;
  }
  const stateDir = ensureStateDir(defaultStateDir());
  try {
    switch (verb) {
      case 'add':
        return await add(stateDir, rest);
      case 'remove':
      case 'rm':
        return await remove(stateDir, rest);
      case 'list':
      case 'ls':
        return list(stateDir, rest);
      default:
        process.stderr.write(`switchboard remote: unknown "${verb}"\n\n${USAGE}`);
        return 2;
    }
  } catch (error) {
    process.stderr.write(`switchboard remote: ${(error as Error).message}\n`);
    return 1;
  }
}

async function add(stateDir: string, argv: string[]): Promise<number> {
  const options: Record<string, string> = {};
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--command' || arg === '--ssh-config') {
      const value = argv[++i];
      if (value === undefined) return usage(`${arg} needs a value`);
      options[arg === '--command' ? 'command' : 'sshConfig'] = arg === '--ssh-config' ? path.resolve(value) : value;
    } else if (arg.startsWith('--')) {
      return usage(`unknown option ${arg}`);
    } else {
      words.push(arg);
    }
  }
  if (words.length !== 2) return usage('remote add takes a NAME and a DESTINATION');
  const parsed = RemoteEntrySchema.safeParse({ name: words[0], destination: words[1], ...options });
  if (!parsed.success) return usage(describeSettingsIssues(parsed.error.issues));
  const entry = parsed.data;
  const outcome = await change(
    stateDir,
    (remotes) => {
      if (remotes.some((remote) => remote.name === entry.name))
        throw new Error(
          `there is a remote named ${entry.name} already (${remotes.find((remote) => remote.name === entry.name)!.destination}); remove it first, or pick another name`,
        );
      return [...remotes, entry];
    },
    entry.name,
  );
  if (!outcome.hub) {
    process.stderr.write(
      `Added ${entry.name} (${entry.destination}). No hub runs now: it connects when one starts (switchboard serve, the app, or an agent's first call).\n`,
    );
    return 0;
  }
  const status = outcome.status;
  if (status?.state === 'connected') {
    process.stderr.write(
      `Added ${entry.name}: connected (Switchboard ${status.version ?? '?'} there). Its sessions show in the window; agents reach it with open {"host":"${entry.name}"}.\n`,
    );
    return 0;
  }
  if (status?.state === 'disconnected') {
    process.stderr.write(
      `Added ${entry.name}, but it cannot connect: ${status.problem?.message ?? 'unknown reason'}\nIt keeps trying; switchboard remote list shows how it is doing.\n`,
    );
    return 1;
  }
  process.stderr.write(`Added ${entry.name}; still connecting after ${CONNECT_WAIT_MS / 1000} s. switchboard remote list shows how it is doing.\n`);
  return 0;
}

async function remove(stateDir: string, argv: string[]): Promise<number> {
  if (argv.length !== 1) return usage('remote remove takes a NAME');
  const name = argv[0]!;
  await change(stateDir, (remotes) => {
    if (!remotes.some((remote) => remote.name === name))
      throw new Error(`there is no remote named ${name}${remotes.length > 0 ? ` (the remotes: ${remotes.map((remote) => remote.name).join(', ')})` : ''}`);
    return remotes.filter((remote) => remote.name !== name);
  });
  process.stderr.write(`Removed ${name}. Its sessions go on running there; they are no longer shown here.\n`);
  return 0;
}

function list(stateDir: string, argv: string[]): number {
  const json = argv.includes('--json');
  if (argv.some((arg) => arg !== '--json')) return usage('remote list takes only --json');
  const remotes = loadSettings(stateDir).remotes;
  const info = readHubInfo(stateDir);
  const running = info !== undefined && processAlive(info.pid);
  const states = new Map((running ? (info.remotes ?? []) : []).map((remote) => [remote.name, remote]));
  const rows = remotes.map((remote) => ({ ...remote, ...(states.get(remote.name) ? { status: states.get(remote.name) } : {}) }));
  if (json) {
    process.stdout.write(`${JSON.stringify({ hub_running: running, remotes: rows }, null, 2)}\n`);
    return 0;
  }
  if (rows.length === 0) {
    process.stdout.write('No remotes. Add one with: switchboard remote add NAME DESTINATION\n');
    return 0;
  }
  for (const row of rows) process.stdout.write(`${row.name}\t${row.destination}\t${describe(row.status, running)}\n`);
  return 0;
}

function describe(status: HubRemoteInfo | undefined, running: boolean): string {
  if (!running) return 'no hub runs (it connects when one starts)';
  if (!status) return 'not known to the running hub yet';
  if (status.state === 'connected') return `connected (Switchboard ${status.version ?? '?'}) since ${status.since}`;
  if (status.state === 'connecting') return `connecting${status.problem ? ` (last time: ${status.problem.message})` : ''}`;
  return `disconnected: ${status.problem?.message ?? 'unknown reason'}${status.retry_at ? ` Next try at ${status.retry_at}.` : ''}`;
}

/**
 * The `remotes` setting changed by `edit`: through the running hub when there is one (it applies
 * it at once and says how the remote `watch` names is doing), else in settings.json under the lock.
 */
async function change(stateDir: string, edit: (remotes: RemoteEntry[]) => RemoteEntry[], watch?: string): Promise<{ hub: boolean; status?: HubRemoteInfo }> {
  const info = readHubInfo(stateDir);
  if (info && processAlive(info.pid))
    return { hub: true, ...(await changeRemotesThroughHub(stateDir, info.socket ?? path.join(stateDir, SOCKET_FILE), edit, watch, CONNECT_WAIT_MS)) };
  let lock;
  try {
    lock = acquireHubLock(stateDir);
  } catch (error) {
    if (error instanceof HubLockedError)
      return { hub: true, ...(await changeRemotesThroughHub(stateDir, path.join(stateDir, SOCKET_FILE), edit, watch, CONNECT_WAIT_MS)) };
    throw error;
  }
  try {
    const settings = loadSettings(stateDir);
    const editor = new SettingsEditor({ stateDir, env: process.env, inForce: () => settings, apply: () => undefined });
    editor.save({ remotes: edit(settings.remotes) });
    editor.dispose();
    return { hub: false };
  } finally {
    lock.release();
  }
}

function usage(problem: string): number {
  process.stderr.write(`switchboard remote: ${problem}\n\n${USAGE}`);
  return 2;
}
