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
} from '../../src/ui-protocol/index.js';
import type { z } from 'zod';
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
    return this.api.onAppCommand(validated(AppCommandSchema, 'an app command', listener));
  }

  onNotificationSettings(listener: (settings: NotificationSettings) => void): () => void {
    return this.api.onAppSettings(validated(NotificationSettingsSchema, 'notification settings', listener));
  }

  setNotificationSettings(patch: Partial<NotificationSettings>): void {
    this.api.setAppSettings(patch);
  }
}

/** A listener for what main delivers: only values of `schema`'s shape reach `listener`. */
function validated<T>(schema: z.ZodType<T>, what: string, listener: (value: T) => void): (value: unknown) => void {
  return (value) => {
    const parsed = schema.safeParse(value);
    if (parsed.success) listener(parsed.data);
    else console.warn(`switchboard: ignoring ${what} of unknown shape`);
  };
}
