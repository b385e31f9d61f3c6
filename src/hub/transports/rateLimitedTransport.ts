import type { JSONRPCMessage, JSONRPCRequest, MessageExtraInfo, Transport } from '@modelcontextprotocol/server';
import { ErrorCode } from '../../core/index.js';
import { failure } from '../../mcp/toolResult.js';
import { ForwardingTransport, isRequest } from './forwardingTransport.js';
import type { Logger } from '../common/logger.js';
import { TokenBucket, type RateLimit } from './rateLimiter.js';

/**
 * JSON-RPC error code of a rate-limited request other than `tools/call` (those get a
 * `LIMIT_REACHED` tool result). Implementation-defined server-error range; unused by the SDK.
 */
export const RATE_LIMITED = -32029;

/** A flooding client must not flood the log either. */
const WARN_EVERY_MS = 10_000;

/**
 * One client's call limit: its token bucket, and the hub log's word when it refuses. Past the
 * bucket, `check` gives the answer that refuses the request; the caller sends it at once and
 * the request never reaches the server: nothing runs, nothing is audited (an audit line per
 * refused call would be the very work the limit avoids; the hub's log says so at most every
 * 10 s per client, with a count).
 */
export class ClientCallLimit {
  private readonly bucket: TokenBucket;
  /** Refused since the last warning; warnings are at most one per WARN_EVERY_MS. */
  private refused = 0;
  private warnedAt = -Infinity;

  constructor(
    limit: RateLimit,
    private readonly logger: Logger,
    /** Which endpoint, for the log: `socket`, `http`, `http (stateless)`. */
    private readonly via: string,
    /** Who, for the log: `clientOf(initialize)`. */
    public client = 'unknown client',
  ) {
    this.bucket = new TokenBucket(limit);
  }

  /** Null when the request may go ahead; else the answer that refuses it. */
  check(request: JSONRPCRequest): JSONRPCMessage | null {
    const retryAfterMs = this.bucket.take();
    if (retryAfterMs === 0) return null;
    this.refused++;
    const now = Date.now();
    if (now - this.warnedAt >= WARN_EVERY_MS) {
      const { perSecond, burst } = this.bucket.limit;
      this.logger.warn(
        `${this.via} client ${this.client}: over ${perSecond} calls a second (burst ${burst}); refused ${this.refused} call(s) with LIMIT_REACHED`,
      );
      this.warnedAt = now;
      this.refused = 0;
    }
    return refusal(request, retryAfterMs, this.bucket.limit);
  }
}

/**
 * Sits between one client connection's transport (a shim's socket, an MCP-over-HTTP session) and
 * its McpServer: every request of that client passes its `ClientCallLimit` first. Notifications
 * and responses always pass: they run nothing, and `notifications/cancelled` must never be refused.
 */
export class RateLimitedTransport extends ForwardingTransport {
  private readonly limit: ClientCallLimit;

  constructor(inner: Transport, limit: RateLimit, logger: Logger, via: string) {
    super(inner);
    this.limit = new ClientCallLimit(limit, logger, via);
  }

  protected override receive(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    if (isRequest(message)) {
      if (message.method === 'initialize') this.limit.client = clientOf(message);
      const refused = this.limit.check(message);
      if (refused) {
        void this.inner.send(refused).catch((error: unknown) => this.onerror?.(error as Error));
        return;
      }
    }
    this.onmessage?.(message, extra);
  }
}

/** The answer to a refused request: a `LIMIT_REACHED` tool result for `tools/call`, else a JSON-RPC error. */
function refusal(request: JSONRPCRequest, retryAfterMs: number, limit: RateLimit): JSONRPCMessage {
  const message =
    `Too many calls from this client: over ${limit.perSecond} a second (setting rateLimitPerSecond, bursts up to ${limit.burst}, rateLimitBurst). ` +
    `Nothing was run; retry after ${retryAfterMs} ms, and make fewer calls.`;
  if (request.method === 'tools/call') {
    return { jsonrpc: '2.0', id: request.id, result: failure(ErrorCode.LimitReached, message, { retry_after_ms: retryAfterMs }) };
  }
  return {
    jsonrpc: '2.0',
    id: request.id,
    error: { code: RATE_LIMITED, message: `${ErrorCode.LimitReached}: ${message}`, data: { code: ErrorCode.LimitReached, retry_after_ms: retryAfterMs } },
  };
}

/** `"<name> <version>"` (quoted, cut: it is the client's own text) from an initialize request. */
function clientOf(request: JSONRPCRequest): string {
  return describeClient((request.params as { clientInfo?: unknown } | undefined)?.clientInfo);
}

/** `"<name> <version>"` of a clientInfo object (`initialize`, or a 2026-era request's `_meta`). */
export function describeClient(info: unknown): string {
  const { name, version } = (info ?? {}) as { name?: unknown; version?: unknown };
  return JSON.stringify(`${String(name ?? '?')} ${String(version ?? '?')}`.slice(0, 100));
}
