/**
 * One session's live view: an xterm.js terminal hydrated from the hub's snapshot, then fed the
 * numbered frames, acknowledging what it rendered (flow control).
 *
 * Geometry. Watching keeps the session's own cols×rows (an agent's PTY is never resized by a
 * viewer): the view shrinks its font so the whole agent screen fits the pane, down to
 * MIN_WATCH_FONT_PX, and scrolls beyond that. Shrinking the font rather than scaling pixels
 * with a CSS transform keeps glyphs crisp and keeps xterm's mouse hit-testing (selection,
 * links) exact, which a transform breaks. When the person controls the session (their own, or
 * taken over) the terminal fits the pane at the normal font size and the fitted size is sent.
 */
import { FitAddon } from '@xterm/addon-fit';
import { SearchAddon } from '@xterm/addon-search';
import { WebLinksAddon } from '@xterm/addon-web-links';
import { Terminal, type IDisposable, type IMarker } from '@xterm/xterm';
import { FLOW_HIGH_WATERMARK, type ClientMessage, type HubMessage, type UiCommandRecord } from '../../src/ui-protocol.js';
import { isFocusReport, isMouseReport, silenceTerminalReplies } from './terminalReplies.js';
import { TERMINAL_FONT_FAMILY, terminalTheme, type ThemeName } from './theme.js';

type Snapshot = Extract<HubMessage, { type: 'snapshot' }>;
type Frame = Extract<HubMessage, { type: 'frame' }>;
/** A frame waiting to be written; `acked` when its bytes were acknowledged already (hidden). */
interface QueuedFrame {
  /** UTF-8, whole characters (ui-protocol.ts): xterm.js decodes it. */
  data: Uint8Array;
  end: number;
  acked: boolean;
}

export type ViewMode = 'watch' | 'fit';

export const MIN_WATCH_FONT_PX = 9;
const SCROLLBACK_LINES = 10_000;
/** Positions remembered for "scroll to command" (one per frame, newest kept). */
const MAX_FRAME_MARKS = 2_000;
/** Acks go out at the hub's `ackEvery`, or after this long without more output. */
const ACK_FLUSH_MS = 50;
const RESIZE_DEBOUNCE_MS = 100;
/**
 * Bytes of frames handed to xterm.js per animation frame, and only once the previous
 * batch has been parsed. The rest wait in the view's own queue (unacknowledged), so a flood
 * the window cannot parse at 60 fps turns into the hub's `behind` and a fresh snapshot
 * instead of a backlog that takes the window's frames (DESIGN §5: a flood never freezes the
 * UI). A typed key's echo is a few bytes: it always fits. The budget adapts so that a
 * full batch parses in about PARSE_TARGET_MS (a screen of short lines scrolls far more per
 * byte than one of long lines), within MIN and MAX.
 */
const WRITE_BUDGET_START = 16 * 1024;
const WRITE_BUDGET_MIN = 4 * 1024;
const WRITE_BUDGET_MAX = 64 * 1024;
const PARSE_TARGET_MS = 8;
/**
 * Frames of a hidden tab (or of any tab while the page is hidden) are not parsed: they are
 * acknowledged at once and kept, up to this many bytes, to be written when the tab is
 * shown; past it they are dropped and the shown tab asks for a fresh snapshot instead. The
 * protocol's high watermark: past it the hub sends a last snapshot when the session ends
 * (ui-protocol.ts), so a hidden tab of an ended session still shows its last screen.
 */
const MAX_HIDDEN_BACKLOG_BYTES = FLOW_HIGH_WATERMARK;

export interface TerminalViewOptions {
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
  private readonly resizeObserver: ResizeObserver;

  private modeValue: ViewMode = 'watch';
  private sessionCols = 80;
  private sessionRows = 24;
  private baseFontSize: number;
  private visible = false;

  // Hydration state of the current subscription.
  private seq = -1;
  private through = 0;
  private hydratedValue = false;
  private snapshotTop: IMarker | undefined;
  private frameMarks: { end: number; marker: IMarker }[] = [];

  // Flow control.
  private queued: QueuedFrame[] = [];
  private writesInFlight = 0;
  /** Bytes per animation frame (adaptive), what this frame may still hand to xterm. */
  private budget = WRITE_BUDGET_START;
  private budgetLeft = WRITE_BUDGET_START;
  private budgetFrame = 0;
  private isBehind = false;
  private unacked = 0;
  private ackTimer: ReturnType<typeof setTimeout> | undefined;
  private resizeTimer: ReturnType<typeof setTimeout> | undefined;
  private layoutFrame = 0;
  private renderedFrames = 0;

