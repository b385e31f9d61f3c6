/**
 * One session's live view: an xterm.js terminal fed the hub's stream (frameFeed.ts), sized
 * by terminalGeometry.ts, with its command marks (commandMarks.ts) and its scrollback search.
 * What the person types goes to the owner, less what xterm would send on its own (focus
 * reports; in a watched tab, mouse reports); Ctrl/Cmd+F searches, Ctrl/Cmd+C with a
 * selection copies it.
 */
import { FitAddon } from '@xterm/addon-fit';
import { SearchAddon } from '@xterm/addon-search';
import { WebLinksAddon } from '@xterm/addon-web-links';
import { Terminal, type IDisposable } from '@xterm/xterm';
import type { ClientMessage, UiCommandRecord } from '../../src/ui-protocol/index.js';
import { CommandMarks } from './commandMarks.js';
import { FrameFeed, type Frame, type Snapshot } from './frameFeed.js';
import { TerminalGeometry, type ViewMode } from './terminalGeometry.js';
import { isFocusReport, isMouseReport, silenceTerminalReplies } from './terminalReplies.js';
import { TERMINAL_FONT_FAMILY, terminalTheme, type ThemeName } from './theme.js';

export type { ViewMode } from './terminalGeometry.js';

const SCROLLBACK_LINES = 10_000;

interface TerminalViewOptions {
  sessionId: string;
  theme: ThemeName;
  fontSize: number;
  ackEvery: number;
  send(message: ClientMessage): void;
  /** The person typed (or pasted) into the view; the owner decides whether it may go through. */
  onUserData(data: string): void;
  /** The view lost its stream (a gap in frame numbers): the owner re-subscribes. */
  onNeedsResync(): void;
  /** Ctrl/Cmd+F or Ctrl+Shift+F inside the terminal. */
  onSearchKey(): void;
}

export class TerminalView {
  readonly element: HTMLElement;
  private readonly inner: HTMLElement;
  private readonly term: Terminal;
  private readonly fitAddon = new FitAddon();
  private readonly searchAddon = new SearchAddon({ highlightLimit: 500 });
  private readonly disposables: IDisposable[] = [];
  private readonly geometry: TerminalGeometry;
  private readonly marks: CommandMarks;
  private readonly feed: FrameFeed;
  private visible = false;
  private readonly onPageVisibility = (): void => this.feed.setShown(this.shown);

  constructor(private readonly options: TerminalViewOptions) {
    this.element = document.createElement('div');
    this.element.className = 'term-host mode-watch';
    this.inner = document.createElement('div');
    this.inner.className = 'term-inner';
    this.element.append(this.inner);

    this.term = new Terminal({
      allowProposedApi: true,
      fontFamily: TERMINAL_FONT_FAMILY,
      fontSize: options.fontSize,
      lineHeight: 1.15,
      scrollback: SCROLLBACK_LINES,
      cursorBlink: false,
      cursorStyle: 'block',
      cursorInactiveStyle: 'outline',
      theme: terminalTheme(options.theme),
      drawBoldTextInBrightColors: false,
      minimumContrastRatio: 1,
      macOptionIsMeta: true,
      rightClickSelectsWord: true,
      cols: 80,
      rows: 24,
    });
    this.term.loadAddon(this.fitAddon);
    this.term.loadAddon(this.searchAddon);
    this.term.loadAddon(new WebLinksAddon((event, uri) => this.openLink(event, uri)));
    this.disposables.push(...silenceTerminalReplies(this.term));
    this.disposables.push(this.term.onData((data) => this.handleData(data)));
    this.disposables.push(this.term.onBinary((data) => this.handleData(data)));
    this.term.attachCustomKeyEventHandler((event) => this.handleKey(event));
    this.term.open(this.inner);

    this.geometry = new TerminalGeometry({
      sessionId: options.sessionId,
      term: this.term,
      fitAddon: this.fitAddon,
      element: this.element,
      inner: this.inner,
      fontSize: options.fontSize,
      send: options.send,
    });
    this.marks = new CommandMarks(this.term);
    this.feed = new FrameFeed({
      sessionId: options.sessionId,
      ackEvery: options.ackEvery,
      send: options.send,
      writer: {
        writeSnapshot: (snapshot, parsed) => {
          this.marks.clear();
          this.geometry.takeSnapshotSize(snapshot.cols, snapshot.rows);
          // RIS through the parser, so frames still queued from an older stream land before it.
          this.term.write(`\x1bc${snapshot.data}`, parsed);
        },
        writeFrame: (data, parsed) => this.term.write(data, parsed),
      },
      onNeedsResync: options.onNeedsResync,
      onBehind: (behind) => this.element.classList.toggle('behind', behind),
      onHydrated: (snapshot) => {
        this.marks.snapshotWritten(snapshot.through);
        this.geometry.layout();
      },
      onFrameWritten: (end) => this.marks.frameWritten(end),
      clock: { now: () => performance.now(), requestFrame: (callback) => requestAnimationFrame(callback), cancelFrame: (id) => cancelAnimationFrame(id) },
    });
    document.addEventListener('visibilitychange', this.onPageVisibility);
  }

  get sessionId(): string {
    return this.options.sessionId;
  }

  get mode(): ViewMode {
    return this.geometry.mode;
  }

  get hydrated(): boolean {
    return this.feed.state.hydrated;
  }

