/**
 * The agents' sandbox on the settings page (docs/design.md §2.10, §5.5): what their sessions may
 * write, the folders they may also write (the package managers' caches by default) and the paths
 * they may not read, their network (on, off, or a list of domains) and whether a machine without
 * a sandbox refuses them. Each change sends the whole `sandbox` object; the hub checks it and
 * saves it or refuses it (its words show on top of the page).
 */
import { html, nothing, type TemplateResult } from 'lit-html';
import { live } from 'lit-html/directives/live.js';
import type { HubSetting } from '../../../src/ui-protocol/index.js';
import { listTextarea } from './listTextarea.js';

interface SandboxSetting {
  filesystem: 'project' | 'read-only' | 'off';
  writable: string[];
  denied: string[];
  network: 'on' | 'off' | string[];
  required: boolean;
}

const FILESYSTEM: readonly [SandboxSetting['filesystem'], string][] = [
  ['project', 'their project folder, temp and the folders below'],
  ['read-only', 'nowhere (temp files vanish with the session)'],
  ['off', 'anywhere but the paths they may not read'],
];

/** "Only these domains" chosen while the list is still empty: not sent (the hub would refuse an empty list). */
let wantsDomains = false;

/** The page closed: a half-made choice is dropped. */
export function forgetSandboxDraft(): void {
  wantsDomains = false;
}

export function sandboxEditor(setting: HubSetting, change: (value: SandboxSetting) => void, redraw: () => void): TemplateResult {
  const saved = readSetting(setting.saved);
  const locked = setting.env !== undefined;
  const send = (patch: Partial<SandboxSetting>): void => change({ ...saved, ...patch });
  const domains = Array.isArray(saved.network) ? saved.network : [];
  const network = Array.isArray(saved.network) || wantsDomains ? 'domains' : saved.network;
  if (Array.isArray(saved.network)) wantsDomains = false;
  const networkChanged = (event: Event): void => {
    const choice = (event.target as HTMLSelectElement).value;
    if (choice === 'domains') {
      wantsDomains = true;
      redraw();
    } else {
      wantsDomains = false;
      send({ network: choice as 'on' | 'off' });
    }
  };
  return html`<div class="sandbox-settings" data-sandbox="">
    <label class="sandbox-field"
      ><span class="sandbox-label">They may write</span
      ><select
        class="select"
        name="sandbox.filesystem"
        ?disabled=${locked}
        @change=${(event: Event) => send({ filesystem: (event.target as HTMLSelectElement).value as SandboxSetting['filesystem'] })}
      >
        ${FILESYSTEM.map(([value, words]) => html`<option value=${value} .selected=${live(value === saved.filesystem)}>${value}: ${words}</option>`)}
      </select></label
    >
    ${
      saved.filesystem === 'project'
        ? listField(
            'sandbox.writable',
            'Folders they may also write',
            'One per line, absolute or ~/…: the package managers’ caches, so npm, pip and cargo work. A folder that does not exist is left out.',
            saved.writable,
            locked,
            (writable) => send({ writable }),
          )
        : nothing
    }
    ${listField('sandbox.denied', 'Paths they may not read', 'One per line, e.g. ~/.ssh, ~/.aws. The hub’s own folder (its token, settings and transcripts) never can be, whatever this says.', saved.denied, locked, (denied) => send({ denied }))}
    <label class="sandbox-field"
      ><span class="sandbox-label">Their network</span
      ><select class="select" name="sandbox.network" ?disabled=${locked} @change=${networkChanged}>
        <option value="on" .selected=${live(network === 'on')}>on: the machine’s</option>
        <option value="off" .selected=${live(network === 'off')}>off: none at all</option>
        <option value="domains" .selected=${live(network === 'domains')}>only these domains (through a proxy)</option>
      </select></label
    >
    ${
      network === 'domains'
        ? listField(
            'sandbox.network.domains',
            'Domains they may reach',
            'One per line: example.com, or *.example.com for every name under it. HTTP and HTTPS go through the hub’s proxy; nothing else leaves.',
            domains,
            locked,
            (list) => {
              if (list.length > 0) send({ network: list });
            },
          )
        : nothing
    }
    <label class="sandbox-field checkbox"
      ><input
        type="checkbox"
        name="sandbox.required"
        .checked=${live(saved.required)}
        ?disabled=${locked}
        @change=${(event: Event) => send({ required: (event.target as HTMLInputElement).checked })}
      /><span>Refuse agents’ sessions where no sandbox can start (otherwise they run without one, and every result says so)</span></label
    >
  </div>`;
}

function listField(name: string, label: string, hint: string, lines: readonly string[], locked: boolean, changed: (lines: string[]) => void): TemplateResult {
  return html`<label class="sandbox-field"
    ><span class="sandbox-label">${label}<span class="setting-hint">${hint}</span></span
    >${listTextarea(name, lines, locked, 8, changed)}
  </label>`;
}

/** The saved value as the page edits it (the hub always sends it whole, defaults filled in). */
function readSetting(value: unknown): SandboxSetting {
  const v = (value ?? {}) as Partial<SandboxSetting>;
  return {
    filesystem: v.filesystem ?? 'project',
    writable: Array.isArray(v.writable) ? v.writable.map(String) : [],
    denied: Array.isArray(v.denied) ? v.denied.map(String) : [],
    network: Array.isArray(v.network) ? v.network.map(String) : v.network === 'off' ? 'off' : 'on',
    required: v.required === true,
  };
}