  // While hidden: nothing is parsed. The latest snapshot waits here, frames after it in
  // `queued` (acknowledged already) up to MAX_HIDDEN_BACKLOG_BYTES; past that the view is
  // `stale` and asks for a fresh snapshot when shown.
  private deferredSnapshot: Snapshot | null = null;
  private hiddenBytes = 0;
  private stale = false;
  private skippedFrames = 0;
  private readonly onPageVisibility = (): void => this.showOrHide();

  constructor(private readonly options: TerminalViewOptions) {
    this.baseFontSize = options.fontSize;
    this.element = document.createElement('div');
    this.element.className = 'term-host mode-watch';
    this.inner = document.createElement('div');
    this.inner.className = 'term-inner';
    this.element.append(this.inner);

    this.term = new Terminal({
      allowProposedApi: true,
      fontFamily: TERMINAL_FONT_FAMILY,
      fontSize: this.baseFontSize,
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
      cols: this.sessionCols,
      rows: this.sessionRows,
    });
    this.term.loadAddon(this.fitAddon);
    this.term.loadAddon(this.searchAddon);
    this.term.loadAddon(new WebLinksAddon((event, uri) => this.openLink(event, uri)));
    this.disposables.push(...silenceTerminalReplies(this.term));
    this.disposables.push(this.term.onData((data) => this.handleData(data)));
    this.disposables.push(this.term.onBinary((data) => this.handleData(data)));
    this.term.attachCustomKeyEventHandler((event) => this.handleKey(event));
    this.term.open(this.inner);

    this.resizeObserver = new ResizeObserver(() => this.scheduleLayout());
    this.resizeObserver.observe(this.element);
    document.addEventListener('visibilitychange', this.onPageVisibility);
  }

  get sessionId(): string {
    return this.options.sessionId;
  }

  get mode(): ViewMode {
    return this.modeValue;
  }

  get hydrated(): boolean {
    return this.hydratedValue;
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
    return {
      seq: this.seq,
      cols: this.term.cols,
      rows: this.term.rows,
      fontSize: this.term.options.fontSize ?? this.baseFontSize,
      mode: this.modeValue,
      renderedFrames: this.renderedFrames,
      skippedFrames: this.skippedFrames,
      stale: this.stale,
      behind: this.isBehind,
    };
  }

  /** Shown: the tab is the active one and the page is visible (only then is output parsed). */
  private get shown(): boolean {
    return this.visible && document.visibilityState !== 'hidden';
  }

  // ---- the stream ---------------------------------------------------------------------------

  /** A fresh snapshot: reset, take the session's size, write it; frames follow. Hidden: kept for later. */
  applySnapshot(snapshot: Snapshot): void {
    this.seq = snapshot.seq;
    this.through = snapshot.through;
    this.hydratedValue = false;
    this.setBehind(false);
    this.dropQueued();
    this.stale = false;
    if (!this.shown) {
      this.deferredSnapshot = snapshot;
      return;
    }
    this.writeSnapshot(snapshot);
  }

  private writeSnapshot(snapshot: Snapshot): void {
    this.deferredSnapshot = null;
    this.clearMarks();
    this.sessionCols = snapshot.cols;
    this.sessionRows = snapshot.rows;
    if (this.term.cols !== snapshot.cols || this.term.rows !== snapshot.rows) this.term.resize(snapshot.cols, snapshot.rows);
    // RIS through the parser, so frames still queued from an older stream land before it.
    this.term.write(`\x1bc${snapshot.data}`, () => {
      if (this.seq !== snapshot.seq) return;
      this.hydratedValue = true;
      const buffer = this.term.buffer.normal;
      this.snapshotTop = this.term.registerMarker(-(buffer.baseY + buffer.cursorY));
      this.addMark(snapshot.through);
      this.layout();
    });
  }

  applyFrame(frame: Frame): void {
    if (this.seq < 0) return; // waiting for a snapshot
    if (frame.seq <= this.seq) return; // stale: from before the latest snapshot
    if (frame.seq !== this.seq + 1) {
      // A gap: the stream cannot be trusted any more; start over from a fresh snapshot.
      this.seq = -1;
      this.options.onNeedsResync();
      return;
    }
    this.seq = frame.seq;
    if (frame.end <= this.through) return; // already in the snapshot
    if (!this.shown) {
      this.keepHidden({ data: frame.data, end: frame.end, acked: false });
      return;
    }
    this.queued.push({ data: frame.data, end: frame.end, acked: false });
    this.pump();
  }

