/**
 * fitOutput (src/core/output/outputWindow.ts): a command's output within `max_lines` — the first
 * half and the last half of the lines with a note between them naming the lines left out,
 * every line clipped to MAX_LINE_CHARS with a note of what was cut.
 *
 * The lines are those `seq 1 N` prints ("1", "2", …): each says where it is, so a window that
 * takes the wrong lines shows which.
 */
import { describe, expect, it } from 'vitest';
import { fitOutput, MAX_LINE_CHARS, type OutputLines } from '../../../../src/core/output/outputWindow.js';

/** What `seq 1 count` prints, as lines. */
const seq = (count: number, from = 1): string[] => Array.from({ length: count }, (_, i) => String(from + i));

/** Every line in hand (a short output, or one whose lines were all kept). */
const complete = (lines: string[]): OutputLines => ({ head: lines, tail: [], total: lines.length, complete: true });

/** Only the first and last lines kept (the rest left the scrollback and is on disk). */
const partial = (head: string[], tail: string[], total: number): OutputLines => ({ head, tail, total, complete: false });

/** The note as the caller phrases it: here, just the 1-based range, so the tests can see it. */
const note = (first: number, last: number): string => `[lines ${first}–${last} omitted]`;

describe('fitOutput', () => {
  it('returns an output that fits as it is: not truncated, total = its lines', () => {
    expect(fitOutput(complete(seq(5)), 5, note)).toEqual({ output: '1\n2\n3\n4\n5', truncated: false, total_lines: 5 });
    expect(fitOutput(complete(seq(3)), 200, note)).toEqual({ output: '1\n2\n3', truncated: false, total_lines: 3 });
  });

  it('returns no lines as an empty output', () => {
    expect(fitOutput(complete([]), 10, note)).toEqual({ output: '', truncated: false, total_lines: 0 });
    expect(fitOutput(complete(['']), 10, note)).toEqual({ output: '', truncated: false, total_lines: 1 });
  });

  it('keeps the first ceil(max/2) and the last floor(max/2) lines, the note naming the lines between', () => {
    expect(fitOutput(complete(seq(10)), 4, note)).toEqual({ output: '1\n2\n[lines 3–8 omitted]\n9\n10', truncated: true, total_lines: 10 });
    expect(fitOutput(complete(seq(10)), 5, note)).toEqual({ output: '1\n2\n3\n[lines 4–8 omitted]\n9\n10', truncated: true, total_lines: 10 });
    // One line over: exactly one line left out.
    expect(fitOutput(complete(seq(6)), 5, note).output).toBe('1\n2\n3\n[lines 4–4 omitted]\n5\n6');
  });

  it('max_lines 1: the first line and the note for all the rest; 2: the first, the note, the last', () => {
    expect(fitOutput(complete(seq(3)), 1, note)).toEqual({ output: '1\n[lines 2–3 omitted]', truncated: true, total_lines: 3 });
    expect(fitOutput(complete(seq(2)), 1, note)).toEqual({ output: '1\n[lines 2–2 omitted]', truncated: true, total_lines: 2 });
    expect(fitOutput(complete(seq(1)), 1, note)).toEqual({ output: '1', truncated: false, total_lines: 1 });
    expect(fitOutput(complete(seq(5)), 2, note)).toEqual({ output: '1\n[lines 2–4 omitted]\n5', truncated: true, total_lines: 5 });
  });

  it('takes the tail from the lines kept at the end when the middle is gone, and counts every line', () => {
    // 200 000 lines, of which the first 100 and the last 100 were kept.
    const lines = partial(seq(100), seq(100, 199_901), 200_000);
    const fitted = fitOutput(lines, 6, note);
    expect(fitted).toEqual({ output: '1\n2\n3\n[lines 4–199997 omitted]\n199998\n199999\n200000', truncated: true, total_lines: 200_000 });
  });

  it('writes no note when nothing lies between the head and the tail it was given', () => {
    // An incomplete record whose head and tail happen to cover every line. (`truncated` is
    // true here although no line is missing; not asserted either way.)
    const fitted = fitOutput(partial(seq(2), seq(2, 3), 4), 4, note);
    expect(fitted).toMatchObject({ output: '1\n2\n3\n4', total_lines: 4 });
  });

  it('hands the note 1-based line numbers: the first and the last line left out', () => {
    const calls: [number, number][] = [];
    fitOutput(complete(seq(50)), 10, (first, last) => (calls.push([first, last]), 'note'));
    expect(calls).toEqual([[6, 45]]);
  });

  it(`clips a line longer than ${MAX_LINE_CHARS} characters and says how many more it had`, () => {
    const exact = 'x'.repeat(MAX_LINE_CHARS);
    const over = 'y'.repeat(MAX_LINE_CHARS + 1);
    const long = `${'z'.repeat(MAX_LINE_CHARS)}tail of a long line`;
    const fitted = fitOutput(complete([exact, over, long]), 10, note);
    expect(fitted.output.split('\n')).toEqual([
      exact,
      `${'y'.repeat(MAX_LINE_CHARS)} … [1 more characters]`,
      `${'z'.repeat(MAX_LINE_CHARS)} … [19 more characters]`,
    ]);
    expect(fitted).toMatchObject({ truncated: false, total_lines: 3 });
  });

  it('clips long lines in the head and the tail of a window too, never the note', () => {
    const long = 'w'.repeat(MAX_LINE_CHARS + 5);
    const longNote = (first: number, last: number): string => `${'n'.repeat(MAX_LINE_CHARS + 10)} ${first}-${last}`;
    const fitted = fitOutput(complete([long, '2', '3', '4', long]), 2, longNote);
    const clipped = `${'w'.repeat(MAX_LINE_CHARS)} … [5 more characters]`;
    expect(fitted.output.split('\n')).toEqual([clipped, `${'n'.repeat(MAX_LINE_CHARS + 10)} 2-4`, clipped]);
  });
});
