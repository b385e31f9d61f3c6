/**
 * What the page knows and shows, as one value, and the one function that changes it:
 * `reduce(state, event)` takes the hub's messages and the person's steering (open, close,
 * activate a tab; the settings page; the app's tray commands) and gives the next state and
 * the effects the page must carry out (messages to the hub, toasts, focus). Pure: no DOM, no
 * timers, no bridge; the time a message arrived comes with it. The input is never changed;
 * an event that changes nothing gives back the same state object.
 *
 * The terminals' streams (snapshot, frame, behind) are not state: the tabs' views take them
 * (terminalTabs.ts). Here a frame only marks a tab behind another one as active.
 */
import type {
  AppCommand,
  ClientMessage,
  HeldSettings,
  HubMessage,
  NotificationSettings,
  UiCommandRecord,
  UiNewApproval,
  UiRemote,
  UiSession,
} from '../../src/ui-protocol/index.js';
import { UI_PROTOCOL_VERSION } from '../../src/ui-protocol/index.js';
import type { ConnectionStatus } from './bridge.js';
import type { SessionEntry } from './sessionFormat.js';

export type Welcome = Extract<HubMessage, { type: 'welcome' }>;
export type HubSettingsMessage = Extract<HubMessage, { type: 'hubSettings' }>;

/** Tabs opened by themselves when the page (re)loads with live sessions. */
export const MAX_AUTO_TABS = 12;

export interface SessionState {
  readonly connection: ConnectionStatus;
  readonly welcome: Welcome | null;
  /** Every session the hub lists, by id, in the order the page heard of them. */
  readonly sessions: ReadonlyMap<string, SessionEntry>;
  /** Each session's commands, by seq (the timeline). */
  readonly records: ReadonlyMap<string, readonly UiCommandRecord[]>;
  /** The open tabs, in the strip's order. */
  readonly tabs: readonly string[];
  /** The tab in front. */
  readonly active: string | null;
  /** Sessions heard of before: a tab the person closed is not reopened by itself. */
  readonly seen: ReadonlySet<string>;
  /** Tabs behind another one that had output since they were last in front. */
  readonly activity: ReadonlySet<string>;
  /** The hub's first list arrived (it opens at most MAX_AUTO_TABS tabs by itself). */
  readonly listReceived: boolean;
  /** A session the person asked to watch (tray, notification) before the hub listed it. */
  readonly watchWhenListed: string | null;
  readonly settingsOpen: boolean;
  /** The hub's settings as it last told them (asked for when the settings page opens). */
  readonly hubSettings: HubSettingsMessage | null;
  /** The hub's answer to the last refused change, shown on the settings page until the next change. */
  readonly hubSettingsError: string | null;
  /** The app's notification settings: the Electron window only (null in a browser). */
  readonly notificationSettings: NotificationSettings | null;
  /** A settings change that waits for the person to confirm or discard it (the window's banner). */
  readonly heldSettings: HeldSettings | null;
  /** Approvals of agents' requests that would start a session (an `open`): shown above the tabs. */
  readonly newApprovals: readonly UiNewApproval[];
  /** The other machines the hub links to, and whether each is connected (docs/design.md §4.7). */
  readonly remotes: readonly UiRemote[];
}

export type SessionEvent =
  /** A message from the hub, `now` when it arrived (`performance.now()`: running times count from it). */
  | { type: 'hub'; message: HubMessage; now: number }
  | { type: 'connection'; status: ConnectionStatus }
  /** The person asked for something outside the page (the Electron window's tray, a notification). */
  | { type: 'appCommand'; command: AppCommand }
  | { type: 'notificationSettings'; settings: NotificationSettings }
  /** The person opens a session's tab (a sidebar row): in front, focused. */
  | { type: 'openTab'; session: string }
  /** The person brings a tab to front (a click on it). */
  | { type: 'activate'; session: string }
  /** The person closes a tab (the session keeps running). */
  | { type: 'closeTab'; session: string }
  | { type: 'showSettings'; show: boolean }
  /** The person changes one of the hub's settings (null: back to its default). */
  | { type: 'changeHubSetting'; key: string; value: unknown };

export type Effect =
  | { type: 'send'; message: ClientMessage }
  | { type: 'toast'; text: string; tone: 'info' | 'error' }
  /** A tab came to front (or was brought to front again): the page draws it now. */
  | { type: 'activated'; session: string }
  /** The person's keys go to this tab's terminal. */
  | { type: 'focus'; session: string }
  /** The hub refused to hand this session over: keys typed while asking are dropped. */
  | { type: 'takeOverRefused'; session: string };

