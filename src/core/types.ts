/**
 * The session model shared by the core, the MCP tools and (later) the UI protocol.
 * Keys are snake_case where they travel to agents unchanged (docs/design.md §3.1).
 */

export type Creator = { kind: 'agent'; client: string } | { kind: 'user' };
export type Controller = 'agent' | 'user';
export type SessionState = 'idle' | 'running' | 'awaiting_input' | 'exited';
export type ShellKind = 'bash' | 'zsh' | 'fish' | 'sh';
/**
 * What a job waiting on the terminal wants (docs/design.md §2.6): a line (`send` text + enter),
 * a secret (the person types it), or keys for a full-screen program (`send` keys, `read` the screen).
 */
export type InputKind = 'line' | 'secret' | 'screen';
/** How a command's completion was detected. */
/** How a command's end was found (docs/design.md §2.5): its marks, or the shell seen back at its prompt. */
export type Detection = 'shell_integration' | 'command_wrapper' | 'prompt_fallback';

/**
 * What reads a session's terminal next (`TerminalSession.foreground()`; docs/design.md §2.9): a
 * shell reading command lines (the session's own, one started in it, one behind a terminal relay),
 * another program, or unknown (the process table could not be read).
 */
export interface ForegroundProgram {
  kind: 'shell' | 'program' | 'unknown';
  /** The basename of its executable. */
  name: string | null;
  pid: number | null;
  /** Its working directory (Linux), where the shell really is: the marks' OSC 7 is the shell's word only. */
  cwd: string | null;
  /** A program: it waits on the terminal now; false: what is typed waits in the terminal for whatever reads next. */
  reading?: boolean;
}

export interface SessionInfo {
  id: string;
  name: string | null;
  creator: Creator;
  controller: Controller;
  state: SessionState;
  cwd: string | null;
  /** The running command, if any, and how long it has run. */
  command: string | null;
  running_ms: number | null;
  last_exit_code: number | null;
  /** Exit code of the session's process once `state` is `exited`. */
  exit_code: number | null;
  rows: number;
  cols: number;
  pid: number;
  program: string;
  title: string;
  created_at: string;
  closed_at?: string;
  /** With state `awaiting_input`: what kind of input it wants. */
  input_kind?: InputKind;
  /** Whether its processes run in the agent sandbox (docs/design.md §2.10); absent in sessions recorded before it existed. */
  sandbox?: SessionSandbox;
}

/**
 * A session's sandbox as `list`, the results and the window show it (docs/design.md §2.10). The
 * hub decides and words it; the core carries it with the session.
 */
export interface SessionSandbox {
  /** The session's program runs inside the OS sandbox. */
  on: boolean;
  /**
   * Why not, with `on: false`: `person` (the person's own session), `allowed` (the person let this
   * one run outside, `sandbox: false`), `unavailable` (no sandbox can start here: `summary` says
   * why and the command that fixes it).
   */
  off?: 'person' | 'allowed' | 'unavailable';
  /** What it may write (with `on`): `project`, `read-only` or `off` (anywhere but the denied paths). */
  filesystem?: 'project' | 'read-only' | 'off';
  /** With filesystem `project`: the folder it may write; null when opened at / or in the home folder. */
  project?: string | null;
  /** `on`, `off`, or the domains it may reach. */
  network?: 'on' | 'off' | string[];
  /** One sentence for people and agents: what holds it, or why there is none and how to get one. */
  summary: string;
}

/** One command as the tracker saw it (also a line of commands.jsonl). */
export interface CommandRecord {
  seq: number;
  command: string;
  cwd: string | null;
  started_at: number;
  ended_at: number | null;
  exit_code: number | null;
  /** Transcript byte offsets of the output (start at C, end at D; chunk-granular). */
  output_start_byte: number;
  output_end_byte: number | null;
  /** Logical output lines (line feeds, plus a final unterminated line). */
  total_lines: number;
  /**
   * The first lines of the output as the screen showed them (bounded: OUTPUT_HEAD_LINES of at
   * most OUTPUT_HEAD_CHARS each), for the history index (docs/design.md §2.7); absent in records
   * written before it existed.
   */
  output_head?: string;
}