  /** The hub paused this viewer's frames (it fell behind): a fresh snapshot follows. */
  behind(): void {
    this.setBehind(true);
    this.dropQueued();
  }

  /** Hidden: acknowledge at once (the hub never holds frames back for a tab nobody sees), keep a little. */
  private keepHidden(frame: QueuedFrame): void {
    this.skippedFrames += 1;
    if (!frame.acked) {
      frame.acked = true;
      this.acknowledge(frame.data.length);
    }
    if (this.stale) return;
    this.queued.push(frame);
    this.hiddenBytes += frame.data.length;
    if (this.hiddenBytes > MAX_HIDDEN_BACKLOG_BYTES) {
      // Too much to replay: a fresh snapshot when shown is cheaper than parsing this.
      this.queued = [];
      this.hiddenBytes = 0;
      this.deferredSnapshot = null;
      this.stale = true;
    }
  }

  /** The tab or the page was shown or hidden. */
  private showOrHide(): void {
    if (!this.shown) {
      if (this.budgetFrame) cancelAnimationFrame(this.budgetFrame);
      this.budgetFrame = 0;
      this.budgetLeft = this.budget;
      const queued = this.queued;
      this.queued = [];
      this.hiddenBytes = 0;
      for (const frame of queued) this.keepHidden(frame);
      return;
    }
    this.hiddenBytes = 0;
    if (this.stale) {
      // Frames were skipped: what this view holds is out of date. Show it as catching up and
      // ask for a fresh snapshot (re-subscribing), acknowledging everything first.
      this.stale = false;
      this.seq = -1;
      this.setBehind(true);
      this.flushAck();
      this.options.onNeedsResync();
      return;
    }
    if (this.deferredSnapshot) this.writeSnapshot(this.deferredSnapshot);
    this.pump();
  }

  /**
   * Hands queued frames to xterm while this animation frame's budget lasts, once xterm has
   * parsed what it was given before; the next animation frame refills the budget and goes on.
   * A frame that fits is written at once (an echo never waits for an animation frame).
   */
  private pump(): void {
    if (!this.shown || this.writesInFlight > 0) return;
    const started = performance.now();
    let bytes = 0;
    while (this.budgetLeft > 0 && this.queued.length > 0) {
      const frame = this.queued.shift() as QueuedFrame;
      this.budgetLeft -= frame.data.length;
      bytes += frame.data.length;
      this.writesInFlight += 1;
      this.term.write(frame.data, () => {
        this.writesInFlight -= 1;
        this.renderedFrames += 1;
        this.addMark(frame.end);
        if (!frame.acked) this.acknowledge(frame.data.length);
        if (this.writesInFlight > 0) return;
        if (bytes >= this.budget) this.adaptBudget(performance.now() - started);
        this.pump();
      });
    }
    if (this.budgetFrame === 0 && bytes > 0) {
      this.budgetFrame = requestAnimationFrame(() => {
        this.budgetFrame = 0;
        this.budgetLeft = this.budget;
        this.pump();
      });
    }
  }

  /** A full batch took `ms` to parse: aim the next ones at PARSE_TARGET_MS (at most ×2 or ÷2 a step). */
  private adaptBudget(ms: number): void {
    const factor = Math.min(2, Math.max(0.5, PARSE_TARGET_MS / Math.max(ms, 0.1)));
    this.budget = Math.round(Math.min(WRITE_BUDGET_MAX, Math.max(WRITE_BUDGET_MIN, this.budget * factor)));
  }

  /** Frames a snapshot supersedes are never written; they count as consumed for flow control. */
  private dropQueued(): void {
    this.hiddenBytes = 0;
    if (this.queued.length === 0) return;
    const bytes = this.queued.reduce((sum, frame) => sum + (frame.acked ? 0 : frame.data.length), 0);
    this.queued = [];
    if (bytes > 0) this.acknowledge(bytes);
    this.flushAck();
  }

  /** The session's size changed (a resize by whoever controls it). */
  setSessionSize(cols: number, rows: number): void {
    if (cols === this.sessionCols && rows === this.sessionRows) return;
    this.sessionCols = cols;
    this.sessionRows = rows;
    if (this.modeValue === 'watch') {
      if (this.term.cols !== cols || this.term.rows !== rows) this.term.resize(cols, rows);
      this.scheduleLayout();
    }
  }