interface Transition {
  state: SessionState;
  effects: Effect[];
}

export function initialState(): SessionState {
  return {
    connection: 'connecting',
    welcome: null,
    sessions: new Map(),
    records: new Map(),
    tabs: [],
    active: null,
    seen: new Set(),
    activity: new Set(),
    listReceived: false,
    watchWhenListed: null,
    settingsOpen: false,
    hubSettings: null,
    hubSettingsError: null,
    notificationSettings: null,
    heldSettings: null,
    newApprovals: [],
    remotes: [],
  };
}

export function reduce(state: SessionState, event: SessionEvent): Transition {
  const step = new Step(state);
  switch (event.type) {
    case 'hub':
      step.hubMessage(event.message, event.now);
      break;
    case 'connection':
      step.set({ connection: event.status });
      if (event.status === 'open') {
        step.send({ type: 'hello', protocol: UI_PROTOCOL_VERSION });
        for (const id of step.state.tabs) step.send({ type: 'subscribe', session: id });
        if (step.state.settingsOpen) step.send({ type: 'getSettings' });
      }
      break;
    case 'appCommand':
      if (event.command.type === 'settings') {
        step.showSettings(true);
      } else {
        step.showSettings(false);
        if (step.state.sessions.has(event.command.session)) {
          step.set({ watchWhenListed: null });
          step.openTab(event.command.session, true);
        } else {
          // A terminal just opened from the tray: main's command can arrive before the hub's list.
          step.set({ watchWhenListed: event.command.session });
        }
      }
      break;
    case 'notificationSettings':
      step.set({ notificationSettings: event.settings });
      break;
    case 'openTab':
      step.openTab(event.session, true);
      break;
    case 'activate':
      if (step.state.tabs.includes(event.session)) step.activate(event.session, true);
      break;
    case 'closeTab':
      step.closeTab(event.session, true);
      break;
    case 'showSettings':
      step.showSettings(event.show);
      break;
    case 'changeHubSetting':
      step.set({ hubSettingsError: null });
      step.send({ type: 'setSettings', changes: { [event.key]: event.value } });
      break;
  }
  return { state: step.state, effects: step.effects };
}

/** One reduction: the state as it goes (each change a new object, the input untouched) and the effects so far. */
class Step {
  readonly effects: Effect[] = [];

  constructor(public state: SessionState) {}

  set(patch: Partial<SessionState>): void {
    const changed = (Object.keys(patch) as (keyof SessionState)[]).some((key) => !Object.is(patch[key], this.state[key]));
    if (changed) this.state = { ...this.state, ...patch };
  }

  send(message: ClientMessage): void {
    this.effects.push({ type: 'send', message });
  }

  toast(text: string, tone: 'info' | 'error'): void {
    this.effects.push({ type: 'toast', text, tone });
  }

