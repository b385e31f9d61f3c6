/**
 * The person's side of Switchboard (DESIGN §5): the session list, tabs of live terminals, the
 * controls (take over, hand back, interrupt, kill, close), the status line and the command
 * timeline. Everything goes through a `Bridge`; the page holds no authority of its own — the
 * hub enforces who may type.
 */
import {
  MAX_INPUT_CHARS,
  UI_PROTOCOL_VERSION,
  type AppCommand,
  type ClientMessage,
  type HubMessage,
  type NotificationSettings,
  type UiCommandRecord,
  type UiSession,
} from '../../src/ui-protocol.js';
import type { Bridge, ConnectionStatus } from './bridge.js';
import { confirmDialog } from './dialog.js';
import { clear, h, icon } from './dom.js';
import { creatorDetail, creatorName, isAgentSession, isNeedsYou, runningMs, sessionTitle, tabLabel, stateBadge, type SessionEntry } from './sessionFormat.js';
import { loadPrefs, pageStorage, savePrefs, type Prefs } from './prefs.js';
import { SessionList } from './sessionList.js';
import { SettingsView } from './settingsView.js';
import type { HubSettingsMessage } from './hubSettingsView.js';
import { StatusLine } from './statusLine.js';
import { PreloadBridge, type PreloadApi } from './preloadBridge.js';
import { measureCell, TerminalView } from './terminalView.js';
import { ThemeController } from './theme.js';
import { Timeline } from './timeline.js';
import { WebSocketBridge } from './webSocketBridge.js';

type Welcome = Extract<HubMessage, { type: 'welcome' }>;

/** Tabs opened by themselves when the page (re)loads with live sessions. */
const MAX_AUTO_TABS = 12;
const TOAST_MS = 6_000;
/** The longest a redraw waits for a pressed mouse button to come up. */
const PRESS_DEFER_MS = 1_000;

/** One tab of the strip and the parts of it that change (renderTabs). */
interface TabElements {
  root: HTMLElement;
  dot: HTMLElement;
  label: HTMLElement;
  flag: HTMLElement;
  needs: HTMLElement;
}

function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`index.html lacks #${id}`);
  return element as T;
}

export class App {
  private readonly sessions = new Map<string, SessionEntry>();
  private readonly records = new Map<string, UiCommandRecord[]>();
  private readonly views = new Map<string, TerminalView>();
  private tabs: string[] = [];
  private active: string | null = null;
  /** Sessions seen before: a tab the person closed is not reopened by itself. */
  private readonly seen = new Set<string>();
  /** Keys typed into an agent tab while its take over is on its way. */
  private readonly pendingInput = new Map<string, string[]>();
  private welcome: Welcome | null = null;
  private status: ConnectionStatus = 'connecting';
  private listReceived = false;
  private prefs = loadPrefs(pageStorage());
  private renderQueued = false;
  /** When a mouse button went down, while it is down; a redraw asked for meanwhile is deferred. */
  private pressedAt: number | null = null;
  private renderDeferred = false;
  private deferTimer: ReturnType<typeof setTimeout> | undefined;
  /** What the session bar and the banner show now (see renderSessionBar). */
  private sessionBar: {
    key: string | null;
    view: TerminalView | undefined;
    pill?: HTMLElement;
    name?: HTMLElement;
    badge?: HTMLElement;
    actions?: HTMLElement;
    actionsKey?: string;
  } = {
    key: 'not rendered yet',
    view: undefined,
  };
  private bannerKey = '';
  private readonly tabElements = new Map<string, TabElements>();
  private searchQuery = '';
  /** A session the person asked to watch (tray, notification) before the page listed it. */
  private watchWhenListed: string | null = null;
  /** The app's notification settings (the Electron window only; null in a browser). */
  private notificationSettings: NotificationSettings | null = null;
  /** The hub's settings as it last told them (asked for when the settings page opens). */
  private hubSettings: HubSettingsMessage | null = null;
  /** The hub's answer to the last refused change, shown on the settings page until the next change. */
  private hubSettingsError: string | null = null;
  /** A settings render waits for the person to leave the field they are typing in. */
  private settingsRenderWaits = false;

  private readonly theme = new ThemeController((theme) => {
    for (const view of this.views.values()) view.setTheme(theme);
    this.renderTopbar();
  });
  private readonly sessionList: SessionList;
  private readonly timeline: Timeline;
  private readonly statusLine: StatusLine;
  private readonly settingsView: SettingsView;

  private readonly el = {
    app: byId('app'),
    conn: byId('conn'),
    tabs: byId('tabs'),
    sessionBar: byId('session-bar'),
    banner: byId('banner'),
    terminals: byId('terminals'),
    empty: byId('empty'),
    timeline: byId('timeline'),
    status: byId('statusline'),
    settings: byId('settings'),
    toasts: byId('toasts'),
    newTerminal: byId<HTMLButtonElement>('new-terminal'),
    themeToggle: byId<HTMLButtonElement>('theme-toggle'),
    openSettings: byId<HTMLButtonElement>('open-settings'),
  };

