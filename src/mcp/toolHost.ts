/**
 * What the tools are given: the slice of the hub they use, who calls, and the audit record of a
 * call. Apart from server.ts, which registers the tools, so the tools need not import it.
 */
import type { CallToolResult, ClientCapabilities, ServerContext } from '@modelcontextprotocol/server';
import type { Event, HistoryPage, HistoryQuery, SessionManager, StyledScreen, TerminalSession } from '../core/index.js';
import type { ScreenChangeWatches } from './screenChangeWatches.js';

/** One tool call as the audit log records it (docs/design.md §4.6): who, what, on which session, how it ended — never the arguments. */
export interface ToolAuditEvent {
  /** When the call started (ISO 8601). */
  time: string;
  /** `"<clientInfo.name> <version>"` of the caller. */
  client: string;
  tool: string;
  /** The session id (or the name the agent used when the call failed before resolving it), or null. */
  session: string | null;
  outcome: 'ok' | 'error' | 'cancelled';
  /** The error code when `outcome` is `error`. */
  code?: string;
  duration_ms: number;
  /** `send` only: UTF-8 bytes of text typed and keys pressed (never what). */
  bytes?: number;
  keys?: number;
  /** `send` only: the size a resize asked for (`outcome` says whether it was applied). */
  resize?: { rows: number; cols: number };
  /** `send` only: the mouse action (click, drag, …), never where. */
  mouse?: string;
  /** Calls this line stands for, for tools audited as a count (the terminal app's; docs/design.md §4.6). */
  calls?: number;
}

/** A PNG of a session's screen (`screenshot`), and what it shows. */
export interface Screenshot {
  /** The session's id. */
  session: string;
  screen: StyledScreen;
  png: Buffer;
  width: number;
  height: number;
  /** Where the PNG was written, when a path was given. */
  path?: string;
}

export interface ScreenshotRequest {
  theme?: 'dark' | 'light';
  /** Absolute; the PNG is written there too. */
  path?: string;
}

/**
 * What the tools need from the hub. `src/mcp/` may not import `src/hub/` (docs/design.md §1.2,
 * enforced by lint), so this is the structural slice of `Hub` the tools use; a `Hub` satisfies it.
 */
export interface ToolHost {
  readonly manager: SessionManager;
  readonly settings: { readonly executeTimeoutMs: number; readonly maxLines: number; readonly progressIntervalMs?: number };
  readonly logger: { error(message: string): void; info?(message: string): void };
  /** A PNG of a session's screen, drawn in the hub (src/hub/screenshot/); coded errors for a bad path or session. */
  screenshot(ref: string, request: ScreenshotRequest): Promise<Screenshot>;
  /** The history index (docs/design.md §2.7); absent where no state dir is kept. Never rejects: trouble is a `note`. */
  readonly history?: { search(query: HistoryQuery): Promise<HistoryPage> };
  /** Called once per tool call after it ended (the hub appends it to audit.jsonl); must not throw. */
  audit?(event: ToolAuditEvent): void;
  /** Fires when `settings.executeTimeoutMs` or `settings.maxLines` changed (the listing names them). */
  readonly onDidChangeToolDefaults?: Event<void>;
  /** The person's policy (docs/design.md §2.9), checked before a command line is typed; none: everything runs. */
  readonly gate?: CommandGate;
  /** The hub's watches of subscribed screens (docs/design.md §3.7), shared by every connection; none: each server keeps its own. */
  readonly screenWatches?: ScreenChangeWatches;
  /** The terminal app's HTML, one document (docs/design.md §3.8); undefined where it was not built. */
  terminalApp?(): Promise<string | undefined>;
  /** The address of the hub's UI showing this session (docs/design.md §3.8), when the hub serves one. */
  uiAddress?(session: string): string | undefined;
  /**
   * A one-time link to the hub's page for a pending approval (docs/design.md §2.9, "Where the
   * person answers"), once per approval; `ended` resolves when it is answered or withdrawn.
   * Undefined: no HTTP, not pending, or a link was issued already.
   */
  approvalLink?(approvalId: string): { url: string; expiresInMs: number; ended: Promise<void> } | undefined;
  /** The other machines this hub links to (docs/design.md §4.7); none: this machine alone. */
  readonly remotes?: RemoteTools;
}

