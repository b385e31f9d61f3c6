import { type JSONRPCMessage, type MessageExtraInfo, type RequestId, type Transport, type TransportSendOptions } from '@modelcontextprotocol/server';
import { ForwardingTransport, isNotification, isRequest, isResponse } from './forwardingTransport.js';

/**
 * A client disconnecting is not a cancellation (docs/design.md §3.4): its commands go on.
 *
 * The SDK's Protocol aborts every in-flight handler's `ctx.mcpReq.signal` when its transport
 * closes (`Protocol._onclose`, reason `SdkError(ConnectionClosed)`), the same signal an explicit
 * `notifications/cancelled` fires. So this wrapper sits between a connection's transport and
 * the McpServer: when the connection goes away it keeps the server side open until every
 * in-flight `tools/call` has finished (their answers are dropped), then reports the close, and
 * the per-connection McpServer is released. Only `notifications/cancelled` aborts a call.
 * `forceClose()` (hub shutdown) closes at once.
 */
export class DetachingTransport extends ForwardingTransport {
  private readonly inFlight = new Set<RequestId>();
  private detached = false;
  private closeReported = false;

  constructor(
    inner: Transport,
    private readonly hooks: { onDetached?: () => void; onReleased?: () => void } = {},
  ) {
    super(inner);
  }

  /** Tool calls still running on behalf of this connection. */
  get pendingCalls(): number {
    return this.inFlight.size;
  }

  protected override receive(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    if (isRequest(message) && message.method === 'tools/call') this.inFlight.add(message.id);
    if (isNotification(message) && message.method === 'notifications/cancelled') {
      const id = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      if (id !== undefined) this.settle(id);
    }
    this.onmessage?.(message, extra);
  }

  protected override closed(): void {
    this.detached = true;
    this.hooks.onDetached?.();
    this.maybeReportClose();
  }

  override async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (isResponse(message) && message.id !== undefined) {
      const id = message.id;
      try {
        if (!this.detached) await this.inner.send(message, options);
      } catch (error) {
        if (!this.detached) throw error;
      } finally {
        // Later, not now: the Protocol forgets the call's abort controller only once this send
        // resolves, and a close reported before that would abort the finished call.
        setImmediate(() => this.settle(id));
      }
      return;
    }
    if (this.detached) return; // progress for a client that is gone
    await this.inner.send(message, options);
  }

  /** Hub shutdown: report the close now (in-flight calls see the SDK's abort). */
  async forceClose(): Promise<void> {
    this.inFlight.clear();
    await this.inner.close().catch(() => undefined);
    this.detached = true;
    this.maybeReportClose();
  }

  private settle(id: RequestId): void {
    this.inFlight.delete(id);
    this.maybeReportClose();
  }

  private maybeReportClose(): void {
    if (!this.detached || this.inFlight.size > 0 || this.closeReported) return;
    this.closeReported = true;
    try {
      this.onclose?.();
    } finally {
      this.hooks.onReleased?.();
    }
  }
}
