/**
 * The menu-bar app's composition: the hub (started exactly as `switchboard serve` starts it),
 * the tray, the window, the IPC bridge and notifications, wired to each other. No business
 * logic: the person's actions go to the hub through a `UiBridge` (the class the WebSocket
 * and the window's IPC use), so they are validated and audited the same way.
 *
 * Focus rule (docs/design.md §5.3): the only path to showing anything is `showForPerson`, called
 * from a tray click, a notification click or a second launch. Hub events (sessions opening,
 * commands running, failing, waiting for input) only re-render the tray and maybe notify.
 */
import { app, clipboard, ipcMain, protocol } from 'electron';
import { configText, Hub, type HubStartOptions, type Logger, type UiBridge, defaultRendererDir } from '../src/hub/index.js';
import { UI_PROTOCOL_VERSION, type ClientMessage, type HubMessage } from '../src/ui-protocol/index.js';
import { serveApp } from './appProtocol.js';
import { IpcBridge, type AppCommand } from './ipc.js';
import { Notifier } from './notifications.js';
import { preloadPath, trayIconsDir } from './paths.js';
import { AppPreferencesStore, moveLegacyPreferences, notificationSettingsOf, type AppPreferences } from './preferences.js';
import { TrayController } from './tray.js';
import type { TrayAction } from './trayMenu.js';
import { MainWindow, type PersonReason } from './windows.js';

export interface SwitchboardAppOptions {
  stateDir: string;
  logger: Logger;
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  /** Hub endpoints (default: the socket and HTTP, as `serve`). */
  listen?: HubStartOptions['listen'];
  rendererDir?: string;
  iconsDir?: string;
  preload?: string;
}

type SessionAction = Extract<TrayAction, { type: 'takeOver' | 'handBack' | 'interrupt' | 'kill' | 'close' }>;

export class SwitchboardApp {
  readonly window: MainWindow;
  readonly tray: TrayController;
  readonly ipc: IpcBridge;
  readonly notifier: Notifier;
  private readonly trayBridge: UiBridge;
  private readonly subscriptions: { dispose(): void }[] = [];
  /** Tray requests awaiting the hub's `done`/`error`, by `req`. */
  private readonly pending = new Map<number, ClientMessage>();
  private nextReq = 1;
  private disposed = false;

  /**
   * The app's preferences first (an invalid file stops here, named), then the hub (settings.json,
   * its lock), then the preferences an earlier version kept in settings.json are moved out, under
   * the hub's lock and by the hub's writer; then the shell.
   */
  static async start(options: SwitchboardAppOptions): Promise<SwitchboardApp> {
    const preferences = new AppPreferencesStore(options.stateDir);
    preferences.read();
    const hub = await Hub.start({
      stateDir: options.stateDir,
      logger: options.logger,
      ...(options.env ? { env: options.env } : {}),
      ...(options.listen ? { listen: options.listen } : {}),
    });
    try {
      moveLegacyPreferences(preferences, hub.ui.settings, options.logger);
    } catch (error) {
      // Not fatal: whatever was not moved is still where it was, and the next start tries again.
      options.logger.warn(`preferences: not moved from settings.json yet: ${(error as Error).message}`);
    }
    try {
      return new SwitchboardApp(options, preferences, hub);
    } catch (error) {
      await hub.dispose().catch(() => undefined);
      throw error;
    }
  }

  private constructor(
    private readonly options: SwitchboardAppOptions,
    readonly preferences: AppPreferencesStore,
    readonly hub: Hub,
  ) {
    const logger = options.logger;
    serveApp(protocol, options.rendererDir ?? defaultRendererDir());
    this.window = new MainWindow({ preload: options.preload ?? preloadPath(), logger, platform: this.platform });
    this.ipc = new IpcBridge({
      ipcMain,
      host: hub.ui,
      windowContents: () => this.window.contents,
      logger,
      notificationSettings: notificationSettingsOf(preferences),
    });

    this.trayBridge = hub.ui.createBridge({ send: (message) => this.trayReply(message), channel: 'menu' });
    this.trayBridge.receive({ type: 'hello', protocol: UI_PROTOCOL_VERSION });

    this.notifier = new Notifier({
      enabled: () => this.safePreferences()?.notifications ?? false,
      longCommandMs: () => this.safePreferences()?.notifyAfterMs ?? 30_000,
      onClick: (session) => this.showForPerson('notification', { type: 'watch', session }),
      logger,
    });
    for (const session of hub.ui.list()) this.notifier.sessionChanged(session);

    this.tray = new TrayController({
      iconsDir: options.iconsDir ?? trayIconsDir(),
      sessions: () => hub.ui.list(),
      approvals: () => hub.ui.newApprovals(),
      remotes: () => hub.ui.remoteStatuses(),
      startAtLogin: () => this.startAtLogin(),
      onAction: (action) => this.handleTrayAction(action),
      settingsWaiting: () => hub.ui.settings.heldChange()?.changes.map((change) => change.text) ?? [],
      platform: this.platform,
    });
    this.tray.start();

    this.subscriptions.push(
      hub.ui.onDidChangeSession((id) => {
        this.tray.scheduleRender();
        const session = hub.ui.info(id);
        if (session) this.notifier.sessionChanged(session);
      }),
      hub.ui.onDidRemoveSession((id) => {
        this.tray.scheduleRender();
        this.notifier.sessionRemoved(id);
      }),
      hub.ui.settings.onDidChangeHeld(() => this.tray.scheduleRender()),
      // An agent's open waiting for the person: no session shows it, the menu does.
      hub.ui.onDidChangeApprovals(() => this.tray.scheduleRender()),
      // A remote connected or dropped (docs/design.md §4.7): its heading says so.
      hub.ui.onDidChangeRemotes(() => this.tray.scheduleRender()),
    );
    logger.info(`app: hub ready (state dir ${hub.stateDir}, port ${hub.port ?? 'none'})`);
  }

