/**
 * `execute` (docs/design.md §3.2): run one command line in a shell session and return its exact
 * output and exit code. The handler only picks the session and calls the core.
 */
import type { InputRequiredResult, McpServer, RegisteredTool, ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { ErrorCode, SwitchboardError, type ExecuteResult, type TerminalSession } from '../../core/index.js';
import { requestKey } from '../requestKey.js';
import { startProgress } from '../progress.js';
import { compactOutputSchema, lenientInputSchema, parseInput, SESSION_ALIASES, type InputSpec } from '../schemas.js';
import type { ToolDeps } from '../toolHost.js';
import { approvalNote, assertNotReserved, shownApproval } from '../approvals.js';
import { approvalRound, type ApprovalRound, type DeferredCall } from '../approvalElicitation.js';
import { answerInput, describeInput, waitForCommand } from '../nextStep.js';
import type { PendingApproval } from '../toolHost.js';
import { errorResult, success, type Rendering } from '../toolResult.js';
import { RUNS } from '../annotations.js';
import { assertTypable } from '../commandLine.js';
import { sandboxNotes } from '../sandboxNotes.js';
import { SHOWN_IN_TERMINAL_APP } from '../terminalApp.js';

function inputSpec(defaults: { executeTimeoutMs: number; maxLines: number }) {
  const schema = z.object({
    command: z.string().min(1).describe('Command line, e.g. "npm test"; multi-line scripts run whole.'),
    session: z.string().min(1).optional().describe('Session id or name. Omit: your idle shell, or a new one.'),
    cwd: z.string().min(1).optional().describe('Where to pick or open a shell, without session.'),
    timeout_ms: z.number().int().min(1).max(86_400_000).optional().describe(`Max wait (default ${defaults.executeTimeoutMs}); a timeout never kills.`),
    background: z.boolean().optional().describe('Return after ~2 s; it keeps running.'),
    max_lines: z.number().int().min(1).max(10_000).optional().describe(`Lines returned, head + tail (default ${defaults.maxLines}).`),
    sandbox: z.boolean().optional().describe('false asks the person to run outside the sandbox'),
  });
  const spec: InputSpec<typeof schema.shape> = {
    schema,
    aliases: {
      cmd: 'command',
      command_line: 'command',
      script: 'command',
      ...SESSION_ALIASES,
      dir: 'cwd',
      directory: 'cwd',
      workdir: 'cwd',
      working_directory: 'cwd',
      timeout: 'timeout_ms',
      timeout_millis: 'timeout_ms',
      timeout_milliseconds: 'timeout_ms',
      timeout_seconds: { to: 'timeout_ms', scale: 1000 },
      timeout_secs: { to: 'timeout_ms', scale: 1000 },
      timeout_sec: { to: 'timeout_ms', scale: 1000 },
      timeout_s: { to: 'timeout_ms', scale: 1000 },
      run_in_background: 'background',
      bg: 'background',
      lines: 'max_lines',
      max_output_lines: 'max_lines',
      sandboxed: 'sandbox',
    },
  };
  return spec;
}

// Every ExecuteResult key of docs/design.md §3.2 is sent; the schema names the ones a client relies
// on and stays loose for the rest (truncated, total_lines, duration_ms, command_seq, detection,
// input_kind, secret, not_run), so the listing stays short.
const outputSchema = z.looseObject({
  status: z.enum(['completed', 'running', 'awaiting_input', 'awaiting_approval']),
  exit_code: z.number().nullable(),
  output: z.string(),
  // null only while the person decides on a command that would open its own shell (sandbox: false).
  session: z.string().nullable(),
  cwd: z.string().nullable(),
});

const DESCRIPTION =
  'Run a shell command; returns its exact output and exit_code. cwd and env persist per session. ' +
  'status "running" (timeout/background): it goes on; read with wait.exit, or kill. ' +
  '"awaiting_input": it wants input (input_kind); follow next, or kill. ' +
  '"awaiting_approval": the person decides; follow next.';

/**
 * The listing names the defaults in force; the person may change them while agents are
 * connected (settings page): this gives the listing the new ones, and the SDK tells the
 * connected client that the tool list changed. Parsing is unaffected (only descriptions differ).
 */
export function refreshExecuteDefaults(registered: RegisteredTool, defaults: { executeTimeoutMs: number; maxLines: number }): void {
  registered.update({ paramsSchema: lenientInputSchema(inputSpec(defaults).schema) });
}

export function registerExecute(server: McpServer, deps: ToolDeps): RegisteredTool {
  const { host } = deps;
  const spec = inputSpec(host.settings);
  return server.registerTool(
    'execute',
    {
      title: 'Execute',
      description: DESCRIPTION,
      inputSchema: lenientInputSchema(spec.schema),
      outputSchema: compactOutputSchema(outputSchema),
      annotations: RUNS,
      // Hosts with MCP Apps draw the result as a live view of the session (docs/design.md §3.8).
      _meta: SHOWN_IN_TERMINAL_APP,
    },
    async (raw, ctx) => {
      const input = parseInput(spec, raw);
      if (!input.ok) return errorResult(input.error, host.logger, 'execute', input.warnings);
      const args = input.value;
      const progress = startProgress(ctx, host, args.command);
      let release = (): void => undefined;
      try {
        assertTypable(args.command);
        const startedAt = Date.now();
        const timeoutMs = args.timeout_ms ?? host.settings.executeTimeoutMs;
        const maxLines = args.max_lines ?? host.settings.maxLines;
        const round = approvalRound(deps, ctx, 'execute');
        // A 2026-07-28 retry after the link went out: the same approval, waited through (no second ask).
        if (round.retry?.session && host.gate) return await retryExecute(deps, ctx, round.retry, timeoutMs, input.warnings);
        const chosen = await chooseSession(deps, ctx, args);
        if ('started' in chosen) return executed(deps, chosen.started, input.warnings);
        if ('key' in chosen) return await outsideTheSandbox(deps, ctx, args, chosen, { timeoutMs, maxLines, startedAt }, input.warnings, round);
        const session = chosen.session;
        release = chosen.release;
        progress.watch(session);
        const run = (ms: number) => session.execute({ command: args.command, timeoutMs: ms, maxLines, background: args.background, signal: ctx.mcpReq.signal });
        const warnings = (): string[] => [...input.warnings, ...sandboxNotes(session, 'execute', deps.showId)];
        if (!host.gate) return executed(deps, await run(timeoutMs), warnings());
        // The person's policy, before anything is typed (docs/design.md §2.9); a deny throws.
        const request = {
          session,
          command: args.command,
          tool: 'execute' as const,
          client: deps.clientName(ctx),
          clientName: deps.clientApp(ctx),
          ...round.gate,
        };
        // Allowed after this call returned: typed with the defaults, left running for read with wait.exit;
        // or, when its retry waits for it (2026-07-28), run as this call would have.
        const later = round.later(() =>
          session.execute({
            command: args.command,
            timeoutMs: host.settings.executeTimeoutMs,
            maxLines,
            background: round.returnsWhenAsked ? args.background : true,
          }),
        );
        const pass = await host.gate.pass(request, timeoutMs, ctx.mcpReq.signal, later);
        if (pass.outcome === 'awaiting') {
          const told = round.told(pass.approval);
          if (told) return told;
          const waiting = awaitingApproval(pass.approval, session.cwd, Date.now() - startedAt, deps.showId);
          return success(waiting, renderAwaitingApproval(waiting, shownApproval(pass.approval, deps.showId)), warnings());
        }
        const typing = run(Math.max(1, timeoutMs - (Date.now() - startedAt)));
        pass.ran(typing);
        return executed(deps, await typing, warnings());
      } catch (error) {
        return errorResult(error, host.logger, 'execute', input.warnings);
      } finally {
        release();
        progress.dispose();
      }
    },
  );
}

/**
 * `sandbox: false` without a shell of this client already outside the sandbox: the person is
 * asked first (docs/design.md §3.2), nothing is spawned before the answer; once allowed, a shell
 * outside the sandbox is opened and the command runs in it. If the answer comes after this call
 * returned, the shell is opened and the command started then, and the same call again returns it.
 */
async function outsideTheSandbox(
  deps: ToolDeps,
  ctx: ServerContext,
  args: { command: string; background?: boolean },
  place: { key: string; cwd: string },
  budget: { timeoutMs: number; maxLines: number; startedAt: number },
  warnings: string[],
  round: ApprovalRound,
): Promise<ReturnType<typeof success> | InputRequiredResult> {
  const { host } = deps;
  const client = deps.clientName(ctx);
  const start = async (timeoutMs: number, background: boolean | undefined): Promise<ExecuteResult> => {
    const session = await host.manager.open({ creator: { kind: 'agent', client }, cwd: place.cwd, sandbox: false });
    return session.execute({ command: args.command, timeoutMs, maxLines: budget.maxLines, background, signal: ctx.mcpReq.signal });
  };
  if (!host.gate) return executed(deps, await start(budget.timeoutMs, args.background), warnings);
  const request = {
    tool: 'execute' as const,
    command: args.command,
    cwd: place.cwd,
    unsandboxed: true,
    key: place.key,
    client,
    clientName: deps.clientApp(ctx),
    ...round.gate,
  };
  const later = async () => {
    const session = await host.manager.open({ creator: { kind: 'agent', client }, cwd: place.cwd, sandbox: false });
    return session.execute({ command: args.command, timeoutMs: host.settings.executeTimeoutMs, maxLines: budget.maxLines, background: true });
  };
  const pass = await host.gate.passNew(request, budget.timeoutMs, ctx.mcpReq.signal, later);
  if (pass.outcome === 'awaiting') {
    // 2026-07-28: the link in this call's result; the retry (the same call) waits on the same approval.
    const told = round.told(pass.approval);
    if (told) return told;
    const waiting = awaitingApproval(pass.approval, place.cwd, Date.now() - budget.startedAt, deps.showId);
    return success(waiting, renderAwaitingApproval(waiting, pass.approval, args), warnings);
  }
  const result =
    pass.outcome === 'started' ? (pass.result as ExecuteResult) : await start(Math.max(1, budget.timeoutMs - (Date.now() - budget.startedAt)), args.background);
  return executed(deps, result, warnings);
}

/** A command's result, its session shown as this connection shows ids (ToolDeps.showId). */
function executed(deps: ToolDeps, result: ExecuteResult, warnings: string[]): ReturnType<typeof success> {
  const shown = { ...result, session: deps.showId(result.session) };
  return success(shown, renderExecute(shown), warnings);
}

/**
 * The retry of an `execute` that returned `input_required` with the approval's link (2026-07-28):
 * through the same approval (a denial is COMMAND_DENIED), then the result the allowed command
 * gave; still pending at the timeout, the usual `awaiting_approval`. The elicitation's answer the
 * retry carries is never read: only the person's channels answer.
 */
async function retryExecute(
  deps: ToolDeps,
  ctx: ServerContext,
  retry: DeferredCall,
  timeoutMs: number,
  warnings: string[],
): Promise<ReturnType<typeof success>> {
  const { host } = deps;
  const session = retry.session!;
  const startedAt = Date.now();
  const through = await host.gate!.waitThrough(session, timeoutMs, ctx.mcpReq.signal);
  if (through.pending) {
    const waiting = awaitingApproval(through.pending, host.manager.get(session).cwd, Date.now() - startedAt, deps.showId);
    return success(waiting, renderAwaitingApproval(waiting, shownApproval(through.pending, deps.showId)), warnings);
  }
  const typed = retry.typed.result;
  if (!typed)
    throw new SwitchboardError(ErrorCode.CommandDenied, `Nothing was typed: approval ${retry.approval} ended without running the command.`, {
      approval: retry.approval,
    });
  return executed(deps, (await typed) as ExecuteResult, warnings);
}

/**
 * `session` names the session; otherwise this client's idle shell for `cwd` (any cwd when
 * omitted) or a new one there. `cwd` only chooses or places a session: with an explicit
 * session it is refused rather than silently ignored or turned into a hidden `cd`, so the
 * command line the person sees in the tab is exactly the agent's.
 */
async function chooseSession(
  deps: ToolDeps,
  ctx: ServerContext,
  args: { command: string; session?: string; cwd?: string; sandbox?: boolean },
): Promise<{ session: TerminalSession; release: () => void } | { key: string; cwd: string } | { started: ExecuteResult }> {
  const { manager } = deps.host;
  const outside = args.sandbox === false;
  if (args.session !== undefined) {
    if (args.cwd !== undefined) {
      throw new SwitchboardError(
        ErrorCode.InvalidArgument,
        `cwd only applies when execute picks or opens the session; with session "${args.session}", start the command with cd ${args.cwd} && …, or omit session.`,
        { parameter: 'cwd', value: args.cwd },
      );
    }
    const session = manager.get(args.session);
    if (outside && !session.unsandboxed) {
      throw new SwitchboardError(
        ErrorCode.InvalidArgument,
        `sandbox: false runs a command in a shell outside the sandbox, and session ${deps.showId(session.id)} runs inside it; omit session to have one opened outside the sandbox (once the person allows it), or leave sandbox out to run it here.`,
        { parameter: 'sandbox', value: false },
      );
    }
    assertNotReserved(deps.host, session.id, deps.showId);
    return { session, release: () => undefined };
  }
  const client = deps.clientName(ctx);
  const reserved = (id: string) => deps.host.gate?.pending(id) !== undefined;
  const idle = manager.findIdleShell(client, args.cwd, reserved, !outside);
  if (idle) return { session: idle, release: idle.claim() };
  if (outside) {
    // Nothing outside the sandbox is spawned before the person's answer: the request is the key.
    const key = requestKey('execute', client, { command: args.command, cwd: args.cwd });
    // The same call again, after the person allowed it once the first had returned: what it started.
    const started = deps.host.gate?.takeStarted(key);
    if (started !== undefined) return { started: started as ExecuteResult };
    const { cwd } = manager.checkOpen({ creator: { kind: 'agent', client }, cwd: args.cwd, sandbox: false });
    return { key, cwd };
  }
  const session = await manager.open({ creator: { kind: 'agent', client }, cwd: args.cwd });
  // Claimed in the same turn it was picked: the policy check awaits before the command queues,
  // and calls sent together must still get a shell each.
  return { session, release: session.claim() };
}

/** `execute`'s answer while the person has not decided: nothing typed, no output, the approval named. */
interface AwaitingApprovalResult {
  status: 'awaiting_approval';
  exit_code: null;
  output: '';
  truncated: false;
  total_lines: 0;
  duration_ms: number;
  cwd: string | null;
  /** null: the command would open its own shell (sandbox: false), once allowed. */
  session: string | null;
  approval: { id: string; rule: { index: number; match: string } | null; reason: string; outside_sandbox?: true };
}

function awaitingApproval(approval: PendingApproval, cwd: string | null, durationMs: number, showId: (id: string) => string): AwaitingApprovalResult {
  return {
    status: 'awaiting_approval',
    exit_code: null,
    output: '',
    truncated: false,
    total_lines: 0,
    duration_ms: durationMs,
    cwd,
    session: approval.session === null ? null : showId(approval.session),
    approval: { id: approval.id, rule: approval.rule, reason: approval.reason, ...(approval.unsandboxed ? { outside_sandbox: true as const } : {}) },
  };
}

function renderAwaitingApproval(result: AwaitingApprovalResult, approval: PendingApproval, args?: Record<string, unknown>): Rendering {
  const note = approvalNote(approval, { tool: 'execute', args: args ?? {} });
  return { text: `(not run yet)\n[${note.text}]`, next: note.next };
}

function renderExecute(result: ExecuteResult): Rendering {
  const output = result.output.length > 0 ? result.output : '(no output)';
  const where = `session ${result.session}${result.cwd ? `, cwd ${result.cwd}` : ''}`;
  const took = formatDuration(result.duration_ms);
  switch (result.status) {
    case 'completed':
      return { text: `${output}\n[exit ${result.exit_code ?? 'unknown'}, ${took}, ${where}]` };
    case 'running': {
      const next = waitForCommand(result.session, result.command_seq);
      return { text: `${output}\n[still running after ${took} (${where}, seq ${result.command_seq}); ${next}]`, next };
    }
    case 'awaiting_input': {
      const answer = answerInput(result.session, result.input_kind);
      if (result.not_run) {
        // The session's earlier command is a program at its own prompt: this command was not typed.
        const next = `your command was not run: command ${result.command_seq} of session ${result.session} is ${describeInput(result.input_kind)}; ${answer}`;
        return { text: `${output}\n[${next}]`, next };
      }
      return { text: `${output}\n[${describeInput(result.input_kind)} after ${took} (${where}, seq ${result.command_seq}); ${answer}]`, next: answer };
    }
  }
}

function formatDuration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}
