/** What the UI is told of sessions, their commands, the history and the approvals that wait for the person. */
import { z } from 'zod';

/** The person's answers to an approval: this once, this client and rule for 30 minutes, or no. */
export const APPROVAL_ANSWERS = ['allow_once', 'allow_30m', 'deny'] as const;
export type ApprovalAnswer = (typeof APPROVAL_ANSWERS)[number];

/**
 * A command an agent asked to run that waits for the person (docs/design.md §2.9): nothing is
 * typed or started until `answerApproval`. `rule`: the rule of the policy that asked (null: none
 * did — a line the engine could not judge, or one outside the sandbox under policyDefault — and it
 * cannot be allowed for 30 min); `client`: the agent's; `asked_at` ISO; `unsandboxed`: the agent
 * asked to run it outside the OS sandbox.
 */
export const UiApprovalSchema = z.object({
  id: z.string(),
  command: z.string(),
  cwd: z.string().nullable(),
  client: z.string(),
  rule: z.object({ index: z.number(), match: z.string() }).nullable(),
  reason: z.string(),
  asked_at: z.string(),
  unsandboxed: z.boolean().optional(),
});
export type UiApproval = z.infer<typeof UiApprovalSchema>;

/** An approval of a request that would start a session: `tool` says which (`open`, or `execute` opening its own shell). */
export const UiNewApprovalSchema = UiApprovalSchema.extend({ tool: z.enum(['open', 'execute']), host: z.string().optional() });
export type UiNewApproval = z.infer<typeof UiNewApprovalSchema>;

export const CreatorSchema = z.union([z.object({ kind: z.literal('agent'), client: z.string() }), z.object({ kind: z.literal('user') })]);

export const SessionStateSchema = z.enum(['idle', 'running', 'awaiting_input', 'exited']);

/** A session as the UI shows it (the core's SessionInfo, plus `secret`). */
export const UiSessionSchema = z.object({
  id: z.string(),
  name: z.string().nullable(),
  creator: CreatorSchema,
  controller: z.enum(['agent', 'user']),
  state: SessionStateSchema,
  cwd: z.string().nullable(),
  command: z.string().nullable(),
  running_ms: z.number().nullable(),
  last_exit_code: z.number().nullable(),
  exit_code: z.number().nullable(),
  rows: z.number(),
  cols: z.number(),
  pid: z.number(),
  program: z.string(),
  title: z.string(),
  created_at: z.string(),
  closed_at: z.string().optional(),
  /** With state `awaiting_input`: the prompt has echo off, the person must answer ("needs you"). */
  secret: z.boolean().optional(),
  /** With state `awaiting_input`: what it waits for — a line, a secret, or keys (docs/design.md §2.6). */
  input_kind: z.enum(['line', 'secret', 'screen']).optional(),
  /**
   * Its sandbox (docs/design.md §2.10): `on`, and what it may write and reach; or why it runs
   * outside (`off`: the person's own session, one the person allowed, or no sandbox here). The
   * session bar shows `summary`.
   */
  sandbox: z
    .object({
      on: z.boolean(),
      off: z.enum(['person', 'allowed', 'unavailable']).optional(),
      filesystem: z.enum(['project', 'read-only', 'off']).optional(),
      project: z.string().nullable().optional(),
      network: z.union([z.enum(['on', 'off']), z.array(z.string())]).optional(),
      summary: z.string(),
    })
    .optional(),
  /** An agent resized the session (`send` `resize`) and nobody has since: who, to what, when (ISO). */
  resized_by: z.object({ client: z.string(), cols: z.number(), rows: z.number(), at: z.string() }).optional(),
  /** A command an agent asked to type into this session waits for the person (UiApprovalSchema). */
  approval: UiApprovalSchema.optional(),
  /** The remote machine it runs on (docs/design.md §4.7); `id` is then `<host>:<id>`. Absent: this machine. */
  host: z.string().optional(),
});
export type UiSession = z.infer<typeof UiSessionSchema>;

/** A remote machine this hub links to over ssh (docs/design.md §4.7), as the window shows it. */
export const UiRemoteSchema = z.object({
  name: z.string(),
  destination: z.string(),
  state: z.enum(['connecting', 'connected', 'disconnected']),
  /** ISO 8601: since when in this state. */
  since: z.string(),
  /** Why it is not connected: a code and a sentence saying what to do (also while it connects again). */
  problem: z.object({ code: z.string(), message: z.string() }).optional(),
  /** The remote's Switchboard version, once connected. */
  version: z.string().optional(),
  /** While disconnected: when it tries again (ISO 8601). */
  retry_at: z.string().optional(),
});
export type UiRemote = z.infer<typeof UiRemoteSchema>;

export const UiCommandRecordSchema = z.object({
  seq: z.number(),
  command: z.string(),
  cwd: z.string().nullable(),
  /** Epoch milliseconds. */
  started_at: z.number(),
  ended_at: z.number().nullable(),
  exit_code: z.number().nullable(),
  output_start_byte: z.number(),
  output_end_byte: z.number().nullable(),
  total_lines: z.number(),
  /** Line of the output's start in the snapshot's buffer (0 = first), when known. */
  start_line: z.number().nullable().optional(),
});
export type UiCommandRecord = z.infer<typeof UiCommandRecordSchema>;

/** One command of the history database (docs/design.md §2.7), as `history` returns it. */
export const UiHistoryEntrySchema = z.object({
  session: z.string(),
  seq: z.number(),
  command: z.string(),
  cwd: z.string().nullable(),
  exit_code: z.number().nullable(),
  /** ISO 8601. */
  started_at: z.string(),
  duration_ms: z.number().nullable(),
  /** The agent client (`name version`) or `person`. */
  creator: z.string(),
  output_head: z.string(),
  /** The remote machine it ran on (`session` is then `<host>:<id>`); absent: this machine. */
  host: z.string().optional(),
});
export type UiHistoryEntry = z.infer<typeof UiHistoryEntrySchema>;
