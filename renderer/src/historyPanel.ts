/**
 * The search across every session's commands (docs/design.md §2.7, §5.2): a palette over the
 * window (Ctrl/Cmd+Shift+H, the History button, or "All sessions" beside the scrollback search)
 * that asks the hub's history database as the person types. Keyboard first: ↑/↓ pick a result,
 * Enter opens it (a live session's tab, scrolled to the command; a closed session's output read
 * only, here), Shift+Enter shows any result's output here, Ctrl/Cmd+Enter runs it again in a
 * session the person picks, Escape goes back a step. Drawing is historyView.ts's.
 */
import { render } from 'lit-html';
import type { ClientMessage, HubMessage, UiHistoryEntry } from '../../src/ui-protocol/index.js';
import { historyView, type HistoryViewModel, type RunTarget } from './views/historyView.js';
import type { SessionEntry } from './sessionFormat.js';

/** Results asked for per search (the hub allows up to 200). */
const PAGE = 100;
/** Typing settles this long before the hub is asked. */
const DEBOUNCE_MS = 120;
/** Lines of output asked for per page. */
const OUTPUT_LINES = 1_000;
/** Request numbers of this panel, apart from the rest of the page's. */
const FIRST_REQ = 1_000_000;

interface HistoryPanelOptions {
  host: HTMLElement;
  send(message: ClientMessage): void;
  sessions(): ReadonlyMap<string, SessionEntry>;
  /** Open a live session's tab and scroll to the command. */
  openInTab(row: UiHistoryEntry): void;
  /** Run the command again in `target` (a session id, or `new` for a new terminal). */
  runAgain(row: UiHistoryEntry, target: string): void;
  /** Back to the terminal in front (the palette closed). */
  refocus(): void;
}

type Output = Extract<HubMessage, { type: 'commandOutputResult' }>;

