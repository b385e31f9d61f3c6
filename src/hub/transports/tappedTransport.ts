import type { JSONRPCMessage, MessageExtraInfo, Transport, TransportSendOptions } from '@modelcontextprotocol/server';
import { ForwardingTransport } from './forwardingTransport.js';

/**
 * Shows every message that passes, either way, to an observer, and changes nothing: on a shim's
 * connection, the `subscriptions/listen` streams the SDK's stdio entry serves before any server
 * sees them (src/mcp/listenRequests.ts). Outermost, so it sees only what the rate limit let in.
 */
export class TappedTransport extends ForwardingTransport {
  constructor(
    inner: Transport,
    private readonly observer: { inbound(message: JSONRPCMessage): void; outbound(message: JSONRPCMessage): void },
  ) {
    super(inner);
  }

  protected override receive(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    this.observer.inbound(message);
    this.onmessage?.(message, extra);
  }

  override send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    this.observer.outbound(message);
    return this.inner.send(message, options);
  }
}