  constructor(private readonly bridge: Bridge) {
    this.sessionList = new SessionList(byId('sidebar'), {
      onOpen: (id) => this.openTab(id, true),
      onGroupMode: (mode) => this.setPrefs({ groupMode: mode }),
    });
    this.timeline = new Timeline(this.el.timeline, (record) => this.scrollToCommand(record));
    this.statusLine = new StatusLine(this.el.status);
    this.settingsView = new SettingsView(this.el.settings, {
      onTheme: (preference) => {
        this.theme.setPreference(preference);
        this.renderSettings();
      },
      onFontSize: (px) => {
        this.setPrefs({ fontSize: px });
        for (const view of this.views.values()) view.setBaseFontSize(px);
      },
      onGroupMode: (mode) => this.setPrefs({ groupMode: mode }),
      onConfirmTakeOver: (ask) => this.setPrefs({ confirmTakeOver: ask }),
      onNotificationSettings: (patch) => this.bridge.setNotificationSettings?.(patch),
      onHubSetting: (key, value) => {
        this.hubSettingsError = null;
        this.send({ type: 'setSettings', changes: { [key]: value } });
      },
      onRotateToken: () => void this.rotateToken(),
      onClose: () => this.showSettings(false),
    });

    this.el.newTerminal.addEventListener('click', () => this.newTerminal());
    this.el.themeToggle.addEventListener('click', () => this.theme.toggle());
    this.el.openSettings.addEventListener('click', () => this.showSettings(this.el.settings.hidden));
    document.addEventListener('keydown', (event) => this.onGlobalKey(event));
    // Redraws wait while a mouse button is down (see scheduleRender).
    document.addEventListener('pointerdown', () => (this.pressedAt = performance.now()), true);
    for (const type of ['pointerup', 'pointercancel'] as const) document.addEventListener(type, () => this.released(), true);
    window.addEventListener('blur', () => this.released());

    bridge.onStatus((status) => this.onStatus(status));
    bridge.onMessage((message) => this.onMessage(message));
    bridge.onAppCommand?.((command) => this.onAppCommand(command));
    bridge.onNotificationSettings?.((settings) => {
      this.notificationSettings = settings;
      if (!this.el.settings.hidden) this.renderSettings();
    });
    setInterval(() => this.tick(), 1_000);
    this.renderTopbar();
    this.render();
    bridge.connect();
  }

  // ---- hub messages -----------------------------------------------------------------------------

  private send(message: ClientMessage): void {
    this.bridge.send(message);
  }

  private onStatus(status: ConnectionStatus): void {
    this.status = status;
    if (status === 'open') {
      this.send({ type: 'hello', protocol: UI_PROTOCOL_VERSION });
      for (const id of this.tabs) this.send({ type: 'subscribe', session: id });
      if (!this.el.settings.hidden) this.send({ type: 'getSettings' });
    }
    this.renderTopbar();
  }

  private onMessage(message: HubMessage): void {
    switch (message.type) {
      case 'welcome':
        this.welcome = message;
        if (!this.el.settings.hidden) this.renderSettings();
        break;
      case 'sessions': {
        const ids = new Set(message.sessions.map((session) => session.id));
        for (const id of [...this.sessions.keys()]) if (!ids.has(id)) this.removeSession(id);
        const firstList = !this.listReceived;
        this.listReceived = true;
        let opened = 0;
        for (const session of message.sessions) {
          const isNew = !this.seen.has(session.id);
          this.upsertSession(session);
          // First list: open live sessions (a few); after a reconnect: the ones that appeared meanwhile.
          if (isNew && session.state !== 'exited' && (!firstList || opened < MAX_AUTO_TABS)) {
            this.openTab(session.id, false);
            opened += 1;
          }
        }
        break;
      }
      case 'sessionChanged': {
        const isNew = !this.seen.has(message.session.id);
        this.upsertSession(message.session);
        // A new session appears as a tab without taking the person's focus.
        if (isNew && message.session.state !== 'exited') this.openTab(message.session.id, false);
        break;
      }
      case 'sessionRemoved':
        this.removeSession(message.id);
        break;
      case 'snapshot':
        this.views.get(message.session)?.applySnapshot(message);
        if (message.session === this.active) this.scheduleRender();
        break;
      case 'frame': {
        const view = this.views.get(message.session);
        if (!view) break;
        view.applyFrame(message);
        if (message.session !== this.active) this.markActivity(message.session);
        break;
      }
      case 'behind':
        this.views.get(message.session)?.behind();
        break;
      case 'commands':
        this.records.set(message.session, [...message.records].sort((a, b) => a.seq - b.seq));
        if (message.session === this.active) this.scheduleRender();
        break;
      case 'command': {
        const list = this.records.get(message.session) ?? [];
        const at = list.findIndex((record) => record.seq === message.record.seq);
        if (at >= 0) list[at] = message.record;
        else list.push(message.record);
        this.records.set(message.session, list);
        if (message.session === this.active) this.scheduleRender();
        break;
      }
      case 'tokenRotated':
        this.toast('The hub’s token was replaced: HTTP clients need the new one from the state directory.', 'info');
        break;
      case 'hubSettings':
        this.hubSettings = message;
        if (!this.el.settings.hidden) this.renderSettings();
        break;
      case 'done':
        this.onDone(message);
        break;
      case 'error':
        this.onError(message);
        break;
    }
  }

