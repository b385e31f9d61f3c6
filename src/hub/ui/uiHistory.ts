/**
 * The person's side of the history database (docs/design.md §2.7, §5.2): the UI's search across
 * every session's commands, one command's output from any session (closed ones and earlier hubs'
 * too, through the same path as `read` view `command`), and running a command again in a session
 * the person controls — typed through the person's input path and audited by its source, never
 * its text (§4.6).
 */
import { ErrorCode, SwitchboardError, type CommandRecord, type HistoryPage, type SessionManager, type TerminalSession } from '../../core/index.js';
import { historyQuery } from '../../mcp/historyFilters.js';
import { UiErrorCode, type ClientMessage, type HubMessage } from '../../ui-protocol/index.js';
import type { HistorySearch } from '../history/historyIndex.js';
import type { PersonAuditSink } from '../audit/personAudit.js';

type MessageOf<T extends ClientMessage['type']> = Extract<ClientMessage, { type: T }>;

/** Lines of a command's output sent when the page asks for no particular number. */
const COMMAND_OUTPUT_DEFAULT_LINES = 1_000;

export interface UiHistoryHost {
  history?: HistorySearch;
  manager: Pick<SessionManager, 'read' | 'get' | 'store'>;
  audit: PersonAuditSink;
  live(id: string): TerminalSession | undefined;
}

/** searchHistory → historyResults (the filters read as the `history` tool reads them). */
export async function searchHistory(host: UiHistoryHost, message: MessageOf<'searchHistory'>): Promise<HubMessage> {
  const { type: _type, req, ...filters } = message;
  const query = historyQuery(filters, Date.now());
  const reply = (page: HistoryPage): HubMessage => ({
    type: 'historyResults',
    commands: page.commands,
    total: page.total,
    ...(page.note !== undefined ? { note: page.note } : {}),
    ...(req !== undefined ? { req } : {}),
  });
  if (!host.history) return reply({ commands: [], total: 0, note: 'This hub keeps no command history (it runs without a state directory).' });
  return reply(await host.history.search(query));
}

/** commandOutput → commandOutputResult: one command's output as plain text, a bounded page of lines. */
export async function commandOutput(host: UiHistoryHost, message: MessageOf<'commandOutput'>): Promise<HubMessage> {
  const offset = message.offset ?? 0;
  const result = await host.manager.read(message.session, {
    clientId: 'ui',
    view: 'command',
    format: 'plain',
    seq: message.seq,
    offset,
    limit: message.limit ?? COMMAND_OUTPUT_DEFAULT_LINES,
  });
  return {
    type: 'commandOutputResult',
    session: message.session,
    seq: result.seq ?? message.seq,
    text: typeof result.content === 'string' ? result.content : '',
    offset,
    lines: result.lines,
    total_lines: result.total_lines,
    truncated: result.truncated,
    exit_code: result.exit_code,
    ...(result.duration_ms !== undefined ? { duration_ms: result.duration_ms } : {}),
    ...(message.req !== undefined ? { req: message.req } : {}),
  };
}

/**
 * rerun: the command `from` names, typed into `session` as the person typing it and Enter. Only
 * into a session the person controls (an agent's after take over) that waits at its prompt, so
 * the line never lands in a running program. Returns the session's id.
 */
export async function rerun(host: UiHistoryHost, message: MessageOf<'rerun'>): Promise<string> {
  const command = await commandLine(host, message.from.session, message.from.seq);
  const target = host.live(message.session) ?? host.manager.get(message.session);
  if (target.controller !== 'user') {
    throw new UiError(UiErrorCode.NotInControl, `An agent controls session ${target.id}: take it over before running a command in it.`);
  }
  const state = target.info().state;
  if (state !== 'idle') {
    throw new SwitchboardError(
      ErrorCode.SessionBusy,
      `Session ${target.id} is ${state === 'exited' ? 'ended' : 'busy (a command runs in it)'}; pick a session at its prompt or a new terminal.`,
    );
  }
  target.userInput(`${command}\r`);
  host.audit({ action: 'rerun', session: target.id, from: { session: message.from.session, seq: message.from.seq } });
  return target.id;
}

/** A protocol error (not the core's) with a code the bridge passes on. */
export class UiError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The command line of `session` #`seq`: a live session's records, else its commands.jsonl. */
async function commandLine(host: UiHistoryHost, session: string, seq: number): Promise<string> {
  const live = host.live(session);
  let records: CommandRecord[] = live ? live.commands() : [];
  if (!live && host.manager.store) records = await host.manager.store.readCommands(session);
  const record = records.find((candidate) => candidate.seq === seq);
  if (!record || record.command.trim() === '') {
    throw new SwitchboardError(
      ErrorCode.InvalidArgument,
      `from: session ${session} has no command #${seq} to run again (retention may have removed it); search the history again.`,
      {
        parameter: 'from',
      },
    );
  }
  return record.command;
}
