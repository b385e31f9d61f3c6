/**
 * A PNG of a session's screen as the person sees it (docs/design.md §3.2 `screenshot`), drawn in
 * the hub without a browser: the styled screen the core reads from its headless xterm
 * (`StyledScreen`), painted with @napi-rs/canvas (Skia; prebuilt N-API binaries) in the
 * terminal's theme (src/terminalThemes.ts, the UI's colours) and DejaVu Sans Mono (fonts.ts).
 *
 * It draws what xterm.js draws: each character at its cell (wide ones across two), background
 * colours, 16/256/true colours, bold and italic faces, dim at half opacity, underline, inverse,
 * and the block cursor (the cursor colour, the character under it in the accent colour).
 * @napi-rs/canvas is loaded on the first screenshot, so a hub that never takes one never loads it.
 */
import type { StyledColor, StyledRun, StyledScreen } from '../../core/index.js';
import { palette256, terminalColors, type TerminalColors, type TerminalThemeName } from '../../terminalThemes.js';
import { registerScreenshotFonts, SCREENSHOT_FONT_FAMILY } from './fonts.js';
import { encodePng } from './pngEncoder.js';

type Canvas = typeof import('@napi-rs/canvas');
type Context = ReturnType<ReturnType<Canvas['createCanvas']>['getContext']>;

/** The picture's geometry, in pixels: a cell, and the margin around the grid. */
export const SCREENSHOT_GEOMETRY = {
  fontSize: 14,
  cellWidth: 9,
  /** The UI's line height (1.15) at this font size, rounded up. */
  cellHeight: 17,
  padding: 8,
} as const;

interface RenderOptions {
  /** Default dark, as the UI starts. */
  theme?: TerminalThemeName;
}

let canvasModule: Promise<Canvas> | undefined;

function loadCanvas(): Promise<Canvas> {
  canvasModule ??= import('@napi-rs/canvas').then((module) => {
    const canvas = ((module as { default?: Canvas }).default ?? module) as Canvas;
    registerScreenshotFonts(canvas.GlobalFonts);
    return canvas;
  });
  return canvasModule;
}

/** The pixel size of a screen of `cols` × `rows`. */
export function screenshotSize(cols: number, rows: number): { width: number; height: number } {
  const { cellWidth, cellHeight, padding } = SCREENSHOT_GEOMETRY;
  return { width: cols * cellWidth + 2 * padding, height: rows * cellHeight + 2 * padding };
}

const segmenter = new Intl.Segmenter();

/** Renders the screen to PNG bytes. */
export async function renderScreenshot(screen: StyledScreen, options: RenderOptions = {}): Promise<Buffer> {
  const canvas = await loadCanvas();
  const colors = terminalColors(options.theme ?? 'dark');
  const palette = palette256(colors);
  const { width, height } = screenshotSize(screen.cols, screen.height);
  const image = canvas.createCanvas(width, height);
  const ctx = image.getContext('2d');
  ctx.lang = 'en';
  ctx.fillStyle = colors.background;
  ctx.fillRect(0, 0, width, height);
  const painter = new Painter(ctx, colors, palette);
  const cursor = screen.cursor;
  screen.rows.forEach((row, y) => {
    let col = 0;
    for (const run of row) {
      col = painter.run(run, y, col, cursor.visible && cursor.row === y ? cursor.col : -1);
    }
    // The cursor past the row's last run sits on a blank.
    if (cursor.visible && cursor.row === y && cursor.col >= col && cursor.col < screen.cols) painter.cursorBlock(y, cursor.col, 1);
  });
  return encodePng(ctx.getImageData(0, 0, width, height).data, width, height);
}

class Painter {
  private readonly fonts = new Map<string, string>();
  private baseline: number;

  constructor(
    private readonly ctx: Context,
    private readonly colors: Readonly<TerminalColors>,
    private readonly palette: string[],
  ) {
    ctx.font = this.font(false, false);
    const metrics = ctx.measureText('W');
    const ascent = metrics.fontBoundingBoxAscent;
    const descent = metrics.fontBoundingBoxDescent;
    this.baseline = Math.round((SCREENSHOT_GEOMETRY.cellHeight - (ascent + descent)) / 2 + ascent);
  }

  private font(bold: boolean, italic: boolean): string {
    const key = `${bold ? 'b' : ''}${italic ? 'i' : ''}`;
    let font = this.fonts.get(key);
    if (!font) {
      font = `${italic ? 'italic ' : ''}${bold ? 'bold ' : ''}${SCREENSHOT_GEOMETRY.fontSize}px "${SCREENSHOT_FONT_FAMILY}", monospace`;
      this.fonts.set(key, font);
    }
    return font;
  }

  private color(value: StyledColor | undefined, fallback: string): string {
    if (value === undefined) return fallback;
    return typeof value === 'number' ? (this.palette[value] ?? fallback) : value;
  }

  /** Paints one run from column `col`; returns the column after it. `cursorCol` is the cursor's column on this row, or -1. */
  run(run: StyledRun, row: number, col: number, cursorCol: number): number {
    const { cellWidth, cellHeight, padding } = SCREENSHOT_GEOMETRY;
    const ctx = this.ctx;
    let fg = this.color(run.fg, this.colors.foreground);
    let bg = this.color(run.bg, this.colors.background);
    if (run.inverse) [fg, bg] = [bg, fg];
    const span = run.wide ? 2 : 1;
    const graphemes = Array.from(segmenter.segment(run.text), (s) => s.segment);
    const x0 = padding + col * cellWidth;
    const y0 = padding + row * cellHeight;
    if (bg !== this.colors.background) {
      ctx.fillStyle = bg;
      ctx.fillRect(x0, y0, graphemes.length * span * cellWidth, cellHeight);
    }
    ctx.font = this.font(run.bold === true, run.italic === true);
    ctx.fillStyle = fg;
    ctx.globalAlpha = run.dim ? 0.5 : 1;
    let at = col;
    for (const grapheme of graphemes) {
      if (grapheme !== ' ') ctx.fillText(grapheme, padding + at * cellWidth, y0 + this.baseline);
      at += span;
    }
    ctx.globalAlpha = 1;
    if (run.underline) {
      ctx.fillStyle = fg;
      ctx.fillRect(x0, y0 + this.baseline + 2, (at - col) * cellWidth, 1);
    }
    if (cursorCol >= col && cursorCol < at) {
      const index = Math.floor((cursorCol - col) / span);
      this.cursorBlock(row, col + index * span, span, graphemes[index], run);
    }
    return at;
  }

  /** xterm's block cursor: the cell in the cursor colour, its character in the accent colour. */
  cursorBlock(row: number, col: number, span: number, grapheme?: string, run?: StyledRun): void {
    const { cellWidth, cellHeight, padding } = SCREENSHOT_GEOMETRY;
    const ctx = this.ctx;
    const x = padding + col * cellWidth;
    const y = padding + row * cellHeight;
    ctx.fillStyle = this.colors.cursor;
    ctx.fillRect(x, y, span * cellWidth, cellHeight);
    if (grapheme && grapheme !== ' ') {
      ctx.font = this.font(run?.bold === true, run?.italic === true);
      ctx.fillStyle = this.colors.cursorAccent;
      ctx.fillText(grapheme, x, y + this.baseline);
    }
  }
}
