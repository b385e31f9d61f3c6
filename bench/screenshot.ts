/**
 * `screenshot` (docs/design.md §3.2): a full 120×32 screen of coloured text, every cell drawn
 * (a mix of 16, 256 and true colours, bold, italic, inverse, like htop or a coloured diff),
 * read from the emulator and painted to PNG, in this process. Baseline: the PNG of a blank
 * 120×32 screen (the canvas and the encoder alone), in the same run. Budget: 100 ms.
 */
import { Emulator } from '../src/core/emulation/emulator.js';
import { renderScreenshot } from '../src/hub/screenshot/pngRenderer.js';
import { median, ms, now, percentile, ratio, type Row } from './stats.js';

const COLS = 120;
const ROWS = 32;

/** Rows of words, each in its own style, filling the screen to its last column. */
function colouredScreen(): string {
  const styles = ['31', '1;32', '38;5;208', '38;2;200;120;40', '7', '3;36', '44;37', '2;35', '4;33', '1;38;5;45'];
  const lines: string[] = [];
  for (let row = 0; row < ROWS; row++) {
    let line = '';
    let cols = 0;
    for (let i = 0; cols < COLS; i++) {
      const word = `w${row}x${i}`.padEnd(8, '.').slice(0, Math.min(8, COLS - cols));
      line += `\x1b[${styles[(row + i) % styles.length]}m${word}\x1b[0m`;
      cols += word.length;
    }
    lines.push(line);
  }
  return lines.join('\r\n');
}

async function screen(output: string): Promise<Emulator> {
  const emulator = await Emulator.create({ cols: COLS, rows: ROWS, scrollback: 0, nonce: '', headLines: 0 });
  emulator.write(output, 0, Buffer.byteLength(output));
  await emulator.whenParsed();
  return emulator;
}

export async function screenshotCost(rows: Row[], turns: number): Promise<void> {
  const full = await screen(colouredScreen());
  const blank = await screen('');
  try {
    // The first one loads @napi-rs/canvas and the font: timed apart.
    let start = now();
    await renderScreenshot(full.styledScreen());
    const first = now() - start;
    const times: number[] = [];
    const blanks: number[] = [];
    for (let i = 0; i < turns; i++) {
      start = now();
      await renderScreenshot(full.styledScreen());
      times.push(now() - start);
      start = now();
      await renderScreenshot(blank.styledScreen());
      blanks.push(now() - start);
    }
    rows.push(
      {
        case: `\`screenshot\` of a full 120×32 coloured screen (read + paint + PNG), median / p95 (n=${turns})`,
        value: `${ms(median(times))} / ${ms(percentile(times, 95))}`,
        baseline: `${ms(median(blanks))}: a blank 120×32 screen's PNG`,
        ratio: ratio(median(times), median(blanks)),
      },
      { case: '… the first one (loads @napi-rs/canvas and the font)', value: ms(first), baseline: '—', ratio: '—' },
    );
  } finally {
    full.dispose();
    blank.dispose();
  }
}
