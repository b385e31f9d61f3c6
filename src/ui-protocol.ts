/**
 * The UI protocol: typed messages between the hub and any UI (the browser page over the
 * WebSocket `/ws`, the Electron window over IPC through the preload). Shared by both sides;
 * zod and web APIs only, so the renderer can import it (docs/design.md §1.1). Every message is
 * validated on receipt, on both sides; an invalid or unknown message gets an `error` back and is
 * otherwise ignored.
 *
 * Encoding: JSON, except a `frame` on the WebSocket, which is one binary message
 * (`encodeFrame`): its header as JSON, then the output's bytes as they are. Over IPC a frame
 * is the message object itself, `data` a Uint8Array (structured clone).
 *
 * The conversation (client = the UI, hub = the `UiBridge`):
 *
 *   client → hello {protocol}                  hub → welcome {protocol, flow}, sessions {sessions}
 *                                              hub → sessionChanged {session} / sessionRemoved {id}
 *                                                    whenever a session is added, changes or goes
 *   client → subscribe {session}               hub → snapshot {session, seq, data, cols, rows, through}
 *                                              hub → commands {session, records}   (the timeline)
 *                                              hub → frame {session, seq, data, end} … (live, numbered)
 *                                              hub → command {session, record}   (each finished command)
 *   client → ack {session, bytes}              after writing frames to xterm (every ≥ flow.ackEvery bytes)
 *   client → unsubscribe {session}
 *   client → takeOver / handBack / interrupt / kill / close {session}
 *                                              hub → done {for, session, …} or error {code, message, for}
 *   client → input {session, data}             only while the person controls the session (take over
 *                                              first); otherwise error NOT_IN_CONTROL
 *   client → resize {session, cols, rows}      applied only while the person controls the session:
 *                                              watching never resizes an agent's PTY (the view scales or
 *                                              scrolls client-side); after take over the person's size
 *                                              wins, and hand back keeps it (no reply either way)
 *   client → stopClient {client}               closes every live session that agent client opened
 *                                              (docs/design.md §2.8); hub → done {for, sessions}
 *                                              hub → approvals {approvals} after `sessions`, and whenever
 *                                              it changes: requests waiting for the person that would
 *                                              start a session (an agent's `open`, an `execute` outside
 *                                              the sandbox), which no session shows yet
 *   client → answerApproval {id, answer, reason?}  the person's answer to a session's `approval`, or
 *                                              to one of `approvals` (allow_once | allow_30m | deny;
 *                                              docs/design.md §2.9); hub → done (with `session` for a
 *                                              session's), or error for an unknown or answered id
 *   client → openTerminal {cwd?, cols, rows}   hub → done {for: 'openTerminal', session} (the new id)
 *   client → getSettings                       hub → hubSettings {file, settings}   (the hub's settings)
 *   client → setSettings {changes}             hub → hubSettings … (to every UI), done {for: 'setSettings'};
 *                                              or error (nothing saved). `changes`: setting → value,
 *                                              null = back to its default. Saved to settings.json;
 *                                              each setting says when it applies (`applies`)
 *                                              Over a connection signed in with the token, a change
 *                                              that is not provably a tightening is saved but not in
 *                                              force: error HELD_FOR_PERSON, and heldSettings to all
 *   hub → heldSettings {held}                  (after `sessions`, and on each change) what of
 *                                              settings.json waits for the person, or null
 *   client → confirmSettings {id}              the person takes it: in force; discardSettings {id}:
 *   client → discardSettings {id}              settings.json gets back what is in force. hub → done,
 *                                              or error NOT_WAITING (no longer the change seen)
 *   client → rotateToken                       hub → tokenRotated {key?} (to every UI), done; the
 *                                              old token and UI key open nothing from then on
 *   client → screenshot {session, theme?}      hub → screenshotTaken {session, png, width, height} (the
 *                                              `screenshot` tool's PNG, base64, at most
 *                                              MAX_SCREENSHOT_BYTES), or error; one at a time per UI
 *   client → searchHistory {query?, cwd?, status?, client?, since?, session?, limit?}
 *                                              hub → historyResults {commands, total, note?} (every
 *                                              session's finished commands, newest first; docs/design.md §2.7)
 *   client → commandOutput {session, seq, offset?, limit?}
 *                                              hub → commandOutputResult {…, text, total_lines} (one
 *                                              command's output, any session, closed ones too; bounded)
 *   client → rerun {session, from: {session, seq}}
 *                                              types that command into `session` as the person (who must
 *                                              control it, and it must be idle); hub → done, audited
 *
 * Snapshots and frames. A snapshot is the session's screen + scrollback serialized by the hub's
 * emulator at the session's size; write it into a reset terminal of `cols`×`rows`, then apply
 * frames. A frame's `data` is the session's output as UTF-8 bytes, for xterm.js to decode
 * itself: whole characters only (a character the output cut in two goes out whole in the next
 * frame) and valid UTF-8 (bytes that are not become U+FFFD, as in the hub's emulator). `seq`
 * numbers the snapshot and the frames of one subscription: the frames after a snapshot with
 * seq n are n+1, n+2, … with no gaps; a frame whose seq is ≤ the latest snapshot's
 * seq is stale and must be dropped. `end` (frame) and `through` (snapshot) are transcript byte
 * offsets: a frame with end ≤ through is already in the snapshot (the hub never sends one).
 *
 * Flow control (VS Code style; the session is never slowed by a viewer): the client acks the
 * bytes (`data.length`) of the frames it has written to xterm, not the snapshot's. When a
 * viewer's unacked bytes pass `flow.highWatermark` (or its transport backs up), the hub stops
 * sending it frames and says `behind`; once its acks bring the unacked count down to
 * `flow.lowWatermark`, the hub sends a fresh snapshot instead of the backlog
 * (a new seq) and live frames follow. A viewer that stops reading altogether is disconnected.
 * A viewer that falls behind again and again (a flood it cannot draw) gets those snapshots at
 * most every couple of seconds while the output goes on, and at once when it stops. A client
 * may ack frames it does not draw (a hidden tab) and `subscribe` again when it needs the screen;
 * it must keep them while they are at most `flow.highWatermark` bytes since the latest
 * snapshot: when a session ends, the hub sends a last snapshot only to viewers that were sent
 * more than that since their latest one (an ended session cannot be subscribed to).
 *
 * Command records: `output_start_byte`/`output_end_byte` are transcript offsets of the
 * command's output; to scroll to a command, find the line where the frame containing
 * `output_start_byte` was written (frames carry `end`), or for commands older than the
 * snapshot use `start_line` when present (the line in the snapshot's buffer, 0 = its first
 * line; null when it has scrolled out).
 *
 * Who may do what: a connection over `/ws` signed in with the bearer token (what agents hold)
 * gets PERSON_ONLY for answerApproval, confirmSettings, discardSettings, takeOver, handBack,
 * input, openTerminal, rerun and rotateToken; the person's channels (the UI cookie, the Electron
 * window, the menu) may do all.
 *
 * `req` (optional, any client message) is echoed in `done` and `error` to pair replies.
 * `subscribe`, `unsubscribe`, `input`, `resize` and `ack` get no `done`, only an `error` on failure.
 */