  hubMessage(message: HubMessage, now: number): void {
    switch (message.type) {
      case 'welcome':
        this.set({ welcome: message });
        break;
      case 'sessions': {
        const ids = new Set(message.sessions.map((session) => session.id));
        for (const id of [...this.state.sessions.keys()]) if (!ids.has(id)) this.removeSession(id);
        const firstList = !this.state.listReceived;
        this.set({ listReceived: true });
        let opened = 0;
        for (const session of message.sessions) {
          const isNew = !this.state.seen.has(session.id);
          this.upsertSession(session, now);
          // First list: open live sessions (a few); after a reconnect: the ones that appeared meanwhile.
          if (isNew && session.state !== 'exited' && (!firstList || opened < MAX_AUTO_TABS)) {
            this.openTab(session.id, false);
            opened += 1;
          }
        }
        break;
      }
      case 'sessionChanged': {
        const isNew = !this.state.seen.has(message.session.id);
        this.upsertSession(message.session, now);
        // A new session appears as a tab without taking the person's focus.
        if (isNew && message.session.state !== 'exited') this.openTab(message.session.id, false);
        break;
      }
      case 'sessionRemoved':
        this.removeSession(message.id);
        break;
      case 'approvals':
        this.set({ newApprovals: message.approvals });
        break;
      case 'remotes':
        this.set({ remotes: message.remotes });
        break;
      case 'frame':
        // Output in a tab behind another one: the strip shows it.
        if (message.session !== this.state.active && !this.state.activity.has(message.session) && this.state.tabs.includes(message.session)) {
          this.set({ activity: new Set(this.state.activity).add(message.session) });
        }
        break;
      case 'snapshot':
      case 'behind':
      case 'screenshotTaken': // saved by the page (screenshotSaver.ts)
        break;
      case 'commands':
        this.setRecords(
          message.session,
          [...message.records].sort((a, b) => a.seq - b.seq),
        );
        break;
      case 'command': {
        const list = [...(this.state.records.get(message.session) ?? [])];
        const at = list.findIndex((record) => record.seq === message.record.seq);
        if (at >= 0) list[at] = message.record;
        else list.push(message.record);
        this.setRecords(message.session, list);
        break;
      }
      case 'tokenRotated':
        this.toast('The hub’s token was replaced: HTTP clients need the new one from the state directory.', 'info');
        break;
      case 'hubSettings':
        this.set({ hubSettings: message });
        break;
      case 'heldSettings':
        this.set({ heldSettings: message.held });
        break;
      case 'done':
        if (message.for === 'openTerminal' && message.session) {
          this.set({ seen: new Set(this.state.seen).add(message.session) });
          this.openTab(message.session, true);
        } else if (message.for === 'kill' && message.session) {
          this.toast(message.ended_by ? `Stopped by ${message.ended_by}.` : 'Nothing was running.', 'info');
        } else if (message.for === 'confirmSettings' || message.for === 'discardSettings') {
          this.toast(message.for === 'confirmSettings' ? 'The settings change is in force.' : 'Discarded: settings.json holds what is in force again.', 'info');
        }
        break;
      case 'error':
        if (message.for === 'takeOver' && message.session) this.effects.push({ type: 'takeOverRefused', session: message.session });
        if (message.for === 'ack') break;
        if (message.for === 'setSettings' || message.for === 'getSettings') {
          // Shown on the page, where the refused control goes back to the saved value.
          this.set({ hubSettingsError: message.message });
          if (this.state.settingsOpen) break;
        }
        this.toast(`${message.code}: ${message.message}`, 'error');
        break;
    }
  }

  upsertSession(info: UiSession, now: number): void {
    this.set({
      seen: this.state.seen.has(info.id) ? this.state.seen : new Set(this.state.seen).add(info.id),
      sessions: new Map(this.state.sessions).set(info.id, { info, receivedAt: now }),
    });
    if (this.state.watchWhenListed === info.id) {
      this.set({ watchWhenListed: null });
      this.openTab(info.id, true);
    }
  }

  removeSession(id: string): void {
    const sessions = new Map(this.state.sessions);
    const records = new Map(this.state.records);
    sessions.delete(id);
    records.delete(id);
    this.set({ sessions, records });
    // Gone from the hub: nothing to unsubscribe from.
    this.closeTab(id, false);
  }

  setRecords(id: string, list: readonly UiCommandRecord[]): void {
    this.set({ records: new Map(this.state.records).set(id, list) });
  }

  openTab(id: string, activate: boolean): void {
    if (!this.state.sessions.has(id)) return;
    if (!this.state.tabs.includes(id)) {
      this.set({ tabs: [...this.state.tabs, id] });
      if (this.state.connection === 'open') this.send({ type: 'subscribe', session: id });
    }
    if (activate || this.state.active === null) this.activate(id, activate);
  }

  activate(id: string, focus: boolean): void {
    this.set({ active: id, activity: without(this.state.activity, id) });
    this.effects.push({ type: 'activated', session: id });
    if (focus) this.effects.push({ type: 'focus', session: id });
  }

  closeTab(id: string, unsubscribe: boolean): void {
    const index = this.state.tabs.indexOf(id);
    if (index < 0) return;
    if (unsubscribe) this.send({ type: 'unsubscribe', session: id });
    const tabs = this.state.tabs.filter((tab) => tab !== id);
    this.set({ tabs, activity: without(this.state.activity, id) });
    if (this.state.active === id) {
      const next = tabs[Math.min(index, tabs.length - 1)] ?? null;
      this.set({ active: null });
      if (next) this.activate(next, false);
    }
  }

  showSettings(show: boolean): void {
    this.set({ settingsOpen: show });
    if (!show) return;
    this.set({ hubSettingsError: null });
    if (this.state.connection === 'open') this.send({ type: 'getSettings' });
  }
}

/** `set` less `item` (the same set when it lacks it). */
function without<T>(set: ReadonlySet<T>, item: T): ReadonlySet<T> {
  if (!set.has(item)) return set;
  const copy = new Set(set);
  copy.delete(item);
  return copy;
}
