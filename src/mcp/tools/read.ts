/** `read` (docs/design.md §3.2): what a session shows or showed, optionally after waiting for something. */
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { styledText, type ReadRequest, type ReadResult } from '../../core/index.js';
import { startProgress, type ProgressReporter } from '../progress.js';
import { compactOutputSchema, lenientInputSchema, parseInput, SESSION_ALIASES, WAIT_ALIASES, waitSchema, type InputSpec } from '../schemas.js';
import type { ToolDeps } from '../toolHost.js';
import { approvalNote, shownApproval } from '../approvals.js';
import { call, waitForCommand } from '../nextStep.js';
import { errorResult, success, type Rendering } from '../toolResult.js';
import { renderState } from './send.js';
import { LOOKS_ONLY } from '../annotations.js';

const schema = z.object({
  session: z.string().min(1).describe('Session id or name.'),
  view: z
    .enum(['new', 'screen', 'history', 'command'])
    .optional()
    .describe('new (default): since your last read; screen: grid + cursor; history: scrollback; command: output of command seq.'),
  format: z.enum(['plain', 'ansi', 'styled']).optional().describe('Default plain; styled: rows of style runs (colours, bold, …).'),
  seq: z.number().int().min(1).optional().describe('Command number (default: the last).'),
  offset: z.number().int().min(0).optional().describe('history: lines back from the end; command: from its start.'),
  limit: z.number().int().min(1).max(100_000).optional().describe('Max lines (default 200).'),
  wait: waitSchema.describe('Wait first, e.g. {"exit":true} for a running command.'),
});

const spec: InputSpec<typeof schema.shape> = {
  schema,
  aliases: {
    ...SESSION_ALIASES,
    mode: 'view',
    type: 'view',
    what: 'view',
    command_seq: 'seq',
    start: 'offset',
    skip: 'offset',
    from: 'offset',
    count: 'limit',
    max_lines: 'limit',
    lines: 'limit',
    wait_for: 'wait',
    until: 'wait',
  },
  normalize: {
    // Synonyms a model reaches for: "output" of the last command, "all" of the scrollback.
    view: (value) => {
      const synonyms: Record<string, string> = { output: 'command', scrollback: 'history', all: 'history', visible: 'screen', latest: 'new' };
      return typeof value === 'string' ? (synonyms[value.trim().toLowerCase()] ?? value) : value;
    },
  },
  nested: { wait: { aliases: WAIT_ALIASES } },
};

// Every ReadResult key of docs/design.md §3.2 is sent (lines, truncated, cursor, waited, seq,
// secret, input_kind too); the advertised schema names the ones a client relies on and stays loose for the
// rest.
const outputSchema = z.looseObject({
  // Text, or with format styled `{ rows: [[{ text, fg?, … }]] }` (docs/design.md §3.2), described
  // there rather than here: models pay for every advertised token on every turn.
  content: z.union([z.string(), z.looseObject({})]),
  total_lines: z.number(),
  state: z.string(),
  exit_code: z.number().nullable(),
});

/** `wait.timeout_ms` when omitted (docs/design.md §3.3). */
const DEFAULT_WAIT_MS = 10_000;

const DESCRIPTION =
  "Read a session without typing: new output, the screen, scrollback or a command's output (paged). " + 'wait.exit waits for a running command.';

