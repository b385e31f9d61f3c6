/**
 * The page, put together: the state (sessionState.ts, in a store) fed by the Bridge and the
 * person's actions, the effects it asks for carried out, the tabs' terminals and the
 * take-over input following it, and the views drawn from it (at most once per animation
 * frame). The page holds no authority of its own — the hub enforces who may type.
 */
import { render } from 'lit-html';
import type { ApprovalAnswer, HubMessage, UiCommandRecord, UiHistoryEntry, UiSession } from '../../src/ui-protocol/index.js';
import { addressCommand } from './addressCommand.js';
import { renderBanner } from './views/bannerView.js';
import { renderNewApprovals } from './views/newApprovalsView.js';
import type { Bridge } from './bridge.js';
import { confirmDialog } from './dialog.js';
import { renderEmpty } from './views/emptyView.js';
import { renderHeldSettings } from './views/heldSettingsView.js';
import { HistoryPanel } from './historyPanel.js';
import { loadPrefs, pageStorage, savePrefs, type Prefs } from './prefs.js';
import { RenderScheduler } from './renderScheduler.js';
import { ScreenshotSaver } from './screenshotSaver.js';
import { ScrollbackSearch } from './scrollbackSearch.js';
import { renderSessionBar } from './views/sessionBarView.js';
import { creatorName, isAgentSession, runningMs } from './sessionFormat.js';
import { sessionListView } from './views/sessionListView.js';
import { initialState, reduce, type Effect, type SessionEvent, type SessionState } from './sessionState.js';
import { SettingsPage, type SettingsProps } from './views/settingsView.js';
import { renderStatusLine } from './views/statusLineView.js';
import { Store } from './store.js';
import { tabStripView } from './views/tabStripView.js';
import { TakeOverInput } from './takeOverInput.js';
import { TerminalTabs } from './terminalTabs.js';
import { measureCell } from './terminalGeometry.js';
import type { TerminalView } from './terminalView.js';
import { ThemeController } from './theme.js';
import { renderTimeline } from './views/timelineView.js';
import { Toasts } from './toasts.js';
import { renderTopbar } from './views/topbarView.js';

function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`index.html lacks #${id}`);
  return element as T;
}

