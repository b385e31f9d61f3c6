import type { IBuffer, IBufferCell, IBufferLine } from '@xterm/headless';
import type { StyledColor, StyledRow, StyledRun } from '../types.js';

/**
 * The emulator's buffer as rows of style runs (`read` format `styled`, docs/design.md §3.2; the
 * screenshot paints them): cells of one style and one width become one run, only the attributes
 * that are set are kept, and trailing blanks without a visible style are left out. Read through
 * xterm's public cell API only.
 */

// xterm's colour modes (IBufferCell.getFgColorMode()).
const MODE_P16 = 0x1000000;
const MODE_P256 = 0x2000000;
const MODE_RGB = 0x3000000;

function color(mode: number, value: number): StyledColor | undefined {
  if (mode === MODE_P16 || mode === MODE_P256) return value;
  if (mode === MODE_RGB) return `#${value.toString(16).padStart(6, '0')}`;
  return undefined;
}

/** The style of a cell as one comparable key (colour modes, colours, attribute bits). */
function styleKey(cell: IBufferCell, wide: boolean): string {
  if (cell.isAttributeDefault()) return wide ? 'w' : '';
  const flags =
    (cell.isBold() ? 1 : 0) | (cell.isDim() ? 2 : 0) | (cell.isItalic() ? 4 : 0) | (cell.isUnderline() ? 8 : 0) | (cell.isInverse() ? 16 : 0) | (wide ? 32 : 0);
  return `${cell.getFgColorMode()}:${cell.getFgColor()}:${cell.getBgColorMode()}:${cell.getBgColor()}:${flags}`;
}

function newRun(cell: IBufferCell, text: string, wide: boolean): StyledRun {
  const run: StyledRun = { text };
  if (!cell.isAttributeDefault()) {
    const fg = color(cell.getFgColorMode(), cell.getFgColor());
    const bg = color(cell.getBgColorMode(), cell.getBgColor());
    if (fg !== undefined) run.fg = fg;
    if (bg !== undefined) run.bg = bg;
    if (cell.isBold()) run.bold = true;
    if (cell.isDim()) run.dim = true;
    if (cell.isItalic()) run.italic = true;
    if (cell.isUnderline()) run.underline = true;
    if (cell.isInverse()) run.inverse = true;
  }
  if (wide) run.wide = true;
  return run;
}

/** Whether blanks in this run show anything (a background, inverse video, an underline). */
function blanksShow(run: StyledRun): boolean {
  return run.bg !== undefined || run.inverse === true || run.underline === true;
}

/** Runs of `line` from `startCol` up to (not including) `endCol`, appended to `runs` (merged with its last run when the style goes on). */
function appendRowRuns(runs: StyledRun[], lastKey: { value: string | null }, line: IBufferLine, cell: IBufferCell, startCol = 0, endCol = line.length): void {
  for (let x = startCol; x < endCol; x++) {
    line.getCell(x, cell);
    const width = cell.getWidth();
    if (width === 0) continue; // the right half of a wide character
    const text = cell.getChars() || ' ';
    const wide = width === 2;
    const key = styleKey(cell, wide);
    const last = runs[runs.length - 1];
    if (last && lastKey.value === key) last.text += text;
    else {
      runs.push(newRun(cell, text, wide));
      lastKey.value = key;
    }
  }
}

/** Trailing blanks that show nothing, left out (a row of them becomes []). */
function trimRow(runs: StyledRun[]): StyledRow {
  while (runs.length > 0) {
    const last = runs[runs.length - 1]!;
    if (blanksShow(last)) break;
    const trimmed = last.text.trimEnd();
    if (trimmed.length > 0) {
      last.text = trimmed;
      break;
    }
    runs.pop();
  }
  return runs;
}

/** One screen row of the buffer (`row` counted in the buffer, scrollback included). */
export function styledRow(buffer: IBuffer, row: number, cell: IBufferCell): StyledRow {
  const line = buffer.getLine(row);
  if (!line) return [];
  const runs: StyledRun[] = [];
  appendRowRuns(runs, { value: null }, line, cell);
  return trimRow(runs);
}

/**
 * Logical lines (soft-wrapped rows joined) from (startRow, startCol) through `endRow`, cut at
 * `endCol` on the last row when given: the same lines, in the same places, as
 * `readLines` (output/bufferText.ts) gives as text, so a styled page matches a plain one.
 */
export function styledLines(buffer: IBuffer, startRow: number, startCol: number, endRow: number, endCol?: number): StyledRow[] {
  const cell = buffer.getNullCell();
  const lines: StyledRow[] = [];
  let current: StyledRun[] | null = null;
  const key = { value: null as string | null };
  let currentStartsAtEnd = false;
  for (let row = startRow; row <= endRow; row++) {
    const line = buffer.getLine(row);
    if (!line) continue;
    const from = row === startRow ? startCol : 0;
    const to = row === endRow && endCol !== undefined ? Math.min(endCol, line.length) : line.length;
    if (current !== null && line.isWrapped && row !== startRow) {
      appendRowRuns(current, key, line, cell, from, to);
    } else {
      if (current !== null) lines.push(trimRow(current));
      current = [];
      key.value = null;
      appendRowRuns(current, key, line, cell, from, to);
      currentStartsAtEnd = row === endRow;
    }
  }
  if (current !== null) {
    const last = trimRow(current);
    if (!(currentStartsAtEnd && last.length === 0)) lines.push(last);
  }
  return lines;
}

/** The first row of each logical line in rows [0, endRow] (a row that does not continue the one above starts one). */
export function logicalLineStarts(buffer: IBuffer, endRow: number): number[] {
  const starts: number[] = [];
  for (let row = 0; row <= endRow; row++) {
    if (row === 0 || !buffer.getLine(row)?.isWrapped) starts.push(row);
  }
  return starts;
}

const OPEN = '⟦';
const CLOSE = '⟧';

/** A run's attributes as the text form writes them: `fg=1,bold`. */
function attributes(run: StyledRun): string {
  const parts: string[] = [];
  if (run.fg !== undefined) parts.push(`fg=${run.fg}`);
  if (run.bg !== undefined) parts.push(`bg=${run.bg}`);
  for (const flag of ['bold', 'dim', 'italic', 'underline', 'inverse', 'wide'] as const) if (run[flag]) parts.push(flag);
  return parts.join(',');
}

/**
 * The text form of styled rows, one line per row: a run without attributes is its text, one
 * with attributes `⟦fg=1,bold⟧text⟦/⟧` (colours as in the runs; `wide` is left out, the text
 * says it). A literal ⟦ in the text is doubled. Readable on its own and cheap in tokens.
 */
export function styledText(rows: StyledRow[]): string {
  return rows
    .map((row) => {
      // Runs that differ only in width read as one.
      const pieces: { attrs: string; text: string }[] = [];
      for (const run of row) {
        const { wide: _wide, ...shown } = run;
        const attrs = attributes(shown);
        const text = run.text.replaceAll(OPEN, OPEN + OPEN);
        const last = pieces[pieces.length - 1];
        if (last && last.attrs === attrs) last.text += text;
        else pieces.push({ attrs, text });
      }
      return pieces.map(({ attrs, text }) => (attrs === '' ? text : `${OPEN}${attrs}${CLOSE}${text}${OPEN}/${CLOSE}`)).join('');
    })
    .join('\n');
}