  private get platform(): NodeJS.Platform {
    return this.options.platform ?? process.platform;
  }

  /** The one way anything becomes visible: a person's action. */
  showForPerson(reason: PersonReason, command?: AppCommand): void {
    if (this.disposed) return;
    this.window.showForPerson(reason, command);
  }

  handleTrayAction(action: TrayAction): void {
    if (this.disposed) return;
    switch (action.type) {
      case 'open':
        return this.showForPerson('tray');
      case 'watch':
        return this.showForPerson('watch', { type: 'watch', session: action.session });
      case 'takeOver':
      case 'handBack':
      case 'interrupt':
      case 'kill':
      case 'close':
        return this.request(sessionMessage(action));
      case 'stopClient':
        return this.request({ type: 'stopClient', client: action.client, ...(action.host ? { host: action.host } : {}) });
      case 'answerApproval':
        return this.request({ type: 'answerApproval', id: action.approval, answer: action.answer });
      case 'newTerminal':
        return this.request({ type: 'openTerminal', cols: this.hub.settings.defaultCols, rows: this.hub.settings.defaultRows });
      case 'copyMcpConfig':
        // The entry in the host's own format: JSON, or TOML for Codex.
        clipboard.writeText(configText(action.host, this.options.env ?? process.env));
        this.options.logger.info(`app: MCP config for ${action.host} copied`);
        return;
      case 'settings':
        return this.showForPerson('settings', { type: 'settings' });
      case 'toggleStartAtLogin':
        return this.setStartAtLogin(!this.startAtLogin().enabled);
      case 'quit':
        app.quit();
        return;
    }
  }

  /** Closes the shell, then the hub: sessions closed, transcripts flushed, files released. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    for (const subscription of this.subscriptions) subscription.dispose();
    this.tray.dispose();
    this.notifier.dispose();
    this.ipc.dispose();
    this.window.close();
    this.trayBridge.dispose();
    await this.hub.dispose();
  }

  // ---- the person's requests through the tray's UiBridge ---------------------------------

  private request(message: ClientMessage): void {
    const req = this.nextReq++;
    this.pending.set(req, message);
    this.trayBridge.receive({ ...message, req });
  }

  private trayReply(message: HubMessage): void {
    if ((message.type !== 'done' && message.type !== 'error') || message.req === undefined) return;
    const request = this.pending.get(message.req);
    if (!request) return;
    this.pending.delete(message.req);
    if (message.type === 'error') {
      this.options.logger.warn(`tray: ${request.type} failed: ${message.code}: ${message.message}`);
      return;
    }
    // "New terminal" is the person asking for a terminal: show it to them.
    if (request.type === 'openTerminal' && message.session) {
      this.showForPerson('new-terminal', { type: 'watch', session: message.session });
    }
    this.tray.scheduleRender();
  }

  // ---- start at login ---------------------------------------------------------------------

  private loginItemsSupported(): boolean {
    return this.platform === 'darwin' || this.platform === 'win32';
  }

  private startAtLogin(): { enabled: boolean; supported: boolean } {
    const supported = this.loginItemsSupported();
    // The OS is the truth (the person may remove the login item in System Settings).
    const enabled = supported ? app.getLoginItemSettings().openAtLogin : (this.safePreferences()?.startAtLogin ?? false);
    return { enabled, supported };
  }

  /** The person's choice → the OS login item (macOS, Windows; opened hidden) and the app's preferences. */
  private setStartAtLogin(enabled: boolean): void {
    if (this.loginItemsSupported()) app.setLoginItemSettings({ openAtLogin: enabled, openAsHidden: true });
    try {
      this.preferences.update({ startAtLogin: enabled });
    } catch (error) {
      this.options.logger.warn(`preferences: ${(error as Error).message}`);
    }
    this.tray.render();
  }

  private safePreferences(): AppPreferences | undefined {
    try {
      return this.preferences.read();
    } catch (error) {
      this.options.logger.warn(`preferences: ${(error as Error).message}`);
      return undefined;
    }
  }
}

function sessionMessage(action: SessionAction): ClientMessage {
  return { type: action.type, session: action.session };
}
