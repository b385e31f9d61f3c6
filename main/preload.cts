/**
 * The window's preload: exposes the renderer's `Bridge` (renderer/src/bridge.ts) as a few
 * named functions on `window.switchboardBridge`, and never `ipcRenderer` itself (nor the IPC
 * event, which would hand the page a sender object). The page runs sandboxed with context
 * isolation; it reaches the hub only through these functions, and main checks and validates
 * every message again (ipc.ts).
 *
 * CommonJS (`.cts` → dist/main/preload.cjs) and self-contained: a sandboxed preload can
 * require nothing but `electron`, so the channel names repeat ipc.ts's IPC_CHANNELS
 * (test/unit/main/preload.test.ts holds them equal).
 *
 * Why `switchboardBridge` and not `switchboard`: the page keeps its own `window.switchboard`
 * (the App, a test hook), and a contextBridge global cannot be overwritten.
 */
import { contextBridge, ipcRenderer } from 'electron';

const CHANNELS = {
  connect: 'switchboard:connect',
  send: 'switchboard:send',
  message: 'switchboard:message',
  status: 'switchboard:status',
  command: 'switchboard:command',
  appSettings: 'switchboard:appSettings',
  setAppSettings: 'switchboard:setAppSettings',
} as const;

/** The global the page reads. */
const GLOBAL_NAME = 'switchboardBridge';

type Listener = (value: unknown) => void;

/** Listeners per channel; each `on…` returns its own unsubscribe function. */
function listenerSet(channel: string): (listener: Listener) => () => void {
  const listeners = new Set<Listener>();
  ipcRenderer.on(channel, (_event, value: unknown) => {
    for (const listener of [...listeners]) {
      try {
        listener(value);
      } catch (error) {
        console.error(`switchboard: a ${channel} listener threw`, error);
      }
    }
  });
  return (listener) => {
    if (typeof listener !== 'function') throw new TypeError('listener must be a function');
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  };
}

const onMessage = listenerSet(CHANNELS.message);
const onStatus = listenerSet(CHANNELS.status);
const onAppCommand = listenerSet(CHANNELS.command);
const onAppSettings = listenerSet(CHANNELS.appSettings);

let connected = false;

const api = {
  /** Opens the connection to the hub (once per page; `onStatus` says `open`). */
  connect(): void {
    if (connected) return;
    connected = true;
    ipcRenderer.send(CHANNELS.connect);
  },
  /** One ClientMessage (src/ui-protocol/); main validates it before the hub sees it. */
  send(message: unknown): void {
    ipcRenderer.send(CHANNELS.send, message);
  },
  /** Every HubMessage; returns the unsubscribe function. */
  onMessage,
  /** 'open' once connected, 'closed' when the hub stops. */
  onStatus,
  /** What the person asked for outside the page: `{type:'watch', session}`, `{type:'settings'}`. */
  onAppCommand,
  /** The notification settings (src/ui-protocol/ NotificationSettings), on connect and after each change. */
  onAppSettings,
  /** Change some of them; main validates, writes app-preferences.json and sends back what holds. */
  setAppSettings(patch: unknown): void {
    ipcRenderer.send(CHANNELS.setAppSettings, patch);
  },
};

contextBridge.exposeInMainWorld(GLOBAL_NAME, api);
