/**
 * The session's terminal, read-only: xterm.js at the session's size, its font scaled so the
 * grid fits the frame's width. It never answers the program (nothing it emits is read, so
 * xterm's replies to queries go nowhere) and never opens links a program prints.
 */
import { Terminal } from '@xterm/xterm';
import { terminalColors, type TerminalThemeName } from '../../src/terminalThemes.js';

const FONT_FAMILY = 'ui-monospace, "SF Mono", SFMono-Regular, Menlo, "Cascadia Mono", Consolas, "DejaVu Sans Mono", "Liberation Mono", monospace';
const BASE_FONT_PX = 13;
const MIN_FONT_PX = 6;
/** The view's own scrollback: what scrolled off while it watched, plus what a screen brings. */
const SCROLLBACK_LINES = 2_000;

export class TerminalPane {
  private readonly term: Terminal;
  private fitting = 0;

  constructor(
    private readonly element: HTMLElement,
    theme: TerminalThemeName,
  ) {
    this.term = new Terminal({
      cols: 80,
      rows: 24,
      disableStdin: true,
      cursorBlink: false,
      cursorStyle: 'block',
      cursorInactiveStyle: 'block',
      fontFamily: FONT_FAMILY,
      fontSize: BASE_FONT_PX,
      lineHeight: 1.15,
      scrollback: SCROLLBACK_LINES,
      theme: { ...terminalColors(theme) },
      drawBoldTextInBrightColors: false,
      minimumContrastRatio: 1,
      // A program's OSC 8 link is not followed from here (the person opens the session instead).
      linkHandler: null,
    });
    this.term.open(element);
    new ResizeObserver(() => this.scheduleFit()).observe(element);
  }

  setTheme(theme: TerminalThemeName): void {
    this.term.options.theme = { ...terminalColors(theme) };
  }

  /** The session's screen, drawn anew at its size (its scrollback rows above it). */
  showScreen(data: string, cols: number, rows: number): Promise<void> {
    if (this.term.cols !== cols || this.term.rows !== rows) this.term.resize(cols, rows);
    this.scheduleFit();
    // RIS through the parser, so output still queued before it lands first and is wiped.
    return this.write(`\x1bc${data}`);
  }

  /** Output the session printed after what is shown. */
  append(data: string): Promise<void> {
    return this.write(data);
  }

  /** Plain text when there is no live view (a host that cannot call the app's tool). */
  showText(text: string): Promise<void> {
    return this.write(`\x1bc${text.replace(/\r?\n/g, '\r\n')}`);
  }

  private write(data: string): Promise<void> {
    return new Promise((resolve) => this.term.write(data, resolve));
  }

  private scheduleFit(): void {
    if (this.fitting) return;
    this.fitting = requestAnimationFrame(() => {
      this.fitting = 0;
      this.fit();
    });
  }

  /** The largest font (≤ the base size) at which the session's columns fit the frame's width. */
  private fit(): void {
    const available = this.contentWidth();
    const screen = this.element.querySelector<HTMLElement>('.xterm-screen');
    const size = this.term.options.fontSize ?? BASE_FONT_PX;
    if (!screen || available === 0 || screen.offsetWidth === 0) return;
    // Width of a column per pixel of font, as drawn now.
    const perPx = screen.offsetWidth / (this.term.cols * size);
    const target = Math.max(MIN_FONT_PX, Math.min(BASE_FONT_PX, Math.floor((available / (this.term.cols * perPx)) * 2) / 2));
    if (target !== size) this.term.options.fontSize = target;
    requestAnimationFrame(() => this.shrinkUntilFits(screen));
  }

  /** Cell widths round to whole pixels: step down until the grid fits (down only, so it ends). */
  private shrinkUntilFits(screen: HTMLElement): void {
    const size = this.term.options.fontSize ?? BASE_FONT_PX;
    if (screen.offsetWidth <= this.contentWidth() + 1 || size <= MIN_FONT_PX) return;
    this.term.options.fontSize = Math.max(MIN_FONT_PX, size - 0.5);
    requestAnimationFrame(() => this.shrinkUntilFits(screen));
  }

  private contentWidth(): number {
    const style = getComputedStyle(this.element);
    return this.element.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  }
}