  private acknowledge(bytes: number): void {
    this.unacked += bytes;
    // Behind: every ack brings the fresh snapshot sooner, so none waits for a batch.
    if (this.unacked >= this.options.ackEvery || this.isBehind) {
      this.flushAck();
      return;
    }
    if (this.ackTimer === undefined) this.ackTimer = setTimeout(() => this.flushAck(), ACK_FLUSH_MS);
  }

  private flushAck(): void {
    if (this.ackTimer !== undefined) clearTimeout(this.ackTimer);
    this.ackTimer = undefined;
    if (this.unacked === 0) return;
    this.options.send({ type: 'ack', session: this.options.sessionId, bytes: this.unacked });
    this.unacked = 0;
  }

  private addMark(end: number): void {
    const marker = this.term.registerMarker(0);
    if (!marker) return;
    this.frameMarks.push({ end, marker });
    if (this.frameMarks.length > MAX_FRAME_MARKS) this.frameMarks.shift()?.marker.dispose();
  }

  private clearMarks(): void {
    for (const { marker } of this.frameMarks) marker.dispose();
    this.frameMarks = [];
    this.snapshotTop?.dispose();
    this.snapshotTop = undefined;
  }

  // ---- control and geometry -------------------------------------------------------------------

  /** `fit` while the person controls the session, `watch` otherwise. */
  setMode(mode: ViewMode): void {
    if (mode === this.modeValue) return;
    this.modeValue = mode;
    this.element.classList.toggle('mode-watch', mode === 'watch');
    this.element.classList.toggle('mode-fit', mode === 'fit');
    if (mode === 'watch') {
      if (this.term.cols !== this.sessionCols || this.term.rows !== this.sessionRows) this.term.resize(this.sessionCols, this.sessionRows);
    }
    this.layout();
  }

  setVisible(visible: boolean): void {
    const changed = visible !== this.visible;
    this.visible = visible;
    this.element.hidden = !visible;
    if (visible) this.layout();
    if (changed) this.showOrHide();
  }

  private setBehind(behind: boolean): void {
    this.isBehind = behind;
    this.element.classList.toggle('behind', behind);
  }

  get fontSizes(): { fontSize: number; baseFontSize: number } {
    return { fontSize: this.term.options.fontSize ?? this.baseFontSize, baseFontSize: this.baseFontSize };
  }

  setTheme(theme: ThemeName): void {
    this.term.options.theme = terminalTheme(theme);
  }

  setBaseFontSize(px: number): void {
    this.baseFontSize = px;
    this.layout();
  }

  focus(): void {
    this.term.focus();
  }

  private scheduleLayout(): void {
    if (this.layoutFrame) return;
    this.layoutFrame = requestAnimationFrame(() => {
      this.layoutFrame = 0;
      this.layout();
    });
  }

  private layout(): void {
    if (!this.visible || this.element.clientWidth === 0) return;
    if (this.modeValue === 'fit') {
      if (this.term.options.fontSize !== this.baseFontSize) this.term.options.fontSize = this.baseFontSize;
      this.fitAddon.fit();
      this.scheduleResizeMessage();
      return;
    }
    this.fitFontToSession();
  }