  /** The person asked for something outside the page (the Electron window's tray, a notification). */
  private onAppCommand(command: AppCommand): void {
    if (command.type === 'settings') return this.showSettings(true);
    this.showSettings(false);
    if (this.sessions.has(command.session)) {
      this.watchWhenListed = null;
      this.openTab(command.session, true);
    } else {
      // A terminal just opened from the tray: main's command can arrive before the hub's list.
      this.watchWhenListed = command.session;
    }
  }

  private onDone(message: Extract<HubMessage, { type: 'done' }>): void {
    if (message.for === 'openTerminal' && message.session) {
      this.seen.add(message.session);
      this.openTab(message.session, true);
    } else if (message.for === 'takeOver' && message.session) {
      this.flushPendingInput(message.session);
    } else if (message.for === 'kill' && message.session) {
      this.toast(message.ended_by ? `Stopped by ${message.ended_by}.` : 'Nothing was running.', 'info');
    }
  }

  private onError(message: Extract<HubMessage, { type: 'error' }>): void {
    if (message.for === 'takeOver' && message.session) this.pendingInput.delete(message.session);
    if (message.for === 'ack') return;
    if (message.for === 'setSettings' || message.for === 'getSettings') {
      // Shown on the page, where the refused control goes back to the saved value.
      this.hubSettingsError = message.message;
      if (!this.el.settings.hidden) return this.renderSettings();
    }
    this.toast(`${message.code}: ${message.message}`, 'error');
  }

  private upsertSession(info: UiSession): void {
    const previous = this.sessions.get(info.id)?.info;
    this.seen.add(info.id);
    this.sessions.set(info.id, { info, receivedAt: performance.now() });
    const view = this.views.get(info.id);
    if (view) {
      view.setSessionSize(info.cols, info.rows);
      const mode = info.controller === 'user' && info.state !== 'exited' ? 'fit' : 'watch';
      view.setMode(mode);
      // Taking over: the person's tab size wins.
      if (mode === 'fit' && previous?.controller === 'agent' && info.id === this.active) view.sendFittedSize();
    }
    if (info.controller === 'user') this.flushPendingInput(info.id);
    if (this.watchWhenListed === info.id) {
      this.watchWhenListed = null;
      this.openTab(info.id, true);
    }
    this.scheduleRender();
  }

  private removeSession(id: string): void {
    this.sessions.delete(id);
    this.records.delete(id);
    this.pendingInput.delete(id);
    this.closeTab(id, false);
    this.scheduleRender();
  }

  // ---- tabs -----------------------------------------------------------------------------------

  private openTab(id: string, activate: boolean): void {
    const entry = this.sessions.get(id);
    if (!entry) return;
    if (!this.views.has(id)) {
      const view = new TerminalView({
        sessionId: id,
        theme: this.theme.theme,
        fontSize: this.prefs.fontSize,
        ackEvery: this.welcome?.flow.ackEvery ?? 5_000,
        send: (message) => this.send(message),
        onUserData: (data) => void this.onUserData(id, data),
        onNeedsResync: () => {
          this.send({ type: 'unsubscribe', session: id });
          this.send({ type: 'subscribe', session: id });
        },
        onSearchKey: () => this.focusSearch(),
      });
      view.setSessionSize(entry.info.cols, entry.info.rows);
      view.setMode(entry.info.controller === 'user' && entry.info.state !== 'exited' ? 'fit' : 'watch');
      view.setVisible(false);
      this.el.terminals.append(view.element);
      this.views.set(id, view);
      this.tabs.push(id);
      if (this.status === 'open') this.send({ type: 'subscribe', session: id });
    }
    if (activate || this.active === null) this.activate(id, activate);
    else this.scheduleRender();
  }

  private closeTab(id: string, unsubscribe = true): void {
    const view = this.views.get(id);
    if (!view) return;
    if (unsubscribe) this.send({ type: 'unsubscribe', session: id });
    view.dispose();
    this.views.delete(id);
    const index = this.tabs.indexOf(id);
    this.tabs.splice(index, 1);
    if (this.active === id) {
      const next = this.tabs[Math.min(index, this.tabs.length - 1)] ?? null;
      this.active = null;
      if (next) this.activate(next, false);
    }
    this.scheduleRender();
  }

