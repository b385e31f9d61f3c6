/** `send` (docs/design.md §3.2): type text and keys into a session, then wait for what it answers. */
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { ErrorCode, SwitchboardError, type InputKind, type SendResult, type TerminalSession } from '../../core/index.js';
import { approvalNote, assertNotReserved, shownApproval } from '../approvals.js';
import { approvalRound } from '../approvalElicitation.js';
import { startProgress } from '../progress.js';
import { compactOutputSchema, lenientInputSchema, parseInput, SESSION_ALIASES, WAIT_ALIASES, waitSchema, type InputSpec } from '../schemas.js';
import type { GatePass, PendingApproval, ToolAuditEvent, ToolDeps } from '../toolHost.js';
import { answerInput, describeInput } from '../nextStep.js';
import { MOUSE_ALIASES, mouseSchema, normalizeMouse } from '../mouseSchema.js';
import { sandboxNotes } from '../sandboxNotes.js';
import { errorResult, success, type Rendering } from '../toolResult.js';
import { RUNS } from '../annotations.js';

const schema = z.object({
  session: z.string().min(1).describe('Session id or name.'),
  text: z.string().optional().describe('Typed as is; Enter is a key.'),
  keys: z
    .array(z.string().min(1))
    .optional()
    .describe('Pressed after text: enter, tab, escape, backspace, up, pageup, f1…f12, ctrl+c, alt+b, shift+tab. Send escape in its own call.'),
  paste: z.boolean().optional().describe('Bracketed paste (default: for multi-line text).'),
  resize: z
    .object({ rows: z.number().int().min(2).max(500), cols: z.number().int().min(10).max(1_000) })
    .optional()
    .describe('Resize first.'),
  mouse: mouseSchema,
  wait: waitSchema.describe('Then wait (default: until output settles, ≤3 s).'),
});

export const sendSpec: InputSpec<typeof schema.shape> = {
  schema,
  aliases: {
    ...SESSION_ALIASES,
    input: 'text',
    data: 'text',
    string: 'text',
    chars: 'text',
    key: 'keys',
    keystrokes: 'keys',
    bracketed_paste: 'paste',
    wait_for: 'wait',
    until: 'wait',
    size: 'resize',
    resize_to: 'resize',
  },
  normalize: { resize: sizeFromText, mouse: normalizeMouse },
  nested: {
    wait: { aliases: WAIT_ALIASES },
    resize: { aliases: { height: 'rows', lines: 'rows', width: 'cols', columns: 'cols' } },
    mouse: { aliases: MOUSE_ALIASES },
  },
};

/** `"120x40"` (cols × rows, as terminals name sizes) → `{ cols: 120, rows: 40 }`; anything else as given. */
function sizeFromText(value: unknown): unknown {
  const match = typeof value === 'string' ? /^\s*(\d+)\s*[x×*]\s*(\d+)\s*$/i.exec(value) : null;
  return match ? { cols: Number(match[1]), rows: Number(match[2]) } : value;
}

// Every SendResult key is sent (waited, secret, input_kind too); the advertised schema names the main ones.
const outputSchema = z.looseObject({
  output: z.string(),
  screen: z.string(),
  state: z.string(),
  exit_code: z.number().nullable(),
});

const DESCRIPTION =
  'Type or click into a session (answer a prompt, drive python3 or vim) and return what appeared. ' +
  'Use wait to return on a regex, on exit or after quiet output.';

