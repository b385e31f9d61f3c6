/**
 * The banner over the whole window when a settings change waits for the person (docs/design.md
 * §5.2, §5.5): settings.json was edited by hand, or changed over a connection signed in with the
 * token, in a way that loosens what agents may do or where they may reach; the hub keeps the
 * settings in force until the person confirms it here or discards it (settings.json then gets back
 * what is in force). It names every change, where it came from, and stays over the settings page.
 */
import { html, nothing, render, type TemplateResult } from 'lit-html';
import type { HeldSettings } from '../../../src/ui-protocol/index.js';

interface HeldSettingsHandlers {
  onConfirm(id: string): void;
  onDiscard(id: string): void;
}

const SOURCE_TEXT: Record<HeldSettings['changes'][number]['source'], string> = {
  'settings.json': 'settings.json',
  token: 'A connection with the agents’ token',
};

export function renderHeldSettings(host: HTMLElement, held: HeldSettings | null, handlers: HeldSettingsHandlers): void {
  host.hidden = held === null;
  if (held) host.dataset.held = held.id;
  else delete host.dataset.held;
  render(held ? heldView(held, handlers) : nothing, host);
}

function heldView(held: HeldSettings, handlers: HeldSettingsHandlers): TemplateResult {
  const sources = [...new Set(held.changes.map((change) => change.source))];
  return html`<strong>Needs you</strong
    ><span class="held-text"
      >${sources.map(
        (source) =>
          html`<span class="held-line" data-source=${source}
            ><span class="held-source">${SOURCE_TEXT[source]}:</span> ${held.changes
              .filter((change) => change.source === source)
              .map(
                (change, i) => html`${i > 0 ? '; ' : ''}<span class=${change.loosens ? 'held-change loosens' : 'held-change'}>${withCode(change.text)}</span>`,
              )}</span
          >`,
      )}<span class="held-line held-note"
        >Not in force: agents run under the settings you confirmed. Confirm to apply it, or discard to put settings.json back.</span
      ></span
    ><button class="btn accent small" type="button" data-action="held-confirm" @click=${() => handlers.onConfirm(held.id)}>Confirm</button
    ><button class="btn small" type="button" data-action="held-discard" @click=${() => handlers.onDiscard(held.id)}>Discard</button>`;
}

/** `a \`b\` c` with the backticked parts as code, as the hub writes patterns and values. */
function withCode(text: string): TemplateResult[] {
  return text.split('`').map((part, i) => (i % 2 === 1 ? html`<code>${part}</code>` : html`${part}`));
}