import { z } from 'zod';

/** Bumped on any incompatible change (2: frames carry bytes, acks count bytes). */
export const UI_PROTOCOL_VERSION = 2;

/** Flow-control constants (bytes of frames). The hub tells the client in `welcome`. */
export const FLOW_ACK_EVERY = 5_000;
export const FLOW_HIGH_WATERMARK = 100_000;
export const FLOW_LOW_WATERMARK = 5_000;
/** Frames to one viewer are batched at most this long. */
export const FRAME_BATCH_MS = 16;
/** Input larger than this in one message is refused (paste in pieces). */
export const MAX_INPUT_CHARS = 1_000_000;
/** At most this many settings in one `setSettings`. */
export const MAX_SETTING_CHANGES = 64;
/** A screenshot's PNG larger than this is refused, not sent (it travels as base64 in JSON). */
export const MAX_SCREENSHOT_BYTES = 16 * 1024 * 1024;

/** Error codes of the protocol; the core's codes (SESSION_NOT_FOUND, …) pass through as is. */
export const UiErrorCode = {
  /** Not JSON, or not a valid message. */
  BadMessage: 'BAD_MESSAGE',
  /** Input/resize into a session the person does not control: take over first. */
  NotInControl: 'NOT_IN_CONTROL',
  /** `hello` was not the first message, or a protocol version the hub does not speak. */
  Protocol: 'PROTOCOL',
  /** `answerApproval` for an id that is not pending (unknown, answered or withdrawn). */
  UnknownApproval: 'UNKNOWN_APPROVAL',
  /** A screenshot is already being taken for this UI: wait for it. */
  Busy: 'BUSY',
  /** A screenshot over MAX_SCREENSHOT_BYTES. */
  TooLarge: 'TOO_LARGE',
  /** `confirmSettings`/`discardSettings` for a change that no longer waits (or no longer as it was seen). */
  NotWaiting: 'NOT_WAITING',
  /** `setSettings` over a connection signed in with the token: saved, but it waits for the person. */
  HeldForPerson: 'HELD_FOR_PERSON',
  /**
   * Only the person's channels may do this (answer an approval, type, take over, …): this
   * connection signed in with the bearer token, which agents hold (docs/design.md §2.9).
   */
  PersonOnly: 'PERSON_ONLY',
  Internal: 'INTERNAL',
} as const;

