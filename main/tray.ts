/**
 * The menu-bar icon and its menu: `trayMenu.ts` computes both from the hub's sessions; this
 * file only turns the model into Electron objects and reports clicks. Updating the icon or the
 * menu never shows, focuses or raises anything.
 *
 * Icons (assets/tray/, scripts/makeTrayIcons.mjs): on macOS `<state>Template.png` + `@2x`,
 * template images the system tints for light and dark menu bars; elsewhere `<state>.png`.
 */
import * as path from 'node:path';
import { Menu, Tray, nativeImage, type MenuItemConstructorOptions, type NativeImage } from 'electron';
import type { UiNewApproval, UiRemote, UiSession } from '../src/ui-protocol/index.js';
import { buildTrayMenu, trayIconState, trayToolTip, type MenuModel, type TrayAction, type TrayIconState } from './trayMenu.js';

interface TrayControllerOptions {
  iconsDir: string;
  /** The hub's sessions now (UiHost.list()). */
  sessions: () => UiSession[];
  /** Approvals no session shows yet (UiHost.newApprovals()): an agent's `open` waiting for the person. */
  approvals?: () => UiNewApproval[];
  /** The other machines and how each link is (UiHost.remoteStatuses()): the menu lists sessions by machine. */
  remotes?: () => UiRemote[];
  startAtLogin: () => { enabled: boolean; supported: boolean };
  onAction: (action: TrayAction) => void;
  /** The changes of a settings change that waits for the person (none: nothing waits). */
  settingsWaiting?: () => readonly string[];
  platform?: NodeJS.Platform;
  /** How often running times in the menu refresh while a command runs. */
  tickMs?: number;
  /** Change events within this window are folded into one rebuild. */
  debounceMs?: number;
}

/** The menu model as Electron's template; `run` gets the action of a clicked item. */
function toElectronTemplate(model: MenuModel, run: (action: TrayAction) => void): MenuItemConstructorOptions[] {
  return model.map((item): MenuItemConstructorOptions => {
    if (item.kind === 'separator') return { type: 'separator' };
    const options: MenuItemConstructorOptions = { id: item.id, label: item.label, enabled: item.enabled };
    if (item.checked !== undefined) {
      options.type = 'checkbox';
      options.checked = item.checked;
    }
    if (item.toolTip) options.toolTip = item.toolTip;
    if (item.submenu) options.submenu = toElectronTemplate(item.submenu, run);
    const action = item.action;
    if (action) options.click = () => run(action);
    return options;
  });
}

export class TrayController {
  private tray: Tray | undefined;
  private readonly icons = new Map<TrayIconState, NativeImage>();
  private iconState: TrayIconState | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private ticker: NodeJS.Timeout | undefined;
  private disposed = false;
  /** The last model shown (tests and diagnostics read it). */
  model: MenuModel = [];

  constructor(private readonly options: TrayControllerOptions) {}

  get state(): TrayIconState | undefined {
    return this.iconState;
  }

  start(): void {
    this.tray = new Tray(this.icon('idle'));
    this.iconState = 'idle';
    this.render();
  }

  /** A session changed: rebuild soon (changes come in bursts). */
  scheduleRender(): void {
    if (this.disposed || this.debounce) return;
    this.debounce = setTimeout(() => {
      this.debounce = undefined;
      this.render();
    }, this.options.debounceMs ?? 50);
    this.debounce.unref();
  }

  /** Rebuilds the icon, tooltip and menu from the hub's sessions now. */
  render(): void {
    const tray = this.tray;
    if (this.disposed || !tray) return;
    const sessions = this.options.sessions();
    const waiting = this.options.settingsWaiting?.() ?? [];
    const approvals = this.options.approvals?.() ?? [];
    // A settings change waiting for the person needs them as much as a session does.
    const state = waiting.length > 0 ? 'attention' : trayIconState(sessions, approvals);
    if (state !== this.iconState) {
      tray.setImage(this.icon(state));
      this.iconState = state;
    }
    const tip = trayToolTip(sessions, approvals);
    tray.setToolTip(waiting.length > 0 ? `${tip}; a settings change waits for you` : tip);
    const login = this.options.startAtLogin();
    const remotes = this.options.remotes?.() ?? [];
    this.model = buildTrayMenu(sessions, { startAtLogin: login.enabled, startAtLoginSupported: login.supported, settingsWaiting: waiting, approvals, remotes });
    tray.setContextMenu(Menu.buildFromTemplate(toElectronTemplate(this.model, (action) => this.options.onAction(action))));
    this.updateTicker(sessions);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    clearTimeout(this.debounce);
    clearInterval(this.ticker);
    this.tray?.destroy();
    this.tray = undefined;
  }

  /** Running times in the menu move on while something runs; nothing ticks when all is idle. */
  private updateTicker(sessions: UiSession[]): void {
    const running = sessions.some((s) => s.state === 'running' || s.state === 'awaiting_input');
    if (running && !this.ticker) {
      this.ticker = setInterval(() => this.render(), this.options.tickMs ?? 5_000);
      this.ticker.unref();
    } else if (!running && this.ticker) {
      clearInterval(this.ticker);
      this.ticker = undefined;
    }
  }

  private icon(state: TrayIconState): NativeImage {
    const cached = this.icons.get(state);
    if (cached) return cached;
    const mac = (this.options.platform ?? process.platform) === 'darwin';
    // nativeImage picks `@2x` beside the file by itself; the `Template` suffix marks a template.
    const image = nativeImage.createFromPath(path.join(this.options.iconsDir, mac ? `${state}Template.png` : `${state}.png`));
    if (mac) image.setTemplateImage(true);
    this.icons.set(state, image);
    return image;
  }
}

/**
 * The tray when the hub could not start (another hub holds the state dir, settings.json is
 * invalid): the attention icon, the reason, the log, Quit. Nothing is shown unasked.
 */
export function showStartupErrorTray(options: {
  iconsDir: string;
  message: string;
  logFile: string;
  openPath: (file: string) => void;
  quit: () => void;
  platform?: NodeJS.Platform;
}): Tray {
  const mac = (options.platform ?? process.platform) === 'darwin';
  const image = nativeImage.createFromPath(path.join(options.iconsDir, mac ? 'attentionTemplate.png' : 'attention.png'));
  if (mac) image.setTemplateImage(true);
  const tray = new Tray(image);
  tray.setToolTip('Switchboard could not start');
  const lines = options.message.match(/.{1,80}(\s|$)/g) ?? [options.message];
  tray.setContextMenu(
    Menu.buildFromTemplate([
      { id: 'startup-error', label: 'Switchboard could not start:', enabled: false },
      ...lines.map((line, i) => ({ id: `startup-error-${i}`, label: line.trim(), enabled: false })),
      { type: 'separator' },
      { id: 'open-log', label: 'Open log', click: () => options.openPath(options.logFile) },
      { id: 'quit', label: 'Quit Switchboard', click: () => options.quit() },
    ]),
  );
  return tray;
}