  private activate(id: string, focus: boolean): void {
    this.active = id;
    for (const [viewId, view] of this.views) view.setVisible(viewId === id);
    this.el.tabs.querySelector(`[data-tab="${CSS.escape(id)}"]`)?.classList.remove('activity');
    const view = this.views.get(id);
    if (view && this.searchQuery) view.clearSearch();
    this.searchQuery = '';
    this.render();
    if (focus) view?.focus();
  }

  private markActivity(id: string): void {
    this.el.tabs.querySelector(`[data-tab="${CSS.escape(id)}"]`)?.classList.add('activity');
  }

  // ---- the person's actions -------------------------------------------------------------------

  private async onUserData(id: string, data: string): Promise<void> {
    const info = this.sessions.get(id)?.info;
    if (!info || info.state === 'exited') return;
    if (info.controller === 'user') {
      this.sendInput(id, data);
      return;
    }
    const pending = this.pendingInput.get(id);
    if (pending) {
      pending.push(data);
      return;
    }
    if (this.prefs.confirmTakeOver) {
      const answer = await confirmDialog({
        title: 'Take over this session?',
        body: `The agent's writes will be refused until you hand it back. ${creatorName(info)} keeps reading the screen.`,
        confirm: 'Take over',
        rememberLabel: 'Don’t ask again',
      });
      if (!answer.ok) return;
      if (answer.remember) this.setPrefs({ confirmTakeOver: false });
    }
    const current = this.sessions.get(id)?.info;
    if (current?.controller === 'user') {
      this.sendInput(id, data);
      return;
    }
    this.pendingInput.set(id, [data]);
    this.send({ type: 'takeOver', session: id });
    this.views.get(id)?.focus();
  }

  private flushPendingInput(id: string): void {
    const pending = this.pendingInput.get(id);
    if (!pending || this.sessions.get(id)?.info.controller !== 'user') return;
    this.pendingInput.delete(id);
    this.sendInput(id, pending.join(''));
  }

  private sendInput(id: string, data: string): void {
    for (let at = 0; at < data.length; at += MAX_INPUT_CHARS) this.send({ type: 'input', session: id, data: data.slice(at, at + MAX_INPUT_CHARS) });
  }

  private takeOver(id: string): void {
    this.send({ type: 'takeOver', session: id });
    this.views.get(id)?.focus();
  }

  private async closeSession(id: string): Promise<void> {
    const info = this.sessions.get(id)?.info;
    if (!info) return;
    if (info.state !== 'exited') {
      const answer = await confirmDialog({
        title: 'Close this session?',
        body: `The shell and everything still running in it end now${isAgentSession(info) ? `; ${creatorName(info)} will get SESSION_NOT_FOUND if it uses it again` : ''}.`,
        confirm: 'Close session',
        danger: true,
      });
      if (!answer.ok) return;
    }
    this.send({ type: 'close', session: id });
  }

  private newTerminal(): void {
    const area = this.el.terminals.getBoundingClientRect();
    const cell = measureCell(1.15);
    const cols = Math.floor((area.width - 20) / (cell.width * this.prefs.fontSize));
    const rows = Math.floor((area.height - 16) / (cell.height * this.prefs.fontSize));
    this.send({
      type: 'openTerminal',
      cols: Math.max(20, Math.min(1000, cols || 100)),
      rows: Math.max(5, Math.min(500, rows || 30)),
    });
  }

  private scrollToCommand(record: UiCommandRecord): void {
    const view = this.active ? this.views.get(this.active) : undefined;
    if (view && !view.scrollToCommand(record)) this.toast('That command is no longer in the scrollback.', 'info');
  }

  private onGlobalKey(event: KeyboardEvent): void {
    const mod = event.ctrlKey || event.metaKey;
    if (mod && event.shiftKey && event.key.toLowerCase() === 'f') {
      event.preventDefault();
      this.focusSearch();
    } else if (event.key === 'Escape' && !this.el.settings.hidden) {
      this.showSettings(false);
    }
  }

  private setPrefs(patch: Partial<Prefs>): void {
    this.prefs = { ...this.prefs, ...patch };
    savePrefs(pageStorage(), this.prefs);
    this.render();
    if (!this.el.settings.hidden) this.renderSettings();
  }

  private async rotateToken(): Promise<void> {
    const answer = await confirmDialog({
      title: 'Replace the token?',
      body: 'MCP clients that connect over HTTP with the current token, and bookmarked addresses with it, stop working until they get the new one from the state directory. Agents on the shim (switchboard mcp) and this page carry on.',
      confirm: 'Replace',
      danger: true,
    });
    if (answer.ok) this.send({ type: 'rotateToken' });
  }

