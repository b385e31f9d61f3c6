/** `list` (docs/design.md §3.2): the sessions, their state and what runs in them. */
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { SessionInfo } from '../../core/index.js';
import { compactOutputSchema, parseInput, type InputSpec } from '../schemas.js';
import type { ToolDeps } from '../toolHost.js';
import { call } from '../nextStep.js';
import { errorResult, success, type Rendering } from '../toolResult.js';
import { LOOKS_ONLY } from '../annotations.js';
import { askRemotes, includesLocal } from '../acrossMachines.js';
import { checkHost, HOST_ALIASES, hostSchema, listedWithHost } from '../hostInput.js';

export const LIST_INPUT = z.object({
  include_closed: z.boolean().optional().describe('Include exited sessions.'),
  host: hostSchema.optional(),
});
const schema = LIST_INPUT;

const spec: InputSpec<typeof schema.shape> = {
  schema,
  aliases: { closed: 'include_closed', all: 'include_closed', include_exited: 'include_closed', show_closed: 'include_closed', ...HOST_ALIASES },
};

// Every key of docs/design.md §3.2 is sent; the advertised schema names the two a client must rely
// on and stays loose for the rest (models pay for every listed token).
const sessionSchema = z.looseObject({
  id: z.string(),
  state: z.enum(['idle', 'running', 'awaiting_input', 'exited']),
});

const outputSchema = z.looseObject({ sessions: z.array(sessionSchema) });

const DESCRIPTION = 'List terminal sessions: id, state, cwd, running command, last exit code, who opened it.';

export function registerList(server: McpServer, deps: ToolDeps): RegisteredTool {
  const { host } = deps;
  return server.registerTool(
    'list',
    {
      title: 'List sessions',
      description: DESCRIPTION,
      // `host` is taken but not listed (docs/design.md §3.6: the listing's budget); rows name their host.
      inputSchema: listedWithHost(schema, undefined),
      outputSchema: compactOutputSchema(outputSchema),
      annotations: LOOKS_ONLY,
    },
    async (raw, ctx) => {
      const input = parseInput(spec, raw);
      if (!input.ok) return errorResult(input.error, host.logger, 'list', input.warnings);
      try {
        const machine = checkHost(input.value.host, host.remotes);
        const includeClosed = input.value.include_closed ?? false;
        const here = includesLocal(machine) ? host.manager.list(includeClosed).map((info) => ({ ...info, id: deps.showId(info.id) })) : [];
        // Every remote's sessions too (docs/design.md §4.7), each with `host`; a remote that is down is a note.
        const remote = await askRemotes(deps, ctx, machine, 'list', { include_closed: includeClosed });
        const sessions: SessionInfo[] = [...here];
        const notes: string[] = [];
        for (const answer of remote) {
          if ('note' in answer) notes.push(answer.note);
          else
            sessions.push(
              ...(Array.isArray(answer.structured.sessions) ? (answer.structured.sessions as SessionInfo[]) : []).map((info) => ({
                ...info,
                host: answer.host,
              })),
            );
        }
        const listed = renderList(sessions);
        const note = notes.join(' ');
        return success({ sessions, ...(note ? { note } : {}) }, note ? { ...listed, text: `${listed.text}\n${note}` } : listed, input.warnings);
      } catch (error) {
        return errorResult(error, host.logger, 'list', input.warnings);
      }
    },
  );
}

function renderList(sessions: readonly SessionInfo[]): Rendering {
  if (sessions.length === 0) {
    const next = `run a command with ${call('execute', { command: '…' })} (it opens a shell), or open a program with ${call('open', { program: '…' })}`;
    return { text: `No sessions; ${next}.`, next };
  }
  return { text: sessions.map(renderSession).join('\n') };
}

function renderSession(s: SessionInfo): string {
  const who = s.creator.kind === 'agent' ? `agent ${s.creator.client}` : 'user';
  const parts = [`${s.id}${s.name ? ` (${s.name})` : ''}`, s.state === 'awaiting_input' ? `${s.state} (input_kind ${s.input_kind ?? 'line'})` : s.state];
  if (s.state === 'exited') parts.push(`exit ${s.exit_code ?? 'unknown'}`);
  if (s.command) parts.push(`running \`${s.command}\` for ${Math.round((s.running_ms ?? 0) / 1000)} s`);
  if (s.cwd) parts.push(`cwd ${s.cwd}`);
  if (s.last_exit_code !== null) parts.push(`last exit ${s.last_exit_code}`);
  parts.push(`opened by ${who}`, `controller ${s.controller}`, `${s.cols}x${s.rows}`, `pid ${s.pid}`);
  if (s.sandbox) parts.push(s.sandbox.summary);
  return parts.join(', ');
}
