import type { IBuffer } from '@xterm/headless';

/**
 * Plain text from the emulator's buffer: what the screen renders, so `\r` progress bars and
 * cursor movement collapse the way a person sees them. Soft-wrapped rows join into one
 * logical line; trailing blanks are trimmed (xterm keeps explicitly printed spaces).
 */

/** The logical line that ends at row `lastRow`, walking up through wrapped rows (not above `floorRow`). */
export function readLogicalLine(buffer: IBuffer, lastRow: number, floorRow: number, floorCol = 0): string {
  let first = lastRow;
  while (first > floorRow && buffer.getLine(first)?.isWrapped) first--;
  let text = '';
  for (let row = first; row <= lastRow; row++) {
    const line = buffer.getLine(row);
    if (!line) continue;
    const startCol = row === floorRow ? floorCol : 0;
    text += line.translateToString(row === lastRow, startCol);
  }
  return text.trimEnd();
}

/**
 * Logical lines from (startRow, startCol) through `endRow`, the row the cursor was on when
 * the output ended. That row counts only when it shows text: output that ended with a
 * newline leaves it empty, a `\r`-ended progress line leaves its text with the cursor at 0.
 * `endRowText` is that row as it was when the output ended, before a prompt was drawn on it.
 */
export function readLines(buffer: IBuffer, startRow: number, startCol: number, endRow: number, endRowText?: string): string[] {
  const lines: string[] = [];
  let current: string | null = null;
  let currentStartsAtEnd = false;
  for (let row = startRow; row <= endRow; row++) {
    const line = buffer.getLine(row);
    if (!line) continue;
    const wrapsOn = row < endRow && buffer.getLine(row + 1)?.isWrapped === true;
    const text =
      row === endRow && endRowText !== undefined
        ? endRowText.slice(row === startRow ? startCol : 0)
        : line.translateToString(!wrapsOn, row === startRow ? startCol : 0);
    if (current !== null && line.isWrapped && row !== startRow) {
      current += text;
    } else {
      if (current !== null) lines.push(current);
      current = text;
      currentStartsAtEnd = row === endRow;
    }
  }
  if (current !== null && !(currentStartsAtEnd && current.trimEnd() === '')) lines.push(current);
  // Explicit blanks (zsh's PROMPT_SP, padded tables) are not text a reader wants.
  return lines.map((line) => line.trimEnd());
}

/**
 * The last logical line with text at or above `cursorRow` (not above `floorRow`; from
 * `floorCol` on that row), for a progress message: bounded, so it costs a few rows whatever
 * the buffer holds. Blank rows are passed over for at most `scanRows`; a line wrapped over more
 * rows than `maxChars` needs starts with `…` (its end is what was read). Cut to `maxChars`
 * characters, with `…` when it is longer. Empty when nothing shows.
 */
export function lastTextLine(buffer: IBuffer, cursorRow: number, floorRow: number, floorCol: number, maxChars: number, scanRows: number): string {
  let row = cursorRow;
  const lowest = Math.max(floorRow, cursorRow - scanRows);
  while (row >= lowest && rowText(buffer, row, floorRow, floorCol, true) === '') row--;
  if (row < lowest) return '';
  const cols = Math.max(1, buffer.getLine(row)?.length ?? 1);
  const rowsNeeded = Math.ceil(maxChars / cols) + 1;
  let first = row;
  while (first > floorRow && row - first < rowsNeeded && buffer.getLine(first)?.isWrapped) first--;
  const cut = first > floorRow && buffer.getLine(first)?.isWrapped === true;
  let text = cut ? '…' : '';
  for (let r = first; r <= row; r++) text += rowText(buffer, r, floorRow, floorCol, r === row);
  text = text.trim();
  return text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text;
}

function rowText(buffer: IBuffer, row: number, floorRow: number, floorCol: number, trimRight: boolean): string {
  const text = buffer.getLine(row)?.translateToString(trimRight, row === floorRow ? floorCol : 0) ?? '';
  return trimRight ? text.trimEnd() : text;
}
