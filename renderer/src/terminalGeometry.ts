/**
 * A terminal view's size. Watching keeps the session's own cols×rows (an agent's PTY is never
 * resized by a viewer): the view shrinks its font so the whole agent screen fits the pane,
 * down to MIN_WATCH_FONT_PX, and scrolls beyond that. Shrinking the font rather than scaling
 * pixels with a CSS transform keeps glyphs crisp and keeps xterm's mouse hit-testing
 * (selection, links) exact, which a transform breaks. When the person controls the session
 * (their own, or taken over) the terminal fits the pane at the normal font size and the
 * fitted size is sent to the hub.
 */
import type { FitAddon } from '@xterm/addon-fit';
import type { Terminal } from '@xterm/xterm';
import type { ClientMessage } from '../../src/ui-protocol/index.js';
import { TERMINAL_FONT_FAMILY } from './theme.js';

export type ViewMode = 'watch' | 'fit';

const MIN_WATCH_FONT_PX = 9;
const RESIZE_DEBOUNCE_MS = 100;

interface TerminalGeometryOptions {
  sessionId: string;
  term: Terminal;
  fitAddon: FitAddon;
  /** The view's element (its size is the pane's) and the element xterm is open in. */
  element: HTMLElement;
  inner: HTMLElement;
  fontSize: number;
  send(message: ClientMessage): void;
}

export class TerminalGeometry {
  private modeValue: ViewMode = 'watch';
  private sessionCols = 80;
  private sessionRows = 24;
  private baseFontSize: number;
  private visible = false;
  private resizeTimer: ReturnType<typeof setTimeout> | undefined;
  private layoutFrame = 0;
  private readonly resizeObserver: ResizeObserver;

  constructor(private readonly options: TerminalGeometryOptions) {
    this.baseFontSize = options.fontSize;
    this.resizeObserver = new ResizeObserver(() => this.scheduleLayout());
    this.resizeObserver.observe(options.element);
  }

  get mode(): ViewMode {
    return this.modeValue;
  }

  get fontSizes(): { fontSize: number; baseFontSize: number } {
    return { fontSize: this.options.term.options.fontSize ?? this.baseFontSize, baseFontSize: this.baseFontSize };
  }

  /** The session's size changed (a resize by whoever controls it). */
  setSessionSize(cols: number, rows: number): void {
    if (cols === this.sessionCols && rows === this.sessionRows) return;
    this.sessionCols = cols;
    this.sessionRows = rows;
    if (this.modeValue === 'watch') {
      this.resizeTerminal(cols, rows);
      this.scheduleLayout();
    }
  }

  /** A snapshot is about to be written at its size (whatever the mode: it was serialized at that size). */
  takeSnapshotSize(cols: number, rows: number): void {
    this.sessionCols = cols;
    this.sessionRows = rows;
    this.resizeTerminal(cols, rows);
  }

  /** `fit` while the person controls the session, `watch` otherwise. */
  setMode(mode: ViewMode): void {
    if (mode === this.modeValue) return;
    this.modeValue = mode;
    this.options.element.classList.toggle('mode-watch', mode === 'watch');
    this.options.element.classList.toggle('mode-fit', mode === 'fit');
    if (mode === 'watch') this.resizeTerminal(this.sessionCols, this.sessionRows);
    this.layout();
  }

  setVisible(visible: boolean): void {
    this.visible = visible;
    if (visible) this.layout();
  }

  setBaseFontSize(px: number): void {
    this.baseFontSize = px;
    this.layout();
  }

  /** Sends the fitted size now (right after a take over). */
  sendFittedSize(): void {
    if (this.modeValue !== 'fit' || !this.visible) return;
    this.options.fitAddon.fit();
    const { cols, rows } = this.options.term;
    this.sessionCols = cols;
    this.sessionRows = rows;
    this.options.send({ type: 'resize', session: this.options.sessionId, cols, rows });
  }

  layout(): void {
    if (!this.visible || this.options.element.clientWidth === 0) return;
    if (this.modeValue === 'fit') {
      const term = this.options.term;
      if (term.options.fontSize !== this.baseFontSize) term.options.fontSize = this.baseFontSize;
      this.options.fitAddon.fit();
      this.scheduleResizeMessage();
      return;
    }
    this.fitFontToSession();
  }

  dispose(): void {
    if (this.resizeTimer !== undefined) clearTimeout(this.resizeTimer);
    if (this.layoutFrame) cancelAnimationFrame(this.layoutFrame);
    this.resizeObserver.disconnect();
  }

  private resizeTerminal(cols: number, rows: number): void {
    const term = this.options.term;
    if (term.cols !== cols || term.rows !== rows) term.resize(cols, rows);
  }

  private scheduleLayout(): void {
    if (this.layoutFrame) return;
    this.layoutFrame = requestAnimationFrame(() => {
      this.layoutFrame = 0;
      this.layout();
    });
  }

  /** Watching: the largest font (≤ the base size) at which the session's grid fits the pane. */
  private fitFontToSession(): void {
    const { element, inner, term } = this.options;
    const style = getComputedStyle(element);
    const availWidth = element.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 2;
    const availHeight = element.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom) - 2;
    const cell = measureCell(term.options.lineHeight ?? 1);
    const fitting = Math.min(availWidth / (this.sessionCols * cell.width), availHeight / (this.sessionRows * cell.height));
    const size = Math.max(MIN_WATCH_FONT_PX, Math.min(this.baseFontSize, Math.floor(fitting * 2) / 2));
    if (term.options.fontSize !== size) term.options.fontSize = size;
    // The estimate may be off by a pixel (rounding of cell sizes): step down until it fits.
    requestAnimationFrame(() => {
      const screen = inner.querySelector<HTMLElement>('.xterm-screen');
      const current = term.options.fontSize ?? size;
      if (!screen || this.modeValue !== 'watch' || current <= MIN_WATCH_FONT_PX) return;
      if (screen.offsetWidth > availWidth + 1 || screen.offsetHeight > availHeight + 1) {
        term.options.fontSize = Math.max(MIN_WATCH_FONT_PX, current - 0.5);
      }
    });
  }

  private scheduleResizeMessage(): void {
    if (this.resizeTimer !== undefined) clearTimeout(this.resizeTimer);
    this.resizeTimer = setTimeout(() => {
      this.resizeTimer = undefined;
      if (this.modeValue !== 'fit') return;
      const { cols, rows } = this.options.term;
      if (cols === this.sessionCols && rows === this.sessionRows) return;
      this.sessionCols = cols;
      this.sessionRows = rows;
      this.options.send({ type: 'resize', session: this.options.sessionId, cols, rows });
    }, RESIZE_DEBOUNCE_MS);
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
