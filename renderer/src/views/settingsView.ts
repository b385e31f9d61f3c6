/**
 * The settings page. The page's own preferences (theme, terminal font size, grouping, the
 * take-over question) are edited here and kept in localStorage; the hub's settings (shell,
 * timeouts, limits, secret filter, port, retention) are shown and changed through the hub
 * (hubSettingsView.ts), which saves them in settings.json. In the Electron window it also
 * edits the app's notification settings (main keeps them in app-preferences.json).
 *
 * A field the person is typing in is not swept away by a drawing (another window saved a
 * setting, a theme change): the drawing waits until they leave it. `data-shown` is what the
 * field showed or sent last (hubSettingsView.ts).
 */
import { html, nothing, render, type TemplateResult } from 'lit-html';
import { live } from 'lit-html/directives/live.js';
import type { NotificationSettings, UiRemote } from '../../../src/ui-protocol/index.js';
import { hubSettingsSection } from './hubSettingsView.js';
import { forgetRuleDrafts } from './policyRulesView.js';
import { forgetSandboxDraft } from './sandboxSettingsView.js';
import { FONT_SIZES } from '../prefs.js';
import type { GroupMode } from '../sessionGroups.js';
import type { HubSettingsMessage, Welcome } from '../sessionState.js';
import type { ThemePreference } from '../theme.js';

interface SettingsValues {
  theme: ThemePreference;
  fontSize: number;
  groupMode: GroupMode;
  confirmTakeOver: boolean;
}

export interface SettingsProps {
  values: SettingsValues;
  welcome: Welcome | null;
  /** The app's notification settings, null where there is no app (a browser). */
  notifications: NotificationSettings | null;
  /** The hub's settings, null until it answered; `hubError`: its last refusal. */
  hub: HubSettingsMessage | null;
  hubError: string | null;
  /** The other machines and how each link is now (docs/design.md §4.7). */
  remotes: readonly UiRemote[];
}

interface SettingsHandlers {
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

export class SettingsPage {
  private waiting = false;

  /** `props`: what the page shows, read at each drawing. */
  constructor(
    private readonly host: HTMLElement,
    private readonly props: () => SettingsProps,
    private readonly handlers: SettingsHandlers,
  ) {}

  /** Draws the page, unless the person is typing in one of its fields: then when they leave it. */
  render(): void {
    const typing = document.activeElement;
    if (
      (typing instanceof HTMLInputElement || typing instanceof HTMLTextAreaElement) &&
      this.host.contains(typing) &&
      typing.dataset.shown !== undefined &&
      typing.value !== typing.dataset.shown
    ) {
      if (!this.waiting) {
        this.waiting = true;
        typing.addEventListener(
          'blur',
          () => {
            this.waiting = false;
            if (!this.host.hidden) this.render();
          },
          { once: true },
        );
      }
      return;
    }
    render(
      settingsView(this.props(), this.handlers, () => this.render()),
      this.host,
    );
  }
}

function settingsView(props: SettingsProps, handlers: SettingsHandlers, redraw: () => void): TemplateResult {
  const { values, welcome } = props;
  return html`<div class="settings-page">
    <header class="settings-head">
      <h1>Settings</h1>
      <button
        class="btn"
        type="button"
        data-action="close-settings"
        @click=${() => {
          forgetRuleDrafts();
          forgetSandboxDraft();
          handlers.onClose();
        }}
      >
        Done
      </button>
    </header>
    <section class="settings-section">
      <h2>This window</h2>
      ${row(
        'Theme',
        select<ThemePreference>(
          'theme',
          values.theme,
          [
            ['system', 'Follow the system'],
            ['dark', 'Dark'],
            ['light', 'Light'],
          ],
          (v) => handlers.onTheme(v),
        ),
      )}${row(
        'Terminal font size',
        select(
          'fontSize',
          values.fontSize,
          FONT_SIZES.map((px) => [px, `${px} px`]),
          (v) => handlers.onFontSize(v),
        ),
        'Watched agent sessions shrink below it to show the agent’s whole screen.',
      )}${row(
        'Group sessions by',
        select<GroupMode>(
          'groupMode',
          values.groupMode,
          [
            ['agent', 'Agent'],
            ['folder', 'Project folder'],
          ],
          (v) => handlers.onGroupMode(v),
        ),
      )}${row(
        'Ask before taking over',
        html`<input
          type="checkbox"
          .checked=${live(values.confirmTakeOver)}
          @change=${(event: Event) => handlers.onConfirmTakeOver((event.target as HTMLInputElement).checked)}
        />`,
        'Typing into an agent’s session takes the keyboard from the agent.',
      )}
    </section>
    ${props.notifications ? notificationsSection(props.notifications, handlers) : nothing}${hubSettingsSection(props.hub, props.hubError, {
      change: (key, value) => handlers.onHubSetting(key, value),
      rotateToken: () => handlers.onRotateToken(),
      redraw,
      remotes: props.remotes,
    })}
    <section class="settings-section">
      <h2>About the hub</h2>
      ${readonly('Version', welcome?.version ?? '—')}${readonly('UI protocol', welcome ? String(welcome.protocol) : '—')}${readonly(
        'Flow control',
        welcome ? `ack every ${welcome.flow.ackEvery} · pause above ${welcome.flow.highWatermark} · resume below ${welcome.flow.lowWatermark} bytes` : '—',
      )}
    </section>
  </div>`;
}

function notificationsSection(settings: NotificationSettings, handlers: SettingsHandlers): TemplateResult {
  const known = NOTIFY_AFTER_CHOICES.some(([ms]) => ms === settings.notifyAfterMs);
  const choices: [number, string][] = known
    ? NOTIFY_AFTER_CHOICES
    : [...NOTIFY_AFTER_CHOICES, [settings.notifyAfterMs, `${Math.round(settings.notifyAfterMs / 1000)} seconds`]];
  const on = html`<input
    type="checkbox"
    data-setting="notifications"
    .checked=${live(settings.notifications)}
    @change=${(event: Event) => handlers.onNotificationSettings({ notifications: (event.target as HTMLInputElement).checked })}
  />`;
  return html`<section class="settings-section">
    <h2>Notifications</h2>
    ${row('Notify me', on, 'When an agent’s command fails or finishes after running long, or a session needs you. Silent; nothing comes to the front.')}${row(
      'A long command runs at least',
      select('notifyAfterMs', settings.notifyAfterMs, choices, (ms) => handlers.onNotificationSettings({ notifyAfterMs: ms }), !settings.notifications),
    )}
  </section>`;
}

function select<T extends string | number>(name: string, current: T, choices: [T, string][], onChange: (value: T) => void, disabled = false): TemplateResult {
  const changed = (event: Event): void => {
    const choice = choices[(event.target as HTMLSelectElement).selectedIndex];
    if (choice) onChange(choice[0]);
  };
  return html`<select class="select" data-setting=${name} ?disabled=${disabled} @change=${changed}>
    ${choices.map(([value, label]) => html`<option .selected=${live(value === current)}>${label}</option>`)}
  </select>`;
}

function row(label: string, control: TemplateResult, hint?: string): TemplateResult {
  return html`<div class="setting-row">
    <div class="setting-label">${label}${hint ? html`<div class="setting-hint">${hint}</div>` : nothing}</div>
    <div class="setting-control">${control}</div>
  </div>`;
}

function readonly(label: string, value: string): TemplateResult {
  return html`<div class="setting-row">
    <div class="setting-label">${label}</div>
    <div class="setting-value mono">${value}</div>
  </div>`;
}
