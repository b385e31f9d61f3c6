/**
 * The renderer's one way to the hub. In a browser it is a WebSocket to `/ws`
 * (webSocketBridge.ts); in the Electron window it is the preload's API over IPC (preloadBridge.ts).
 * Messages are the typed ones of src/ui-protocol/; the UI never sees a transport.
 */
import type { AppCommand, Bridge as ProtocolBridge, NotificationSettings } from '../../src/ui-protocol/index.js';

export type ConnectionStatus = 'connecting' | 'open' | 'closed';

export interface Bridge extends ProtocolBridge {
  /** Starts (and keeps) the connection; safe to call once per page. */
  connect(): void;
  /**
   * `open` each time a connection is (re)established: the UI says `hello` and re-subscribes
   * its tabs then, because a new connection starts with no subscriptions.
   */
  onStatus(listener: (status: ConnectionStatus) => void): () => void;
  /** What the person asked for outside the page (tray, notification): the Electron window only. */
  onAppCommand?(listener: (command: AppCommand) => void): () => void;
  /** The app's notification settings, on connect and after each change: the Electron window only. */
  onNotificationSettings?(listener: (settings: NotificationSettings) => void): () => void;
  /** Asks the app to change them; the answer comes through `onNotificationSettings`. */
  setNotificationSettings?(patch: Partial<NotificationSettings>): void;
}