  /** Watching: the largest font (≤ the base size) at which the session's grid fits the pane. */
  private fitFontToSession(): void {
    const style = getComputedStyle(this.element);
    const availWidth = this.element.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 2;
    const availHeight = this.element.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom) - 2;
    const cell = measureCell(this.term.options.lineHeight ?? 1);
    const fitting = Math.min(availWidth / (this.sessionCols * cell.width), availHeight / (this.sessionRows * cell.height));
    const size = Math.max(MIN_WATCH_FONT_PX, Math.min(this.baseFontSize, Math.floor(fitting * 2) / 2));
    if (this.term.options.fontSize !== size) this.term.options.fontSize = size;
    // The estimate may be off by a pixel (rounding of cell sizes): step down until it fits.
    requestAnimationFrame(() => {
      const screen = this.inner.querySelector<HTMLElement>('.xterm-screen');
      const current = this.term.options.fontSize ?? size;
      if (!screen || this.modeValue !== 'watch' || current <= MIN_WATCH_FONT_PX) return;
      if (screen.offsetWidth > availWidth + 1 || screen.offsetHeight > availHeight + 1) {
        this.term.options.fontSize = Math.max(MIN_WATCH_FONT_PX, current - 0.5);
      }
    });
  }

  private scheduleResizeMessage(): void {
    if (this.resizeTimer !== undefined) clearTimeout(this.resizeTimer);
    this.resizeTimer = setTimeout(() => {
      this.resizeTimer = undefined;
      if (this.modeValue !== 'fit') return;
      const { cols, rows } = this.term;
      if (cols === this.sessionCols && rows === this.sessionRows) return;
      this.sessionCols = cols;
      this.sessionRows = rows;
      this.options.send({ type: 'resize', session: this.options.sessionId, cols, rows });
    }, RESIZE_DEBOUNCE_MS);
  }

  /** Sends the fitted size now (right after a take over). */
  sendFittedSize(): void {
    if (this.modeValue !== 'fit' || !this.visible) return;
    this.fitAddon.fit();
    const { cols, rows } = this.term;
    this.sessionCols = cols;
    this.sessionRows = rows;
    this.options.send({ type: 'resize', session: this.options.sessionId, cols, rows });
  }

  // ---- input ----------------------------------------------------------------------------------

  private handleData(data: string): void {
    if (isFocusReport(data)) return;
    if (this.modeValue === 'watch' && isMouseReport(data)) return;
    this.options.onUserData(data);
  }

  private handleKey(event: KeyboardEvent): boolean {
    if (event.type !== 'keydown') return true;
    const mod = event.ctrlKey || event.metaKey;
    const key = event.key.toLowerCase();
    if (mod && key === 'f' && (event.shiftKey || event.metaKey || this.modeValue === 'watch')) {
      event.preventDefault();
      this.options.onSearchKey();
      return false;
    }
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

  /**
   * Scrolls to a command: the line where the frame holding its output's first byte was
   * written, else its line in the snapshot, else a search for the command line.
   */
  scrollToCommand(record: UiCommandRecord): boolean {
    let line = -1;
    let best: IMarker | undefined;
    for (const mark of this.frameMarks) {
      if (mark.end <= record.output_start_byte) best = mark.marker;
      else break;
    }
    // Marks start at the snapshot's end: a command older than the snapshot has none.
    if (best && !best.isDisposed && best.line >= 0) {
      line = best.line;
    } else if (record.start_line != null && this.snapshotTop && !this.snapshotTop.isDisposed && this.snapshotTop.line >= 0) {
      line = this.snapshotTop.line + record.start_line;
    }
    if (line >= 0) {
      const target = Math.max(0, line - 1);
      this.term.scrollToLine(Math.max(0, target - 2));
      this.flashLine(target);
      return true;
    }
    return this.searchAddon.findPrevious(record.command, { decorations: this.searchDecorations() });
  }

  private flashLine(line: number): void {
    const buffer = this.term.buffer.active;
    if (buffer.type !== 'normal') return;
    const marker = this.term.registerMarker(line - (buffer.baseY + buffer.cursorY));
    if (!marker) return;
    const decoration = this.term.registerDecoration({ marker, width: this.term.cols, layer: 'bottom' });
    decoration?.onRender((element) => element.classList.add('command-flash'));
    setTimeout(() => {
      decoration?.dispose();
      marker.dispose();
    }, 1_400);
  }

  /** The visible rows as text (what the person sees; test hook). */
  screenText(): string {
    const buffer = this.term.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < this.term.rows; y += 1) lines.push(buffer.getLine(buffer.viewportY + y)?.translateToString(true) ?? '');
    return lines.join('\n');
  }

  dispose(): void {
    this.queued = [];
    this.deferredSnapshot = null;
    document.removeEventListener('visibilitychange', this.onPageVisibility);
    if (this.budgetFrame) cancelAnimationFrame(this.budgetFrame);
    this.flushAck();
    if (this.resizeTimer !== undefined) clearTimeout(this.resizeTimer);
    if (this.layoutFrame) cancelAnimationFrame(this.layoutFrame);
    this.resizeObserver.disconnect();
    this.clearMarks();
    for (const disposable of this.disposables) disposable.dispose();
    this.term.dispose();
    this.element.remove();
  }
}

let cellCache: { lineHeight: number; width: number; height: number } | undefined;

/** Width and height of one cell per pixel of font size, for the terminal font. */
export function measureCell(lineHeight: number): { width: number; height: number } {
  if (cellCache && cellCache.lineHeight === lineHeight) return cellCache;
  const probe = document.createElement('span');
  probe.style.cssText = `position:absolute;visibility:hidden;white-space:pre;font-family:${TERMINAL_FONT_FAMILY};font-size:100px;line-height:normal`;
  probe.textContent = 'W'.repeat(32);
  document.body.append(probe);
  const rect = probe.getBoundingClientRect();
  probe.remove();
  cellCache = { lineHeight, width: rect.width / 32 / 100, height: (rect.height * lineHeight) / 100 };
  return cellCache;
}