  private showSettings(show: boolean): void {
    this.el.settings.hidden = !show;
    this.el.openSettings.classList.toggle('on', show);
    if (!show) return;
    this.hubSettingsError = null;
    if (this.status === 'open') this.send({ type: 'getSettings' });
    this.renderSettings();
  }

  private renderSettings(): void {
    // A field the person is typing in is not swept away by a render (another window saved a
    // setting, a theme change): the render waits until they leave it. `data-shown` is what
    // the field showed or sent last (hubSettingsView.ts).
    const typing = document.activeElement;
    if ((typing instanceof HTMLInputElement || typing instanceof HTMLTextAreaElement) && this.el.settings.contains(typing) && typing.dataset.shown !== undefined && typing.value !== typing.dataset.shown) {
      if (!this.settingsRenderWaits) {
        this.settingsRenderWaits = true;
        typing.addEventListener(
          'blur',
          () => {
            this.settingsRenderWaits = false;
            if (!this.el.settings.hidden) this.renderSettings();
          },
          { once: true },
        );
      }
      return;
    }
    this.settingsView.render(
      { theme: this.theme.preference, fontSize: this.prefs.fontSize, groupMode: this.prefs.groupMode, confirmTakeOver: this.prefs.confirmTakeOver },
      this.welcome,
      this.notificationSettings,
      this.hubSettings,
      this.hubSettingsError,
    );
  }

  // ---- rendering --------------------------------------------------------------------------------

  /**
   * Redraws the chrome on the next animation frame, unless a mouse button is down: a redraw
   * replaces the tabs and sidebar rows, and a click whose press and release land on two
   * different elements never fires. With agents at work sessions change many times a second,
   * so the redraw waits for the release (at most PRESS_DEFER_MS, in case it never comes).
   */
  private scheduleRender(): void {
    if (this.renderQueued) return;
    this.renderQueued = true;
    requestAnimationFrame(() => {
      this.renderQueued = false;
      const pressedFor = this.pressedAt === null ? null : performance.now() - this.pressedAt;
      if (pressedFor !== null && pressedFor < PRESS_DEFER_MS) {
        this.renderDeferred = true;
        this.deferTimer ??= setTimeout(() => {
          this.deferTimer = undefined;
          this.flushDeferred();
        }, PRESS_DEFER_MS - pressedFor + 1);
        return;
      }
      this.render();
    });
  }

  /** The button came up: the click, if any, has fired. */
  private released(): void {
    this.pressedAt = null;
    this.flushDeferred();
  }

  /** A redraw deferred for a pressed button goes now (the button came up, or was held too long). */
  private flushDeferred(): void {
    if (!this.renderDeferred) return;
    this.renderDeferred = false;
    this.scheduleRender();
  }

  private tick(): void {
    this.sessionList.tick();
    this.statusLine.tick();
    this.timeline.tick();
    for (const element of document.querySelectorAll<HTMLElement>('[data-running]')) {
      const entry = this.sessions.get(element.dataset.running ?? '');
      if (entry) element.textContent = stateBadge(entry, performance.now()).text;
    }
  }

  private renderTopbar(): void {
    clear(this.el.conn);
    const label = this.status === 'open' ? 'connected' : this.status === 'connecting' ? 'connecting…' : 'disconnected — reconnecting…';
    this.el.conn.className = `conn conn-${this.status}`;
    this.el.conn.append(h('span', { class: 'conn-dot' }), label);
    this.el.conn.title = this.status === 'open' ? `Hub ${this.welcome?.version ?? ''}` : 'The page reconnects by itself.';
    clear(this.el.themeToggle);
    this.el.themeToggle.append(icon(this.theme.theme === 'dark' ? 'sun' : 'moon'));
    this.el.themeToggle.title = this.theme.theme === 'dark' ? 'Light theme' : 'Dark theme';
    this.el.app.dataset.connection = this.status;
  }

  private render(): void {
    const entries = [...this.sessions.values()];
    this.sessionList.render(entries, this.prefs.groupMode, this.active, new Set(this.tabs));
    this.renderTabs();
    const entry = this.active ? (this.sessions.get(this.active) ?? null) : null;
    const view = this.active ? this.views.get(this.active) : undefined;
    this.renderSessionBar(entry);
    this.renderBanner(entry);
    this.renderEmpty(entries.length === 0, entry === null);
    this.el.app.classList.toggle('timeline-closed', !this.prefs.timelineOpen || !entry);
    if (entry) {
      const info = entry.info;
      const running = info.state === 'running' || info.state === 'awaiting_input' ? info.command : null;
      this.timeline.render(this.records.get(info.id) ?? [], running ? { command: running, startedAt: Date.now() - runningMs(entry, performance.now()) } : null);
      this.statusLine.render(entry, view ? { mode: view.mode, ...view.fontSizes } : null);
    } else {
      this.timeline.render([], null);
      this.statusLine.render(null, null);
    }
  }