export class App {
  private readonly el = {
    app: byId('app'),
    conn: byId('conn'),
    sidebar: byId('sidebar'),
    tabs: byId('tabs'),
    sessionBar: byId('session-bar'),
    banner: byId('banner'),
    heldSettings: byId('held-settings'),
    newApprovals: byId('new-approvals'),
    terminals: byId('terminals'),
    empty: byId('empty'),
    timeline: byId('timeline'),
    status: byId('statusline'),
    settings: byId('settings'),
    toasts: byId('toasts'),
    newTerminal: byId<HTMLButtonElement>('new-terminal'),
    themeToggle: byId<HTMLButtonElement>('theme-toggle'),
    openSettings: byId<HTMLButtonElement>('open-settings'),
    history: byId('history'),
    openHistory: byId<HTMLButtonElement>('open-history'),
  };
  private readonly store = new Store(reduce, initialState());
  private prefs = loadPrefs(pageStorage());
  private readonly scheduler = new RenderScheduler(() => this.render());
  private readonly search = new ScrollbackSearch(() => this.scheduler.request());
  private readonly toasts = new Toasts(this.el.toasts);
  private readonly screenshots = new ScreenshotSaver(
    (message) => this.bridge.send(message),
    () => this.scheduler.request(),
  );
  private readonly theme = new ThemeController((theme) => {
    this.terminals.setTheme(theme);
    this.renderTopbar();
  });
  private readonly terminals = new TerminalTabs({
    container: this.el.terminals,
    theme: () => this.theme.theme,
    fontSize: () => this.prefs.fontSize,
    send: (message) => this.bridge.send(message),
    onUserData: (id, data) => void this.input.typed(id, data),
    onSearchKey: () => this.focusSearch(),
  });
  private readonly input = new TakeOverInput({
    session: (id) => this.state.sessions.get(id)?.info,
    confirmTakeOver: () => this.prefs.confirmTakeOver,
    stopAsking: () => this.setPrefs({ confirmTakeOver: false }),
    ask: (question) => confirmDialog(question),
    send: (message) => this.bridge.send(message),
    focus: (id) => this.terminals.get(id)?.focus(),
  });
  private readonly history = new HistoryPanel({
    host: this.el.history,
    send: (message) => this.bridge.send(message),
    sessions: () => this.state.sessions,
    openInTab: (row) => this.jumpTo(row),
    runAgain: (row, target) => void this.runAgain(row, target),
    refocus: () => this.terminals.get(this.state.active)?.focus(),
  });
  /** A command from history to scroll to once its tab has the screen (given up after a while). */
  private jump: { session: string; seq: number; until: number } | null = null;
  /** openTerminal requests (by req) whose new terminal runs a history command again. */
  private readonly reruns = new Map<number, UiHistoryEntry>();
  private nextReq = 1;
  private readonly settings = new SettingsPage(this.el.settings, () => this.settingsProps(), {
    onTheme: (preference) => {
      this.theme.setPreference(preference);
      this.settings.render();
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

  constructor(private readonly bridge: Bridge) {
    this.store.subscribe((state, previous) => this.changed(state, previous));
    this.el.newTerminal.addEventListener('click', () => this.newTerminal());
    this.el.themeToggle.addEventListener('click', () => this.theme.toggle());
    this.el.openHistory.addEventListener('click', () => this.history.show());
    this.el.openSettings.addEventListener('click', () => this.dispatch({ type: 'showSettings', show: !this.state.settingsOpen }));
    document.addEventListener('keydown', (event) => this.onGlobalKey(event));

    bridge.onStatus((status) => {
      if (status !== 'open') this.screenshots.reset();
      this.dispatch({ type: 'connection', status });
    });
    bridge.onMessage((message) => this.onMessage(message));
    bridge.onAppCommand?.((command) => this.dispatch({ type: 'appCommand', command }));
    // A link to one session (the terminal app's "Open in Switchboard"), now and when the address changes.
    this.watchAddress();
    window.addEventListener('hashchange', () => this.watchAddress());
    bridge.onNotificationSettings?.((settings) => this.dispatch({ type: 'notificationSettings', settings }));
    // Running times, once a second.
    setInterval(() => this.scheduler.request(), 1_000);
    this.renderTopbar();
    this.scheduler.now();
    bridge.connect();
  }

  /** `#session=<id>` in the address: watch it, then leave the address plain (a reload shows what the person chose since). */
  private watchAddress(): void {
    const command = addressCommand(location.hash);
    if (!command) return;
    history.replaceState(null, '', `${location.pathname}${location.search}`);
    this.dispatch({ type: 'appCommand', command });
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
        this.toasts.show(effect.text, effect.tone);
        break;
      case 'activated':
        this.search.reset(this.terminals.get(effect.session));
        this.scheduler.now();
        break;
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
    if (this.history.receive(message)) return;
    if ((message.type === 'done' || message.type === 'error') && message.for === 'openTerminal' && message.req !== undefined) this.rerunInNew(message);
    this.terminals.stream(message);
    this.screenshots.receive(message);
    // A fresh screen can change the watched font size the status line shows.
    if (message.type === 'snapshot' && message.session === this.state.active) this.scheduler.request();
    this.dispatch({ type: 'hub', message, now: performance.now() });
  }

  /** The state changed: the terminals follow the tabs, waiting keys go out, the page redraws. */
  private changed(state: SessionState, previous: SessionState): void {
    this.terminals.sync(state, previous);
    this.input.sync(state.sessions);
    if (state.sessions !== previous.sessions) this.history.refresh();
    if (state.connection !== previous.connection || state.welcome !== previous.welcome) this.renderTopbar();
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
        state.notificationSettings !== previous.notificationSettings ||
        state.remotes !== previous.remotes)
    ) {
      this.settings.render();
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

  /** Everything one agent client started, closed in one action (docs/design.md §2.8). */
  private async stopClient(client: string, live: number, host?: string): Promise<void> {
    const answer = await confirmDialog({
      title: `Stop everything ${client} started${host ? ` on ${host}` : ''}?`,
      body: `${live === 1 ? 'Its session closes' : `Its ${live} sessions close`} now, with everything still running in them; ${client} will get SESSION_NOT_FOUND if it uses them again.`,
      confirm: 'Stop and close',
      danger: true,
    });
    if (!answer.ok) return;
    this.bridge.send({ type: 'stopClient', client, ...(host ? { host } : {}) });
  }

  private newTerminal(): void {
    this.bridge.send({ type: 'openTerminal', ...this.terminalSize() });
  }

  /** A new terminal's size: what fits the terminal area. */
  private terminalSize(): { cols: number; rows: number } {
    const area = this.el.terminals.getBoundingClientRect();
    const cell = measureCell(1.15);
    const cols = Math.floor((area.width - 20) / (cell.width * this.prefs.fontSize));
    const rows = Math.floor((area.height - 16) / (cell.height * this.prefs.fontSize));
    return { cols: Math.max(20, Math.min(1000, cols || 100)), rows: Math.max(5, Math.min(500, rows || 30)) };
  }

  /** A live session's command from history: its tab in front, scrolled to the command once the screen is there. */
  private jumpTo(row: UiHistoryEntry): void {
    this.dispatch({ type: 'openTab', session: row.session });
    this.jump = { session: row.session, seq: row.seq, until: performance.now() + 5_000 };
    this.scheduler.now();
  }

  /** Tried at each drawing while a jump waits: the records and the screen come after the tab opens. */
  private tryJump(): void {
    const jump = this.jump;
    if (!jump) return;
    const record = this.state.records.get(jump.session)?.find((candidate) => candidate.seq === jump.seq);
    const view = this.terminals.get(jump.session);
    if (record && view && this.state.active === jump.session && view.scrollToCommand(record)) {
      this.jump = null;
    } else if (performance.now() > jump.until) {
      this.jump = null;
      this.toasts.show('That command is no longer in the scrollback; Shift+Enter in History shows its output.', 'info');
    }
  }

  /**
   * Runs a command from history again, as the person (docs/design.md §5.2): in a new terminal (in
   * the command's folder), or in a live session — an agent's only after the take-over question.
   * The hub types it and audits it by its source.
   */
  private async runAgain(row: UiHistoryEntry, target: string): Promise<void> {
    const from = { session: row.session, seq: row.seq };
    if (target === 'new') {
      const req = this.nextReq++;
      this.reruns.set(req, row);
      this.bridge.send({ type: 'openTerminal', ...this.terminalSize(), ...(row.cwd ? { cwd: row.cwd } : {}), req });
      return;
    }
    const info = this.state.sessions.get(target)?.info;
    if (!info) return;
    if (info.controller === 'agent') {
      if (!(await this.input.confirm(info))) return;
      this.bridge.send({ type: 'takeOver', session: target });
    }
    this.bridge.send({ type: 'rerun', session: target, from });
    this.dispatch({ type: 'openTab', session: target });
    this.terminals.get(target)?.focus();
  }

  /** The new terminal for a rerun is there: the command goes into it. */
  private rerunInNew(message: Extract<HubMessage, { type: 'done' | 'error' }>): void {
    const row = this.reruns.get(message.req!);
    if (!row) return;
    this.reruns.delete(message.req!);
    if (message.type === 'done' && message.session) this.bridge.send({ type: 'rerun', session: message.session, from: { session: row.session, seq: row.seq } });
  }

  private scrollToCommand(record: UiCommandRecord): void {
    const view = this.terminals.get(this.state.active);
    if (view && !view.scrollToCommand(record)) this.toasts.show('That command is no longer in the scrollback.', 'info');
  }

  private onGlobalKey(event: KeyboardEvent): void {
    const mod = event.ctrlKey || event.metaKey;
    if (mod && event.shiftKey && event.key.toLowerCase() === 'f') {
      event.preventDefault();
      this.focusSearch();
    } else if (mod && event.shiftKey && event.key.toLowerCase() === 'h') {
      event.preventDefault();
      if (this.history.isOpen) this.history.hide();
      else this.history.show();
    } else if (event.key === 'Escape' && this.state.settingsOpen) {
      this.dispatch({ type: 'showSettings', show: false });
    }
  }

  private focusSearch(): void {
    this.el.sessionBar.querySelector<HTMLInputElement>('[data-role="search"]')?.focus();
  }

  private setPrefs(patch: Partial<Prefs>): void {
    this.prefs = { ...this.prefs, ...patch };
    savePrefs(pageStorage(), this.prefs);
    this.scheduler.now();
    if (this.state.settingsOpen) this.settings.render();
  }

  private async rotateToken(): Promise<void> {
    const answer = await confirmDialog({
      title: 'Replace the token?',
      body: 'The token and your UI key are both replaced. MCP clients that connect over HTTP with the current token stop working until they get the new one from the state directory, and bookmarked sign-in addresses stop working too. Agents on the shim (switchboard mcp) and this page carry on.',
      confirm: 'Replace',
      danger: true,
    });
    if (answer.ok) this.bridge.send({ type: 'rotateToken' });
  }

  // ---- drawing ------------------------------------------------------------------------------------

  private settingsProps(): SettingsProps {
    const { welcome, notificationSettings, hubSettings, hubSettingsError, remotes } = this.state;
    const { fontSize, groupMode, confirmTakeOver } = this.prefs;
    return {
      values: { theme: this.theme.preference, fontSize, groupMode, confirmTakeOver },
      welcome,
      notifications: notificationSettings,
      hub: hubSettings,
      hubError: hubSettingsError,
      remotes,
    };
  }

  private renderTopbar(): void {
    renderTopbar(this.el, this.state.connection, this.state.welcome?.version, this.theme.theme);
  }

  /** The chrome around the terminals, from the state as it is now. */
  private render(): void {
    const { sessions, active, tabs, records, activity } = this.state;
    const now = performance.now();
    const entries = [...sessions.values()];
    const entry = active ? (sessions.get(active) ?? null) : null;
    const view: TerminalView | undefined = this.terminals.get(active);
    render(
      sessionListView({
        entries,
        remotes: this.state.remotes,
        mode: this.prefs.groupMode,
        active,
        open: new Set(tabs),
        now,
        onOpen: (id) => this.dispatch({ type: 'openTab', session: id }),
        onGroupMode: (mode) => this.setPrefs({ groupMode: mode }),
        onStopClient: (client, live, host) => void this.stopClient(client, live, host),
      }),
      this.el.sidebar,
    );
    render(
      tabStripView({
        tabs: tabs.flatMap((id) => sessions.get(id) ?? []),
        active,
        activity,
        now,
        onActivate: (id) => this.dispatch({ type: 'activate', session: id }),
        onClose: (id) => this.dispatch({ type: 'closeTab', session: id }),
      }),
      this.el.tabs,
    );
    this.search.follow(view);
    renderSessionBar(this.el.sessionBar, {
      entry,
      now,
      timelineOpen: this.prefs.timelineOpen,
      shooting: entry ? this.screenshots.busy(entry.info.id) : false,
      search: this.search,
      onTakeOver: (id) => this.takeOver(id),
      onHandBack: (id) => this.bridge.send({ type: 'handBack', session: id }),
      onInterrupt: (id) => this.bridge.send({ type: 'interrupt', session: id }),
      onKill: (id) => this.bridge.send({ type: 'kill', session: id }),
      onClose: (id) => void this.closeSession(id),
      onScreenshot: (id) => this.screenshots.save(id, this.state.sessions.get(id)?.info.name ?? null, this.theme.theme),
      onToggleTimeline: () => this.setPrefs({ timelineOpen: !this.prefs.timelineOpen }),
      onSearchAll: (query) => this.history.show(query),
    });
    const onAnswer = (id: string, answer: ApprovalAnswer, reason?: string): void =>
      this.bridge.send({ type: 'answerApproval', id, answer, ...(reason !== undefined ? { reason } : {}) });
    renderNewApprovals(this.el.newApprovals, this.state.newApprovals, { onAnswer });
    renderBanner(this.el.banner, entry, {
      onTakeOver: (id) => this.takeOver(id),
      onHandBack: (id) => this.bridge.send({ type: 'handBack', session: id }),
      onAnswer,
    });
    renderHeldSettings(this.el.heldSettings, this.state.heldSettings, {
      onConfirm: (id) => this.bridge.send({ type: 'confirmSettings', id }),
      onDiscard: (id) => this.bridge.send({ type: 'discardSettings', id }),
    });
    this.el.app.classList.toggle('held-open', this.state.heldSettings !== null);
    renderEmpty(this.el.empty, this.el.app, { noSessions: entries.length === 0, noTab: entry === null, onNewTerminal: () => this.newTerminal() });
    this.el.app.classList.toggle('timeline-closed', !this.prefs.timelineOpen || !entry);
    const info = entry?.info;
    const running = info && (info.state === 'running' || info.state === 'awaiting_input') ? info.command : null;
    renderTimeline(this.el.timeline, {
      records: info ? (records.get(info.id) ?? []) : [],
      running: entry && running ? { command: running, elapsedMs: runningMs(entry, now) } : null,
      onSelect: (record) => this.scrollToCommand(record),
    });
    renderStatusLine(this.el.status, { entry, view: view ? { mode: view.mode, ...view.fontSizes } : null, now });
    this.tryJump();
  }

  // ---- test hook ----------------------------------------------------------------------------------

  /** Read-only view of the page for end-to-end tests (no control goes through it). */
  inspect(): {
    active: string | null;
    tabs: string[];
    screen(id?: string): string;
    view(id?: string): TerminalView['state'] | null;
    session(id: string): UiSession | null;
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
