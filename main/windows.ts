/**
 * The Switchboard window: the renderer's UI in a locked-down BrowserWindow, shown only when
 * the person asks (tray, Watch, a notification click, a second launch). This file is the only
 * place in the app that calls `show`, `focus` or `app.focus`, and only from `showForPerson`:
 * nothing an agent does reaches it (docs/design.md §5.3; test/unit/main/noFocusSteal.test.ts).
 *
 * The window is created on the person's first request and destroyed when they close it (its
 * viewers stop streaming); the app keeps running in the menu bar.
 */
import { BrowserWindow, app, type WebContents } from 'electron';
import type { Logger } from '../src/hub/index.js';
import { APP_URL, isAppBlobUrl, isAppUrl } from './appProtocol.js';
import { IPC_CHANNELS, type AppCommand } from './ipc.js';

/** Why the window is shown: always something the person did. */
export type PersonReason = 'tray' | 'watch' | 'settings' | 'new-terminal' | 'notification' | 'second-instance';

export interface MainWindowOptions {
  preload: string;
  logger: Logger;
  platform?: NodeJS.Platform;
}

/** The window's security settings (Electron's checklist); exported for the tests. */
export function secureWebPreferences(preload: string): Electron.WebPreferences {
  return {
    preload,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    navigateOnDragDrop: false,
    spellcheck: false,
    // No devtools in a packaged app: they would let a local attacker drive the hub's UI.
    devTools: !app.isPackaged,
  };
}

export class MainWindow {
  private window: BrowserWindow | undefined;
  private loaded = false;
  /** The page has painted once ('ready-to-show'): showing it now shows no blank window. */
  private painted = false;
  private revealWhenPainted = false;
  /** Commands for the page, delivered once it has loaded. */
  private pending: AppCommand[] = [];

  constructor(private readonly options: MainWindowOptions) {}

  /** The window's web contents, when a window exists (the IPC sender check compares it). */
  get contents(): WebContents | undefined {
    return this.window && !this.window.isDestroyed() ? this.window.webContents : undefined;
  }

  get exists(): boolean {
    return this.contents !== undefined;
  }

  /**
   * Shows (creating if needed) and focuses the window, then hands the page `command`. Only
   * call this from a person's action.
   */
  showForPerson(reason: PersonReason, command?: AppCommand): void {
    this.options.logger.info(`window: shown (${reason})`);
    const window = this.window && !this.window.isDestroyed() ? this.window : this.create();
    if (command) this.deliver(command);
    if (this.painted) this.reveal(window);
    else this.revealWhenPainted = true;
  }

  /** Hands the page a command without showing anything (dropped when no window exists). */
  deliver(command: AppCommand): void {
    const contents = this.contents;
    if (!contents) return;
    if (this.loaded) contents.send(IPC_CHANNELS.command, command);
    else this.pending.push(command);
  }

  private reveal(window: BrowserWindow): void {
    if (window.isMinimized()) window.restore();
    window.show();
    window.focus();
    // A menu-bar (LSUIElement) app is never active by itself: the person's click is what
    // brings it forward, so that its window takes the keyboard.
    if ((this.options.platform ?? process.platform) === 'darwin') app.focus({ steal: true });
  }

  close(): void {
    if (this.window && !this.window.isDestroyed()) this.window.destroy();
    this.window = undefined;
  }

  /**
   * The page downloads only what it made itself (a saved screenshot, a blob of our origin),
   * which gets the system's save dialog; anything else is cancelled. Once per session: every
   * window shares the default one.
   */
  private guardDownloads(session: Electron.Session): void {
    if (guardedSessions.has(session)) return;
    guardedSessions.add(session);
    session.on('will-download', (event, item) => {
      const url = item.getURL();
      if (isAppBlobUrl(url)) return;
      event.preventDefault();
      this.options.logger.warn(`window: blocked a download from ${safeOrigin(url)}`);
    });
  }

  private create(): BrowserWindow {
    const window = new BrowserWindow({
      title: 'Switchboard',
      width: 1100,
      height: 720,
      minWidth: 560,
      minHeight: 360,
      // Never shown on creation: showForPerson shows it once it has painted.
      show: false,
      backgroundColor: '#1e1e1e',
      autoHideMenuBar: true,
      webPreferences: secureWebPreferences(this.options.preload),
    });
    this.window = window;
    this.loaded = false;
    this.painted = false;
    this.revealWhenPainted = false;
    window.once('ready-to-show', () => {
      this.painted = true;
      if (this.revealWhenPainted && this.window === window) this.reveal(window);
    });
    const contents = window.webContents;

    // No navigation away from the UI, no new windows, no <webview>, no permissions.
    contents.on('will-navigate', (event, url) => {
      if (url !== contents.getURL()) {
        event.preventDefault();
        this.options.logger.warn(`window: blocked navigation to ${safeOrigin(url)}`);
      }
    });
    contents.on('will-redirect', (event, url) => {
      if (!isAppUrl(url)) event.preventDefault();
    });
    contents.setWindowOpenHandler(({ url }) => {
      this.options.logger.warn(`window: blocked a new window for ${safeOrigin(url)}`);
      return { action: 'deny' };
    });
    contents.on('will-attach-webview', (event) => event.preventDefault());
    contents.session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
    contents.session.setPermissionCheckHandler(() => false);
    this.guardDownloads(contents.session);

    contents.on('did-finish-load', () => {
      this.loaded = true;
      const pending = this.pending;
      this.pending = [];
      for (const command of pending) contents.send(IPC_CHANNELS.command, command);
    });
    contents.on('render-process-gone', (_event, details) => {
      this.options.logger.warn(`window: renderer gone (${details.reason}); it reloads when next opened`);
      this.close();
    });
    window.on('closed', () => {
      if (this.window === window) {
        this.window = undefined;
        this.loaded = false;
        this.painted = false;
        this.pending = [];
      }
    });
    void window.loadURL(APP_URL).catch((error: unknown) => this.options.logger.error(`window: cannot load the UI: ${(error as Error).message}`));
    return window;
  }
}

const guardedSessions = new WeakSet<Electron.Session>();

function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(unparsable url)';
  }
}