  /**
   * The tab strip, keyed by session: a tab is created once and updated in place, so the one
   * under the pointer (its tooltip, a press on it) or in focus stays the same element while
   * agents change their sessions.
   */
  private renderTabs(): void {
    const shown = new Set<string>();
    let before: Element | null = this.el.tabs.firstElementChild;
    for (const id of this.tabs) {
      const entry = this.sessions.get(id);
      if (!entry) continue;
      shown.add(id);
      let tab = this.tabElements.get(id);
      if (!tab) {
        tab = this.createTab(id);
        this.tabElements.set(id, tab);
      }
      this.updateTab(tab, entry);
      if (tab.root !== before) this.el.tabs.insertBefore(tab.root, before);
      before = tab.root.nextElementSibling;
    }
    for (const [id, tab] of this.tabElements) {
      if (shown.has(id)) continue;
      tab.root.remove();
      this.tabElements.delete(id);
    }
  }

  private createTab(id: string): TabElements {
    const dot = h('span', { class: 'dot' });
    const label = h('span', { class: 'tab-label' });
    const flag = h('span', { class: 'tab-flag', title: 'You control this session' }, '⌨');
    const needs = h('span', { class: 'tab-needs' }, 'needs you');
    const root = h(
      'div',
      {
        role: 'tab',
        'data-tab': id,
        onmousedown: (event: Event) => {
          if ((event as MouseEvent).button === 1) {
            event.preventDefault();
            this.closeTab(id);
          }
        },
        onclick: () => this.activate(id, true),
      },
      dot,
      label,
      flag,
      needs,
      h(
        'button',
        {
          class: 'tab-close',
          type: 'button',
          title: 'Close the tab (the session keeps running)',
          'aria-label': 'Close tab',
          onclick: (event: Event) => {
            event.stopPropagation();
            this.closeTab(id);
          },
        },
        icon('x'),
      ),
    );
    return { root, dot, label, flag, needs };
  }

  private updateTab(tab: TabElements, entry: SessionEntry): void {
    const info = entry.info;
    const id = info.id;
    const badge = stateBadge(entry, performance.now());
    const active = id === this.active;
    // Activity (output while behind another tab) is marked by markActivity and cleared when shown.
    const activity = !active && tab.root.classList.contains('activity');
    tab.root.className = `tab tone-${badge.tone}${active ? ' active' : ''}${activity ? ' activity' : ''}${isAgentSession(info) ? ' agent' : ' user'}`;
    tab.root.setAttribute('aria-selected', active ? 'true' : 'false');
    tab.root.title = `${creatorDetail(info)} · ${info.cwd ?? ''}`;
    tab.dot.className = `dot tone-${badge.tone}`;
    tab.label.textContent = tabLabel(info);
    tab.flag.hidden = !(info.controller === 'user' && isAgentSession(info));
    tab.needs.hidden = !isNeedsYou(info);
  }

  /**
   * The bar over the terminal. The search box is built once per session shown; the buttons
   * only when they change (exit, control, the timeline toggle); the title and state badge are
   * updated in place. Rebuilt on every session update (an agent's every command), they were
   * replaced under the person: a click whose mouse-up landed on the new button was lost, and
   * the search box lost focus while they typed (also when the session ended meanwhile).
   */
  private renderSessionBar(entry: SessionEntry | null): void {
    const info = entry?.info;
    const view = info ? this.views.get(info.id) : undefined;
    const key = info?.id ?? null;
    if (key !== this.sessionBar.key || view !== this.sessionBar.view) this.buildSessionBar(entry, key, view);
    const { pill, name, badge, actions } = this.sessionBar;
    if (!entry || !info || !pill || !name || !badge || !actions) return;
    const actionsKey = JSON.stringify([info.state === 'exited', info.controller, isAgentSession(info), this.prefs.timelineOpen]);
    if (actionsKey !== this.sessionBar.actionsKey) {
      this.sessionBar.actionsKey = actionsKey;
      clear(actions);
      actions.append(...this.sessionActions(info));
    }
    const state = stateBadge(entry, performance.now());
    pill.textContent = isAgentSession(info) ? creatorName(info) : 'You';
    pill.title = creatorDetail(info);
    name.textContent = sessionTitle(info);
    name.title = info.id;
    badge.className = `badge tone-${state.tone}`;
    badge.title = state.title;
    badge.textContent = state.text;
    // `tick` keeps a running badge's clock.
    if (info.state === 'running') badge.dataset.running = info.id;
    else delete badge.dataset.running;
  }

