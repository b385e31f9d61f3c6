/**
 * The hub's settings on the settings page: one row per setting, grouped as the hub groups
 * them, each changed on its own (`setSettings` with one key). The hub checks every value; its
 * answer (a fresh `hubSettings`, or an error) redraws the section, and each control shows the
 * saved value again (`live`), so a refused value goes back to what is saved. A setting an
 * environment variable holds cannot be changed here.
 */
import { html, nothing, type TemplateResult } from 'lit-html';
import { live } from 'lit-html/directives/live.js';
import { repeat } from 'lit-html/directives/repeat.js';
import type { HubSetting, UiRemote } from '../../../src/ui-protocol/index.js';
import { listTextarea } from './listTextarea.js';
import { policyRulesEditor } from './policyRulesView.js';
import { remotesEditor } from './remotesSettingsView.js';
import { sandboxEditor } from './sandboxSettingsView.js';
import type { HubSettingsMessage } from '../sessionState.js';

/** What the section needs from the page: send one change (null: back to the default). */
type ChangeSetting = (key: string, value: unknown) => void;

interface HubSettingsHandlers {
  change: ChangeSetting;
  /** Replace the endpoints' token now (the page asks the person first). */
  rotateToken(): void;
  /** Draw the page again (a change kept on the page only: a rule added, not yet sent). */
  redraw(): void;
  /** The other machines and how each link is now (the remotes' rows say it). */
  remotes: readonly UiRemote[];
}

/** A setting whose change in settings.json waits for the person: the page shows and edits what is in force. */
const HELD_NOTE = 'A change of this in settings.json waits for you (the banner at the top): shown here is what is in force.';

const APPLIES: Record<HubSetting['applies'], string> = {
  sessions: 'new sessions',
  calls: 'new calls',
  hourly: 'hourly check',
  restart: 'after a restart',
};

/** `settings`: null until the hub answered; `error`: the hub's last refusal, shown on top. */
export function hubSettingsSection(settings: HubSettingsMessage | null, error: string | null, handlers: HubSettingsHandlers): TemplateResult {
  if (!settings)
    return html`<section class="settings-section hub-settings">
      <h2>Hub</h2>
      <p class="settings-note">Asking the hub for its settings…</p>
    </section>`;
  // The rows, each group's heading before its first one.
  const items: ({ key: string; heading: string } | { key: string; setting: HubSetting })[] = [];
  let group = '';
  for (const setting of settings.settings) {
    if (setting.group !== group) {
      group = setting.group;
      items.push({ key: `group:${group}`, heading: group });
    }
    items.push({ key: `setting:${setting.key}`, setting });
  }
  return html`<section class="settings-section hub-settings">
    <h2>Hub</h2>
    <p class="settings-note">
      Saved to <span class="mono">${settings.file}</span>. A change applies to sessions opened and calls made from then on; the endpoints’ settings when the hub
      next starts.
    </p>
    ${
      settings.problem ? html`<p class="settings-note settings-error" data-settings-problem="">${settings.problem}</p>` : nothing
    }${error ? html`<p class="settings-note settings-error" data-settings-error="">${error}</p>` : nothing}${repeat(
      items,
      (item) => item.key,
      (item) =>
        'heading' in item
          ? html`<h3 class="settings-group">${item.heading}</h3>`
          : item.setting.kind === 'rules'
            ? rulesRow(item.setting, error, handlers)
            : item.setting.kind === 'sandbox'
              ? sandboxRow(item.setting, handlers)
              : item.setting.kind === 'remotes'
                ? remotesRow(item.setting, handlers)
                : settingRow(item.setting, handlers.change),
    )}${tokenRow(settings.tokenWrittenAt, handlers.rotateToken)}
  </section>`;
}

function settingRow(setting: HubSetting, change: ChangeSetting): TemplateResult {
  const locked = setting.env !== undefined;
  const pending = setting.applies === 'restart' && !same(setting.saved, setting.value);
  const notes: string[] = [];
  if (setting.hint) notes.push(setting.hint);
  if (locked) notes.push(`Set by ${setting.env} in the hub’s environment.`);
  else if (setting.held) notes.push(HELD_NOTE);
  else if (pending) notes.push(`Saved ${show(setting.saved)}; the hub runs with ${show(setting.value)} until it restarts.`);
  // The Default button has a slot of its own on every row, so the controls line up.
  const reset =
    setting.inFile && !locked
      ? html`<button
          class="link-btn"
          type="button"
          data-reset=${setting.key}
          title=${`Back to the default: ${show(setting.default)}`}
          @click=${() => change(setting.key, null)}
        >
          Default
        </button>`
      : nothing;
  return html`<div class=${`setting-row${pending ? ' pending' : ''}`} data-hub-setting=${setting.key}>
    <div class="setting-label">
      ${setting.label}<span class="setting-applies">${APPLIES[setting.applies]}</span>${notes.map((note) => html`<div class="setting-hint">${note}</div>`)}
    </div>
    <div class="setting-control">${input(setting, locked, change)}<span class="setting-reset">${reset}</span></div>
  </div>`;
}

/**
 * A setting whose editor takes the page's width (the rules, the sandbox, the remotes): its label,
 * hint and notes above, the editor below. `resetTitle`: the Default button's title; none, no button.
 */