/**
 * Who calls a remote, as the remote must know it: this hub's MCP connection (one stream over the
 * link per connection, so the remote's per-connection cursors stay apart), the client as the
 * remote's policy and audit name it (the hub adds `via <this machine>`), the request's
 * cancellation and progress token, and a way to tell the client of progress.
 */
export interface RemoteCaller {
  connection: string;
  client: { name: string; version: string };
  signal: AbortSignal;
  progressToken?: string | number;
  progress(progress: number, message?: string): void;
}

/**
 * The remote machines as the tools reach them (docs/design.md §4.7): a session id `<remote>:<id>`
 * and `open`'s `host` name one; the call is the remote's own tool, run there by its hub (its
 * policy, its sandbox, its answer), with ids shown as `<remote>:<id>`.
 */
export interface RemoteTools {
  /** The remote a session reference is on (`devbox:k3f9q2` → devbox, k3f9q2), or undefined for this machine's. */
  split(ref: string): { host: string; id: string } | undefined;
  /** Whether `host` names a remote. */
  has(host: string): boolean;
  /** Why `host` takes no call now (not connected, and why), or undefined while it is connected. */
  unavailable(host: string): string | undefined;
  /** The remotes' names, in settings' order. */
  names(): string[];
  /**
   * The remote's tool `tool` with `args`. Rejects with REMOTE_UNAVAILABLE when the remote is not
   * connected (after a bounded try), or when the link dropped while the call ran (the result is
   * unknown: it is never sent again).
   */
  call(host: string, tool: string, args: Record<string, unknown>, caller: RemoteCaller): Promise<CallToolResult>;
  /** This hub's MCP connection closed: its streams to the remotes close too (their calls go on there). */
  connectionClosed(connection: string): void;
  /** A remote was added or removed (the tools list `host` only while there is one). */
  readonly onDidChangeNames: Event<void>;
}

/** The rule of the person's policy that answered: its place in the list (from 0) and its pattern. */
export interface GateRule {
  index: number;
  match: string;
}

/** A command line waiting for the person's answer; nothing of it is typed yet (docs/design.md §2.9). */
export interface PendingApproval {
  readonly id: string;
  /** The session it would be typed into; null: it would start one (`open`, or `execute` without a session). */
  readonly session: string | null;
  readonly command: string;
  readonly rule: GateRule | null;
  readonly reason: string;
  /** ISO 8601. */
  readonly asked_at: string;
  /** The agent asked to run it outside the OS sandbox. */
  readonly unsandboxed?: boolean;
}

/** Who asks, as the audit log, the rules and the person's grants know them. */
interface GateCaller {
  /** `"<name> <version>"`, as the audit log and the person see it. */
  client: string;
  /** `clientInfo.name`: what rules' `client` and the person's 30-minute grants are about. */
  clientName: string;
  /**
   * Called once when the person is asked (the approval is pending, nothing typed): the caller may
   * tell the person where they are (a URL elicitation, approvalElicitation.ts). Never an answer.
   */
  onAsk?(approval: PendingApproval): void;
  /**
   * Stop waiting as soon as the person is asked (a 2026-07-28 client is told through the call's
   * own `input_required` result): `awaiting` at once, the approval left as at a timeout.
   */
  returnWhenAsked?: boolean;
}

/**
 * Something about to be typed into a session: an `execute` command line, or the exact bytes of a
 * `send` (the gate asks the session what reads them, docs/design.md §2.9).
 */