  private buildSessionBar(entry: SessionEntry | null, key: string | null, view: TerminalView | undefined): void {
    this.sessionBar = { key, view };
    clear(this.el.sessionBar);
    this.el.sessionBar.hidden = !entry;
    if (!entry) return;
    const search = h('input', {
      class: 'search-input',
      type: 'search',
      placeholder: 'Search scrollback',
      'aria-label': 'Search scrollback',
      value: this.searchQuery,
      'data-role': 'search',
    });
    const searchCount = h('span', { class: 'search-count' });
    search.addEventListener('input', () => {
      this.searchQuery = search.value;
      if (!view) return;
      if (search.value) view.findNext(search.value, true);
      else {
        view.clearSearch();
        searchCount.textContent = '';
      }
    });
    search.addEventListener('keydown', (event) => {
      if (!view) return;
      if (event.key === 'Enter') {
        event.preventDefault();
        if (event.shiftKey) view.findPrevious(search.value);
        else view.findNext(search.value);
      } else if (event.key === 'Escape') {
        search.value = '';
        this.searchQuery = '';
        view.clearSearch();
        searchCount.textContent = '';
        view.focus();
      }
    });
    if (view) {
      const subscription = view.onSearchResults((index, count) => {
        if (!search.isConnected) {
          subscription.dispose();
          return;
        }
        searchCount.textContent = count === 0 ? (search.value ? 'no match' : '') : `${index + 1}/${count}`;
      });
    }

    const agent = isAgentSession(entry.info);
    const pill = h('span', { class: `creator-pill ${agent ? 'agent' : 'user'}` });
    const name = h('span', { class: 'sb-name' });
    const badge = h('span', { class: 'badge' });
    const actions = h('div', { class: 'sb-actions' });
    this.sessionBar = { key, view, pill, name, badge, actions };
    this.el.sessionBar.append(
      h('div', { class: 'sb-title' }, pill, name, badge),
      h(
        'div',
        { class: 'sb-search' },
        icon('search'),
        search,
        searchCount,
        h('button', { class: 'icon-btn small', type: 'button', title: 'Previous match (Shift+Enter)', onclick: () => view?.findPrevious(search.value) }, icon('up')),
        h('button', { class: 'icon-btn small', type: 'button', title: 'Next match (Enter)', onclick: () => view?.findNext(search.value) }, icon('down')),
      ),
      actions,
    );
  }

  /** The bar's buttons for the session as it is now (renderSessionBar rebuilds them when that changes). */
  private sessionActions(info: SessionEntry['info']): HTMLElement[] {
    const live = info.state !== 'exited';
    const agent = isAgentSession(info);
    const userControls = info.controller === 'user';
    const button = (action: string, label: string, iconName: string, onclick: () => void, extra = '', disabled = false, title = ''): HTMLButtonElement =>
      h('button', { class: `btn ${extra}`, type: 'button', 'data-action': action, disabled, title, onclick }, icon(iconName), label);
    return [
      userControls
        ? button('hand-back', agent ? 'Hand back' : 'Hand to agents', 'hand', () => this.send({ type: 'handBack', session: info.id }), '', !live, agent ? 'Give the keyboard back to the agent' : 'Let agents type into this session of yours')
        : button('take-over', 'Take over', 'keyboard', () => this.takeOver(info.id), 'accent', !live, 'Take the keyboard: agent writes are refused until you hand back'),
      button('interrupt', 'Interrupt', 'stop', () => this.send({ type: 'interrupt', session: info.id }), '', !live, 'Send Ctrl-C'),
      button('kill', 'Kill', 'bolt', () => this.send({ type: 'kill', session: info.id }), '', !live, 'Stop the foreground program: SIGINT, then SIGTERM, then SIGKILL'),
      button('close', 'Close', 'trash', () => void this.closeSession(info.id), 'danger-quiet', false, 'End the session and everything in it'),
      h(
        'button',
        {
          class: `icon-btn${this.prefs.timelineOpen ? ' on' : ''}`,
          type: 'button',
          title: this.prefs.timelineOpen ? 'Hide the command timeline' : 'Show the command timeline',
          'data-action': 'toggle-timeline',
          onclick: () => this.setPrefs({ timelineOpen: !this.prefs.timelineOpen }),
        },
        icon('list'),
      ),
    ];
  }