export interface ExecuteOptions {
  command: string;
  timeoutMs: number;
  maxLines: number;
  /** Return after a short start-up window with the first output. */
  background?: boolean;
  signal?: AbortSignal;
}

export type ExecuteStatus = 'completed' | 'running' | 'awaiting_input';

export interface ExecuteResult {
  status: ExecuteStatus;
  exit_code: number | null;
  output: string;
  truncated: boolean;
  total_lines: number;
  duration_ms: number;
  cwd: string | null;
  session: string;
  command_seq: number;
  detection: Detection;
  /** With `awaiting_input`: what kind of input it wants. */
  input_kind?: InputKind;
  /** With `awaiting_input`: the prompt has echo off (a password); the person must answer. */
  secret?: boolean;
  /**
   * The command was not typed: the session's earlier command (`command_seq`) is a program waiting
   * for input at its own prompt (a REPL, a nested shell), which `send` answers.
   */
  not_run?: boolean;
}

export interface KillResult {
  ended_by: 'SIGINT' | 'SIGTERM' | 'SIGKILL' | null;
  state: SessionState;
}

/** `wait` of `send` and `read` (docs/design.md §3.3): whichever comes first, bounded by `timeout_ms`. */
export interface WaitSpec {
  exit?: boolean;
  pattern?: string;
  /** Until this regex is no longer on the screen (a spinner gone). */
  absent?: string;
  idle_ms?: number;
  timeout_ms?: number;
}

/** How a wait ended; `timeout` is an honest answer, not an error. */
export type WaitOutcome = 'exit' | 'pattern' | 'absent' | 'idle' | 'timeout' | 'awaiting_input' | 'cancelled';

/** A terminal's size in character cells. */
export interface TerminalSize {
  rows: number;
  cols: number;
}

/** The latest resize an agent made, shown to the person (docs/design.md §5.2). */
export interface AgentResize extends TerminalSize {
  /** The agent's client name. */
  client: string;
  /** ISO 8601. */
  at: string;
}

export interface SendRequest {
  /** Who reads: `new` output is tracked per client. */
  clientId: string;
  text?: string;
  /** Key names: enter, tab, escape, up, f5, ctrl+c, alt+b, shift+tab, … */
  keys?: string[];
  /** Bracketed paste; default: on for multi-line text when the program enabled it. */
  paste?: boolean;
  /** Resized first (docs/design.md §3.3): the program gets SIGWINCH. */
  resize?: TerminalSize;
  /** The caller's client name, told to the person with a resize. */
  clientName?: string;
  /** A mouse action, sent after text and keys (docs/design.md §3.3). */
  mouse?: MouseRequest;
  wait?: WaitSpec;
  signal?: AbortSignal;
}

/** `send`'s `mouse` (docs/design.md §3.3): rows and columns count from 1. */
export interface MouseRequest {
  action: 'click' | 'double_click' | 'drag' | 'scroll';
  row: number;
  col: number;
  /** Where a drag ends. */
  to_row?: number;
  to_col?: number;
  /** Default left. */
  button?: 'left' | 'middle' | 'right';
  /** Wheel steps of a scroll (default 1); negative scrolls up. */
  amount?: number;
  modifiers?: ('ctrl' | 'alt' | 'shift')[];
}

export interface SendResult {
  /** What appeared since the send, as the screen renders it. */
  output: string;
  screen: string;
  state: SessionState;
  exit_code: number | null;
  waited: WaitOutcome | null;
  secret?: boolean;
  input_kind?: InputKind;
}

export type ReadView = 'new' | 'screen' | 'history' | 'command';
export type ReadFormat = 'plain' | 'ansi' | 'styled';

