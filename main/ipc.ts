/**
 * The window's IPC ↔ the hub's UI bridge: the same `UiBridge` class the WebSocket `/ws` uses,
 * one per window connection, speaking src/ui-protocol/. Every message from a renderer is
 * checked before the hub sees it:
 *  - the sender is our window's web contents, from its top frame (no iframe, no other window);
 *  - that frame shows our UI (`switchboard://ui/…`, see appProtocol.ts);
 *  - the payload is a valid `ClientMessage` (the protocol's zod schema), or for the settings
 *    channel a valid `NotificationSettingsPatch`.
 * A message from anywhere else is dropped without an answer (a foreign frame learns nothing);
 * an invalid payload from our page gets the protocol's `error` back.
 *
 * The channel names are repeated in preload.cts, which cannot import this file (a sandboxed
 * preload requires nothing but `electron`); test/unit/main/preload.test.ts holds them equal.
 */
import type { IpcMain, IpcMainEvent, WebContents } from 'electron';
import type { Logger, UiHost } from '../src/hub/index.js';
import { NotificationSettingsPatchSchema, UiErrorCode, parseClientMessage, type HubMessage } from '../src/ui-protocol/index.js';
import { isAppUrl } from './appProtocol.js';
import type { NotificationSettingsAccess } from './preferences.js';

export const IPC_CHANNELS = {
  /** renderer → main: (re)open this page's connection; the reply is `status: open`. */
  connect: 'switchboard:connect',
  /** renderer → main: one ClientMessage. */
  send: 'switchboard:send',
  /** main → renderer: one HubMessage. */
  message: 'switchboard:message',
  /** main → renderer: 'open' | 'closed'. */
  status: 'switchboard:status',
  /** main → renderer: an app command the person gave outside the page (tray Watch, Settings…). */
  command: 'switchboard:command',
  /** main → renderer: the notification settings (on connect, and after each change). */
  appSettings: 'switchboard:appSettings',
  /** renderer → main: change some of them (a NotificationSettingsPatch). */
  setAppSettings: 'switchboard:setAppSettings',
} as const;

/** What the person asked for from the tray, a notification or a second launch (src/ui-protocol/). */
export type { AppCommand } from '../src/ui-protocol/index.js';

export interface IpcOptions {
  ipcMain: Pick<IpcMain, 'on' | 'removeAllListeners'>;
  host: Pick<UiHost, 'createBridge'>;
  /** Our window's web contents, when a window exists. */
  windowContents: () => WebContents | undefined;
  logger: Logger;
  /** The app's notification preferences, shown and changed on the page's settings (main/preferences.ts). */
  notificationSettings?: NotificationSettingsAccess;
}

/** Why a message's sender is not our page, or null when it is. */
export function untrustedSenderReason(event: Pick<IpcMainEvent, 'sender' | 'senderFrame'>, ours: WebContents | undefined): string | null {
  if (!ours || ours.isDestroyed()) return 'no window';
  if (event.sender !== ours) return 'not our window';
  const frame = event.senderFrame;
  if (!frame) return 'frame gone';
  if (frame !== ours.mainFrame || frame.parent !== null) return 'not the top frame';
  if (!isAppUrl(frame.url)) return `foreign page ${safeOrigin(frame.url)}`;
  return null;
}

function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(unparsable url)';
  }
}

/** The IPC handlers and one UiBridge per connected page; `dispose()` removes them all. */
export class IpcBridge {
  private readonly connections = new Map<WebContents, { dispose(): void; receive(raw: unknown): void }>();
  private disposed = false;

  constructor(private readonly options: IpcOptions) {
    options.ipcMain.on(IPC_CHANNELS.connect, (event) => this.connect(event));
    options.ipcMain.on(IPC_CHANNELS.send, (event, payload: unknown) => this.receive(event, payload));
    options.ipcMain.on(IPC_CHANNELS.setAppSettings, (event, payload: unknown) => this.setAppSettings(event, payload));
  }

