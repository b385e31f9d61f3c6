/**
 * Why a link is down, in the person's words (docs/design.md §4.7): the same sentence in the window,
 * in `switchboard status` and `remote list`, and in the coded error an agent gets
 * (`REMOTE_UNAVAILABLE`, with `problem` as data). Read from what ssh printed and how it ended, or
 * from the remote's own refusal (`denied`).
 */
import { DEFAULT_REMOTE_COMMAND, type RemoteEntry } from '../settings/remoteSettings.js';

export type LinkProblemCode =
  /** ssh's "REMOTE HOST IDENTIFICATION HAS CHANGED". */
  | 'host_key_changed'
  /** BatchMode never accepts a host key it has not seen. */
  | 'host_key_unknown'
  /** "Permission denied (publickey…)": no key or agent ssh could use was accepted. */
  | 'key_refused'
  /** The name does not resolve, the port refuses or times out, the network is down. */
  | 'unreachable'
  /** The remote's shell could not find the command (exit 127). */
  | 'not_installed'
  /** The remote runs a Switchboard that does not speak this link. */
  | 'incompatible'
  /** No `ssh` on this machine. */
  | 'no_ssh'
  /** The remote's hub or `switchboard link` refused (no hub could start there, …). */
  | 'refused'
  /** The link was up and went down (the network, the remote's sshd, the remote's hub). */
  | 'dropped'
  | 'failed';

export interface LinkProblem {
  code: LinkProblemCode;
  /** A sentence for the person: what happened and what to do. */
  message: string;
}

export interface LinkEnd {
  /** The link had been answered (a welcome came): it dropped rather than failed to start. */
  established: boolean;
  /** spawn's error, e.g. ENOENT for a missing ssh. */
  spawnError?: NodeJS.ErrnoException;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** What ssh and the remote command printed on stderr (the tail). */
  stderr: string;
  /** The remote's `denied` line, when it sent one. */
  denied?: string;
  /** The link ended on this side for this reason (a frame that did not parse). */
  reason?: string;
}

/** ssh's exit status for its own errors (connection, authentication), as opposed to the command's. */
const SSH_ERROR_EXIT = 255;
/** A shell's "command not found". */
const NOT_FOUND_EXIT = 127;

export function linkProblem(entry: RemoteEntry, end: LinkEnd): LinkProblem {
  const name = entry.name;
  const where = `${name} (${entry.destination})`;
  const said = lastLine(end.stderr);
  if (end.spawnError) {
    if (end.spawnError.code === 'ENOENT')
      return {
        code: 'no_ssh',
        message: `This machine has no ssh client to reach ${where}: install OpenSSH's client (apt install openssh-client), then it connects by itself.`,
      };
    return { code: 'failed', message: `ssh could not be started to reach ${where}: ${end.spawnError.message}.` };
  }
  if (/REMOTE HOST IDENTIFICATION HAS CHANGED/i.test(end.stderr)) {
    return {
      code: 'host_key_changed',
      message: `The host key of ${where} has changed, so ssh refused to connect: someone may be intercepting the connection, or the machine was reinstalled. If you know why it changed, remove the old key (ssh-keygen -R <host>) and connect once with ssh ${entry.destination} in a terminal to accept the new one.`,
    };
  }
  if (/Host key verification failed|No (ED25519|RSA|ECDSA)? ?host key is known/i.test(end.stderr)) {
    return {
      code: 'host_key_unknown',
      message: `ssh does not know the host key of ${where} yet, and a link never asks: connect once with ssh ${entry.destination} in a terminal and accept it.`,
    };
  }
  if (/Permission denied \(/i.test(end.stderr)) {
    return {
      code: 'key_refused',
      message: `${where} refused the login (${said || 'Permission denied'}): a link uses your ssh keys or agent and never asks for a password or passphrase. Add your public key to the remote's authorized_keys (ssh-copy-id ${entry.destination}), or load your key into ssh-agent.`,
    };
  }
  if (!end.established && (end.exitCode === NOT_FOUND_EXIT || /command not found|: not found|No such file or directory/i.test(end.stderr)) && !end.denied) {
    const command = entry.command ?? DEFAULT_REMOTE_COMMAND;
    return {
      code: 'not_installed',
      message: `${where} has no Switchboard: ${said ? `"${said}"` : `${command} was not found`}. Install Switchboard there (the same version as here), or, if it is installed off the PATH a non-interactive ssh shell gets, set this remote's command to its path (switchboard remote add ${name} ${entry.destination} --command /path/to/bin/switchboard).`,
    };
  }
  if (end.denied) {
    if (/incompatible versions|older than|unknown command|expected \{"type":"hello"/i.test(end.denied)) return incompatible(where, end.denied);
    return { code: 'refused', message: `Switchboard on ${where} refused the link: ${end.denied}` };
  }
  if (!end.established && /unknown command "link"/i.test(end.stderr)) return incompatible(where, said);
  if (end.exitCode === SSH_ERROR_EXIT && !end.established) {
    if (
      /Could not resolve hostname|Connection refused|Connection timed out|timed out|No route to host|Network is unreachable|Connection closed by|Connection reset|kex_exchange_identification/i.test(
        end.stderr,
      )
    ) {
      return { code: 'unreachable', message: `${where} cannot be reached: ${said || 'ssh could not connect'}. It is tried again by itself.` };
    }
  }
  if (end.established) {
    const why =
      end.reason ??
      (said ||
        (end.signal ? `ssh ended by ${end.signal}` : end.exitCode === SSH_ERROR_EXIT ? 'the connection was lost' : `ssh exited with ${String(end.exitCode)}`));
    return { code: 'dropped', message: `The link to ${where} dropped (${why}). Its sessions go on running there; it reconnects by itself.` };
  }
  return {
    code: 'failed',
    message: `The link to ${where} could not be made: ${end.reason ?? (said || `ssh exited with ${String(end.exitCode ?? end.signal)}`)}.`,
  };
}

function incompatible(where: string, said: string): LinkProblem {
  return {
    code: 'incompatible',
    message: `${where} runs a Switchboard that cannot link with this one (${said}). Install the same version of Switchboard on both machines.`,
  };
}

/** The last line ssh or the remote printed that says something (warnings about known_hosts aside). */
function lastLine(stderr: string): string {
  const lines = stderr
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !/^Warning: Permanently added/.test(line) && !/^@+$/.test(line));
  return (lines.at(-1) ?? '').slice(0, 300);
}
