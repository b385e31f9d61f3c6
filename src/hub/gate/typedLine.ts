/**
 * The line a shell's line editor holds, as the hub knows it from what agents typed
 * (docs/design.md §2.9, "every way in"): `send` is judged by the bytes it writes, not by key
 * names. Printable text is appended; every byte that submits the line (`\r`, `\n`, and so
 * `enter`, `ctrl+m`, `ctrl+j`, `shift+enter`, `alt+enter`, a text ending in a newline) submits it;
 * `ctrl+o` (operate-and-get-next) submits it and puts a history line on the prompt. Any other key
 * (history recall, completion, editing, cursor movement, a key the agent bound) changes the line in
 * ways the hub cannot know: the line becomes unknown until it is submitted.
 *
 * A bracketed paste (when the program turned the mode on; else its markers are keys) is judged
 * both ways, since whether the reader honours it is the reader's business: a shell with a line
 * editor keeps a pasted newline on the line (it runs with the next Enter), a shell without one
 * (dash, or any program that left the mode on) runs each pasted line. So each pasted newline
 * submits what is on the line so far, and the line still holds it for the next submit. Pure: no
 * session, no clock.
 */

export interface LineState {
  /** The text the hub knows is on the line (what agents typed since the last submit). */
  text: string;
  /** Why the line holds more than `text`, or something else: null when it is exactly `text`. */
  unknown: string | null;
}

export const EMPTY_LINE: LineState = { text: '', unknown: null };

interface Typed {
  /** The lines submitted, in order (the last one may be the line up to a pasted newline). */
  submitted: LineState[];
  /** The line after the last submit (after a pasted newline: the whole line, which it still holds). */
  rest: LineState;
}

const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';

/** The names of keys the hub cannot model, for the sentence the person and the agent read. */
const KEY_NAMES: Record<string, string> = {
  '\t': 'tab (completion)',
  '\x7f': 'backspace',
  '\x08': 'backspace',
  '\x10': 'ctrl+p (history)',
  '\x0e': 'ctrl+n (history)',
  '\x12': 'ctrl+r (history search)',
  '\x13': 'ctrl+s (history search)',
  '\x19': 'ctrl+y (yank)',
  '\x15': 'ctrl+u',
  '\x17': 'ctrl+w',
  '\x0b': 'ctrl+k',
  '\x03': 'ctrl+c',
  '\x04': 'ctrl+d',
  '\x1b[A': 'up (history)',
  '\x1bOA': 'up (history)',
  '\x1b[B': 'down (history)',
  '\x1bOB': 'down (history)',
  '\x1b.': 'alt+. (last argument)',
  '\x1b_': 'alt+_ (last argument)',
};

/** What typing `bytes` onto a line in `state` does; `bracketedPaste`: the program turned bracketed paste on. */
export function typeInto(state: LineState, bytes: string, bracketedPaste: boolean): Typed {
  const submitted: LineState[] = [];
  let line: LineState = { ...state };
  /** The line as it stood at the last pasted newline since the last real submit (it may have run). */
  let pasted: LineState | null = null;
  const unknown = (why: string): void => {
    line = { text: line.text, unknown: line.unknown ?? `the line holds keys whose effect the hub cannot know (${why})` };
  };
  const submit = (next: LineState): void => {
    submitted.push(line);
    pasted = null;
    line = next;
  };
  let at = 0;
  while (at < bytes.length) {
    if (bracketedPaste && bytes.startsWith(PASTE_START, at)) {
      const end = bytes.indexOf(PASTE_END, at + PASTE_START.length);
      const content = bytes.slice(at + PASTE_START.length, end < 0 ? undefined : end).replace(/\r\n?/g, '\n');
      for (const [index, part] of content.split('\n').entries()) {
        if (index > 0) {
          pasted = { ...line };
          line = { ...line, text: `${line.text}\n` };
        }
        line = { ...line, text: line.text + part };
      }
      at = end < 0 ? bytes.length : end + PASTE_END.length;
      continue;
    }
    const char = bytes[at] as string;
    if (char === '\r' || char === '\n') {
      submit({ ...EMPTY_LINE });
      at++;
      continue;
    }
    if (char === '\x0f') {
      // ctrl+o: accept the line, then show the next one from history.
      submit({ text: '', unknown: 'ctrl+o put a line from the shell history on the prompt' });
      at++;
      continue;
    }
    if (char === '\x1b') {
      const sequence = escapeSequence(bytes, at);
      unknown(KEY_NAMES[sequence] ?? (sequence.length === 1 ? 'escape' : `the key ${JSON.stringify(sequence)}`));
      at += sequence.length;
      continue;
    }
    const code = char.charCodeAt(0);
    if (code < 0x20 || code === 0x7f) {
      unknown(KEY_NAMES[char] ?? `ctrl+${String.fromCharCode(code + 0x60)}`);
      at++;
      continue;
    }
    line = { ...line, text: line.text + char };
    at++;
  }
  return { submitted: pasted ? [...submitted, pasted] : submitted, rest: line };
}

/**
 * One escape sequence from `at`: CSI (`ESC [ … final`), SS3 (`ESC O x`), or ESC and one
 * character (alt+x). A CR or LF after ESC is left for the loop: alt+enter still submits.
 */
function escapeSequence(bytes: string, at: number): string {
  const next = bytes[at + 1];
  if (next === undefined || next === '\r' || next === '\n') return '\x1b';
  if (next === '[') {
    let end = at + 2;
    while (end < bytes.length && !/[\x40-\x7e]/.test(bytes[end] as string)) end++;
    return bytes.slice(at, Math.min(end + 1, bytes.length));
  }
  if (next === 'O') return bytes.slice(at, at + 3);
  return bytes.slice(at, at + 2);
}
