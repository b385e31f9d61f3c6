/**
 * The history palette's drawing (historyPanel.ts holds its state and keys): the search box and
 * "Failed only", the results (exit status, failed in red as in the timeline; the command; when,
 * where, who, which session), one command's output read only, and the sessions a command can run
 * again in.
 */
import { html, nothing, type TemplateResult } from 'lit-html';
import { live } from 'lit-html/directives/live.js';
import type { HubMessage, UiHistoryEntry } from '../../../src/ui-protocol/index.js';
import { icon } from './icons.js';
import { formatDuration, shortPath } from '../sessionFormat.js';

export interface RunTarget {
  /** A session id, or `new`. */
  id: string;
  label: string;
  detail: string;
  disabled: boolean;
  agent?: boolean;
}

export interface HistoryViewModel {
  query: string;
  failedOnly: boolean;
  results: UiHistoryEntry[];
  total: number;
  note?: string | undefined;
  selected: number;
  loading: boolean;
  mode: 'list' | 'output' | 'pick';
  /** The result shown or to run again, its output once it came (`lines`: how many are loaded). */
  output: { row: UiHistoryEntry; page: Extract<HubMessage, { type: 'commandOutputResult' }> | null; error?: string | undefined } | null;
  targets: RunTarget[];
  target: number;
  /** When the results came (for "5 min ago"). */
  now: number;
}

interface HistoryViewHandlers {
  onQuery(value: string): void;
  onKey(event: KeyboardEvent): void;
  onToggleFailed(): void;
  onSelect(index: number): void;
  onOpen(row: UiHistoryEntry, here: boolean): void;
  onRunAgain(row: UiHistoryEntry): void;
  onMore(): void;
  onChoose(target: RunTarget): void;
  onBack(): void;
  onClose(): void;
}

export function historyView(model: HistoryViewModel, on: HistoryViewHandlers): TemplateResult {
  const count =
    model.loading && model.results.length === 0
      ? 'searching…'
      : model.total === 0
        ? 'no match'
        : model.total > model.results.length
          ? `${model.results.length} of ${model.total}`
          : String(model.total);
  return html`<div class="hp-backdrop" @mousedown=${(event: MouseEvent) => event.target === event.currentTarget && on.onClose()}>
    <div class="hp" role="dialog" aria-label="Command history" @keydown=${on.onKey}>
      <header class="hp-head">
        ${icon('search')}<input
          class="hp-query"
          type="search"
          data-role="history-query"
          placeholder="Search every session's commands"
          aria-label="Search every session's commands"
          .value=${live(model.query)}
          @input=${(event: Event) => on.onQuery((event.target as HTMLInputElement).value)}
        /><label class="hp-toggle" title="Only commands that failed (Alt+F)"
          ><input type="checkbox" data-role="failed-only" .checked=${live(model.failedOnly)} @change=${on.onToggleFailed} />Failed only</label
        ><span class="hp-count">${count}</span
        ><button class="icon-btn small" type="button" title="Close (Esc)" aria-label="Close" @click=${on.onClose}>${icon('x')}</button>
      </header>
      ${model.mode === 'list' ? listView(model, on) : model.mode === 'output' ? outputView(model, on) : pickView(model, on)}
      <footer class="hp-hints">${hints(model.mode)}</footer>
    </div>
  </div>`;
}

function hints(mode: HistoryViewModel['mode']): string {
  if (mode === 'output') return 'Ctrl+Enter run again · Esc back to the results';
  if (mode === 'pick') return '↑↓ choose · Enter run · Esc back';
  return '↑↓ select · Enter open · Shift+Enter output here · Ctrl+Enter run again · Alt+F failed only · Esc close';
}

function listView(model: HistoryViewModel, on: HistoryViewHandlers): TemplateResult {
  if (model.results.length === 0) {
    return html`<div class="hp-empty">
      ${model.note ?? (model.loading ? 'Searching…' : model.query ? 'No command matches. Words match the start of words in the command line.' : 'No commands yet.')}
    </div>`;
  }
  return html`${model.note ? html`<div class="hp-note">${model.note}</div>` : nothing}
    <ol class="hp-list" role="listbox" aria-label="Commands">
      ${model.results.map((row, index) => rowView(row, index, model, on))}
    </ol>`;
}