/** A colour: a palette index (0–15 the theme's, 16–255 xterm's cube and greys) or true colour `#rrggbb`. */
export type StyledColor = number | string;

/**
 * Cells of one style in a row (`read` format `styled`, docs/design.md §3.2): only the attributes
 * that are set are present. `wide`: each character takes two cells (CJK, most emoji).
 */
export interface StyledRun {
  text: string;
  fg?: StyledColor;
  bg?: StyledColor;
  bold?: true;
  dim?: true;
  italic?: true;
  underline?: true;
  inverse?: true;
  wide?: true;
}

export type StyledRow = StyledRun[];

/** `content` of a `read` in format `styled`: rows of runs, trailing default blanks left out. */
export interface StyledContent {
  rows: StyledRow[];
}

/** The visible screen as runs, with what a picture of it needs besides (the screenshot). */
export interface StyledScreen extends StyledContent {
  cols: number;
  /** Screen rows: `rows.length`. */
  height: number;
  /** 0-based; `visible` false while the program hid it (DECTCEM). */
  cursor: { row: number; col: number; visible: boolean };
}

export interface ReadRequest {
  clientId: string;
  view: ReadView;
  format: ReadFormat;
  /** `command` view: which command (default: the last). */
  seq?: number;
  /** `history`: lines back from the end; `command`: lines from the command's first line. */
  offset?: number;
  limit?: number;
  wait?: WaitSpec;
  signal?: AbortSignal;
}

export interface ReadResult {
  /** Text, or with format `styled` the rows of runs. */
  content: string | StyledContent;
  lines: number;
  total_lines: number;
  truncated: boolean;
  cursor?: { row: number; col: number };
  state: SessionState;
  /** View `command`: that command's exit code (null while it runs); otherwise the program's. */
  exit_code: number | null;
  /** View `command`, once the command finished: how long it ran (its C mark to its D mark). */
  duration_ms?: number;
  waited: WaitOutcome | null;
  seq?: number;
  secret?: boolean;
  input_kind?: InputKind;
}

/**
 * A `history` search (docs/design.md §2.7, §3.2), its inputs already checked and normalized by
 * the tool: every given filter must hold.
 */
export interface HistoryQuery {
  /** Words of the command line; each must start a word of it (punctuation-only words match as text). */
  text?: string;
  /** An absolute folder: commands run in it or below. */
  cwd?: string;
  /** A session id or name. */
  session?: string;
  status: 'failed' | 'succeeded' | 'any';
  /** An agent client's name (its version optional), or `person`. */
  client?: string;
  /** Epoch ms: commands started at or after it. */
  since?: number;
  limit: number;
}

/** One finished command as the history index holds it. */
export interface HistoryEntry {
  session: string;
  seq: number;
  command: string;
  cwd: string | null;
  exit_code: number | null;
  /** ISO 8601. */
  started_at: string;
  duration_ms: number | null;
  /** The agent client that opened the session (`"<name> <version>"`), or `person`. */
  creator: string;
  /** The first lines of its output (bounded); the whole of it is `read` view `command`. */
  output_head: string;
}

/** A `history` answer: the newest matches first, how many match in all, and why it may be partial. */
export interface HistoryPage {
  commands: HistoryEntry[];
  total: number;
  /** Set when the index is unavailable or still catching up, saying why. */
  note?: string;
}

/**
 * What a read-only view of a session (the terminal app, docs/design.md §3.8) needs to catch up
 * from the output offset and the count of resizes an earlier answer gave: nothing, the output
 * since (escape sequences included), or the screen to draw anew. `through` and `resizes` are
 * what to ask from next.
 */
export type ScreenUpdate =
  | { kind: 'unchanged'; through: number; resizes: number }
  | { kind: 'output'; through: number; resizes: number; data: string }
  | { kind: 'screen'; through: number; resizes: number; data: string; cols: number; rows: number };
