/** `open` (docs/design.md §3.2): a new session running the login shell or a program (vim, python3, htop). */
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { SessionInfo, TerminalSession } from '../../core/index.js';
import { approvalNote } from '../approvals.js';
import { approvalRound } from '../approvalElicitation.js';
import { argvLine } from '../commandLine.js';
import { requestKey } from '../requestKey.js';
import { compactOutputSchema, parseInput, type InputSpec } from '../schemas.js';
import type { PendingApproval, ToolDeps } from '../toolHost.js';
import { useSession } from '../nextStep.js';
import { errorResult, success, type Rendering } from '../toolResult.js';
import { RUNS } from '../annotations.js';
import { sandboxNotes } from '../sandboxNotes.js';
import { SHOWN_IN_TERMINAL_APP } from '../terminalApp.js';
import { checkHost, HOST_ALIASES, hostSchema, listedWithHost } from '../hostInput.js';

export const OPEN_INPUT = z.object({
  name: z.string().min(1).max(100).optional().describe('Label; usable as session id.'),
  cwd: z.string().min(1).optional().describe('Working directory.'),
  program: z.string().min(1).optional().describe('Program instead of your shell, e.g. "python3"; shells (bash, zsh, fish, sh) take execute too.'),
  args: z.array(z.string()).optional().describe('Arguments of program.'),
  env: z.record(z.string(), z.string()).optional().describe('Extra environment.'),
  rows: z.number().int().min(2).max(500).optional().describe('Terminal height.'),
  cols: z.number().int().min(10).max(1_000).optional().describe('Terminal width.'),
  sandbox: z.boolean().optional().describe('false asks the person to run outside the sandbox'),
  host: hostSchema.optional().describe('Remote to open on.'),
});

const schema = OPEN_INPUT;

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
    sandboxed: 'sandbox',
    ...HOST_ALIASES,
  },
};

// While the person decides, nothing is open yet: `status: "awaiting_approval"`, `session` null and
// no pid (docs/design.md §2.9); otherwise the session's facts.
// The keys a client relies on; program, rows and cols are sent all the same (docs/design.md §3.1).
const outputSchema = z.looseObject({
  session: z.string().nullable(),
  pid: z.number().optional(),
  state: z.string().optional(),
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
      inputSchema: listedWithHost(schema, host.remotes),
      outputSchema: compactOutputSchema(outputSchema),
      annotations: RUNS,
      // Hosts with MCP Apps draw the result as a live view of the session (docs/design.md §3.8).
      _meta: SHOWN_IN_TERMINAL_APP,
    },
    async (raw, ctx) => {
      // Validation comes first: a bad value spawns nothing.
      const input = parseInput(spec, raw);
      if (!input.ok) return errorResult(input.error, host.logger, 'open', input.warnings);
      const opened = (session: TerminalSession) => {
        const info = { ...session.info(), id: deps.showId(session.id) };
        const result = {
          session: info.id,
          ...(info.name ? { name: info.name } : {}),
          pid: info.pid,
          program: info.program,
          rows: info.rows,
          cols: info.cols,
          state: info.state,
          sandbox: info.sandbox,
        };
        return success(result, renderOpen(info, session.shellKind !== null), [...input.warnings, ...sandboxNotes(session, 'open', deps.showId)]);
      };
      try {
        const client = deps.clientName(ctx);
        // A remote's `host` went there (remoteRouting.ts): here it is this machine, or none.
        const { sandbox, host: machine, ...options } = input.value;
        checkHost(machine, host.remotes);
        const request = { creator: { kind: 'agent' as const, client }, ...options, ...(sandbox === false ? { sandbox: false } : {}) };
        const key = requestKey('open', client, { ...options, sandbox: sandbox === false ? false : undefined });
        // The same call again, after the person allowed it once this one had returned: that session.
        const earlier = host.gate?.takeStarted(key);
        if (earlier !== undefined) return opened(earlier as TerminalSession);
        // Everything open checks comes first: the person is asked only about an open that could run.
        const checked = host.manager.checkOpen(request);
        const open = () => host.manager.open(request);
        if (!host.gate) return opened(await open());
        // The program and its arguments are the command line it runs (docs/design.md §2.9).
        const command = argvLine([checked.program, ...(options.args ?? [])], options.env);
        // Told where to answer: an elicitation (2025-11-25), or the link in this call's result, whose
        // retry is the same call again and waits on the same approval (2026-07-28).
        const round = approvalRound(deps, ctx, 'open');
        const gated = {
          tool: 'open' as const,
          command,
          cwd: checked.cwd,
          unsandboxed: sandbox === false,
          key,
          client,
          clientName: deps.clientApp(ctx),
          ...round.gate,
        };
        const pass = await host.gate.passNew(gated, host.settings.executeTimeoutMs, ctx.mcpReq.signal, open);
        if (pass.outcome === 'awaiting') {
          const told = round.told(pass.approval);
          if (told) return told;
          const waiting = awaitingOpen(pass.approval);
          const note = approvalNote(pass.approval, { tool: 'open', args: input.value });
          return success(waiting, { text: `(nothing opened yet)\n[${note.text}]`, next: note.next }, input.warnings);
        }
        return opened(pass.outcome === 'started' ? (pass.result as TerminalSession) : await open());
      } catch (error) {
        return errorResult(error, host.logger, 'open', input.warnings);
      }
    },
  );
}

/** `open`'s answer while the person has not decided: nothing spawned, the approval named. */
function awaitingOpen(approval: PendingApproval): Record<string, unknown> {
  return {
    status: 'awaiting_approval',
    session: null,
    approval: { id: approval.id, rule: approval.rule, reason: approval.reason, ...(approval.unsandboxed ? { outside_sandbox: true } : {}) },
  };
}

/** `shell`: the session takes commands (`execute`), not only keys. */
function renderOpen(info: SessionInfo, shell: boolean): Rendering {
  const label = info.name ? ` (${info.name})` : '';
  const next = useSession(info.id, shell);
  const sandbox = info.sandbox?.on ? ` It is ${info.sandbox.summary}.` : '';
  return { text: `Opened session ${info.id}${label}: ${info.program}, pid ${info.pid}, ${info.cols}x${info.rows}, ${info.state}; ${next}.${sandbox}`, next };
}