function rowView(row: UiHistoryEntry, index: number, model: HistoryViewModel, on: HistoryViewHandlers): TemplateResult {
  const tone = toneOf(row.exit_code);
  const selected = index === model.selected;
  return html`<li
    class=${`hp-row tone-${tone}${selected ? ' selected' : ''}`}
    role="option"
    aria-selected=${selected ? 'true' : 'false'}
    data-session=${row.session}
    data-seq=${row.seq}
    @click=${() => on.onSelect(index)}
    @dblclick=${() => on.onOpen(row, false)}
  >
    ${exitBadge(row.exit_code)}<span class="hp-command mono" title=${row.command}>${row.command}</span><span class="hp-meta">${metaView(row, model.now)}</span
    ><span class="hp-actions"
      ><button
        class="btn small"
        type="button"
        data-action="open"
        title="Open its output (Enter)"
        @click=${(event: Event) => (event.stopPropagation(), on.onOpen(row, false))}
      >
        Open</button
      ><button
        class="btn small"
        type="button"
        data-action="run-again"
        title="Run it again in a session you pick (Ctrl+Enter)"
        @click=${(event: Event) => (event.stopPropagation(), on.onRunAgain(row))}
      >
        Run again
      </button></span
    >
  </li>`;
}

function metaView(row: UiHistoryEntry, now: number): TemplateResult {
  const started = Date.parse(row.started_at);
  const who = row.creator === 'person' ? 'you' : row.creator.replace(/\s\S+$/, '');
  return html`<span title=${new Date(started).toLocaleString()}>${ago(now - started, started)}</span
    >${row.duration_ms !== null ? html`<span>${formatDuration(row.duration_ms)}</span>` : nothing}<span class="mono" title=${row.cwd ?? ''}
      >${shortPath(row.cwd)}</span
    ><span class=${`hp-who ${row.creator === 'person' ? 'user' : 'agent'}`} title=${row.creator}>${who}</span
    ><span class="mono hp-session" title=${`session ${row.session}, command #${row.seq}`}>${row.session}</span>`;
}

function outputView(model: HistoryViewModel, on: HistoryViewHandlers): TemplateResult {
  const output = model.output!;
  const { row, page } = output;
  const more = page !== null && page.lines < page.total_lines;
  return html`<section class="hp-detail">
    <div class=${`hp-detail-head tone-${toneOf(row.exit_code)}`}>
      ${exitBadge(row.exit_code)}<span class="hp-command mono">${row.command}</span
      ><button class="btn small" type="button" data-action="run-again" @click=${() => on.onRunAgain(row)}>Run again</button
      ><button class="btn small" type="button" data-action="back" @click=${on.onBack}>Back</button>
    </div>
    <div class="hp-meta hp-detail-meta">
      ${metaView(row, model.now)}${page ? html`<span>${page.total_lines} ${page.total_lines === 1 ? 'line' : 'lines'}</span>` : nothing}
    </div>
    <pre class="hp-output mono" tabindex="0" data-role="command-output" aria-label="Output, read only">
${
        output.error
          ? html`<span class="hp-error">${output.error}</span>`
          : page === null
            ? 'Loading…'
            : page.text === ''
              ? html`<span class="hp-faint">(no output)</span>`
              : page.text
      }</pre>
    ${more ? html`<button class="btn small hp-more" type="button" @click=${on.onMore}>Show more (${page.total_lines - page.lines} lines left)</button>` : nothing}
  </section>`;
}

function pickView(model: HistoryViewModel, on: HistoryViewHandlers): TemplateResult {
  const row = model.output?.row;
  return html`<section class="hp-detail">
    <div class="hp-detail-head"><span>Run</span><span class="hp-command mono">${row?.command ?? ''}</span><span>again in…</span></div>
    <ol class="hp-targets" tabindex="0" role="listbox" aria-label="Where to run it">
      ${model.targets.map(
        (target, index) =>
          html`<li
            class=${`hp-target${index === model.target ? ' selected' : ''}${target.disabled ? ' disabled' : ''}`}
            role="option"
            aria-selected=${index === model.target ? 'true' : 'false'}
            aria-disabled=${target.disabled ? 'true' : 'false'}
            data-target=${target.id}
            @click=${() => on.onChoose(target)}
          >
            ${icon(target.id === 'new' ? 'plus' : target.agent ? 'keyboard' : 'terminal')}<span class="hp-target-label">${target.label}</span
            ><span class="hp-faint">${target.detail}</span>
          </li>`,
      )}
    </ol>
  </section>`;
}

function exitBadge(code: number | null): TemplateResult {
  const tone = toneOf(code);
  return html`<span class=${`exit tone-${tone}`} title=${code === null ? 'No exit code' : `Exit code ${code}`}
    >${code === null ? '?' : code === 0 ? '✓' : String(code)}</span
  >`;
}

function toneOf(code: number | null): 'neutral' | 'ok' | 'fail' {
  return code === null ? 'neutral' : code === 0 ? 'ok' : 'fail';
}

/** "just now", "5 min ago", "3 h ago", then the date. */
function ago(ms: number, at: number): string {
  if (ms < 60_000) return 'just now';
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)} min ago`;
  if (ms < 86_400_000) return `${Math.floor(ms / 3_600_000)} h ago`;
  return new Date(at).toLocaleDateString();
}
