import { CLIENT_INFO_META_KEY, isJSONRPCRequest, type JSONRPCMessage } from '@modelcontextprotocol/server';
import type { Logger } from '../common/logger.js';
import { ClientCallLimit, describeClient } from './rateLimitedTransport.js';
import type { RateLimit } from './rateLimiter.js';

/** Buckets kept for 2026-era clients; past this the least recently seen is forgotten. */
const MAX_CLIENTS = 256;

/**
 * The call limit of 2026-era (stateless) HTTP requests. They have no connection or session to
 * hang a bucket on, but each names its client in `_meta` (`io.modelcontextprotocol/clientInfo`):
 * each client gets its own bucket, the same limit as a connection's (rateLimitedTransport.ts).
 * Requests that name no client share one bucket. Only runaway agents are in scope: every caller
 * already holds the token, so a client that changes its name each call is not.
 */
export class StatelessCallLimits {
  /** By client, least recently seen first (a Map keeps insertion order). */
  private readonly limits = new Map<string, ClientCallLimit>();

  constructor(
    private readonly limit: RateLimit,
    private readonly logger: Logger,
  ) {}

  /** Null when `body` may go to the server (not a request, or within its client's limit); else the answer that refuses it. */
  check(body: unknown): JSONRPCMessage | null {
    if (!isJSONRPCRequest(body)) return null;
    const client = describeClient(body.params?._meta?.[CLIENT_INFO_META_KEY]);
    let limit = this.limits.get(client);
    if (limit) this.limits.delete(client);
    else limit = new ClientCallLimit(this.limit, this.logger, 'http (stateless)', client);
    this.limits.set(client, limit);
    if (this.limits.size > MAX_CLIENTS) this.limits.delete(this.limits.keys().next().value!);
    const refused = limit.check(body);
    // Revision 2026-07-28 results carry their kind (the SDK stamps it on what servers answer).
    if (refused && 'result' in refused) return { ...refused, result: { ...refused.result, resultType: 'complete' } };
    return refused;
  }
}
