import { DEFAULT_REMOTE_COMMAND, type RemoteEntry } from '../settings/remoteSettings.js';

/** How often ssh checks the other end is alive, and how many missed answers end the link. */
const SERVER_ALIVE_SECONDS = 15;
const SERVER_ALIVE_COUNT = 3;
const CONNECT_TIMEOUT_SECONDS = 20;

/**
 * The system's ssh client, as the person's own `ssh` would run (their keys, agent, config, jump
 * hosts), with only what a link needs on top (docs/design.md §4.7):
 *
 * - `-T`, no terminal: the channel carries link frames, byte for byte;
 * - `BatchMode=yes`: it never prompts (a passphrase, a password, an unknown host key); what it
 *   would have asked becomes an error the person is shown (linkFailure.ts);
 * - `ClearAllForwardings=yes`: a `LocalForward` the person's config names for that host would make
 *   this machine listen on a port; a link listens on nothing;
 * - `ServerAliveInterval`: a link whose other end vanished is ended within a minute, not at TCP's
 *   timeout, so the hub reconnects;
 * - `--` before the destination (which settings keep from starting with `-`), then the remote
 *   command, which the remote's login shell runs as ssh runs any: `<command> link`.
 */
export function sshArguments(entry: RemoteEntry): string[] {
  return [
    '-T',
    '-o',
    'BatchMode=yes',
    '-o',
    'ClearAllForwardings=yes',
    '-o',
    `ServerAliveInterval=${SERVER_ALIVE_SECONDS}`,
    '-o',
    `ServerAliveCountMax=${SERVER_ALIVE_COUNT}`,
    '-o',
    `ConnectTimeout=${CONNECT_TIMEOUT_SECONDS}`,
    ...(entry.sshConfig ? ['-F', entry.sshConfig] : []),
    '--',
    entry.destination,
    `${entry.command ?? DEFAULT_REMOTE_COMMAND} link`,
  ];
}

/** The system's OpenSSH client, found on the PATH as the person's shell finds it. */
export const SSH_PROGRAM = 'ssh';
