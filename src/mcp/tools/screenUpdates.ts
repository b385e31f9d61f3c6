/**
 * `screen_updates` (docs/design.md §3.8): the app-only tool the terminal app calls through its
 * host about twice a second — what changed in a session since the output offset (`seq`) and the
 * count of resizes (`resizes`) the previous answer gave: nothing, the output since, or the
 * screen to draw anew, with the session's name and state. It only reads (no typing, no resize, no cursor of `read`), answers
 * only about sessions that exist, and is offered only to clients that declared MCP Apps
 * (terminalApp.ts): the model never sees it.
 */
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { ErrorCode, isSwitchboardError, type ScreenUpdate, type SessionInfo, type TerminalSession } from '../../core/index.js';
import { compactOutputSchema, lenientInputSchema, parseInput, SESSION_ALIASES, type InputSpec } from '../schemas.js';
import type { ToolDeps } from '../toolHost.js';
import { errorResult, success, type Rendering } from '../toolResult.js';
import { LOOKS_ONLY } from '../annotations.js';
import { APP_ONLY, offerOnlyToApps } from '../terminalApp.js';

export const SCREEN_UPDATES_TOOL = 'screen_updates';

const schema = z.object({
  session: z.string().min(1).describe('Session id.'),
  since: z.number().int().min(0).optional().describe('seq of the previous answer; omit the first time (the answer is the screen).'),
  resizes: z.number().int().min(0).optional().describe('resizes of the previous answer.'),
});

const spec: InputSpec<typeof schema.shape> = { schema, aliases: { ...SESSION_ALIASES, seq: 'since', from: 'since' } };

const outputSchema = z.looseObject({
  session: z.string(),
  state: z.string(),
  seq: z.number(),
  resizes: z.number(),
});

const DESCRIPTION =
  'For the terminal app: what changed in a session since seq and resizes. screen: draw anew (cols x rows); output: write after what is shown; neither: nothing new. Pass the answer’s seq and resizes next time.';

export function registerScreenUpdates(server: McpServer, deps: ToolDeps): RegisteredTool {
  const { host } = deps;
  const tool = server.registerTool(
    SCREEN_UPDATES_TOOL,
    {
      title: 'Terminal app updates',
      description: DESCRIPTION,
      inputSchema: lenientInputSchema(schema),
      outputSchema: compactOutputSchema(outputSchema),
      annotations: LOOKS_ONLY,
      _meta: APP_ONLY,
    },
    async (raw) => {
      const input = parseInput(spec, raw);
      if (!input.ok) return errorResult(input.error, host.logger, SCREEN_UPDATES_TOOL, input.warnings);
      const { session: ref, since, resizes } = input.value;
      let session: TerminalSession;
      try {
        session = host.manager.get(ref);
      } catch (error) {
        // Ended in this hub: the view shows it ended and stops asking.
        const ended = isSwitchboardError(error) && error.code === ErrorCode.SessionExited ? host.manager.ended(ref) : undefined;
        if (ended)
          return success(endedAnswer(ended, since, resizes), { text: `${ended.id} has exited (code ${ended.exit_code ?? 'unknown'}).` }, input.warnings);
        return errorResult(error, host.logger, SCREEN_UPDATES_TOOL, input.warnings);
      }
      try {
        const update = await session.screenUpdate(since, resizes);
        const info = session.info();
        const address = since === undefined ? host.uiAddress?.(info.id) : undefined;
        const result = {
          ...sessionFacts(info),
          seq: update.through,
          resizes: update.resizes,
          ...updateFields(update),
          ...(address ? { ui_url: address } : {}),
        };
        return success(result, renderUpdate(info, update), input.warnings);
      } catch (error) {
        return errorResult(error, host.logger, SCREEN_UPDATES_TOOL, input.warnings);
      }
    },
  );
  offerOnlyToApps(tool, server);
  return tool;
}

/** What the view's title bar shows: the name, the state and what runs. */
function sessionFacts(info: SessionInfo): Record<string, unknown> {
  return {
    session: info.id,
    ...(info.name ? { name: info.name } : {}),
    state: info.state,
    ...(info.input_kind ? { input_kind: info.input_kind } : {}),
    exit_code: info.exit_code,
    ...(info.command ? { command: info.command } : {}),
  };
}

function endedAnswer(info: SessionInfo, since: number | undefined, resizes: number | undefined): Record<string, unknown> {
  return { ...sessionFacts(info), state: 'exited', seq: since ?? 0, resizes: resizes ?? 0 };
}

function updateFields(update: ScreenUpdate): Record<string, unknown> {
  switch (update.kind) {
    case 'unchanged':
      return {};
    case 'output':
      return { output: update.data };
    case 'screen':
      return { screen: update.data, cols: update.cols, rows: update.rows };
  }
}

function renderUpdate(info: SessionInfo, update: ScreenUpdate): Rendering {
  const what =
    update.kind === 'screen'
      ? `the screen (${update.cols}x${update.rows}, ${update.data.length} characters)`
      : update.kind === 'output'
        ? `${update.data.length} characters of output`
        : 'nothing new';
  return { text: `${info.id} ${info.state}: ${what}; next since ${update.through}.` };
}
