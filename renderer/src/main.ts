/**
 * The person's side of Switchboard (DESIGN §5): the session list, tabs of live terminals, the
 * controls (take over, hand back, interrupt, kill, close), the status line and the command
 * timeline. Everything goes through a `Bridge`; the page holds no authority of its own — the
 * hub enforces who may type.
 */
import type { HubMessage, UiCommandRecord } from '../../src/ui-protocol.js';
import type { Bridge } from './bridge.js';
import { confirmDialog } from './dialog.js';
import { clear, h, icon } from './dom.js';
import { loadPrefs, pageStorage, savePrefs, type Prefs } from './prefs.js';
import { creatorDetail, creatorName, isAgentSession, isNeedsYou, runningMs, sessionTitle, tabLabel, stateBadge, type SessionEntry } from './sessionFormat.js';
import { SessionList } from './sessionList.js';
import { initialState, reduce, type Effect, type SessionEvent, type SessionState } from './sessionState.js';
import { SettingsView } from './settingsView.js';
import { StatusLine } from './statusLine.js';
import { RenderScheduler } from './renderScheduler.js';
import { Store } from './store.js';
import { PreloadBridge, type PreloadApi } from './preloadBridge.js';
import { TakeOverInput } from './takeOverInput.js';
import { TerminalTabs } from './terminalTabs.js';
import { measureCell, type TerminalView } from './terminalView.js';
import { ThemeController } from './theme.js';
import { Timeline } from './timeline.js';
import { WebSocketBridge } from './webSocketBridge.js';

