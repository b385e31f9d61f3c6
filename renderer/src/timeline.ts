/**
 * The command timeline of the active session: each finished command with its exit code and
 * duration (newest at the bottom, like the terminal), the running one last. Clicking a command
 * scrolls the terminal to it.
 */
import type { UiCommandRecord } from '../../src/ui-protocol.js';
import { clear, h } from './dom.js';
import { formatClock, formatDuration, formatElapsed } from './sessionFormat.js';

export interface TimelineRunning {
  command: string;
  startedAt: number;
}

export class Timeline {
  private readonly list: HTMLElement;
  private readonly count: HTMLElement;
  private runningEl: HTMLElement | null = null;
  private running: TimelineRunning | null = null;

  constructor(
    root: HTMLElement,
    private readonly onSelect: (record: UiCommandRecord) => void,
  ) {
    this.count = h('span', { class: 'panel-count' });
    this.list = h('ol', { class: 'timeline-list' });
    clear(root);
    root.append(h('header', { class: 'panel-head' }, h('span', { class: 'panel-title' }, 'Commands'), this.count), this.list);
  }

  render(records: readonly UiCommandRecord[], running: TimelineRunning | null): void {
    const nearBottom = this.list.scrollHeight - this.list.scrollTop - this.list.clientHeight < 24;
    clear(this.list);
    this.running = running;
    const failed = records.filter((record) => record.exit_code !== null && record.exit_code !== 0).length;
    this.count.textContent = records.length === 0 ? '' : failed > 0 ? `${records.length} · ${failed} failed` : String(records.length);
    if (records.length === 0 && !running) {
      this.list.append(h('li', { class: 'timeline-empty' }, 'Commands run in this session appear here with their exit codes and durations.'));
    }
    for (const record of records) this.list.append(this.row(record));
    this.runningEl = null;
    if (running) {
      this.runningEl = h('li', { class: 'timeline-item running' },
        h('span', { class: 'exit tone-busy', title: 'Running' }, h('span', { class: 'spinner' })),
        h('span', { class: 'tl-command mono', title: running.command }, running.command),
        h('span', { class: 'tl-meta' }, formatElapsed(Date.now() - running.startedAt)),
      );
      this.list.append(this.runningEl);
    }
    if (nearBottom) this.list.scrollTop = this.list.scrollHeight;
  }

  tick(): void {
    if (this.runningEl && this.running) {
      const meta = this.runningEl.querySelector('.tl-meta');
      if (meta) meta.textContent = formatElapsed(Date.now() - this.running.startedAt);
    }
  }

  private row(record: UiCommandRecord): HTMLElement {
    const code = record.exit_code;
    const tone = code === null ? 'neutral' : code === 0 ? 'ok' : 'fail';
    const duration = record.ended_at !== null ? formatDuration(Math.max(0, record.ended_at - record.started_at)) : '';
    return h(
      'li',
      { class: `timeline-item tone-${tone}`, 'data-seq': record.seq },
      h(
        'button',
        { class: 'tl-button', type: 'button', title: `${record.command}\n${record.cwd ?? ''}\nstarted ${formatClock(record.started_at)} · click to scroll to it`, onclick: () => this.onSelect(record) },
        h('span', { class: `exit tone-${tone}`, title: code === null ? 'No exit code' : `Exit code ${code}` }, code === null ? '?' : code === 0 ? '✓' : String(code)),
        h('span', { class: 'tl-command mono' }, record.command || '(empty)'),
        h('span', { class: 'tl-meta' }, duration),
      ),
    );
  }
}