export class HistoryPanel {
  private model: HistoryViewModel = {
    query: '',
    failedOnly: false,
    results: [],
    total: 0,
    selected: 0,
    loading: false,
    mode: 'list',
    output: null,
    targets: [],
    target: 0,
    now: Date.now(),
  };
  private nextReq = FIRST_REQ;
  private searchReq = -1;
  private outputReq = -1;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly options: HistoryPanelOptions) {}

  get isOpen(): boolean {
    return !this.options.host.hidden;
  }

  /** Opens the palette (with `query`, when given) and searches at once. */
  show(query?: string): void {
    if (query !== undefined) this.model = { ...this.model, query };
    this.model = { ...this.model, mode: 'list', output: null };
    this.options.host.hidden = false;
    this.search();
    this.draw();
    this.input()?.focus();
    this.input()?.select();
  }

  hide(): void {
    if (!this.isOpen) return;
    this.options.host.hidden = true;
    clearTimeout(this.timer);
    this.options.refocus();
  }

  /** The hub's answers to this panel's requests; returns true when the message was one. */
  receive(message: HubMessage): boolean {
    if (message.type === 'historyResults' && message.req === this.searchReq) {
      const selected = Math.min(this.model.selected, Math.max(0, message.commands.length - 1));
      this.model = { ...this.model, results: message.commands, total: message.total, note: message.note, loading: false, selected, now: Date.now() };
      this.draw();
      return true;
    }
    if (message.type === 'commandOutputResult' && message.req === this.outputReq && this.model.output) {
      const earlier = this.model.output.page;
      const text = earlier && message.offset > 0 ? `${earlier.text}\n${message.text}` : message.text;
      this.model = {
        ...this.model,
        output: { ...this.model.output, page: { ...message, text, lines: message.offset + message.lines } as Output, error: undefined },
      };
      this.draw();
      return true;
    }
    if (message.type === 'error' && message.req !== undefined && (message.req === this.searchReq || message.req === this.outputReq)) {
      if (message.req === this.searchReq) this.model = { ...this.model, loading: false, results: [], total: 0, note: message.message };
      else if (this.model.output) this.model = { ...this.model, output: { ...this.model.output, error: message.message } };
      this.draw();
      return true;
    }
    return false;
  }

  /** Sessions changed (a result's session ended, a target became busy): drawn again when open. */
  refresh(): void {
    if (!this.isOpen) return;
    if (this.model.mode === 'pick') this.model = { ...this.model, targets: this.targets(this.model.output?.row ?? this.current()) };
    this.draw();
  }

  // ---- the person's actions ---------------------------------------------------------------------

  private typed(query: string): void {
    this.model = { ...this.model, query, selected: 0 };
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.search(), DEBOUNCE_MS);
    this.draw();
  }

  private toggleFailed(): void {
    this.model = { ...this.model, failedOnly: !this.model.failedOnly, selected: 0 };
    this.search();
    this.draw();
  }

  private search(): void {
    clearTimeout(this.timer);
    this.searchReq = this.nextReq++;
    this.model = { ...this.model, loading: true };
    const query = this.model.query.trim();
    this.options.send({
      type: 'searchHistory',
      ...(query ? { query } : {}),
      status: this.model.failedOnly ? 'failed' : 'any',
      limit: PAGE,
      req: this.searchReq,
    });
  }

  /** Enter: a live session's command in its tab; anything else read only, here. */
  private open(row: UiHistoryEntry | undefined, here = false): void {
    if (!row) return;
    const info = this.options.sessions().get(row.session)?.info;
    if (!here && info && info.state !== 'exited') {
      this.options.host.hidden = true;
      this.options.openInTab(row);
      return;
    }
    this.model = { ...this.model, mode: 'output', output: { row, page: null } };
    this.loadOutput(row, 0);
    this.draw();
    this.options.host.querySelector<HTMLElement>('.hp-output')?.focus();
  }

  private loadOutput(row: UiHistoryEntry, offset: number): void {
    this.outputReq = this.nextReq++;
    this.options.send({ type: 'commandOutput', session: row.session, seq: row.seq, offset, limit: OUTPUT_LINES, req: this.outputReq });
  }

  private pick(row: UiHistoryEntry | undefined): void {
    if (!row) return;
    this.model = {
      ...this.model,
      mode: 'pick',
      output: this.model.output?.row === row ? this.model.output : { row, page: null },
      targets: this.targets(row),
      target: 0,
    };
    this.draw();
    this.options.host.querySelector<HTMLElement>('.hp-targets')?.focus();
  }

  private choose(target: RunTarget | undefined): void {
    const row = this.model.output?.row;
    if (!target || target.disabled || !row) return;
    this.options.host.hidden = true;
    this.model = { ...this.model, mode: 'list' };
    this.options.runAgain(row, target.id);
  }

  /** Where a command can run again: a new terminal, then the person's live sessions, then agents' (after take over). */
  private targets(row: UiHistoryEntry | undefined): RunTarget[] {
    const targets: RunTarget[] = [{ id: 'new', label: 'New terminal', detail: row?.cwd ? `in ${row.cwd}` : 'in your home folder', disabled: false }];
    const live = [...this.options.sessions().values()].map((entry) => entry.info).filter((info) => info.state !== 'exited');
    live.sort((a, b) => Number(b.controller === 'user') - Number(a.controller === 'user'));
    for (const info of live) {
      const busy = info.state !== 'idle';
      const agent = info.controller === 'agent';
      const creator = info.creator.kind === 'agent' ? info.creator.client.replace(/\s\S+$/, '') : 'you';
      targets.push({
        id: info.id,
        label: info.name ?? info.title ?? info.id,
        detail: `${creator} · ${info.cwd ?? ''}${busy ? ' · busy' : agent ? ' · take over first' : ''}`,
        disabled: busy,
        agent,
      });
    }
    return targets;
  }

  private current(): UiHistoryEntry | undefined {
    return this.model.results[this.model.selected];
  }

  private key(event: KeyboardEvent): void {
    const mod = event.ctrlKey || event.metaKey;
    const { mode } = this.model;
    if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      if (mode === 'list') return this.hide();
      this.model = {
        ...this.model,
        mode: mode === 'pick' && this.model.output?.page ? 'output' : 'list',
        ...(mode === 'output' || !this.model.output?.page ? { output: null } : {}),
      };
      this.draw();
      if (this.model.mode === 'list') this.input()?.focus();
      return;
    }
    if (mode === 'pick') {
      const count = this.model.targets.length;
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        this.model = { ...this.model, target: (this.model.target + (event.key === 'ArrowDown' ? 1 : count - 1)) % count };
        this.draw();
      } else if (event.key === 'Enter') {
        event.preventDefault();
        this.choose(this.model.targets[this.model.target]);
      }
      return;
    }
    if (mode === 'output') {
      if (event.key === 'Enter' && mod) {
        event.preventDefault();
        this.pick(this.model.output?.row);
      }
      return;
    }
    const count = this.model.results.length;
    if ((event.key === 'ArrowDown' || event.key === 'ArrowUp') && count > 0) {
      event.preventDefault();
      this.model = { ...this.model, selected: Math.max(0, Math.min(count - 1, this.model.selected + (event.key === 'ArrowDown' ? 1 : -1))) };
      this.draw();
      this.options.host.querySelector('.hp-row.selected')?.scrollIntoView({ block: 'nearest' });
    } else if (event.key === 'Enter') {
      event.preventDefault();
      if (mod) this.pick(this.current());
      else this.open(this.current(), event.shiftKey);
    } else if (event.altKey && event.key.toLowerCase() === 'f') {
      event.preventDefault();
      this.toggleFailed();
    }
  }

  // ---- drawing ------------------------------------------------------------------------------------

  private input(): HTMLInputElement | null {
    return this.options.host.querySelector<HTMLInputElement>('[data-role="history-query"]');
  }

  private draw(): void {
    render(
      historyView(this.model, {
        onQuery: (value) => this.typed(value),
        onKey: (event) => this.key(event),
        onToggleFailed: () => this.toggleFailed(),
        onSelect: (index) => {
          this.model = { ...this.model, selected: index };
          this.draw();
        },
        onOpen: (row, here) => this.open(row, here),
        onRunAgain: (row) => this.pick(row),
        onMore: () => {
          const output = this.model.output;
          if (output?.page) this.loadOutput(output.row, output.page.lines);
        },
        onChoose: (target) => this.choose(target),
        onBack: () => this.key(new KeyboardEvent('keydown', { key: 'Escape' })),
        onClose: () => this.hide(),
      }),
      this.options.host,
    );
  }
}
