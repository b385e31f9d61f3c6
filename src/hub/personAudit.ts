/** The audit log of the state dir (docs/design.md §4.6): one JSON line per tool call and person action. */
export const AUDIT_FILE = 'audit.jsonl';

/** What the person did in the UI. Typing is a byte count, never the bytes (docs/design.md §4.6). */
export type PersonActionName = 'take_over' | 'hand_back' | 'interrupt' | 'kill' | 'close' | 'open_terminal' | 'input' | 'change_settings' | 'rotate_token' | 'stop_client' | 'answer_approval' | 'screenshot' | 'rerun';

/**
 * One person action; `AuditLog.personSink()` (audit.ts) writes it as
 * `{ time, actor: 'person', action, session?, bytes?, settings?, client?, sessions?, from? }`.
 */
export interface PersonAction {
  action: PersonActionName;
  /** Every action but `change_settings`, `rotate_token` and `stop_client` is on a session. */
  session?: string;
  /** `input`: how many bytes (UTF-8) were typed. */
  bytes?: number;
  /** `change_settings`: the names of the settings changed (not their values). */
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
