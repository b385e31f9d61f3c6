/** `kill` (docs/design.md §3.2): stop what runs in a session, or end the session. */
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { KillResult } from '../../core/index.js';
import { compactOutputSchema, lenientInputSchema, parseInput, SESSION_ALIASES, type InputSpec } from '../schemas.js';
import type { ToolDeps } from '../toolHost.js';
import { errorResult, success, type Rendering } from '../toolResult.js';
import { STOPS } from '../annotations.js';

const schema = z.object({
  session: z.string().min(1).describe('Session id or name.'),
  signal: z.enum(['SIGINT', 'SIGTERM', 'SIGKILL']).optional().describe('Send just this signal (default: escalate).'),
  close: z.boolean().optional().describe('End the session and everything started in it.'),
});

const spec: InputSpec<typeof schema.shape> = {
  schema,
  aliases: { ...SESSION_ALIASES, sig: 'signal' },
  // "int", "kill", "sigterm", 9 → the SIG name.
  normalize: {
    signal: (value) => {
      const numbers: Record<string, string> = { '2': 'SIGINT', '15': 'SIGTERM', '9': 'SIGKILL' };
      const text = String(value).trim().toUpperCase();
      return numbers[text] ?? (/^[A-Z]+$/.test(text) && !text.startsWith('SIG') ? `SIG${text}` : text);
    },
  },
};

// ended_by: SIGINT | SIGTERM | SIGKILL | null; state: the session's state after.
const outputSchema = z.looseObject({ ended_by: z.string().nullable(), state: z.string() });

const DESCRIPTION = 'Stop the command running in a session (SIGINT, SIGTERM, then SIGKILL); the shell stays usable. close: true ends the session.';

export function registerKill(server: McpServer, deps: ToolDeps): RegisteredTool {
  const { host } = deps;
  return server.registerTool(
    'kill',
    {
      title: 'Kill',
      description: DESCRIPTION,
      inputSchema: lenientInputSchema(schema),
      outputSchema: compactOutputSchema(outputSchema),
      annotations: STOPS,
    },
    async (raw) => {
      const input = parseInput(spec, raw);
      if (!input.ok) return errorResult(input.error, host.logger, 'kill', input.warnings);
      const { session: ref, signal, close } = input.value;
      try {
        const session = host.manager.get(ref);
        let result: KillResult;
        if (close) {
          // A signal asked for alongside close goes to the job first; close then ends the rest.
          const killed = signal ? await session.kill(signal) : null;
          await session.close();
          result = { ended_by: killed?.ended_by ?? null, state: 'exited' };
        } else {
          result = await session.kill(signal);
        }
        const shown = deps.showId(session.id);
        return success({ ...result, session: shown }, renderKill(shown, result, close ?? false), input.warnings);
      } catch (error) {
        return errorResult(error, host.logger, 'kill', input.warnings);
      }
    },
  );
}

function renderKill(id: string, result: KillResult, closed: boolean): Rendering {
  if (closed) return { text: `Session ${id} closed${result.ended_by ? ` (its command ended by ${result.ended_by})` : ''}.` };
  if (result.ended_by === null) return { text: `Nothing was running in session ${id}; it is ${result.state}.` };
  return { text: `Session ${id}: the command ended by ${result.ended_by}; the session is ${result.state}.` };
}
