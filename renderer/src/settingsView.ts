/**
 * Settings. The page's own preferences (theme, terminal font size, grouping) are edited here and
 * kept in localStorage; the hub's settings (shell, timeouts, limits, secret filter, port,
 * retention) are shown and changed through the hub (hubSettingsView.ts), which saves them in
 * settings.json. In the Electron window it also edits the app's notification settings (main
 * keeps them in a file of its own, app-preferences.json).
 */
import type { HubMessage, NotificationSettings } from '../../src/ui-protocol.js';
import { clear, h } from './dom.js';
import { hubSettingsSection, type HubSettingsMessage } from './hubSettingsView.js';
import { FONT_SIZES } from './prefs.js';
import type { GroupMode } from './sessionGroups.js';
import type { ThemePreference } from './theme.js';

type Welcome = Extract<HubMessage, { type: 'welcome' }>;

export interface SettingsValues {
  theme: ThemePreference;
  fontSize: number;
  groupMode: GroupMode;
  confirmTakeOver: boolean;
}

export interface SettingsHandlers {
  onTheme(preference: ThemePreference): void;
  onFontSize(px: number): void;
  onGroupMode(mode: GroupMode): void;
  onConfirmTakeOver(ask: boolean): void;
  /** The Electron window only: change the app's notification settings. */
  onNotificationSettings(patch: Partial<NotificationSettings>): void;
  /** Change one of the hub's settings (null: back to its default). */
  onHubSetting(key: string, value: unknown): void;
  /** Replace the hub's token. */
  onRotateToken(): void;
  onClose(): void;
}

/** What "long" may mean for a finished command to notify (the setting takes any value; these are offered). */
const NOTIFY_AFTER_CHOICES: [number, string][] = [
  [10_000, '10 seconds'],
  [30_000, '30 seconds'],
  [60_000, '1 minute'],
  [300_000, '5 minutes'],
  [900_000, '15 minutes'],
];

export class SettingsView {
  constructor(
    private readonly root: HTMLElement,
    private readonly handlers: SettingsHandlers,
  ) {}

  /**
   * `notifications`: the app's notification settings, null where there is no app (a browser).
   * `hub`: the hub's settings, null until it answered; `hubError`: its last refusal.
   */
  render(values: SettingsValues, welcome: Welcome | null, notifications: NotificationSettings | null = null, hub: HubSettingsMessage | null = null, hubError: string | null = null): void {
    clear(this.root);
    const select = <T extends string | number>(name: string, current: T, choices: [T, string][], onChange: (value: T) => void): HTMLSelectElement => {
      const element = h('select', { class: 'select', 'data-setting': name, onchange: () => onChange(choices[element.selectedIndex][0]) });
      for (const [value, label] of choices) element.append(h('option', { selected: value === current }, label));
      return element;
    };
    const row = (label: string, control: Node, hint?: string): HTMLElement =>
      h('div', { class: 'setting-row' }, h('div', { class: 'setting-label' }, label, hint ? h('div', { class: 'setting-hint' }, hint) : null), h('div', { class: 'setting-control' }, control));
    const readonly = (label: string, value: string): HTMLElement => h('div', { class: 'setting-row' }, h('div', { class: 'setting-label' }, label), h('div', { class: 'setting-value mono' }, value));
    const ask = h('input', { type: 'checkbox', checked: values.confirmTakeOver, onchange: () => this.handlers.onConfirmTakeOver(ask.checked) });
    const notificationsSection = (settings: NotificationSettings): HTMLElement => {
      const on = h('input', { type: 'checkbox', 'data-setting': 'notifications', checked: settings.notifications, onchange: () => this.handlers.onNotificationSettings({ notifications: on.checked }) });
      const known = NOTIFY_AFTER_CHOICES.some(([ms]) => ms === settings.notifyAfterMs);
      const choices = known ? NOTIFY_AFTER_CHOICES : [...NOTIFY_AFTER_CHOICES, [settings.notifyAfterMs, `${Math.round(settings.notifyAfterMs / 1000)} seconds`] as [number, string]];
      const after = select('notifyAfterMs', settings.notifyAfterMs, choices, (ms) => this.handlers.onNotificationSettings({ notifyAfterMs: ms }));
      after.disabled = !settings.notifications;
      return h(
        'section',
        { class: 'settings-section' },
        h('h2', null, 'Notifications'),
        row('Notify me', on, 'When an agent’s command fails or finishes after running long, or a session needs you. Silent; nothing comes to the front.'),
        row('A long command runs at least', after),
      );
    };

    this.root.append(
      h(
        'div',
        { class: 'settings-page' },
        h('header', { class: 'settings-head' }, h('h1', null, 'Settings'), h('button', { class: 'btn', type: 'button', 'data-action': 'close-settings', onclick: () => this.handlers.onClose() }, 'Done')),
        h(
          'section',
          { class: 'settings-section' },
          h('h2', null, 'This window'),
          row('Theme', select('theme', values.theme, [['system', 'Follow the system'], ['dark', 'Dark'], ['light', 'Light']], (v) => this.handlers.onTheme(v))),
          row('Terminal font size', select('fontSize', values.fontSize, FONT_SIZES.map((px) => [px, `${px} px`] as [number, string]), (v) => this.handlers.onFontSize(v)), 'Watched agent sessions shrink below it to show the agent’s whole screen.'),
          row('Group sessions by', select('groupMode', values.groupMode, [['agent', 'Agent'], ['folder', 'Project folder']], (v) => this.handlers.onGroupMode(v))),
          row('Ask before taking over', ask, 'Typing into an agent’s session takes the keyboard from the agent.'),
        ),
        notifications ? notificationsSection(notifications) : null,
        hubSettingsSection(hub, hubError, { change: (key, value) => this.handlers.onHubSetting(key, value), rotateToken: () => this.handlers.onRotateToken() }),
        h(
          'section',
          { class: 'settings-section' },
          h('h2', null, 'About the hub'),
          readonly('Version', welcome?.version ?? '—'),
          readonly('UI protocol', welcome ? String(welcome.protocol) : '—'),
          readonly('Flow control', welcome ? `ack every ${welcome.flow.ackEvery} · pause above ${welcome.flow.highWatermark} · resume below ${welcome.flow.lowWatermark} bytes` : '—'),
        ),
      ),
    );
  }
}