export function registerRead(server: McpServer, deps: ToolDeps): RegisteredTool {
  const { host } = deps;
  return server.registerTool(
    'read',
    {
      title: 'Read session',
      description: DESCRIPTION,
      inputSchema: lenientInputSchema(schema),
      outputSchema: compactOutputSchema(outputSchema),
      annotations: LOOKS_ONLY,
    },
    async (raw, ctx) => {
      const input = parseInput(spec, raw);
      if (!input.ok) return errorResult(input.error, host.logger, 'read', input.warnings);
      const { session: ref, view = 'new', format = 'plain', ...rest } = input.value;
      const progress = rest.wait ? startProgress(ctx, host, 'waiting') : undefined;
      try {
        if (progress) watchLive(progress, host, ref);
        // Live sessions read themselves; closed ones (also an earlier hub's) read their transcript.
        const request: ReadRequest = { ...rest, view, format, clientId: deps.clientId(ctx), signal: ctx.mcpReq.signal };
        const live = host.gate && request.wait ? host.manager.list(false).find((info) => info.id === ref || info.name === ref) : undefined;
        if (host.gate && request.wait && live) {
          // A command waiting for the person is waited through: first the answer, then the command (docs/design.md §2.9).
          const budget = request.wait.timeout_ms ?? DEFAULT_WAIT_MS;
          const through = await host.gate.waitThrough(live.id, budget, ctx.mcpReq.signal);
          if (through.pending) {
            // Nothing of it is typed yet: no output to show, and the last command is not this one.
            const result = { content: '', lines: 0, total_lines: 0, truncated: false, state: live.state, exit_code: null, waited: 'timeout' };
            const note = approvalNote(shownApproval(through.pending, deps.showId));
            return success(
              result,
              { text: `(not typed yet)\n[session ${deps.showId(live.id)}, ${live.state}, wait timed out (not an error), ${note.text}]`, next: note.next },
              input.warnings,
            );
          }
          request.wait = { ...request.wait, timeout_ms: Math.max(1, budget - through.spentMs) };
        }
        const result = await host.manager.read(ref, request);
        return success(result, renderRead(deps.showId(ref), request, result), input.warnings);
      } catch (error) {
        return errorResult(error, host.logger, 'read', input.warnings);
      } finally {
        progress?.dispose();
      }
    },
  );
}

/** A wait on a live session is about it; a closed one has nothing to wait for. */
function watchLive(progress: ProgressReporter, host: ToolDeps['host'], ref: string): void {
  try {
    progress.watch(host.manager.get(ref));
  } catch {
    // Not live: the read itself says so.
  }
}

export function renderRead(id: string, request: ReadRequest, result: ReadResult): Rendering {
  const parts: string[] = [];
  const command = request.view === 'command' && result.seq !== undefined;
  if (command) parts.push(`command ${result.seq}`);
  // Once it finished: its exit code and duration, as execute shows them.
  if (command && result.duration_ms !== undefined) parts.push(`exit ${result.exit_code ?? 'unknown'}`, `${result.duration_ms} ms`);
  const page = pageNote(id, request, result);
  parts.push(page.text);
  if (result.cursor) parts.push(`cursor row ${result.cursor.row} col ${result.cursor.col}`);
  // In view command exit_code is the command's: the footer must not give it as the session's.
  const state = renderState(id, command && result.state === 'exited' ? { ...result, exit_code: undefined } : result);
  // Styled rows in their text form (styledScreen.ts): ⟦fg=1,bold⟧text⟦/⟧.
  const content = typeof result.content === 'string' ? result.content : styledText(result.content.rows);
  const body = content.length > 0 ? content : '(nothing)';
  // One next step: input wanted first, then a command still running, then the next page.
  let next = state.next;
  let running = '';
  if (next === undefined && command && result.state === 'running' && result.duration_ms === undefined) {
    next = waitForCommand(id, result.seq);
    running = `; the command is still running: ${next}`;
  }
  next ??= page.next;
  return { text: `${body}\n[${parts.join(', ')}; ${state.text}${running}]`, next };
}

/** Which lines these are and, when there are more, the call that reads them. */
function pageNote(id: string, request: ReadRequest, result: ReadResult): Rendering {
  const offset = request.offset ?? 0;
  const lines = `${result.lines} of ${result.total_lines} lines`;
  if (!result.truncated) return { text: lines };
  const page = (view: string, extra: Record<string, unknown>): string => call('read', { session: id, view, ...extra });
  switch (request.view) {
    case 'history': {
      const older = offset + result.lines;
      if (older >= result.total_lines) return { text: lines };
      const next = `older lines: ${page('history', { offset: older })}`;
      return { text: `${lines}; ${next}`, next };
    }
    case 'command': {
      const more = offset + result.lines;
      if (more >= result.total_lines) return { text: lines };
      const next = `more: ${page('command', { seq: result.seq, offset: more })}`;
      return { text: `${lines}; ${next}`, next };
    }
    case 'new': {
      const next = `earlier lines: ${page('history', {})}`;
      return { text: `${lines}, the last shown; ${next}`, next };
    }
    default:
      return { text: lines };
  }
}
