/**
 * Settings. The page's own preferences (theme, terminal font size, grouping) are edited here and
 * kept in localStorage. The hub's settings (shell, timeouts, limits, secret filter, port,
 * retention) are not carried by the UI protocol yet: the view says where they live and shows
 * what the hub did tell us (version, protocol, flow control).
 */
import type { HubMessage } from '../../src/ui-protocol.js';
import { clear, h } from './dom.js';
import type { GroupMode } from './sessionList.js';
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
  onClose(): void;
}

export const FONT_SIZES = [11, 12, 13, 14, 15, 16];

export class SettingsView {
  constructor(
    private readonly root: HTMLElement,
    private readonly handlers: SettingsHandlers,
  ) {}

  render(values: SettingsValues, welcome: Welcome | null): void {
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
        h(
          'section',
          { class: 'settings-section' },
          h('h2', null, 'Hub'),
          readonly('Version', welcome?.version ?? '—'),
          readonly('UI protocol', welcome ? String(welcome.protocol) : '—'),
          readonly('Flow control', welcome ? `ack every ${welcome.flow.ackEvery} · pause above ${welcome.flow.highWatermark} · resume below ${welcome.flow.lowWatermark} bytes` : '—'),
          h(
            'p',
            { class: 'settings-note' },
            'Shell, timeouts, limits, the secret filter, the port and retention are hub settings: edit settings.json in the state directory (or set SWITCHBOARD_* variables) and restart the hub. This page cannot show them yet.',
          ),
        ),
      ),
    );
  }
}