  /** Test and status hook: what the view currently holds. */
  get state(): {
    seq: number;
    cols: number;
    rows: number;
    fontSize: number;
    mode: ViewMode;
    renderedFrames: number;
    skippedFrames: number;
    stale: boolean;
    behind: boolean;
  } {
    const feed = this.feed.state;
    return {
      seq: feed.seq,
      cols: this.term.cols,
      rows: this.term.rows,
      fontSize: this.geometry.fontSizes.fontSize,
      mode: this.geometry.mode,
      renderedFrames: feed.renderedFrames,
      skippedFrames: feed.skippedFrames,
      stale: feed.stale,
      behind: feed.behind,
    };
  }

  get fontSizes(): { fontSize: number; baseFontSize: number } {
    return this.geometry.fontSizes;
  }

  /** Shown: the tab is the active one and the page is visible (only then is output parsed). */
  private get shown(): boolean {
    return this.visible && document.visibilityState !== 'hidden';
  }

  // ---- the stream ---------------------------------------------------------------------------

  applySnapshot(snapshot: Snapshot): void {
    this.feed.applySnapshot(snapshot);
  }

  applyFrame(frame: Frame): void {
    this.feed.applyFrame(frame);
  }

  /** The hub paused this viewer's frames (it fell behind): a fresh snapshot follows. */
  behind(): void {
    this.feed.behind();
  }

  // ---- control and geometry -------------------------------------------------------------------

  /** The session's size changed (a resize by whoever controls it). */
  setSessionSize(cols: number, rows: number): void {
    this.geometry.setSessionSize(cols, rows);
  }

  /** `fit` while the person controls the session, `watch` otherwise. */
  setMode(mode: ViewMode): void {
    this.geometry.setMode(mode);
  }

  /** Sends the fitted size now (right after a take over). */
  sendFittedSize(): void {
    this.geometry.sendFittedSize();
  }

  setVisible(visible: boolean): void {
    this.visible = visible;
    this.element.hidden = !visible;
    this.geometry.setVisible(visible);
    this.feed.setShown(this.shown);
  }

  setTheme(theme: ThemeName): void {
    this.term.options.theme = terminalTheme(theme);
  }

  setBaseFontSize(px: number): void {
    this.geometry.setBaseFontSize(px);
  }

  focus(): void {
    this.term.focus();
  }

  // ---- input ----------------------------------------------------------------------------------

  private handleData(data: string): void {
    if (isFocusReport(data)) return;
    if (this.geometry.mode === 'watch' && isMouseReport(data)) return;
    this.options.onUserData(data);
  }

  private handleKey(event: KeyboardEvent): boolean {
    if (event.type !== 'keydown') return true;
    const mod = event.ctrlKey || event.metaKey;
    const key = event.key.toLowerCase();
    if (mod && key === 'f' && (event.shiftKey || event.metaKey || this.geometry.mode === 'watch')) {
      event.preventDefault();
      this.options.onSearchKey();
      return false;
    }
    // The history palette's key: the page's (app.ts), never a ^H into the session.
    if (mod && event.shiftKey && key === 'h') return false;
    // Copy: Ctrl/Cmd+C with a selection, or Ctrl+Shift+C; never a ^C then.
    if (mod && key === 'c' && (this.term.hasSelection() || event.shiftKey)) {
      const text = this.term.getSelection();
      if (text) void navigator.clipboard?.writeText(text).catch(() => undefined);
      event.preventDefault();
      return false;
    }
    // Ctrl+Shift+V: let the browser paste (xterm then sends it as bracketed paste).
    if (event.ctrlKey && event.shiftKey && key === 'v') return false;
    return true;
  }

  private openLink(event: MouseEvent, uri: string): void {
    if (!/^https?:\/\//i.test(uri)) return;
    event.preventDefault();
    window.open(uri, '_blank', 'noopener,noreferrer');
  }

  // ---- search and the timeline ----------------------------------------------------------------

  findNext(query: string, incremental = false): boolean {
    return this.searchAddon.findNext(query, { incremental, decorations: this.searchDecorations() });
  }

  findPrevious(query: string): boolean {
    return this.searchAddon.findPrevious(query, { decorations: this.searchDecorations() });
  }

  clearSearch(): void {
    this.searchAddon.clearDecorations();
    this.term.clearSelection();
  }

  onSearchResults(listener: (index: number, count: number) => void): IDisposable {
    return this.searchAddon.onDidChangeResults(({ resultIndex, resultCount }) => listener(resultIndex, resultCount));
  }

  private searchDecorations(): {
    matchBackground: string;
    matchOverviewRuler: string;
    activeMatchBackground: string;
    activeMatchColorOverviewRuler: string;
  } {
    const dark = document.documentElement.dataset.theme !== 'light';
    return {
      matchBackground: dark ? '#4a3f1a' : '#fff1b8',
      matchOverviewRuler: '#d4a72c',
      activeMatchBackground: dark ? '#9a6b00' : '#ffc53d',
      activeMatchColorOverviewRuler: '#ff9f1a',
    };
  }

  /** Scrolls to a command (commandMarks.ts), else searches back for its command line. */
  scrollToCommand(record: UiCommandRecord): boolean {
    return this.marks.scrollTo(record) || this.searchAddon.findPrevious(record.command, { decorations: this.searchDecorations() });
  }

  /** The visible rows as text (what the person sees; test hook). */
  screenText(): string {
    const buffer = this.term.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < this.term.rows; y += 1) lines.push(buffer.getLine(buffer.viewportY + y)?.translateToString(true) ?? '');
    return lines.join('\n');
  }

  dispose(): void {
    document.removeEventListener('visibilitychange', this.onPageVisibility);
    this.feed.dispose();
    this.geometry.dispose();
    this.marks.clear();
    for (const disposable of this.disposables) disposable.dispose();
    this.term.dispose();
    this.element.remove();
  }
}
