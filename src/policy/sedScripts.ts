import { runsLine, type Inner } from './inner.js';
import type { Word } from './words.js';

/**
 * What a sed script runs (GNU sed, docs/design.md §2.9): the `e command` command runs a line of
 * shell, judged as one; `e` alone and the `s///e` flag run the pattern space, which only the
 * input tells, so they hide what runs. A script the scanner cannot read hides it too; a script
 * from a file (`-f x.sed`) runs unread, as a script does; `--sandbox` runs nothing.
 */

const VALUE_OPTIONS = new Set(['-e', '--expression', '-f', '--file', '-l', '--line-length']);

export function sedRuns(args: readonly Word[]): Inner[] {
  const scripts: (string | null)[] = [];
  let fromFile = false;
  let index = 0;
  let firstOperand: Word | undefined;
  for (; index < args.length; index++) {
    const word = args[index] as Word;
    const value = word.value;
    if (value === null) {
      // An unknown word may be an option or the script: what runs is not known.
      if (!firstOperand && scripts.length === 0) return [{ kind: 'hidden', reason: `sed's script ${word.text} is known only when the line runs` }];
      continue;
    }
    if (value === '--') {
      firstOperand ??= args[index + 1];
      break;
    }
    if (value.length < 2 || !value.startsWith('-')) {
      firstOperand ??= word;
      continue; // GNU sed takes options after operands too
    }
    if (value === '--sandbox') return [];
    const equals = value.startsWith('--') ? value.indexOf('=') : -1;
    const name = equals > 0 ? value.slice(0, equals) : value.startsWith('--') ? value : value.slice(0, 2);
    if (!VALUE_OPTIONS.has(name)) {
      // `-ne 's/x/y/e'`: a cluster ending in e or f takes the next word.
      const cluster = !value.startsWith('--') && /^-[nEsuzr]+[ef]$/.test(value);
      if (!cluster) continue;
      const letter = value.at(-1);
      if (letter === 'e') scripts.push(args[++index]?.value ?? null);
      else {
        fromFile = true;
        index++;
      }
      continue;
    }
    const attached = equals > 0 ? value.slice(equals + 1) : !value.startsWith('--') && value.length > 2 ? value.slice(2) : undefined;
    const optionValue = attached ?? args[++index]?.value ?? null;
    if (name === '-e' || name === '--expression') scripts.push(optionValue);
    if (name === '-f' || name === '--file') fromFile = true;
  }
  if (scripts.length === 0 && !fromFile && firstOperand) scripts.push(firstOperand.value);
  return scripts.flatMap((script) =>
    script === null ? [{ kind: 'hidden' as const, reason: "sed's script is known only when the line runs" }] : sedScriptRuns(script),
  );
}

/** The lines one sed script runs. */
function sedScriptRuns(script: string): Inner[] {
  const inners: Inner[] = [];
  const unreadable = (): Inner[] => [{ kind: 'hidden', reason: "sed's script cannot be read, so what its `e` commands run is not known" }];
  let at = 0;
  const peek = (): string => script[at] ?? '';
  const skipBlanks = (): void => {
    while (at < script.length && /[ \t]/.test(peek())) at++;
  };
  const toLineEnd = (): string => {
    let text = '';
    while (at < script.length && peek() !== '\n') {
      // A backslash-newline continues the line.
      if (peek() === '\\' && script[at + 1] === '\n') {
        text += '\n';
        at += 2;
        continue;
      }
      text += peek();
      at++;
    }
    return text;
  };
  /** Past a delimited part (`/re/`), escapes honoured; false at the end of the script. */
  const delimited = (delimiter: string): boolean => {
    while (at < script.length) {
      const c = peek();
      if (c === '\\') at += 2;
      else if (c === delimiter) {
        at++;
        return true;
      } else at++;
    }
    return false;
  };
  const address = (): boolean => {
    const c = peek();
    if (/[0-9]/.test(c)) {
      while (/[0-9~]/.test(peek())) at++;
    } else if (c === '$') at++;
    else if (c === '/') {
      at++;
      if (!delimited('/')) return false;
      while (/[IM]/.test(peek())) at++;
    } else if (c === '\\') {
      const delimiter = script[at + 1] ?? '';
      at += 2;
      if (!delimiter || !delimited(delimiter)) return false;
      while (/[IM]/.test(peek())) at++;
    } else if (c === '+' || c === '~') {
      at++;
      while (/[0-9]/.test(peek())) at++;
    }
    return true;
  };
  while (at < script.length) {
    skipBlanks();
    const c = peek();
    if (c === '') break;
    if (c === '\n' || c === ';' || c === '}' || c === '{') {
      at++;
      continue;
    }
    if (c === '#') {
      toLineEnd();
      continue;
    }
    if (!address()) return unreadable();
    skipBlanks();
    if (peek() === ',') {
      at++;
      skipBlanks();
      if (!address()) return unreadable();
    }
    skipBlanks();
    while (peek() === '!' || peek() === ' ') at++;
    const command = peek();
    at++;
    switch (command) {
      case '{':
      case '}':
      case '=':
      case 'd':
      case 'D':
      case 'g':
      case 'G':
      case 'h':
      case 'H':
      case 'n':
      case 'N':
      case 'p':
      case 'P':
      case 'x':
      case 'z':
      case 'F':
        break;
      case 'a':
      case 'i':
      case 'c':
      case 'r':
      case 'R':
      case 'w':
      case 'W':
        toLineEnd();
        break;
      case ':':
      case 'b':
      case 't':
      case 'T':
      case 'v':
      case 'q':
      case 'Q':
      case 'l':
      case 'L':
        while (at < script.length && !/[;\n}]/.test(peek())) at++;
        break;
      case 'e': {
        skipBlanks();
        const line = toLineEnd().trim();
        // `e` alone runs the pattern space: a line only the input tells.
        inners.push(
          line ? runsLine('sed e', line, '') : { kind: 'hidden', reason: "sed's `e` runs the pattern space as a command, which only the input tells" },
        );
        break;
      }
      case 's': {
        const delimiter = peek();
        if (!delimiter || delimiter === '\n' || delimiter === '\\') return unreadable();
        at++;
        if (!delimited(delimiter) || !delimited(delimiter)) return unreadable();
        // Flags: g p i I m M e, a number, or w file (to the end of the line).
        while (at < script.length && !/[;\n}]/.test(peek())) {
          const flag = peek();
          if (flag === 'w') {
            toLineEnd();
            break;
          }
          if (flag === 'e') inners.push({ kind: 'hidden', reason: "sed's s///e runs the pattern space as a command, which only the input tells" });
          else if (!/[gpiImM0-9 \t]/.test(flag)) return unreadable();
          at++;
        }
        break;
      }
      case 'y': {
        const delimiter = peek();
        if (!delimiter || delimiter === '\n' || delimiter === '\\') return unreadable();
        at++;
        if (!delimited(delimiter) || !delimited(delimiter)) return unreadable();
        break;
      }
      default:
        return unreadable();
    }
  }
  return inners;
}
