/** `open` (docs/design.md §3.2): a new session running the login shell or a program (vim, python3, htop). */
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { SessionInfo } from '../../core/index.js';
import { compactOutputSchema, lenientInputSchema, parseInput, type InputSpec } from '../schemas.js';
import type { ToolDeps } from '../toolHost.js';
import { useSession } from '../nextStep.js';
import { errorResult, success, type Rendering } from '../toolResult.js';
import { RUNS } from '../annotations.js';
import { SHOWN_IN_TERMINAL_APP } from '../terminalApp.js';

const schema = z.object({
  name: z.string().min(1).max(100).optional().describe('Label, usable wherever a session id is.'),
  cwd: z.string().min(1).optional().describe('Working directory.'),
  program: z.string().min(1).optional().describe('Program instead of your shell, e.g. "python3"; a shell (bash, zsh, fish, sh) also takes execute.'),
  args: z.array(z.string()).optional().describe('Arguments of program.'),
  env: z.record(z.string(), z.string()).optional().describe('Extra environment variables.'),
  rows: z.number().int().min(2).max(500).optional().describe('Terminal height.'),
  cols: z.number().int().min(10).max(1_000).optional().describe('Terminal width.'),
});

const spec: InputSpec<typeof schema.shape> = {
  schema,
  aliases: {
    label: 'name',
    session_name: 'name',
    dir: 'cwd',
    directory: 'cwd',
    workdir: 'cwd',
    working_directory: 'cwd',
    command: 'program',
    cmd: 'program',
    executable: 'program',
    argv: 'args',
    arguments: 'args',
    environment: 'env',
    height: 'rows',
    lines: 'rows',
    width: 'cols',
    columns: 'cols',
  },
};

// Every key of docs/design.md §3.2 is sent (pid, program, rows, cols too); the advertised schema
// names the two a client relies on and stays loose for the rest (models pay for every listed token).
const outputSchema = z.looseObject({
  session: z.string(),
  state: z.string(),
});

const DESCRIPTION =
  'Open a terminal session: your shell (once its prompt is up) or a program (python3, vim, htop). ' +
  'Drive it with send, look with read, end it with kill close:true.';

export function registerOpen(server: McpServer, deps: ToolDeps): RegisteredTool {
  const { host } = deps;
  return server.registerTool(
    'open',
    {
      title: 'Open session',
      description: DESCRIPTION,
      inputSchema: lenientInputSchema(schema),
      outputSchema: compactOutputSchema(outputSchema),
      annotations: RUNS,
      // Hosts with MCP Apps draw the result as a live view of the session (docs/design.md §3.7).
      _meta: SHOWN_IN_TERMINAL_APP,
    },
    async (raw, ctx) => {
      // Validation comes first: a bad value spawns nothing.
      const input = parseInput(spec, raw);
      if (!input.ok) return errorResult(input.error, host.logger, 'open', input.warnings);
      try {
        const session = await host.manager.open({ creator: { kind: 'agent', client: deps.clientName(ctx) }, ...input.value });
        const info = session.info();
        const result = { session: info.id, ...(info.name ? { name: info.name } : {}), pid: info.pid, program: info.program, rows: info.rows, cols: info.cols, state: info.state };
        return success(result, renderOpen(info, session.shellKind !== null), input.warnings);
      } catch (error) {
        return errorResult(error, host.logger, 'open', input.warnings);
      }
    },
  );
}

/** `shell`: the session takes commands (`execute`), not only keys. */
export function renderOpen(info: SessionInfo, shell: boolean): Rendering {
  const label = info.name ? ` (${info.name})` : '';
  const next = useSession(info.id, shell);
  return { text: `Opened session ${info.id}${label}: ${info.program}, pid ${info.pid}, ${info.cols}x${info.rows}, ${info.state}; ${next}.`, next };
}