export function registerSend(server: McpServer, deps: ToolDeps): RegisteredTool {
  const { host } = deps;
  return server.registerTool(
    'send',
    {
      title: 'Send keys',
      description: DESCRIPTION,
      inputSchema: lenientInputSchema(schema),
      outputSchema: compactOutputSchema(outputSchema),
      annotations: RUNS,
    },
    async (raw, ctx) => {
      const input = parseInput(sendSpec, raw);
      if (!input.ok) return errorResult(input.error, host.logger, 'send', input.warnings);
      const { session: ref, ...request } = input.value;
      const progress = request.wait ? startProgress(ctx, host, 'waiting') : undefined;
      try {
        const session = host.manager.get(ref);
        progress?.watch(session);
        const typed = { ...request, clientId: deps.clientId(ctx), clientName: deps.clientName(ctx) };
        let pass: GatePass | undefined;
        const round = approvalRound(deps, ctx, 'send');
        const warnings = (): string[] => [...input.warnings, ...sandboxNotes(session, 'send', deps.showId)];
        if (host.gate && round.retry?.session === session.id) {
          // A 2026-07-28 retry after the link went out: through the same approval, then what typing it gave.
          const through = await host.gate.waitThrough(session.id, request.wait?.timeout_ms ?? host.settings.executeTimeoutMs, ctx.mcpReq.signal);
          if (through.pending) return awaitingSend(session, through.pending, warnings(), deps.showId);
          const typing = round.retry.typed.result;
          if (!typing)
            throw new SwitchboardError(ErrorCode.CommandDenied, `Nothing was typed: approval ${round.retry.approval} ended without typing it.`, {
              approval: round.retry.approval,
            });
          const result = (await typing) as SendResult;
          return success(result, renderSend(deps.showId(session.id), result), warnings());
        }
        if (host.gate) {
          assertNotReserved(host, session.id, deps.showId);
          // Judged by the bytes it writes and what reads them, not by key names (docs/design.md §2.9).
          const { bytes, bracketedPaste } = session.typedBytes(request);
          if (bytes !== '') {
            const gated = { session, tool: 'send' as const, bytes, bracketedPaste, client: typed.clientName, clientName: deps.clientApp(ctx), ...round.gate };
            const later = round.later(() => session.send({ ...typed, wait: undefined }));
            pass = await host.gate.pass(gated, request.wait?.timeout_ms ?? host.settings.executeTimeoutMs, ctx.mcpReq.signal, later);
            if (pass.outcome === 'awaiting') return round.told(pass.approval) ?? awaitingSend(session, pass.approval, warnings(), deps.showId);
          }
        }
        const sending = session.send({ ...typed, signal: ctx.mcpReq.signal });
        if (pass?.outcome === 'allowed') pass.ran(sending);
        const result = await sending;
        return success(result, renderSend(deps.showId(session.id), result), warnings());
      } catch (error) {
        return errorResult(error, host.logger, 'send', input.warnings);
      } finally {
        progress?.dispose();
      }
    },
  );
}

/** `send`'s answer while the person has not decided: nothing typed, the approval named. */
function awaitingSend(session: TerminalSession, approval: PendingApproval, warnings: string[], showId: (id: string) => string): ReturnType<typeof success> {
  const note = approvalNote(shownApproval(approval, showId));
  const waiting = {
    output: '',
    screen: '',
    state: session.state,
    exit_code: null,
    waited: 'awaiting_approval',
    approval: { id: approval.id, rule: approval.rule, reason: approval.reason },
  };
  return success(waiting, { text: `(not typed yet)\n[session ${showId(session.id)}, ${note.text}]`, next: note.next }, warnings);
}

/** For the audit log: bytes of text typed (never the text), how many keys, the size asked for, the mouse action (never where). */
export function sendAuditFacts(raw: unknown): Pick<ToolAuditEvent, 'bytes' | 'keys' | 'resize' | 'mouse'> | undefined {
  const input = parseInput(sendSpec, raw);
  if (!input.ok) return undefined;
  const { text, keys, resize, mouse } = input.value;
  return { bytes: Buffer.byteLength(text ?? '', 'utf8'), keys: keys?.length ?? 0, ...(resize ? { resize } : {}), ...(mouse ? { mouse: mouse.action } : {}) };
}

export function renderSend(id: string, result: SendResult): Rendering {
  const body = result.output.length > 0 ? result.output : result.screen.length > 0 ? `(no new output; screen:)\n${result.screen}` : '(no output)';
  const state = renderState(id, result);
  return { text: `${body}\n[${state.text}]`, next: state.next };
}

/**
 * The footer `send` and `read` share: state, exit code, how the wait ended, and what to do
 * when the program waits for the keyboard.
 */
export function renderState(id: string, r: { state: string; exit_code?: number | null; waited: string | null; input_kind?: InputKind }): Rendering {
  // exit_code undefined: the session's own is not known here (read view command carries the command's).
  const exited = r.exit_code === undefined ? 'exited' : `exited with code ${r.exit_code ?? 'unknown'}`;
  const parts = [`session ${id}`, r.state === 'exited' ? exited : r.state];
  if (r.waited === 'timeout') parts.push('wait timed out (not an error)');
  else if (r.waited === 'cancelled') parts.push('wait cancelled');
  else if (r.waited) parts.push(`waited until ${r.waited}`);
  if (r.state !== 'awaiting_input') return { text: parts.join(', ') };
  const next = answerInput(id, r.input_kind);
  parts.push(describeInput(r.input_kind), next);
  return { text: parts.join(', '), next };
}
