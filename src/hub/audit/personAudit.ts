/** The audit log of the state dir (docs/design.md §4.6): one JSON line per tool call and person action. */
export const AUDIT_FILE = 'audit.jsonl';

/**
 * The way a UI action reached the hub (docs/design.md §2.9, "Who answers for the person"):
 * `window`, a browser page over `/ws` signed in with the UI cookie; `app`, the Electron window
 * over IPC; `menu`, the menu bar; or `token`, a `/ws` connection signed in with the bearer
 * token, which agents hold — not the person's, so it cannot answer an approval or confirm a
 * settings change. `remote`: the person's hub on another machine, over ssh and signed in with this
 * hub's UI key by `switchboard link` here (docs/design.md §4.7: it acts for the person only where
 * the person's own window or menu there asked). `link`: the approval page a URL elicitation's one-time link signed in
 * (ui/approvalPage.ts), which answers that one approval and nothing else.
 */
export type UiChannel = 'window' | 'app' | 'menu' | 'token' | 'link' | 'remote';

/** The person's own channels: only these answer for the person. */
export function isPersonChannel(channel: UiChannel): boolean {
  return channel !== 'token';
}

/** What the person did in the UI. Typing is a byte count, never the bytes (docs/design.md §4.6). */
type PersonActionName =
  | 'take_over'
  | 'hand_back'
  | 'interrupt'
  | 'kill'
  | 'close'
  | 'open_terminal'
  | 'input'
  | 'change_settings'
  | 'confirm_settings'
  | 'discard_settings'
  | 'rotate_token'
  | 'stop_client'
  | 'answer_approval'
  | 'screenshot'
  | 'rerun';

/**
 * One person action; `AuditLog.personSink()` (audit.ts) writes it as
 * `{ time, actor: 'person', action, channel?, via?, host?, session?, bytes?, settings?, client?, sessions?, from? }`.
 */
export interface PersonAction {
  action: PersonActionName;
  /** Which way it came (UiChannel); every action through a UI bridge has one. */
  channel?: UiChannel;
  /** Over a link (`link`, or `token` there): the machine it came from (docs/design.md §4.7). */
  via?: string;
  /** Done here on a remote's session (docs/design.md §4.7): which remote; `session` is then `<remote>:<id>`. */
  host?: string;
  /** Every action but `change_settings`, `rotate_token` and `stop_client` is on a session. */
  session?: string;
  /** `input`: how many bytes (UTF-8) were typed. */
  bytes?: number;
  /** `change_settings`, `confirm_settings`, `discard_settings`: the names of the settings (not their values). */
  settings?: string[];
  /** `stop_client`: the agent client whose sessions were closed, and which they were. */
  client?: string;
  sessions?: string[];
  /** `answer_approval`: which approval, the answer, and whether a reason was given (not its text: it may quote the command). */
  approval?: string;
  answer?: 'allow_once' | 'allow_30m' | 'deny';
  reason?: boolean;
  /** `rerun`: the command run again, by its session and number (never its text). */
  from?: { session: string; seq: number };
}

/** How the UI bridge records person actions (the bridge never sees the file). */
export type PersonAuditSink = (entry: PersonAction) => void;