function wideRow(setting: HubSetting, handlers: HubSettingsHandlers, editor: TemplateResult, resetTitle?: string): TemplateResult {
  const locked = setting.env !== undefined;
  const reset =
    resetTitle !== undefined && setting.inFile && !locked
      ? html`<button class="link-btn" type="button" data-reset=${setting.key} title=${resetTitle} @click=${() => handlers.change(setting.key, null)}>
          Default
        </button>`
      : nothing;
  return html`<div class="setting-row rules-row" data-hub-setting=${setting.key}>
    <div class="setting-label">
      ${setting.label}<span class="setting-applies">${APPLIES[setting.applies]}</span><span class="setting-reset">${reset}</span>${
        setting.hint ? html`<div class="setting-hint">${setting.hint}</div>` : nothing
      }${locked ? html`<div class="setting-hint">${`Set by ${setting.env} in the hub’s environment.`}</div>` : nothing}${
        setting.held ? html`<div class="setting-hint" data-held="">${HELD_NOTE}</div>` : nothing
      }
    </div>
    ${editor}
  </div>`;
}

function rulesRow(setting: HubSetting, error: string | null, handlers: HubSettingsHandlers): TemplateResult {
  const editor = policyRulesEditor(setting, error, (rules) => handlers.change(setting.key, rules), handlers.redraw);
  return wideRow(setting, handlers, editor, 'Back to the default rules');
}

function sandboxRow(setting: HubSetting, handlers: HubSettingsHandlers): TemplateResult {
  return wideRow(
    setting,
    handlers,
    sandboxEditor(setting, (value) => handlers.change(setting.key, value), handlers.redraw),
    'Back to the default sandbox',
  );
}

/** The remotes have no Default: each machine is added and removed on its own row. */
function remotesRow(setting: HubSetting, handlers: HubSettingsHandlers): TemplateResult {
  return wideRow(
    setting,
    handlers,
    remotesEditor(setting, handlers.remotes, (remotes) => handlers.change(setting.key, remotes)),
  );
}

function tokenRow(writtenAt: number | undefined, rotate: () => void): TemplateResult {
  const made = writtenAt === undefined ? 'The token' : `The token was made ${new Date(writtenAt).toLocaleString()}`;
  return html`<div class="setting-row" data-hub-setting="token">
    <div class="setting-label">
      Token of the endpoints
      <div class="setting-hint">
        ${`${made}. Replacing it (and your UI key with it) shuts out whoever holds the old ones; agents on the shim and open pages carry on.`}
      </div>
    </div>
    <div class="setting-control">
      <button class="btn" type="button" data-action="rotate-token" @click=${rotate}>Replace now</button><span class="setting-reset"></span>
    </div>
  </div>`;
}

/**
 * The control for one setting. Text fields carry `data-shown`: what they showed or sent last;
 * one whose value differs is being typed in, and the page waits for the person to leave it
 * before it draws the settings again (settingsView.ts).
 */
function input(setting: HubSetting, locked: boolean, change: ChangeSetting): TemplateResult {
  const name = setting.key;
  switch (setting.kind) {
    case 'choice': {
      const options = setting.options ?? [];
      const changed = (event: Event): void => {
        const choice = options[(event.target as HTMLSelectElement).selectedIndex];
        if (choice !== undefined) change(name, choice);
      };
      return html`<select class="select" name=${name} ?disabled=${locked} @change=${changed}>
        ${options.map((option) => html`<option .selected=${live(option === setting.saved)}>${option}</option>`)}
      </select>`;
    }
    case 'rules':
    case 'sandbox':
    case 'remotes':
      return html``; // drawn by rulesRow, sandboxRow, remotesRow (remotesSettingsView.ts)
    case 'boolean':
      return html`<input
        type="checkbox"
        name=${name}
        .checked=${live(setting.saved === true)}
        ?disabled=${locked}
        @change=${(event: Event) => change(name, (event.target as HTMLInputElement).checked)}
      />`;
    case 'number': {
      const saved = String(setting.saved ?? '');
      // An empty or half-typed number is not sent (the hub would read it as "default").
      const changed = (event: Event): void => {
        const field = event.target as HTMLInputElement;
        const valid = field.value.trim() !== '' && Number.isFinite(field.valueAsNumber);
        if (!valid) field.value = saved;
        field.dataset.shown = field.value;
        if (valid) change(name, field.valueAsNumber);
      };
      return html`<span class="number-field"
        ><input
          class="input number"
          type="number"
          name=${name}
          step="1"
          .value=${live(saved)}
          data-shown=${live(saved)}
          ?disabled=${locked}
          min=${setting.min !== undefined ? String(setting.min) : nothing}
          max=${setting.max !== undefined ? String(setting.max) : nothing}
          @change=${changed}
        /><span class="setting-unit">${readable(setting.saved, setting.unit) ?? setting.unit ?? ''}</span></span
      >`;
    }
    case 'string': {
      const saved = typeof setting.saved === 'string' ? setting.saved : '';
      // Empty: the setting's default (for the shell, the person's login shell).
      const changed = (event: Event): void => {
        const field = event.target as HTMLInputElement;
        field.dataset.shown = field.value;
        change(name, field.value.trim() === '' ? null : field.value.trim());
      };
      return html`<input
        class="input text mono"
        type="text"
        name=${name}
        .value=${live(saved)}
        data-shown=${live(saved)}
        placeholder="default"
        ?disabled=${locked}
        spellcheck="false"
        @change=${changed}
      />`;
    }
    case 'list': {
      const lines = Array.isArray(setting.saved) ? (setting.saved as unknown[]).map(String) : [];
      return listTextarea(name, lines, locked, 6, (list) => change(name, list));
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
