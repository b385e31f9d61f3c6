/**
 * Fast-forward through a flood (issue 6, sustained throughput): when the emulator has fallen
 * behind, the oldest queued output that would scroll out of the buffer anyway need not be
 * parsed line by line. Only output whose effect on the terminal is fully known may be skipped:
 *
 *  - text, `\t`, `\b`, `\r`, `\n` move the cursor and print; nothing else;
 *  - SGR sequences (`ESC [ … m`) change the current attributes: they are kept, in order, and
 *    replayed without the text, so the attributes after the skip are exactly what they were;
 *  - anything else (other controls, escape sequences, C1 codes, shell-integration marks) ends
 *    the run: it is parsed as usual.
 *
 * The caller keeps at least `keepLineFeeds` line feeds of the queue unskipped. With that many
 * at least `rows + scrollback` on a full-screen scroll region, every row the skipped text would
 * have touched has left the buffer by the end of the kept tail, whatever the cursor did; the
 * buffer then holds the same rows as after a full parse. See docs/decisions.md.
 */

/** A character a skipped run may not hold (SGR sequences are handled apart). */
const NOT_PLAIN = /[^\t\b\n\r\x20-\x7e\xa0-\uffff]/g;
/** One SGR sequence; parameters as xterm accepts them (digits, `;`, `:` sub-parameters). */
const SGR = /\x1b\[[0-9;:]*m/y;
const SGR_ALL = /\x1b\[[0-9;:]*m/g;

export interface SkipPlan {
  /** Characters to skip from the start of the text (always just after a line feed). */
  chars: number;
  /** Line feeds in the skipped characters (the tracker counts them as if parsed). */
  lineFeeds: number;
  /** The SGR sequences of the skipped text, in order, to replay instead of it. */
  sgr: string;
}

/**
 * What may be skipped from the start of `text`, or null when nothing may. The skip and the
 * `keepLineFeeds` line feeds after it lie in plain output; the first kept line holds a `\r`,
 * so the column is the same whether or not the skipped text was parsed.
 */
export function planSkip(text: string, keepLineFeeds: number): SkipPlan | null {
  const plainEnd = plainPrefixLength(text);
  // The line feed that leaves exactly keepLineFeeds after it (before plainEnd) ends the skip.
  let end = plainEnd;
  for (let kept = 0; kept <= keepLineFeeds; kept++) {
    end = text.lastIndexOf('\n', end - 1);
    if (end < 0) return null;
  }
  const chars = end + 1;
  const firstKept = text.indexOf('\n', chars);
  if (text.lastIndexOf('\r', firstKept) < chars) return null;
  const region = text.slice(0, chars);
  let sgr = '';
  if (region.includes('\x1b')) for (const match of region.matchAll(SGR_ALL)) sgr += match[0];
  let lineFeeds = 0;
  for (let i = region.indexOf('\n'); i >= 0; i = region.indexOf('\n', i + 1)) lineFeeds++;
  return { chars, lineFeeds, sgr };
}

/** How many characters at the start of `text` are plain output (text, \t \b \r \n, SGR). */
function plainPrefixLength(text: string): number {
  NOT_PLAIN.lastIndex = 0;
  for (;;) {
    const match = NOT_PLAIN.exec(text);
    if (!match) return text.length;
    SGR.lastIndex = match.index;
    if (match[0] !== '\x1b' || !SGR.test(text)) return match.index;
    NOT_PLAIN.lastIndex = SGR.lastIndex;
  }
}
