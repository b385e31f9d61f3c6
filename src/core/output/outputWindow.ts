/**
 * Fits a command's output into what a model should pay for: the first and last lines with
 * a one-line note in between saying how to read the rest (docs/design.md §3.6, `max_lines`).
 */

/** A line longer than this is cut, with a note of what was cut. */
export const MAX_LINE_CHARS = 2_000;

export interface OutputLines {
  /** Lines from the start of the output (all of them when `complete`). */
  head: readonly string[];
  /** Lines from the end of the output (empty when `complete`). */
  tail: readonly string[];
  /** Every line of the output, including those neither in head nor tail. */
  total: number;
  complete: boolean;
}

interface OutputWindow {
  output: string;
  truncated: boolean;
  total_lines: number;
}

export function fitOutput(lines: OutputLines, maxLines: number, omittedNote: (first: number, last: number) => string): OutputWindow {
  const all = lines.complete ? lines.head : null;
  if (all && all.length <= maxLines) {
    return { output: all.map(clipLine).join('\n'), truncated: false, total_lines: all.length };
  }
  const headCount = Math.ceil(maxLines / 2);
  const tailCount = maxLines - headCount;
  const head = lines.head.slice(0, headCount);
  const tailSource = all ?? lines.tail;
  const tail = tailCount > 0 ? tailSource.slice(-tailCount) : [];
  const first = head.length + 1;
  const last = lines.total - tail.length;
  const parts = [...head.map(clipLine)];
  if (last >= first) parts.push(omittedNote(first, last));
  parts.push(...tail.map(clipLine));
  return { output: parts.join('\n'), truncated: true, total_lines: lines.total };
}

function clipLine(line: string): string {
  return line.length <= MAX_LINE_CHARS ? line : `${line.slice(0, MAX_LINE_CHARS)} … [${line.length - MAX_LINE_CHARS} more characters]`;
}
