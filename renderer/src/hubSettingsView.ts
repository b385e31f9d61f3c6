/**
 * The hub's settings on the settings page: one row per setting, grouped as the hub groups
 * them, each changed on its own (`setSettings` with one key). The hub checks every value; its
 * answer (a fresh `hubSettings`, or an error) re-renders the section, so a refused value goes
 * back to what is saved. A setting an environment variable holds cannot be changed here.
 */
import type { HubMessage, HubSetting } from '../../src/ui-protocol.js';
import { h } from './dom.js';

export type HubSettingsMessage = Extract<HubMessage, { type: 'hubSettings' }>;

/** What the section needs from the page: send one change (null: back to the default). */
export type ChangeSetting = (key: string, value: unknown) => void;

export interface HubSettingsHandlers {
  change: ChangeSetting;
  /** Replace the endpoints' token now (the page asks the person first). */
  rotateToken(): void;
}

const APPLIES: Record<HubSetting['applies'], string> = {
  sessions: 'new sessions',
  calls: 'new calls',
  hourly: 'hourly check',
  restart: 'after a restart',
};

/** `settings`: null until the hub answered; `error`: the hub's last refusal, shown on top. */
export function hubSettingsSection(settings: HubSettingsMessage | null, error: string | null, handlers: HubSettingsHandlers): HTMLElement {
  const section = h('section', { class: 'settings-section hub-settings' }, h('h2', null, 'Hub'));
  if (!settings) {
    section.append(h('p', { class: 'settings-note' }, 'Asking the hub for its settings…'));
    return section;
  }
  section.append(
    h(
      'p',
      { class: 'settings-note' },
      'Saved to ',
      h('span', { class: 'mono' }, settings.file),
      '. A change applies to sessions opened and calls made from then on; the endpoints’ settings when the hub next starts.',
    ),
  );
  if (settings.problem) section.append(h('p', { class: 'settings-note settings-error', 'data-settings-problem': '' }, settings.problem));
  if (error) section.append(h('p', { class: 'settings-note settings-error', 'data-settings-error': '' }, error));
  let group = '';
  for (const setting of settings.settings) {
    if (setting.group !== group) {
      group = setting.group;
      section.append(h('h3', { class: 'settings-group' }, group));
    }
    section.append(settingRow(setting, handlers.change));
  }
  section.append(tokenRow(settings.tokenWrittenAt, handlers.rotateToken));
  return section;
}

function settingRow(setting: HubSetting, change: ChangeSetting): HTMLElement {
  const locked = setting.env !== undefined;
  const pending = setting.applies === 'restart' && !same(setting.saved, setting.value);
  const notes: (Node | string)[] = [];
  if (setting.hint) notes.push(setting.hint);
  if (locked) notes.push(`Set by ${setting.env} in the hub’s environment.`);
  else if (pending) notes.push(`Saved ${show(setting.saved)}; the hub runs with ${show(setting.value)} until it restarts.`);
  // The Default button has a slot of its own on every row, so the controls line up.
  const reset = h('span', { class: 'setting-reset' });
  if (setting.inFile && !locked) {
    reset.append(h('button', { class: 'link-btn', type: 'button', 'data-reset': setting.key, title: `Back to the default: ${show(setting.default)}`, onclick: () => change(setting.key, null) }, 'Default'));
  }
  const control = h('div', { class: 'setting-control' }, input(setting, locked, change), reset);
  return h(
    'div',
    { class: `setting-row${pending ? ' pending' : ''}`, 'data-hub-setting': setting.key },
    h(
      'div',
      { class: 'setting-label' },
      setting.label,
      h('span', { class: 'setting-applies' }, APPLIES[setting.applies]),
      ...notes.map((note) => h('div', { class: 'setting-hint' }, note)),
    ),
    control,
  );
}

