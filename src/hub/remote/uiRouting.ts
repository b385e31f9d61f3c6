import { ErrorCode } from '../../core/index.js';
import type { ClientMessage, HubMessage } from '../../ui-protocol/index.js';
import type { PersonAction } from '../audit/personAudit.js';
import { splitRemoteRef } from '../settings/remoteNames.js';

type Routed = { host: string; message: ClientMessage } | { refused: HubMessage };

/**
 * Whether a window's message is about a remote (docs/design.md §4.7), and the message as the
 * remote takes it: its session (`devbox:k3f9q2` → `k3f9q2`), approval id or `host` made the
 * remote's own. Undefined: this machine's (a `<name>:…` that names no remote is left to fail here
 * as any unknown session does). A `rerun` between two machines is refused: the command is taken
 * from the source session's records, which only its own machine has.
 */
export function routeToRemote(message: ClientMessage, isRemote: (host: string) => boolean): Routed | undefined {
  const remote = (ref: string): { host: string; id: string } | undefined => {
    const split = splitRemoteRef(ref);
    return split && isRemote(split.host) ? split : undefined;
  };
  switch (message.type) {
    case 'hello':
    case 'getSettings':
    case 'setSettings':
    case 'confirmSettings':
    case 'discardSettings':
    case 'rotateToken':
    case 'searchHistory': // merged across machines (historyAcrossMachines.ts)
      return undefined;
    case 'answerApproval': {
      const split = remote(message.id);
      return split ? { host: split.host, message: { ...message, id: split.id } } : undefined;
    }
    case 'stopClient':
    case 'openTerminal': {
      if (message.host === undefined || !isRemote(message.host)) return undefined;
      const { host, ...rest } = message;
      return { host, message: rest };
    }
    case 'rerun': {
      const into = remote(message.session);
      const from = remote(message.from.session);
      if (!into && !from) return undefined;
      if (!into || !from || into.host !== from.host) {
        return {
          refused: {
            type: 'error',
            code: ErrorCode.InvalidArgument,
            message: `A command runs again only on its own machine: ${message.from.session} and ${message.session} are on different machines. Pick a session on the same machine, or open a terminal there.`,
            for: message.type,
            session: message.session,
            ...(message.req !== undefined ? { req: message.req } : {}),
          },
        };
      }
      return { host: into.host, message: { ...message, session: into.id, from: { ...message.from, session: from.id } } };
    }
    default: {
      const split = remote(message.session);
      return split ? { host: split.host, message: { ...message, session: split.id } } : undefined;
    }
  }
}

/**
 * What this hub's audit records of a person's action on a remote (docs/design.md §4.6): the same
 * actions as on its own sessions, the session as `<remote>:<id>`, with `host`; typing as a count.
 * The remote's audit records it too, as coming over the link from this machine.
 */
export function remoteAction(message: ClientMessage, host: string): { entry?: PersonAction; typed?: { session: string; bytes: number } } | undefined {
  const on = (session: string): { session: string; host: string } => ({ session, host });
  switch (message.type) {
    case 'takeOver':
      return { entry: { action: 'take_over', ...on(message.session) } };
    case 'handBack':
      return { entry: { action: 'hand_back', ...on(message.session) } };
    case 'interrupt':
      return { entry: { action: 'interrupt', ...on(message.session) } };
    case 'kill':
      return { entry: { action: 'kill', ...on(message.session) } };
    case 'close':
      return { entry: { action: 'close', ...on(message.session) } };
    case 'screenshot':
      return { entry: { action: 'screenshot', ...on(message.session) } };
    case 'input':
      return { typed: { session: message.session, bytes: Buffer.byteLength(message.data, 'utf8') } };
    case 'answerApproval':
      return {
        entry: {
          action: 'answer_approval',
          host,
          approval: message.id,
          answer: message.answer,
          ...(message.answer === 'deny' ? { reason: Boolean(message.reason?.trim()) } : {}),
        },
      };
    case 'stopClient':
      return { entry: { action: 'stop_client', host, client: message.client } };
    case 'openTerminal':
      return { entry: { action: 'open_terminal', host } };
    case 'rerun':
      return { entry: { action: 'rerun', ...on(message.session), from: { session: message.from.session, seq: message.from.seq } } };
    default:
      return undefined;
  }
}