  /** The banner over the terminal; like the session bar, rebuilt only when what it shows changes. */
  private renderBanner(entry: SessionEntry | null): void {
    const info = entry && entry.info.state !== 'exited' ? entry.info : null;
    const kind = !info
      ? null
      : isNeedsYou(info) && info.controller !== 'user'
        ? 'needs-you'
        : info.controller === 'user' && isAgentSession(info)
          ? 'control'
          : info.controller === 'agent' && !isAgentSession(info)
            ? 'handed'
            : null;
    const key = JSON.stringify([kind, info?.id ?? null, kind === 'needs-you' ? info?.command : null]);
    if (key === this.bannerKey) return;
    this.bannerKey = key;
    const banner = this.el.banner;
    clear(banner);
    banner.className = 'banner';
    banner.hidden = true;
    if (!info) return;
    if (kind === 'needs-you') {
      banner.hidden = false;
      banner.classList.add('banner-alert');
      banner.dataset.banner = 'needs-you';
      banner.append(
        h('strong', null, 'Needs you'),
        h('span', { class: 'banner-text' }, info.command ? h('code', { title: info.command }, clip(info.command, 48)) : 'The program', ' is asking for a password or secret. Take over and type it here — it is never recorded.'),
        h('button', { class: 'btn accent small', type: 'button', 'data-action': 'banner-take-over', onclick: () => this.takeOver(info.id) }, 'Take over'),
      );
    } else if (kind === 'control') {
      banner.hidden = false;
      banner.classList.add('banner-control');
      banner.dataset.banner = 'control';
      banner.append(
        icon('keyboard'),
        h('span', null, 'You control this session — agents’ writes are refused'),
        h('span', { class: 'banner-sep' }, '·'),
        h('button', { class: 'link-btn', type: 'button', 'data-action': 'banner-hand-back', onclick: () => this.send({ type: 'handBack', session: info.id }) }, 'Hand back'),
      );
    } else if (kind === 'handed') {
      banner.hidden = false;
      banner.classList.add('banner-info');
      banner.dataset.banner = 'handed';
      banner.append(h('span', null, 'Agents control this session of yours — typing takes it back.'));
    }
  }

  private renderEmpty(noSessions: boolean, noTab: boolean): void {
    const empty = this.el.empty;
    clear(empty);
    empty.hidden = !noTab;
    this.el.app.classList.toggle('no-tab', noTab);
    if (!noTab) return;
    if (!noSessions) {
      empty.append(h('div', { class: 'empty-card' }, h('h1', null, 'Pick a session'), h('p', null, 'Choose a session on the left to watch it live, or open a terminal of your own.'), this.newTerminalButton()));
      return;
    }
    const hostRow = (host: string, note: string): HTMLElement => h('li', null, h('code', null, `switchboard config ${host} --install`), h('span', { class: 'muted' }, note));
    empty.append(
      h(
        'div',
        { class: 'empty-card', 'data-empty': 'no-sessions' },
        h('div', { class: 'empty-icon' }, icon('terminal')),
        h('h1', null, 'No sessions yet'),
        h('p', null, 'Agents open real terminals here over MCP. You watch every session live, and can take over, interrupt or stop it at any time.'),
        h('h2', null, 'Connect an agent'),
        h('ol', { class: 'steps' },
          h('li', null, 'Add Switchboard to your MCP host:', h('pre', { class: 'code' }, h('code', null, 'switchboard config claude-code --install'))),
          h('li', null, 'Ask the agent to run something — its session appears here as a tab.'),
        ),
        h('details', { class: 'other-hosts' }, h('summary', null, 'Other hosts'), h('ul', null, hostRow('cursor', 'Cursor'), hostRow('claude-desktop', 'Claude Desktop'), hostRow('vscode', 'VS Code'))),
        h('div', { class: 'empty-actions' }, this.newTerminalButton(), h('span', { class: 'muted' }, 'or open a terminal of your own')),
      ),
    );
  }

  private newTerminalButton(): HTMLButtonElement {
    return h('button', { class: 'btn', type: 'button', 'data-action': 'new-terminal-empty', onclick: () => this.newTerminal() }, icon('plus'), 'New terminal');
  }

  private focusSearch(): void {
    this.el.sessionBar.querySelector<HTMLInputElement>('[data-role="search"]')?.focus();
  }

  private toast(text: string, kind: 'error' | 'info'): void {
    const toast = h('div', { class: `toast toast-${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text);
    this.el.toasts.append(toast);
    setTimeout(() => toast.remove(), TOAST_MS);
    while (this.el.toasts.childElementCount > 4) this.el.toasts.firstElementChild?.remove();
  }

  // ---- test hook ----------------------------------------------------------------------------------

  /** Read-only view of the page for end-to-end tests (no control goes through it). */
  inspect(): {
    active: string | null;
    tabs: string[];
    screen(id?: string): string;
    view(id?: string): TerminalView['state'] | null;
    session(id: string): SessionEntry['info'] | null;
  } {
    return {
      active: this.active,
      tabs: [...this.tabs],
      session: (id) => this.sessions.get(id)?.info ?? null,
      screen: (id = this.active ?? '') => this.views.get(id)?.screenText() ?? '',
      view: (id = this.active ?? '') => this.views.get(id)?.state ?? null,
    };
  }
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

declare global {
  interface Window {
    switchboard?: App;
    /** The Electron window's preload API (main/preload.cts); absent in a browser. */
    switchboardBridge?: PreloadApi;
  }
}

// In the Electron window the preload is the only way out (its page has no network).
window.switchboard = new App(window.switchboardBridge ? new PreloadBridge(window.switchboardBridge) : new WebSocketBridge());