function tokenRow(writtenAt: number | undefined, rotate: () => void): HTMLElement {
  const made = writtenAt === undefined ? 'The token' : `The token was made ${new Date(writtenAt).toLocaleString()}`;
  return h(
    'div',
    { class: 'setting-row', 'data-hub-setting': 'token' },
    h(
      'div',
      { class: 'setting-label' },
      'Token of the endpoints',
      h('div', { class: 'setting-hint' }, `${made}. Replacing it shuts out whoever holds the old one; agents on the shim and open pages carry on.`),
    ),
    h('div', { class: 'setting-control' }, h('button', { class: 'btn', type: 'button', 'data-action': 'rotate-token', onclick: rotate }, 'Replace now'), h('span', { class: 'setting-reset' })),
  );
}

function input(setting: HubSetting, locked: boolean, change: ChangeSetting): HTMLElement {
  const name = setting.key;
  switch (setting.kind) {
    case 'boolean': {
      const box = h('input', { type: 'checkbox', name, checked: setting.saved === true, disabled: locked, onchange: () => change(name, box.checked) });
      return box;
    }
    case 'number': {
      const field = h('input', {
        class: 'input number',
        type: 'number',
        name,
        step: '1',
        value: String(setting.saved ?? ''),
        'data-shown': String(setting.saved ?? ''),
        disabled: locked,
        ...(setting.min !== undefined ? { min: String(setting.min) } : {}),
        ...(setting.max !== undefined ? { max: String(setting.max) } : {}),
        // An empty or half-typed number is not sent (the hub would read it as "default").
        onchange: () => {
          const valid = field.value.trim() !== '' && Number.isFinite(field.valueAsNumber);
          if (!valid) field.value = String(setting.saved ?? '');
          field.dataset.shown = field.value;
          if (valid) change(name, field.valueAsNumber);
        },
      });
      const amount = readable(setting.saved, setting.unit);
      return h('span', { class: 'number-field' }, field, h('span', { class: 'setting-unit' }, amount ?? setting.unit ?? ''));
    }
    case 'string': {
      const field = h('input', {
        class: 'input text mono',
        type: 'text',
        name,
        value: typeof setting.saved === 'string' ? setting.saved : '',
        'data-shown': typeof setting.saved === 'string' ? setting.saved : '',
        placeholder: 'default',
        disabled: locked,
        spellcheck: false,
        // Empty: the setting's default (for the shell, the person's login shell).
        onchange: () => {
          field.dataset.shown = field.value;
          change(name, field.value.trim() === '' ? null : field.value.trim());
        },
      });
      return field;
    }
    case 'list': {
      const lines = Array.isArray(setting.saved) ? (setting.saved as unknown[]).map(String) : [];
      const area = h('textarea', {
        class: 'input list mono',
        name,
        rows: String(Math.min(6, Math.max(2, lines.length))),
        disabled: locked,
        spellcheck: false,
        onchange: () => {
          area.dataset.shown = area.value;
          change(name, area.value.split('\n').map((line) => line.trim()).filter((line) => line !== ''));
        },
      });
      area.value = lines.join('\n');
      area.dataset.shown = area.value;
      return area;
    }
  }
}

/** `536870912` bytes → "512 MiB", `30000` ms → "30 s": the unit, and the amount when that reads better. */
function readable(value: unknown, unit: string | undefined): string | null {
  if (typeof value !== 'number') return null;
  if (unit === 'bytes' && value >= 1024) {
    const units = ['KiB', 'MiB', 'GiB', 'TiB'];
    let amount = value / 1024;
    let index = 0;
    while (amount >= 1024 && index < units.length - 1) {
      amount /= 1024;
      index++;
    }
    return `bytes (${Number(amount.toFixed(1))} ${units[index]})`;
  }
  if (unit === 'ms' && value >= 1000) {
    const seconds = value / 1000;
    return `ms (${seconds >= 120 ? `${Number((seconds / 60).toFixed(1))} min` : `${Number(seconds.toFixed(1))} s`})`;
  }
  return null;
}

function show(value: unknown): string {
  if (value === null || value === undefined) return 'the default';
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.join(', ');
  return String(value);
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
