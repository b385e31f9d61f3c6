import type { ClientMessage } from './clientMessages.js';
import type { HubMessage } from './hubMessages.js';

/**
 * What the renderer talks to: the WebSocket in a browser, the preload's API in Electron.
 * `send` takes a client message; `onMessage` delivers validated hub messages.
 */
export interface Bridge {
  send(message: ClientMessage): void;
  onMessage(listener: (message: HubMessage) => void): () => void;
}
