/** `history` (docs/design.md §2.7, §3.2): finished commands of every session, searched. */
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { HistoryEntry, HistoryPage } from '../../core/index.js';
import { HISTORY_DEFAULT_LIMIT, HISTORY_MAX_LIMIT, historyQuery } from '../historyFilters.js';
import { compactOutputSchema, lenientInputSchema, parseInput, SESSION_ALIASES, type InputSpec } from '../schemas.js';
import type { ToolDeps } from '../toolHost.js';
import { call } from '../nextStep.js';
import { errorResult, failure, INTERNAL_ERROR, success, type Rendering } from '../toolResult.js';
import { LOOKS_ONLY } from '../annotations.js';

const schema = z.object({
  query: z.string().max(1_000).optional().describe('Words of the command.'),
  cwd: z.string().min(1).optional().describe('Folder and below.'),
  session: z.string().min(1).optional().describe('Id or name.'),
  status: z.enum(['failed', 'succeeded', 'any']).optional().describe('Default any.'),
  client: z.string().min(1).optional().describe('Agent name or "person".'),
  since: z.string().min(1).optional().describe('ISO time or 30m, 2h, 7d.'),
  limit: z.number().int().min(1).max(HISTORY_MAX_LIMIT).optional().describe(`Default ${HISTORY_DEFAULT_LIMIT}.`),
});

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
  },
  normalize: {
    status: (value) => {
      const synonyms: Record<string, string> = { fail: 'failed', failure: 'failed', error: 'failed', errors: 'failed', success: 'succeeded', ok: 'succeeded', passed: 'succeeded', all: 'any' };
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
      inputSchema: lenientInputSchema(schema),
      outputSchema: compactOutputSchema(outputSchema),
      annotations: LOOKS_ONLY,
    },
    async (raw) => {
      const input = parseInput(spec, raw);
      if (!input.ok) return errorResult(input.error, host.logger, 'history', input.warnings);
      try {
        const query = historyQuery(input.value, Date.now());
        if (!host.history) return failure(INTERNAL_ERROR, 'This Switchboard keeps no command history (it runs without a state directory).');
        const page = await host.history.search(query);
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