const TOAST_MS = 6_000;

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
  private readonly store = new Store(reduce, initialState());
  private prefs = loadPrefs(pageStorage());
  private readonly scheduler = new RenderScheduler(() => this.render());
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
  /** A settings render waits for the person to leave the field they are typing in. */
  private settingsRenderWaits = false;

  private readonly theme = new ThemeController((theme) => {
    this.terminals.setTheme(theme);
    this.renderTopbar();
  });
  private readonly terminals: TerminalTabs;
  private readonly input: TakeOverInput;
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
    this.terminals = new TerminalTabs({
      container: this.el.terminals,
      theme: () => this.theme.theme,
      fontSize: () => this.prefs.fontSize,
      send: (message) => this.bridge.send(message),
      onUserData: (id, data) => void this.input.typed(id, data),
      onSearchKey: () => this.focusSearch(),
    });
    this.input = new TakeOverInput({
      session: (id) => this.state.sessions.get(id)?.info,
      confirmTakeOver: () => this.prefs.confirmTakeOver,
      stopAsking: () => this.setPrefs({ confirmTakeOver: false }),
      ask: (question) => confirmDialog(question),
      send: (message) => this.bridge.send(message),
      focus: (id) => this.terminals.get(id)?.focus(),
    });
    this.sessionList = new SessionList(byId('sidebar'), {
      onOpen: (id) => this.dispatch({ type: 'openTab', session: id }),
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
        this.terminals.setBaseFontSize(px);
      },
      onGroupMode: (mode) => this.setPrefs({ groupMode: mode }),
      onConfirmTakeOver: (ask) => this.setPrefs({ confirmTakeOver: ask }),
      onNotificationSettings: (patch) => this.bridge.setNotificationSettings?.(patch),
      onHubSetting: (key, value) => this.dispatch({ type: 'changeHubSetting', key, value }),
      onRotateToken: () => void this.rotateToken(),
      onClose: () => this.dispatch({ type: 'showSettings', show: false }),
    });

    this.store.subscribe((state, previous) => this.changed(state, previous));
    this.el.newTerminal.addEventListener('click', () => this.newTerminal());
    this.el.themeToggle.addEventListener('click', () => this.theme.toggle());
    this.el.openSettings.addEventListener('click', () => this.dispatch({ type: 'showSettings', show: !this.state.settingsOpen }));
    document.addEventListener('keydown', (event) => this.onGlobalKey(event));

    bridge.onStatus((status) => this.dispatch({ type: 'connection', status }));
    bridge.onMessage((message) => this.onMessage(message));
    bridge.onAppCommand?.((command) => this.dispatch({ type: 'appCommand', command }));
    bridge.onNotificationSettings?.((settings) => this.dispatch({ type: 'notificationSettings', settings }));
    setInterval(() => this.tick(), 1_000);
    this.renderTopbar();
    this.scheduler.now();
    bridge.connect();
  }

  private get state(): SessionState {
    return this.store.state;
  }

  // ---- state and effects ------------------------------------------------------------------------

  private dispatch(event: SessionEvent): void {
    for (const effect of this.store.dispatch(event)) this.apply(effect);
  }

  private apply(effect: Effect): void {
    switch (effect.type) {
      case 'send':
        this.bridge.send(effect.message);
        break;
      case 'toast':
        this.toast(effect.text, effect.tone);
        break;
      case 'activated': {
        const view = this.terminals.get(effect.session);
        if (view && this.searchQuery) view.clearSearch();
        this.searchQuery = '';
        this.scheduler.now();
        break;
      }
      case 'focus':
        this.terminals.get(effect.session)?.focus();
        break;
      case 'takeOverRefused':
        this.input.refused(effect.session);
        break;
    }
  }

  /** The hub's messages: the terminals' streams go to their views, everything goes through the reducer. */
  private onMessage(message: HubMessage): void {
    this.terminals.stream(message);
    // A fresh screen can change the watched font size the status line shows.
    if (message.type === 'snapshot' && message.session === this.state.active) this.scheduler.request();
    this.dispatch({ type: 'hub', message, now: performance.now() });
  }

  /** The state changed: views follow the tabs, waiting keys go out, the page redraws. */
  private changed(state: SessionState, previous: SessionState): void {
    this.terminals.sync(state, previous);
    this.input.sync(state.sessions);
    if (state.connection !== previous.connection) this.renderTopbar();
    if (state.settingsOpen !== previous.settingsOpen) {
      this.el.settings.hidden = !state.settingsOpen;
      this.el.openSettings.classList.toggle('on', state.settingsOpen);
    }
    if (
      state.settingsOpen &&
      (state.settingsOpen !== previous.settingsOpen ||
        state.welcome !== previous.welcome ||
        state.hubSettings !== previous.hubSettings ||
        state.hubSettingsError !== previous.hubSettingsError ||
        state.notificationSettings !== previous.notificationSettings)
    ) {
      this.renderSettings();
    }
    this.scheduler.request();
  }

  // ---- the person's actions -------------------------------------------------------------------

  private takeOver(id: string): void {
    this.bridge.send({ type: 'takeOver', session: id });
    this.terminals.get(id)?.focus();
  }

  private async closeSession(id: string): Promise<void> {
    const info = this.state.sessions.get(id)?.info;
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
    this.bridge.send({ type: 'close', session: id });
  }

  private newTerminal(): void {
    const area = this.el.terminals.getBoundingClientRect();
    const cell = measureCell(1.15);
    const cols = Math.floor((area.width - 20) / (cell.width * this.prefs.fontSize));
    const rows = Math.floor((area.height - 16) / (cell.height * this.prefs.fontSize));
    this.bridge.send({
      type: 'openTerminal',
      cols: Math.max(20, Math.min(1000, cols || 100)),
      rows: Math.max(5, Math.min(500, rows || 30)),
    });
  }

  private scrollToCommand(record: UiCommandRecord): void {
    const view = this.terminals.get(this.state.active);
    if (view && !view.scrollToCommand(record)) this.toast('That command is no longer in the scrollback.', 'info');
  }

  private onGlobalKey(event: KeyboardEvent): void {
    const mod = event.ctrlKey || event.metaKey;
    if (mod && event.shiftKey && event.key.toLowerCase() === 'f') {
      event.preventDefault();
      this.focusSearch();
    } else if (event.key === 'Escape' && this.state.settingsOpen) {
      this.dispatch({ type: 'showSettings', show: false });
    }
  }

  private setPrefs(patch: Partial<Prefs>): void {
    this.prefs = { ...this.prefs, ...patch };
    savePrefs(pageStorage(), this.prefs);
    this.scheduler.now();
    if (this.state.settingsOpen) this.renderSettings();
  }

  private async rotateToken(): Promise<void> {
    const answer = await confirmDialog({
      title: 'Replace the token?',
      body: 'MCP clients that connect over HTTP with the current token, and bookmarked addresses with it, stop working until they get the new one from the state directory. Agents on the shim (switchboard mcp) and this page carry on.',
      confirm: 'Replace',
      danger: true,
    });
    if (answer.ok) this.bridge.send({ type: 'rotateToken' });
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
            if (this.state.settingsOpen) this.renderSettings();
          },
          { once: true },
        );
      }
      return;
    }
    this.settingsView.render(
      { theme: this.theme.preference, fontSize: this.prefs.fontSize, groupMode: this.prefs.groupMode, confirmTakeOver: this.prefs.confirmTakeOver },
      this.state.welcome,
      this.state.notificationSettings,
      this.state.hubSettings,
      this.state.hubSettingsError,
    );
  }

  // ---- rendering --------------------------------------------------------------------------------

  private tick(): void {
    this.sessionList.tick();
    this.statusLine.tick();
    this.timeline.tick();
    for (const element of document.querySelectorAll<HTMLElement>('[data-running]')) {
      const entry = this.state.sessions.get(element.dataset.running ?? '');
      if (entry) element.textContent = stateBadge(entry, performance.now()).text;
    }
  }

  private renderTopbar(): void {
    clear(this.el.conn);
    const status = this.state.connection;
    const label = status === 'open' ? 'connected' : status === 'connecting' ? 'connecting…' : 'disconnected — reconnecting…';
    this.el.conn.className = `conn conn-${status}`;
    this.el.conn.append(h('span', { class: 'conn-dot' }), label);
    this.el.conn.title = status === 'open' ? `Hub ${this.state.welcome?.version ?? ''}` : 'The page reconnects by itself.';
    clear(this.el.themeToggle);
    this.el.themeToggle.append(icon(this.theme.theme === 'dark' ? 'sun' : 'moon'));
    this.el.themeToggle.title = this.theme.theme === 'dark' ? 'Light theme' : 'Dark theme';
    this.el.app.dataset.connection = status;
  }

  private render(): void {
    const { sessions, active, tabs, records, activity } = this.state;
    const entries = [...sessions.values()];
    this.sessionList.render(entries, this.prefs.groupMode, active, new Set(tabs));
    this.renderTabs(activity);
    const entry = active ? (sessions.get(active) ?? null) : null;
    const view = this.terminals.get(active);
    this.renderSessionBar(entry);
    this.renderBanner(entry);
    this.renderEmpty(entries.length === 0, entry === null);
    this.el.app.classList.toggle('timeline-closed', !this.prefs.timelineOpen || !entry);
    if (entry) {
      const info = entry.info;
      const running = info.state === 'running' || info.state === 'awaiting_input' ? info.command : null;
      this.timeline.render(records.get(info.id) ?? [], running ? { command: running, startedAt: Date.now() - runningMs(entry, performance.now()) } : null);
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
  private renderTabs(activity: ReadonlySet<string>): void {
    const shown = new Set<string>();
    let before: Element | null = this.el.tabs.firstElementChild;
    for (const id of this.state.tabs) {
      const entry = this.state.sessions.get(id);
      if (!entry) continue;
      shown.add(id);
      let tab = this.tabElements.get(id);
      if (!tab) {
        tab = this.createTab(id);
        this.tabElements.set(id, tab);
      }
      this.updateTab(tab, entry, activity.has(id));
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
            this.dispatch({ type: 'closeTab', session: id });
          }
        },
        onclick: () => this.dispatch({ type: 'activate', session: id }),
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
            this.dispatch({ type: 'closeTab', session: id });
          },
        },
        icon('x'),
      ),
    );
    return { root, dot, label, flag, needs };
  }

  private updateTab(tab: TabElements, entry: SessionEntry, activity: boolean): void {
    const info = entry.info;
    const id = info.id;
    const badge = stateBadge(entry, performance.now());
    const active = id === this.state.active;
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
    const view = this.terminals.get(info?.id ?? null);
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
        ? button('hand-back', agent ? 'Hand back' : 'Hand to agents', 'hand', () => this.bridge.send({ type: 'handBack', session: info.id }), '', !live, agent ? 'Give the keyboard back to the agent' : 'Let agents type into this session of yours')
        : button('take-over', 'Take over', 'keyboard', () => this.takeOver(info.id), 'accent', !live, 'Take the keyboard: agent writes are refused until you hand back'),
      button('interrupt', 'Interrupt', 'stop', () => this.bridge.send({ type: 'interrupt', session: info.id }), '', !live, 'Send Ctrl-C'),
      button('kill', 'Kill', 'bolt', () => this.bridge.send({ type: 'kill', session: info.id }), '', !live, 'Stop the foreground program: SIGINT, then SIGTERM, then SIGKILL'),
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
        h('button', { class: 'link-btn', type: 'button', 'data-action': 'banner-hand-back', onclick: () => this.bridge.send({ type: 'handBack', session: info.id }) }, 'Hand back'),
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
      active: this.state.active,
      tabs: [...this.state.tabs],
      session: (id) => this.state.sessions.get(id)?.info ?? null,
      screen: (id = this.state.active ?? '') => this.terminals.get(id)?.screenText() ?? '',
      view: (id = this.state.active ?? '') => this.terminals.get(id)?.state ?? null,
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
