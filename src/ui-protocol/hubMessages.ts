/** Messages from the hub to a UI (hub → client), validated by the page. */
import { z } from 'zod';
import { MAX_SCREENSHOT_BYTES } from './constants.js';
import { CLIENT_MESSAGE_TYPES } from './clientMessages.js';
import { req } from './fields.js';
import { UiCommandRecordSchema, UiHistoryEntrySchema, UiNewApprovalSchema, UiRemoteSchema, UiSessionSchema } from './sessionShapes.js';
import { HeldSettingsSchema, HubSettingSchema } from './settingShapes.js';

export const HubMessageSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('welcome'),
    protocol: z.number().int(),
    version: z.string(),
    flow: z.object({ ackEvery: z.number(), highWatermark: z.number(), lowWatermark: z.number() }),
  }),
  /** The full list: live sessions and the ones that ended while this hub ran (not yet closed). */
  z.object({ type: z.literal('sessions'), sessions: z.array(UiSessionSchema) }),
  z.object({ type: z.literal('sessionChanged'), session: UiSessionSchema }),
  /** Gone from the list (closed by the person, or removed by retention). */
  z.object({ type: z.literal('sessionRemoved'), id: z.string() }),
  /** Every approval of a request that would start a session (no session shows it), oldest first: the full list. */
  z.object({ type: z.literal('approvals'), approvals: z.array(UiNewApprovalSchema) }),
  /** The remote machines and whether each is connected (docs/design.md §4.7): the full list, after `sessions` and on each change. */
  z.object({ type: z.literal('remotes'), remotes: z.array(UiRemoteSchema) }),
  z.object({
    type: z.literal('snapshot'),
    session: z.string(),
    seq: z.number().int(),
    data: z.string(),
    cols: z.number().int(),
    rows: z.number().int(),
    through: z.number(),
  }),
  /** `data`: UTF-8, whole characters (see above). */
  z.object({
    type: z.literal('frame'),
    session: z.string(),
    seq: z.number().int(),
    end: z.number(),
    data: z.custom<Uint8Array>((value) => value instanceof Uint8Array, 'Expected bytes (a Uint8Array)'),
  }),
  /** This viewer fell behind: frames stop until it acks; a fresh snapshot follows. */
  z.object({ type: z.literal('behind'), session: z.string() }),
  z.object({ type: z.literal('commands'), session: z.string(), records: z.array(UiCommandRecordSchema) }),
  z.object({ type: z.literal('command'), session: z.string(), record: UiCommandRecordSchema }),
  /**
   * The hub's settings (answer to getSettings and setSettings). `problem`: settings.json cannot
   * be read now (edited by hand since the hub started): nothing can be saved until it is fixed.
   */
  z.object({
    type: z.literal('hubSettings'),
    file: z.string(),
    settings: z.array(HubSettingSchema),
    problem: z.string().optional(),
    /** When the token was made (epoch ms). */
    tokenWrittenAt: z.number().optional(),
    req,
  }),
  /** What of settings.json waits for the person, or null: after `sessions`, and whenever it changes. */
  z.object({ type: z.literal('heldSettings'), held: HeldSettingsSchema.nullable() }),
  /**
   * The token and the person's UI key were replaced (rotateToken, or the token's age). `key`:
   * the new UI key, only to a page signed in with the UI cookie (a browser over /ws), so it can
   * renew the cookie (`/?key=`).
   */
  z.object({ type: z.literal('tokenRotated'), key: z.string().optional() }),
  /** The answer to `screenshot`: the hub's PNG of the session's screen (`png`: base64), its size in pixels. */
  z.object({
    type: z.literal('screenshotTaken'),
    session: z.string(),
    png: z.string().max(Math.ceil(MAX_SCREENSHOT_BYTES / 3) * 4),
    width: z.number().int(),
    height: z.number().int(),
    req,
  }),
  /** Answer to searchHistory: newest first; `note` when the index is unavailable or catching up. */
  z.object({ type: z.literal('historyResults'), commands: z.array(UiHistoryEntrySchema), total: z.number(), note: z.string().optional(), req }),
  /** Answer to commandOutput: lines `offset`… of the command's output (plain text), of `total_lines`. */
  z.object({
    type: z.literal('commandOutputResult'),
    session: z.string(),
    seq: z.number(),
    text: z.string(),
    offset: z.number(),
    lines: z.number(),
    total_lines: z.number(),
    truncated: z.boolean(),
    /** The command's exit code (null while it runs or when unknown). */
    exit_code: z.number().nullable(),
    duration_ms: z.number().optional(),
    req,
  }),
  /** A request finished: `session` is the new one for openTerminal; `ended_by` for kill. */
  z.object({
    type: z.literal('done'),
    for: z.enum(CLIENT_MESSAGE_TYPES),
    session: z.string().optional(),
    req,
    ended_by: z.enum(['SIGINT', 'SIGTERM', 'SIGKILL']).nullable().optional(),
    /** stopClient: the sessions it closed. */
    sessions: z.array(z.string()).optional(),
  }),
  z.object({
    type: z.literal('error'),
    code: z.string(),
    message: z.string(),
    /** The client message type that failed, when known. */
    for: z.string().optional(),
    session: z.string().optional(),
    req,
  }),
]);
export type HubMessage = z.infer<typeof HubMessageSchema>;
export type HubMessageType = HubMessage['type'];
