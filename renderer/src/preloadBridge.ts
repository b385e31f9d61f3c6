/**
 * The Bridge in the Electron window: the preload's `window.switchboardBridge`
 * (main/preload.cts), which carries the protocol's messages over IPC to main's `IpcBridge`.
 * Main validates what the page sends; the page validates what main delivers, as it does on
 * the WebSocket. The window's page loads from `switchboard://ui/` with no network at all
 * (docs/app.md), so this is its only way to the hub.
 */
import {
  AppCommandSchema,
  NotificationSettingsSchema,
  parseHubMessage,
  type AppCommand,
  type ClientMessage,
  type HubMessage,
  type NotificationSettings,
} from '../../src/ui-protocol.js';
import type { Bridge, ConnectionStatus } from './bridge.js';

/** What main/preload.cts exposes (values arrive structured-cloned and unchecked). */
export interface PreloadApi {
  connect(): void;
  send(message: unknown): void;
  onMessage(listener: (value: unknown) => void): () => void;
  onStatus(listener: (value: unknown) => void): () => void;
  onAppCommand(listener: (value: unknown) => void): () => void;
  onAppSettings(listener: (value: unknown) => void): () => void;
  setAppSettings(patch: unknown): void;
}

export class PreloadBridge implements Bridge {
  constructor(private readonly api: PreloadApi) {}

  connect(): void {
    this.api.connect();
  }

  send(message: ClientMessage): void {
    this.api.send(message);
  }

  onMessage(listener: (message: HubMessage) => void): () => void {
    return this.api.onMessage((value) => {
      const parsed = parseHubMessage(value);
      if (parsed.ok) listener(parsed.message);
      else console.warn(`switchboard: ignoring a hub message: ${parsed.error.message}`);
    });
  }

  onStatus(listener: (status: ConnectionStatus) => void): () => void {
    return this.api.onStatus((value) => {
      if (value === 'open' || value === 'closed') listener(value);
    });
  }

  onAppCommand(listener: (command: AppCommand) => void): () => void {
    return this.api.onAppCommand((value) => {
      const parsed = AppCommandSchema.safeParse(value);
      if (parsed.success) listener(parsed.data);
      else console.warn('switchboard: ignoring an app command of unknown shape');
    });
  }

  onNotificationSettings(listener: (settings: NotificationSettings) => void): () => void {
    return this.api.onAppSettings((value) => {
      const parsed = NotificationSettingsSchema.safeParse(value);
      if (parsed.success) listener(parsed.data);
      else console.warn('switchboard: ignoring notification settings of unknown shape');
    });
  }

  setNotificationSettings(patch: Partial<NotificationSettings>): void {
    this.api.setAppSettings(patch);
  }
}
