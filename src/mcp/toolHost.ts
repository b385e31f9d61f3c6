/**
 * What the tools are given: the slice of the hub they use, who calls, and the audit record of a
 * call. Apart from server.ts, which registers the tools, so the tools need not import it.
 */
import type { ServerContext } from '@modelcontextprotocol/server';
import type { Event, SessionManager } from '../core/index.js';

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
}

/**
 * What the tools need from the hub. `src/mcp/` may not import `src/hub/` (docs/design.md §1.2,
 * enforced by lint), so this is the structural slice of `Hub` the tools use; a `Hub` satisfies it.
 */
export interface ToolHost {
  readonly manager: SessionManager;
  readonly settings: { readonly executeTimeoutMs: number; readonly maxLines: number };
  readonly logger: { error(message: string): void };
  /** Called once per tool call after it ended (the hub appends it to audit.jsonl); must not throw. */
  audit?(event: ToolAuditEvent): void;
  /** Fires when `settings.executeTimeoutMs` or `settings.maxLines` changed (the listing names them). */
  readonly onDidChangeToolDefaults?: Event<void>;
}

/** Everything a tool's registration gets: the hub and who is calling. */
export interface ToolDeps {
  host: ToolHost;
  /** `"<clientInfo.name> <clientInfo.version>"` of the caller: the `creator.client` of its sessions. */
  clientName(ctx: ServerContext): string;
  /**
   * Who reads, for `read` view `new` (each reader has its own cursor): the client name plus this
   * connection's serial number, so two connections of one host never take each other's output.
   */
  clientId(ctx: ServerContext): string;
}
