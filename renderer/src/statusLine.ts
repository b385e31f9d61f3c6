/**
 * The status line under the terminal: state, folder, running command, last exit code, size and
 * how the view shows it (watching at the agent's size, or fitted while the person controls it).
 */
import type { UiSession } from '../../src/ui-protocol.js';
import { clear, h } from './dom.js';
import { shortPath, stateBadge, type SessionEntry } from './sessionFormat.js';
import type { ViewMode } from './terminalView.js';

export class StatusLine {
  private entry: SessionEntry | null = null;
  private stateEl: HTMLElement | null = null;

  constructor(private readonly root: HTMLElement) {}

  render(entry: SessionEntry | null, view: { mode: ViewMode; fontSize: number; baseFontSize: number } | null): void {
    this.entry = entry;
    clear(this.root);
    if (!entry) return;
    const info: UiSession = entry.info;
    const badge = stateBadge(entry, performance.now());
    const stateEl = h('span', { class: `status-item state tone-${badge.tone}`, title: badge.title }, h('span', { class: `dot tone-${badge.tone}` }), badge.text);
    this.stateEl = stateEl;
    const last = info.last_exit_code;
    const items = [
      stateEl,
      h('span', { class: 'status-item cwd mono', title: info.cwd ?? '' }, info.cwd ? shortPath(info.cwd, 3) : 'folder unknown'),
      info.command ? h('span', { class: 'status-item command mono', title: info.command }, `$ ${info.command}`) : null,
      h('span', { class: 'status-spacer' }),
      last !== null ? h('span', { class: `status-item last-exit ${last === 0 ? 'tone-ok' : 'tone-fail'}`, title: 'Exit code of the last command' }, `last exit ${last}`) : null,
      h('span', { class: 'status-item size mono', title: 'The session’s terminal size' }, `${info.cols}×${info.rows}`),
      view
        ? h(
            'span',
            { class: 'status-item view-mode', title: view.mode === 'watch' ? 'Watching: shown at the agent’s size, never resized by this view' : 'Your keyboard: the terminal follows this pane’s size' },
            view.mode === 'watch' ? (view.fontSize < view.baseFontSize ? `watching · ${Math.round((view.fontSize / view.baseFontSize) * 100)}%` : 'watching') : 'fitted',
          )
        : null,
      h('span', { class: 'status-item pid mono', title: 'Process id of the session' }, `pid ${info.pid}`),
    ];
    for (const item of items) if (item) this.root.append(item);
  }

  tick(): void {
    if (this.entry?.info.state === 'running' && this.stateEl) {
      const badge = stateBadge(this.entry, performance.now());
      const text = this.stateEl.lastChild;
      if (text) text.textContent = badge.text;
    }
  }
}
