import { parseJSONRPCMessage, type JSONRPCMessage, type MessageExtraInfo, type Transport } from '@modelcontextprotocol/server';
import type { LinkStream } from './linkMux.js';

/**
 * An MCP transport over one stream of a link (the remote hub's side of an agent's calls): each
 * message one JSON-RPC message, as on the socket, so the hub serves it as it serves a shim.
 */
export class LinkStreamTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  private closed = false;

  constructor(private readonly stream: LinkStream) {
    stream.onDidMessage((text) => {
      let message: JSONRPCMessage;
      try {
        message = parseJSONRPCMessage(JSON.parse(text));
      } catch (error) {
        this.onerror?.(new Error(`the link sent a message that is not JSON-RPC: ${(error as Error).message}`));
        return;
      }
      this.onmessage?.(message);
    });
    stream.onDidClose(() => this.reportClose());
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    this.stream.send(message);
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.stream.close('the server closed it');
    this.reportClose();
    return Promise.resolve();
  }

  private reportClose(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}
