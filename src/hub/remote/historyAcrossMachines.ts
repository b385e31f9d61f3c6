import { HISTORY_DEFAULT_LIMIT } from '../../mcp/historyFilters.js';
import type { ClientMessage, HubMessage, UiHistoryEntry } from '../../ui-protocol/index.js';
import { LOCAL_HOST, splitRemoteRef } from '../settings/remoteNames.js';

type Search = Extract<ClientMessage, { type: 'searchHistory' }>;

/** A remote as a history search reaches it. */
export interface SearchedMachine {
  name: string;
  connected: boolean;
  ask(question: Search): Promise<HubMessage>;
  unavailable(): string;
}

/**
 * The window's history search across machines (docs/design.md §4.7, §5.2): this hub's own and each
 * connected remote's, asked at once, merged newest first and cut to the limit; `host` or a
 * `session` on a remote (`devbox:k3f9q2`) narrows it to one machine. A remote that is down or does
 * not answer is named in `note`: its commands are missing, and the page says so.
 */
export async function mergeHistory(message: Search, local: () => Promise<HubMessage>, remotes: readonly SearchedMachine[]): Promise<HubMessage> {
  const { req, host, ...filters } = message;
  const onSession = filters.session !== undefined ? splitRemoteRef(filters.session) : undefined;
  const sessionRemote = onSession && remotes.some((remote) => remote.name === onSession.host) ? onSession : undefined;
  const only = sessionRemote?.host ?? host;
  const reply = (commands: UiHistoryEntry[], total: number, notes: string[]): HubMessage => ({
    type: 'historyResults',
    commands,
    total,
    ...(notes.length > 0 ? { note: notes.join(' ') } : {}),
    ...(req !== undefined ? { req } : {}),
  });
  if (only !== undefined && only !== LOCAL_HOST && !remotes.some((remote) => remote.name === only)) {
    return reply([], 0, [
      `There is no machine "${only}": "${LOCAL_HOST}" is this one, the remotes are ${remotes.map((remote) => remote.name).join(', ') || 'none'}.`,
    ]);
  }
  const question: Search = { ...filters, type: 'searchHistory', ...(sessionRemote ? { session: sessionRemote.id } : {}) };
  const asked = remotes.filter((remote) => only === undefined || remote.name === only);
  const answers = await Promise.all([
    only === undefined || only === LOCAL_HOST ? local() : Promise.resolve(undefined),
    ...asked.map((remote) =>
      remote.connected ? remote.ask(question) : Promise.resolve<HubMessage>({ type: 'error', code: 'REMOTE_UNAVAILABLE', message: remote.unavailable() }),
    ),
  ]);
  const commands: UiHistoryEntry[] = [];
  const notes: string[] = [];
  let total = 0;
  answers.forEach((answer, index) => {
    if (!answer) return;
    if (answer.type === 'historyResults') {
      commands.push(...answer.commands);
      total += answer.total;
      if (answer.note) notes.push(answer.note);
    } else if (answer.type === 'error') {
      const remote = asked[index - 1];
      notes.push(remote ? `${remote.name}'s history is not here: ${answer.message}` : answer.message);
    }
  });
  commands.sort((a, b) => (a.started_at < b.started_at ? 1 : a.started_at > b.started_at ? -1 : 0));
  return reply(commands.slice(0, filters.limit ?? HISTORY_DEFAULT_LIMIT), total, notes);
}
