/**
 * The UI protocol: typed messages between the hub and any UI (the browser page over the
 * WebSocket `/ws`, the Electron window over IPC through the preload). Shared by both sides;
 * zod and web APIs only, so the renderer can import it (docs/design.md §1.1). Every message is
 * validated on receipt, on both sides; an invalid or unknown message gets an `error` back and is
 * otherwise ignored.
 *
 * This file is the protocol's one entry: the other layers import it, never the files behind it
 * (constants.ts: version, flow control, limits, error codes; sessionShapes.ts and
 * settingShapes.ts: what the UI is told; clientMessages.ts and hubMessages.ts: the two
 * directions; appCommands.ts: the Electron app's main process and its page only; frameCodec.ts;
 * parse.ts; bridge.ts: what the renderer talks to).
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
 *                                              hub → remotes {remotes} after `sessions`, and whenever one
 *                                              connects, drops or changes: the other machines this hub
 *                                              links to (docs/design.md §4.7) and why one is down
 *
 * Other machines (docs/design.md §4.7): a remote's sessions are in `sessions` like this machine's,
 * with `host` naming the remote and ids `<remote>:<id>` (`devbox:k3f9q2`), and every message above
 * works on them by that id (approvals too: `<remote>:<approval id>`); the hub carries it over the
 * link. While a remote is down its sessions stay listed as they last were (`remotes` says it is
 * down and why), and what is asked of them gets error REMOTE_UNAVAILABLE; once it is back, a view
 * subscribed to one gets a fresh snapshot by itself.
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
export {
  FLOW_ACK_EVERY,
  FLOW_HIGH_WATERMARK,
  FLOW_LOW_WATERMARK,
  FRAME_BATCH_MS,
  MAX_COMMAND_OUTPUT_LINES,
  MAX_INPUT_CHARS,
  MAX_SCREENSHOT_BYTES,
  MAX_SETTING_CHANGES,
  UI_PROTOCOL_VERSION,
  UiErrorCode,
} from './constants.js';
export {
  APPROVAL_ANSWERS,
  CreatorSchema,
  SessionStateSchema,
  UiApprovalSchema,
  UiCommandRecordSchema,
  UiHistoryEntrySchema,
  UiNewApprovalSchema,
  UiRemoteSchema,
  UiSessionSchema,
  type ApprovalAnswer,
  type UiApproval,
  type UiCommandRecord,
  type UiHistoryEntry,
  type UiNewApproval,
  type UiRemote,
  type UiSession,
} from './sessionShapes.js';
export { HeldSettingsSchema, HubSettingSchema, type HeldSettings, type HubSetting } from './settingShapes.js';
export { CLIENT_MESSAGE_TYPES, ClientMessageSchema, type ClientMessage, type ClientMessageType } from './clientMessages.js';
export { HubMessageSchema, type HubMessage, type HubMessageType } from './hubMessages.js';
export { AppCommandSchema, NotificationSettingsPatchSchema, NotificationSettingsSchema, type AppCommand, type NotificationSettings } from './appCommands.js';
export { decodeFrame, encodeFrame } from './frameCodec.js';
export { parseClientMessage, parseHubMessage, type Parsed } from './parse.js';
export type { Bridge } from './bridge.js';
export { APPROVAL_PAGE_PATH, ApprovalPageAnswerSchema, ApprovalPageStateSchema, type ApprovalPageAnswer, type ApprovalPageState } from './approvalPage.js';
