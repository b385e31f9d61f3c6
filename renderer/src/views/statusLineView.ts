/**
 * The status line under the terminal: state, folder, running command, last exit code, size and
 * how the view shows it (watching at the agent's size, or fitted while the person controls it).
 */
import { html, nothing, render } from 'lit-html';
import { clientName, shortPath, stateBadge, type SessionEntry } from '../sessionFormat.js';
import type { ViewMode } from '../terminalView.js';

interface StatusLineProps {
  entry: SessionEntry | null;
  /** How the terminal in front shows the session (null: no view yet). */
  view: { mode: ViewMode; fontSize: number; baseFontSize: number } | null;
  now: number;
}

/** An agent's resize (send `resize`), until anyone resizes the session again. */
function resizedBy(resize: SessionEntry['info']['resized_by']): unknown {
  if (!resize) return nothing;
  const title = `${resize.client} resized this session to ${resize.cols}×${resize.rows} at ${new Date(resize.at).toLocaleTimeString()}`;
  return html`<span class="status-item resized-by" title=${title}>${`resized by ${clientName(resize.client)} to ${resize.cols}×${resize.rows}`}</span>`;
}

export function renderStatusLine(host: HTMLElement, { entry, view, now }: StatusLineProps): void {
  if (!entry) {
    render(nothing, host);
    return;
  }
  const info = entry.info;
  const badge = stateBadge(entry, now);
  const last = info.last_exit_code;
  const viewMode = !view
    ? nothing
    : html`<span
        class="status-item view-mode"
        title=${view.mode === 'watch' ? 'Watching: shown at the agent’s size, never resized by this view' : 'Your keyboard: the terminal follows this pane’s size'}
        >${
          view.mode === 'watch'
            ? view.fontSize < view.baseFontSize
              ? `watching · ${Math.round((view.fontSize / view.baseFontSize) * 100)}%`
              : 'watching'
            : 'fitted'
        }</span
      >`;
  render(
    html`<span class=${`status-item state tone-${badge.tone}`} title=${badge.title}><span class=${`dot tone-${badge.tone}`}></span>${badge.text}</span
      ><span class="status-item cwd mono" title=${info.cwd ?? ''}>${info.cwd ? shortPath(info.cwd, 3) : 'folder unknown'}</span>${
        info.command ? html`<span class="status-item command mono" title=${info.command}>${`$ ${info.command}`}</span>` : nothing
      }<span class="status-spacer"></span>${
        last !== null
          ? html`<span class=${`status-item last-exit ${last === 0 ? 'tone-ok' : 'tone-fail'}`} title="Exit code of the last command"
              >${`last exit ${last}`}</span
            >`
          : nothing
      }<span class="status-item size mono" title="The session’s terminal size">${`${info.cols}×${info.rows}`}</span
      >${resizedBy(info.resized_by)}${viewMode}<span class="status-item pid mono" title="Process id of the session">${`pid ${info.pid}`}</span>`,
    host,
  );
}