export type GateRequest = GateCaller &
  ({ tool: 'execute'; session: TerminalSession; command: string } | { tool: 'send'; session: TerminalSession; bytes: string; bracketedPaste: boolean });

/**
 * Something that would start a session: `open`'s program and arguments as a command line, or an
 * `execute` outside the sandbox that opens its shell. `key` names the request (the client, the
 * tool, every argument), so calling again with the same arguments waits on the same approval.
 */
export type GateNewRequest = GateCaller & { tool: 'open' | 'execute'; command: string; cwd: string; unsandboxed: boolean; key: string };

/**
 * What `execute` and `send` get from the gate: `allowed` (by the rules, a grant, or the person
 * within `waitMs`; `ran` records the typing: what is typed is only known once it is), or still
 * `awaiting` the person (the command is typed by `later` if they allow it). A deny, by a rule or
 * the person, is thrown as COMMAND_DENIED.
 */
export type GatePass = { outcome: 'allowed'; ran(typing: Promise<unknown>): void } | { outcome: 'awaiting'; approval: PendingApproval };

/**
 * What a request that starts a session gets: `allowed` (start it now), `awaiting` the person
 * (`start` runs once they allow it, and its result waits for the same request again), or
 * `started`: an earlier identical call's approval was allowed after it returned, and this is
 * what `start` gave then.
 */
export type GateNewPass = { outcome: 'allowed' } | { outcome: 'awaiting'; approval: PendingApproval } | { outcome: 'started'; result: unknown };

export interface CommandGate {
  pass(request: GateRequest, waitMs: number, signal: AbortSignal, later: () => Promise<unknown>): Promise<GatePass>;
  passNew(request: GateNewRequest, waitMs: number, signal: AbortSignal, start: () => Promise<unknown>): Promise<GateNewPass>;
  /** What an approval of this request started after its call returned, once (the same call again gets it). */
  takeStarted(key: string): unknown;
  /** The approval pending on a session: it reserves the session for its command. */
  pending(session: string): PendingApproval | undefined;
  /**
   * A `read` with a wait on a session: through its pending approval (a denial, or one not yet
   * told, is thrown as COMMAND_DENIED), then until the allowed command is typed. `pending`: the
   * person has not answered within `waitMs`.
   */
  waitThrough(session: string, waitMs: number, signal: AbortSignal): Promise<{ pending: PendingApproval | null; spentMs: number }>;
  /** An approval of this session was asked, answered or withdrawn (progress tells a waiting call at once). */
  readonly onDidChange?: Event<string>;
}

/** Everything a tool's registration gets: the hub and who is calling. */
export interface ToolDeps {
  host: ToolHost;
  /** `"<clientInfo.name> <clientInfo.version>"` of the caller: the `creator.client` of its sessions. */
  clientName(ctx: ServerContext): string;
  /** `clientInfo.name` alone: what the person's policy calls the client. */
  clientApp(ctx: ServerContext): string;
  /**
   * Who reads, for `read` view `new` (each reader has its own cursor): the client name plus this
   * connection's serial number, so two connections of one host never take each other's output.
   */
  clientId(ctx: ServerContext): string;
  /**
   * A session id as this connection shows it: as it is, or `<machine>:<id>` on an agent's calls
   * over a link from the person's hub on another machine (docs/design.md §4.7), so the ids and the
   * next steps a result names are the ones the agent uses there.
   */
  showId(id: string): string;
  /** Who calls, as a remote must know it (docs/design.md §4.7), for `list` and `history` across machines. */
  remoteCaller(ctx: ServerContext): RemoteCaller;
  /** The capabilities the calling client declared (its `initialize`, or a 2026-07-28 request's envelope). */
  clientCapabilities(ctx: ServerContext): ClientCapabilities | undefined;
  /** `notifications/elicitation/complete` for a URL elicitation (2025-11-25 connections only). */
  elicitationComplete(elicitationId: string): Promise<void>;
}
