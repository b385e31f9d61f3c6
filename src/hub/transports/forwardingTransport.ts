import type {
  JSONRPCMessage,
  JSONRPCNotification,
  JSONRPCRequest,
  JSONRPCResponse,
  MessageExtraInfo,
  Transport,
  TransportSendOptions,
} from '@modelcontextprotocol/server';

/**
 * A Transport that wraps another one and forwards everything; a subclass overrides only what
 * it intercepts (`receive`, `closed`, `send`, `close`). The hub stacks two on each client
 * connection: `RateLimitedTransport` (refuses past a rate) under `DetachingTransport` (a
 * disconnect is not a cancellation).
 */
export abstract class ForwardingTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  constructor(protected readonly inner: Transport) {
    inner.onmessage = (message, extra) => this.receive(message, extra);
    inner.onerror = (error) => this.onerror?.(error);
    inner.onclose = () => this.closed();
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  get hasPerRequestStream(): boolean | undefined {
    return this.inner.hasPerRequestStream;
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  setSupportedProtocolVersions(versions: string[]): void {
    this.inner.setSupportedProtocolVersions?.(versions);
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** A message from the client, on its way to the server. */
  protected receive(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    this.onmessage?.(message, extra);
  }

  /** The connection closed. */
  protected closed(): void {
    this.onclose?.();
  }
}

/*
 * What kind of message it is, by shape, for routing in the wrappers. The SDK's own
 * `isJSONRPC*` guards validate the whole message with zod (tens of µs each, several per call);
 * the SDK validates every message anyway, so the wrappers only need to tell the kinds apart.
 */

export function isRequest(message: JSONRPCMessage): message is JSONRPCRequest {
  return 'method' in message && 'id' in message;
}

export function isNotification(message: JSONRPCMessage): message is JSONRPCNotification {
  return 'method' in message && !('id' in message);
}

export function isResponse(message: JSONRPCMessage): message is JSONRPCResponse {
  return !('method' in message) && ('result' in message || 'error' in message);
}