// ---- shared shapes -----------------------------------------------------------------------

/** The person's answers to an approval: this once, this client and rule for 30 minutes, or no. */
export const APPROVAL_ANSWERS = ['allow_once', 'allow_30m', 'deny'] as const;
export type ApprovalAnswer = (typeof APPROVAL_ANSWERS)[number];

const sessionRef = z.string().min(1).max(128);
const req = z.number().int().nonnegative().optional();
const dimension = (max: number): z.ZodNumber => z.number().int().min(1).max(max);
const cols = dimension(1000);
const rows = dimension(500);

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
export const UiNewApprovalSchema = UiApprovalSchema.extend({ tool: z.enum(['open', 'execute']) });
export type UiNewApproval = z.infer<typeof UiNewApprovalSchema>;

export const CreatorSchema = z.union([
  z.object({ kind: z.literal('agent'), client: z.string() }),
  z.object({ kind: z.literal('user') }),
]);

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
});
export type UiSession = z.infer<typeof UiSessionSchema>;

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
});
export type UiHistoryEntry = z.infer<typeof UiHistoryEntrySchema>;

/** Lines of one `commandOutput` answer at most (page with `offset`). */
export const MAX_COMMAND_OUTPUT_LINES = 5_000;

// ---- client → hub --------------------------------------------------------------------------

const onSession = <T extends string>(type: T) => z.object({ type: z.literal(type), session: sessionRef, req });

export const ClientMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('hello'), protocol: z.number().int(), req }),
  onSession('subscribe'),
  onSession('unsubscribe'),
  z.object({ type: z.literal('input'), session: sessionRef, data: z.string().min(1).max(MAX_INPUT_CHARS), req }),
  z.object({ type: z.literal('resize'), session: sessionRef, cols, rows, req }),
  onSession('takeOver'),
  onSession('handBack'),
  onSession('interrupt'),
  onSession('kill'),
  onSession('close'),
  z.object({ type: z.literal('stopClient'), client: z.string().min(1).max(256), req }),
  z.object({
    type: z.literal('answerApproval'),
    id: z.string().min(1).max(64),
    answer: z.enum(APPROVAL_ANSWERS),
    reason: z.string().max(1_000).optional(),
    req,
  }),
  z.object({ type: z.literal('openTerminal'), cwd: z.string().min(1).max(4096).optional(), cols, rows, req }),
  z.object({ type: z.literal('ack'), session: sessionRef, bytes: z.number().int().nonnegative(), req }),
  z.object({ type: z.literal('getSettings'), req }),
  z.object({ type: z.literal('confirmSettings'), id: z.string().min(1).max(64), req }),
  z.object({ type: z.literal('discardSettings'), id: z.string().min(1).max(64), req }),
  z.object({ type: z.literal('rotateToken'), req }),
  z.object({ type: z.literal('screenshot'), session: sessionRef, theme: z.enum(['dark', 'light']).optional(), req }),
  z.object({
    type: z.literal('searchHistory'),
    query: z.string().max(1_000).optional(),
    cwd: z.string().min(1).max(4096).optional(),
    status: z.enum(['failed', 'succeeded', 'any']).optional(),
    client: z.string().min(1).max(256).optional(),
    since: z.string().min(1).max(64).optional(),
    session: sessionRef.optional(),
    limit: z.number().int().min(1).max(200).optional(),
    req,
  }),
  z.object({ type: z.literal('commandOutput'), session: sessionRef, seq: z.number().int().min(1), offset: z.number().int().min(0).optional(), limit: z.number().int().min(1).max(MAX_COMMAND_OUTPUT_LINES).optional(), req }),
  z.object({ type: z.literal('rerun'), session: sessionRef, from: z.object({ session: sessionRef, seq: z.number().int().min(1) }), req }),
  z.object({
    type: z.literal('setSettings'),
    // Values are checked by the hub against its settings schema (src/hub/settings/settings.ts).
    changes: z.record(z.string().min(1).max(64), z.unknown()).refine((changes) => Object.keys(changes).length > 0 && Object.keys(changes).length <= MAX_SETTING_CHANGES, `Send 1 to ${MAX_SETTING_CHANGES} settings.`),
    req,
  }),
]);
export type ClientMessage = z.infer<typeof ClientMessageSchema>;
export type ClientMessageType = ClientMessage['type'];
export const CLIENT_MESSAGE_TYPES = [
  'hello',
  'subscribe',
  'unsubscribe',
  'input',
  'resize',
  'takeOver',
  'handBack',
  'interrupt',
  'kill',
  'close',
  'stopClient',
  'answerApproval',
  'openTerminal',
  'ack',
  'getSettings',
  'setSettings',
  'confirmSettings',
  'discardSettings',
  'rotateToken',
  'screenshot',
  'searchHistory',
  'commandOutput',
  'rerun',
] as const satisfies readonly ClientMessageType[];

