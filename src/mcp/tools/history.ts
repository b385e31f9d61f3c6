/** `history` (docs/design.md §2.7, §3.2): finished commands of every session, searched. */
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { HistoryEntry, HistoryPage } from '../../core/index.js';
import { HISTORY_DEFAULT_LIMIT, HISTORY_MAX_LIMIT, historyQuery } from '../historyFilters.js';
import { compactOutputSchema, parseInput, SESSION_ALIASES, type InputSpec } from '../schemas.js';
import type { ToolDeps } from '../toolHost.js';
import { call } from '../nextStep.js';
import { errorResult, failure, INTERNAL_ERROR, success, type Rendering } from '../toolResult.js';
import { LOOKS_ONLY } from '../annotations.js';
import { askRemotes, includesLocal, type MachineAnswer } from '../acrossMachines.js';
import { checkHost, HOST_ALIASES, hostSchema, listedWithHost } from '../hostInput.js';

export const HISTORY_INPUT = z.object({
  query: z.string().max(1_000).optional().describe('Words of the command.'),
  cwd: z.string().min(1).optional().describe('Folder and below.'),
  session: z.string().min(1).optional().describe('Id or name.'),
  status: z.enum(['failed', 'succeeded', 'any']).optional().describe('Default any.'),
  client: z.string().min(1).optional().describe('Agent name or "person".'),
  since: z.string().min(1).optional().describe('ISO time or 30m, 2h, 7d.'),
  limit: z.number().int().min(1).max(HISTORY_MAX_LIMIT).optional().describe(`Default ${HISTORY_DEFAULT_LIMIT}.`),
  host: hostSchema.optional(),
});
const schema = HISTORY_INPUT;

const spec: InputSpec<typeof schema.shape> = {
  schema,
  aliases: {
    ...SESSION_ALIASES,
    q: 'query',
    text: 'query',
    search: 'query',
    words: 'query',
    command: 'query',
    dir: 'cwd',
    directory: 'cwd',
    folder: 'cwd',
    path: 'cwd',
    exit: 'status',
    outcome: 'status',
    result: 'status',
    agent: 'client',
    creator: 'client',
    after: 'since',
    from: 'since',
    count: 'limit',
    max: 'limit',
    max_results: 'limit',
    ...HOST_ALIASES,
  },
  normalize: {
    status: (value) => {
      const synonyms: Record<string, string> = {
        fail: 'failed',
        failure: 'failed',
        error: 'failed',
        errors: 'failed',
        success: 'succeeded',
        ok: 'succeeded',
        passed: 'succeeded',
        all: 'any',
      };
      return typeof value === 'string' ? (synonyms[value.trim().toLowerCase()] ?? value.trim().toLowerCase()) : value;
    },
  },
};

const outputSchema = z.looseObject({
  commands: z.array(z.looseObject({ session: z.string(), seq: z.number() })),
  total: z.number(),
});

const DESCRIPTION = 'Search earlier commands of every session, closed ones too, newest first; each names the read call for its output.';

export function registerHistory(server: McpServer, deps: ToolDeps): RegisteredTool {
  const { host } = deps;
  return server.registerTool(
    'history',
    {
      title: 'Command history',
      description: DESCRIPTION,
      // `host` is taken but not listed (docs/design.md §3.6: the listing's budget); rows name their host.
      inputSchema: listedWithHost(schema, undefined),
      outputSchema: compactOutputSchema(outputSchema),
      annotations: LOOKS_ONLY,
    },
    async (raw, ctx) => {
      const input = parseInput(spec, raw);
      if (!input.ok) return errorResult(input.error, host.logger, 'history', input.warnings);
      try {
        const { host: wanted, ...filters } = input.value;
        const query = historyQuery(filters, Date.now());
        // A session on a remote (`devbox:k3f9q2`) is searched there alone (docs/design.md §4.7).
        const onRemote = filters.session !== undefined ? host.remotes?.split(filters.session) : undefined;
        const machine = onRemote?.host ?? checkHost(wanted, host.remotes);
        if (!host.history) return failure(INTERNAL_ERROR, 'This Switchboard keeps no command history (it runs without a state directory).');
        const [found, remote] = await Promise.all([
          includesLocal(machine) ? host.history.search(query) : Promise.resolve<HistoryPage>({ commands: [], total: 0 }),
          askRemotes(deps, ctx, machine, 'history', { ...filters, ...(onRemote ? { session: onRemote.id } : {}) }),
        ]);
        const page = acrossMachines(
          { ...found, commands: found.commands.map((entry) => ({ ...entry, session: deps.showId(entry.session) })) },
          remote,
          query.limit,
        );
        const commands = page.commands.map((entry) => ({ ...entry, next: readCall(entry) }));
        const structured: Record<string, unknown> = { commands, total: page.total };
        if (page.note) structured.note = page.note;
        return success(structured, renderHistory(page), input.warnings);
      } catch (error) {
        return errorResult(error, host.logger, 'history', input.warnings);
      }
    },
  );
}

/** This machine's page and the remotes' answers as one: newest first, cut to the limit, notes joined. */
function acrossMachines(local: HistoryPage, remotes: readonly MachineAnswer[], limit: number): HistoryPage {
  if (remotes.length === 0) return local;
  const commands: (HistoryEntry & { host?: string })[] = [...local.commands];
  const notes = local.note ? [local.note] : [];
  let total = local.total;
  for (const answer of remotes) {
    if ('note' in answer) {
      notes.push(answer.note);
      continue;
    }
    const rows = Array.isArray(answer.structured.commands) ? (answer.structured.commands as (HistoryEntry & { next?: string })[]) : [];
    commands.push(...rows.map(({ next: _next, ...entry }) => ({ ...entry, host: answer.host })));
    total += typeof answer.structured.total === 'number' ? answer.structured.total : rows.length;
    if (typeof answer.structured.note === 'string') notes.push(`${answer.host}: ${answer.structured.note}`);
  }
  commands.sort((a, b) => (a.started_at < b.started_at ? 1 : a.started_at > b.started_at ? -1 : 0));
  return { commands: commands.slice(0, limit), total, ...(notes.length > 0 ? { note: notes.join(' ') } : {}) };
}

/** The `read` call that returns a row's whole output. */
function readCall(entry: Pick<HistoryEntry, 'session' | 'seq'>): string {
  return call('read', { session: entry.session, view: 'command', seq: entry.seq });
}

function renderHistory(page: HistoryPage): Rendering {
  const note = page.note ? `\n${page.note}` : '';
  if (page.commands.length === 0) return { text: `No commands found (total ${page.total}).${note}` };
  const lines = [`${page.commands.length} of ${page.total} commands, newest first:`];
  for (const entry of page.commands) {
    const exit = entry.exit_code === null ? 'exit unknown' : `exit ${entry.exit_code}`;
    const took = entry.duration_ms === null ? '' : `, ${formatDuration(entry.duration_ms)}`;
    lines.push(`${entry.session} #${entry.seq}  ${entry.started_at}  ${exit}${took}  ${entry.cwd ?? '?'}  (${entry.creator})`);
    lines.push(`  $ ${entry.command}`);
    for (const line of entry.output_head === '' ? [] : entry.output_head.split('\n')) lines.push(`  | ${line}`);
  }
  const first = page.commands[0]!;
  const next = `the whole output of one: ${readCall(first)} (its session and seq)`;
  return { text: `${lines.join('\n')}\n${next}${note}`, next };
}

function formatDuration(ms: number): string {
  return ms < 1_000 ? `${ms} ms` : `${(ms / 1_000).toFixed(1)} s`;
}