  /** Connections open now (tests, diagnostics). */
  get size(): number {
    return this.connections.size;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.options.ipcMain.removeAllListeners(IPC_CHANNELS.connect);
    this.options.ipcMain.removeAllListeners(IPC_CHANNELS.send);
    this.options.ipcMain.removeAllListeners(IPC_CHANNELS.setAppSettings);
    for (const [contents, bridge] of [...this.connections]) {
      bridge.dispose();
      safeSend(contents, IPC_CHANNELS.status, 'closed');
    }
    this.connections.clear();
  }

  private trusted(event: IpcMainEvent, channel: string): boolean {
    if (this.disposed) return false;
    const reason = untrustedSenderReason(event, this.options.windowContents());
    if (reason === null) return true;
    this.options.logger.warn(`ipc: dropped a ${channel} message (${reason})`);
    return false;
  }

  private connect(event: IpcMainEvent): void {
    if (!this.trusted(event, IPC_CHANNELS.connect)) return;
    const contents = event.sender;
    // A reload or a second connect starts afresh: no subscriptions carry over.
    this.connections.get(contents)?.dispose();
    const bridge = this.options.host.createBridge({
      send: (message: HubMessage) => safeSend(contents, IPC_CHANNELS.message, forIpc(message)),
      // Our window's top frame on our own page (checked above): the person in the app.
      channel: 'app',
    });
    this.connections.set(contents, bridge);
    contents.once('destroyed', () => {
      if (this.connections.get(contents) !== bridge) return;
      this.connections.delete(contents);
      bridge.dispose();
    });
    safeSend(contents, IPC_CHANNELS.status, 'open');
    this.sendNotificationSettings(contents);
  }

  /** The page changes notification settings; it always gets back what holds now (changed or not). */
  private setAppSettings(event: IpcMainEvent, payload: unknown): void {
    if (!this.trusted(event, IPC_CHANNELS.setAppSettings)) return;
    const access = this.options.notificationSettings;
    if (!access || !this.connections.has(event.sender)) return;
    const patch = NotificationSettingsPatchSchema.safeParse(payload);
    if (!patch.success) {
      this.options.logger.warn(`ipc: invalid settings change from the window: ${patch.error.issues[0]?.message ?? 'unknown shape'}`);
    } else {
      try {
        access.update(patch.data);
      } catch (error) {
        this.options.logger.error(`ipc: settings not changed: ${(error as Error).message}`);
      }
    }
    this.sendNotificationSettings(event.sender);
  }

  private sendNotificationSettings(contents: WebContents): void {
    const access = this.options.notificationSettings;
    if (!access) return;
    try {
      safeSend(contents, IPC_CHANNELS.appSettings, access.read());
    } catch (error) {
      // app-preferences.json was made invalid by hand while the app runs: logged; the page keeps
      // what it was sent last (nothing, if this is its first connect).
      this.options.logger.warn(`ipc: cannot read the notification settings: ${(error as Error).message}`);
    }
  }

  private receive(event: IpcMainEvent, payload: unknown): void {
    if (!this.trusted(event, IPC_CHANNELS.send)) return;
    const parsed = parseClientMessage(payload);
    if (!parsed.ok) {
      this.options.logger.warn(`ipc: invalid message from the window: ${parsed.error.message}`);
      safeSend(event.sender, IPC_CHANNELS.message, parsed.error);
      return;
    }
    const bridge = this.connections.get(event.sender);
    if (!bridge) {
      safeSend(event.sender, IPC_CHANNELS.message, { type: 'error', code: UiErrorCode.Protocol, message: 'Connect first.', for: parsed.message.type });
      return;
    }
    bridge.receive(parsed.message);
  }
}

/**
 * A frame's bytes in a buffer of their own. IPC's structured clone copies a typed array's whole
 * backing buffer, and a frame is often a view on a larger one (a pooled Buffer, such as the
 * one node-pty reads into): a one-byte echo would carry kilobytes.
 */
export function forIpc(message: HubMessage): HubMessage {
  if (message.type !== 'frame') return message;
  const { data } = message;
  if (data.byteOffset === 0 && data.byteLength === data.buffer.byteLength) return message;
  return { ...message, data: new Uint8Array(data) };
}

function safeSend(contents: WebContents, channel: string, value: unknown): void {
  if (contents.isDestroyed()) return;
  try {
    contents.send(channel, value);
  } catch {
    // The page is going away; its bridge is disposed on 'destroyed'.
  }
}