/**
 * One of the hub's settings as the settings page shows it. Values are JSON: a boolean, a
 * number, a string or a list of strings (`kind`); `null` where an optional setting is unset
 * (`shell`: the person's login shell).
 */
export const HubSettingSchema = z.object({
  key: z.string(),
  /** The page's section (Sessions, Commands, Secrets, Transcripts, Endpoints). */
  group: z.string(),
  label: z.string(),
  hint: z.string().optional(),
  /**
   * `choice`: one of `options`; `rules`: the policy's rules, a list of `{ match, action, … }`
   * (docs/design.md §2.9); `sandbox`: the agents' sandbox, `{ filesystem, writable, denied,
   * network, required }` (§2.10).
   */
  kind: z.enum(['boolean', 'number', 'string', 'list', 'choice', 'rules', 'sandbox']),
  options: z.array(z.string()).optional(),
  /** What a number counts: ms, bytes, days, lines, … */
  unit: z.string().optional(),
  min: z.number().optional(),
  max: z.number().optional(),
  /** In force in this hub now. */
  value: z.unknown(),
  /** What settings.json and the environment give: differs from `value` until a restart where `applies` is `restart`. */
  saved: z.unknown(),
  default: z.unknown(),
  /** When a change takes effect: sessions opened after it, calls made after it, the hub's hourly checks (retention, the token's age), or the hub's next start. */
  applies: z.enum(['sessions', 'calls', 'hourly', 'restart']),
  /** settings.json sets it (null puts it back to the default). */
  inFile: z.boolean(),
  /** The environment variable that sets it: the page cannot change it while that is set. */
  env: z.string().optional(),
  /**
   * settings.json holds a change of it that waits for the person (`heldSettings`); `saved` is then
   * what is in force, so an edit on the page starts from that, not from the change that waits.
   */
  held: z.boolean().optional(),
  /**
   * Warnings about the saved value that do not refuse it, each naming the rule (from 0) it is
   * about: for the policy's rules, a deny rule an earlier allow or ask rule shadows.
   */
  warnings: z.array(z.object({ index: z.number(), message: z.string() })).optional(),
});
export type HubSetting = z.infer<typeof HubSettingSchema>;

/**
 * A change of settings.json that waits for the person (docs/design.md §5.5): it arrived by hand in
 * the file (`settings.json`) or over a `/ws` connection signed in with the token (`token`), and it
 * loosens the person's rules (or, from the token, is not provably a tightening), so the settings in
 * force stay until the person confirms it (`confirmSettings`) or discards it (`discardSettings`,
 * settings.json gets back what is in force). `id` names this state of the change.
 */
export const HeldSettingsSchema = z.object({
  id: z.string(),
  /** The settings that wait. */
  settings: z.array(z.string()),
  /** Each change, as the banner names it: "policy rule 0 `rm -rf *` deny → removed". */
  changes: z.array(z.object({ setting: z.string(), source: z.enum(['settings.json', 'token']), text: z.string(), loosens: z.boolean() })),
});
export type HeldSettings = z.infer<typeof HeldSettingsSchema>;

// ---- hub → client --------------------------------------------------------------------------

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
  z.object({ type: z.literal('frame'), session: z.string(), seq: z.number().int(), end: z.number(), data: z.custom<Uint8Array>((value) => value instanceof Uint8Array, 'Expected bytes (a Uint8Array)') }),
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

