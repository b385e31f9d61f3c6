/**
 * The command timeline of the session in front: each command with its exit code and duration
 * (newest at the bottom, like the terminal), the running one last. Clicking a command scrolls
 * the terminal to it. Rows are keyed by the command's number; the list stays scrolled to the
 * bottom while it was there.
 */
import { html, nothing, render, type TemplateResult } from 'lit-html';
import { repeat } from 'lit-html/directives/repeat.js';
import type { UiCommandRecord } from '../../../src/ui-protocol/index.js';
import { formatClock, formatDuration, formatElapsed } from '../sessionFormat.js';

interface TimelineProps {
  records: readonly UiCommandRecord[];
  /** The command running now and for how long (ms), if one is. */
  running: { command: string; elapsedMs: number } | null;
  onSelect(record: UiCommandRecord): void;
}

export function renderTimeline(host: HTMLElement, props: TimelineProps): void {
  const before = host.querySelector('.timeline-list');
  const nearBottom = !before || before.scrollHeight - before.scrollTop - before.clientHeight < 24;
  render(timelineView(props), host);
  const list = host.querySelector('.timeline-list');
  if (list && nearBottom) list.scrollTop = list.scrollHeight;
}

function timelineView({ records, running, onSelect }: TimelineProps): TemplateResult {
  const failed = records.filter((record) => record.exit_code !== null && record.exit_code !== 0).length;
  const count = records.length === 0 ? '' : failed > 0 ? `${records.length} · ${failed} failed` : String(records.length);
  return html`<header class="panel-head"><span class="panel-title">Commands</span><span class="panel-count">${count}</span></header>
    <ol class="timeline-list">
      ${
        records.length === 0 && !running
          ? html`<li class="timeline-empty">Commands run in this session appear here with their exit codes and durations.</li>`
          : nothing
      }${repeat(
        records,
        (record) => record.seq,
        (record) => recordView(record, onSelect),
      )}${
        running
          ? html`<li class="timeline-item running">
              <span class="exit tone-busy" title="Running"><span class="spinner"></span></span
              ><span class="tl-command mono" title=${running.command}>${running.command}</span><span class="tl-meta">${formatElapsed(running.elapsedMs)}</span>
            </li>`
          : nothing
      }
    </ol>`;
}

function recordView(record: UiCommandRecord, onSelect: (record: UiCommandRecord) => void): TemplateResult {
  const code = record.exit_code;
  const tone = code === null ? 'neutral' : code === 0 ? 'ok' : 'fail';
  const duration = record.ended_at !== null ? formatDuration(Math.max(0, record.ended_at - record.started_at)) : '';
  return html`<li class=${`timeline-item tone-${tone}`} data-seq=${record.seq}>
    <button
      class="tl-button"
      type="button"
      title=${`${record.command}\n${record.cwd ?? ''}\nstarted ${formatClock(record.started_at)} · click to scroll to it`}
      @click=${() => onSelect(record)}
    >
      <span class=${`exit tone-${tone}`} title=${code === null ? 'No exit code' : `Exit code ${code}`}
        >${code === null ? '?' : code === 0 ? '✓' : String(code)}</span
      ><span class="tl-command mono">${record.command || '(empty)'}</span><span class="tl-meta">${duration}</span>
    </button>
  </li>`;
}