// ---- app → page (the Electron window only) ---------------------------------------------------

/**
 * What the person asked for outside the page (a tray item, a notification, a second launch),
 * handed to the Electron window's page by main: watch a session (its tab opens in front, or as
 * soon as the session is listed), or show the settings.
 */
export const AppCommandSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('watch'), session: sessionRef }),
  z.object({ type: z.literal('settings') }),
]);
export type AppCommand = z.infer<typeof AppCommandSchema>;

/**
 * The app's notification settings, which the Electron window's settings page shows and changes
 * (main keeps them in app-preferences.json beside the hub's settings.json; docs/design.md §5.3: off
 * by default).
 */
export const NotificationSettingsSchema = z.object({
  /** Notify when an agent's command fails, finishes after running long, or a session needs the person. */
  notifications: z.boolean(),
  /** "Long": agent commands running at least this long notify when they finish. */
  notifyAfterMs: z.number().int().min(1_000).max(86_400_000),
});
export type NotificationSettings = z.infer<typeof NotificationSettingsSchema>;
/** What the page may ask main to change: any of the above, nothing else. */
export const NotificationSettingsPatchSchema = NotificationSettingsSchema.partial().strict();

// ---- frames on the WebSocket -------------------------------------------------------------------

type FrameMessage = Extract<HubMessage, { type: 'frame' }>;

/** A frame as one binary WebSocket message: a 4-byte big-endian header length, the header (JSON), the data. */
export function encodeFrame(frame: FrameMessage): Uint8Array {
  const header = textEncoder.encode(JSON.stringify({ type: frame.type, session: frame.session, seq: frame.seq, end: frame.end }));
  const message = new Uint8Array(4 + header.length + frame.data.length);
  new DataView(message.buffer).setUint32(0, header.length);
  message.set(header, 4);
  message.set(frame.data, 4 + header.length);
  return message;
}

/** The message object of a binary WebSocket message (for `parseHubMessage`), or null when it is not one. */
export function decodeFrame(message: Uint8Array): unknown {
  if (message.length < 4) return null;
  const length = new DataView(message.buffer, message.byteOffset, message.byteLength).getUint32(0);
  if (length > message.length - 4) return null;
  try {
    const header: unknown = JSON.parse(textDecoder.decode(message.subarray(4, 4 + length)));
    if (!header || typeof header !== 'object' || Array.isArray(header)) return null;
    return { ...header, data: message.subarray(4 + length) };
  } catch {
    return null;
  }
}

const textEncoder = new TextEncoder();
const textDecoder = new TextDecoder();

// ---- parsing (both sides) -------------------------------------------------------------------

export type Parsed<T> = { ok: true; message: T } | { ok: false; error: Extract<HubMessage, { type: 'error' }> };

/** Parses one client message (a JSON string or an already-decoded value, e.g. over IPC). */
export function parseClientMessage(raw: unknown): Parsed<ClientMessage> {
  return parseWith(ClientMessageSchema, raw);
}

/** Parses one hub message (the renderer's side). */
export function parseHubMessage(raw: unknown): Parsed<HubMessage> {
  return parseWith(HubMessageSchema, raw);
}

function parseWith<T>(schema: z.ZodType<T>, raw: unknown): Parsed<T> {
  let value: unknown = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      return { ok: false, error: { type: 'error', code: UiErrorCode.BadMessage, message: 'Message is not JSON.' } };
    }
  }
  const result = schema.safeParse(value);
  if (result.success) return { ok: true, message: result.data };
  const head = value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  const issue = result.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  return {
    ok: false,
    error: {
      type: 'error',
      code: UiErrorCode.BadMessage,
      message: `Invalid message: ${where}${issue?.message ?? 'unknown shape'}`,
      ...(typeof head.type === 'string' ? { for: head.type.slice(0, 64) } : {}),
      ...(typeof head.session === 'string' ? { session: head.session.slice(0, 128) } : {}),
      ...(typeof head.req === 'number' && Number.isInteger(head.req) && head.req >= 0 ? { req: head.req } : {}),
    },
  };
}

/**
 * What the renderer talks to: the WebSocket in a browser, the preload's API in Electron.
 * `send` takes a client message; `onMessage` delivers validated hub messages.
 */
export interface Bridge {
  send(message: ClientMessage): void;
  onMessage(listener: (message: HubMessage) => void): () => void;
}
