import { runsLine, type Inner } from './inner.js';
import type { Word } from './words.js';

/**
 * What an awk program runs (docs/design.md §2.9): `system("cmd")`, `print | "cmd"` (cmd reads
 * what awk prints) and `"cmd" | getline` each run a line of shell. A command given as one string
 * literal is judged as a line; one awk computes (`system(cmd)`, `"rm " f | getline`) hides what
 * runs, and so does anything the scanner cannot read. A program from a file (`-f prog.awk`) runs
 * unread, as a script does; `--sandbox` (gawk) runs nothing.
 */

/** Options whose value is the next word (awk, gawk, mawk, busybox awk). */
const VALUE_OPTIONS = new Set([
  '-F',
  '-v',
  '-f',
  '-e',
  '-i',
  '-l',
  '-E',
  '-W',
  '--field-separator',
  '--assign',
  '--file',
  '--source',
  '--include',
  '--load',
  '--exec',
]);
/** Options whose value is program text rather than a file. */
const SOURCE_OPTIONS = new Set(['-e', '--source']);
const FILE_OPTIONS = new Set(['-f', '--file', '-E', '--exec', '-i', '--include', '-l', '--load']);

export function awkRuns(program: string, args: readonly Word[]): Inner[] {
  const texts: (string | null)[] = [];
  let fromFile = false;
  let index = 0;
  for (; index < args.length; index++) {
    const word = args[index] as Word;
    const value = word.value;
    if (value === null) return [{ kind: 'hidden', reason: `${word.text} among ${program}'s options is known only when the line runs` }];
    if (value === '--') {
      index++;
      break;
    }
    if (value.length < 2 || !value.startsWith('-')) break;
    if (value === '-S' || value === '--sandbox') return [];
    const equals = value.startsWith('--') ? value.indexOf('=') : -1;
    const name = equals > 0 ? value.slice(0, equals) : value.startsWith('--') ? value : value.slice(0, 2);
    const attached = equals > 0 ? value.slice(equals + 1) : !value.startsWith('--') && value.length > 2 ? value.slice(2) : undefined;
    if (!VALUE_OPTIONS.has(name)) continue;
    const optionValue = attached ?? args[++index]?.value ?? null;
    if (SOURCE_OPTIONS.has(name)) texts.push(optionValue);
    if (FILE_OPTIONS.has(name)) fromFile = true;
  }
  // Without -e or -f, the first operand is the program.
  if (texts.length === 0 && !fromFile) {
    const programText = args[index];
    if (!programText) return [];
    texts.push(programText.value);
  }
  return texts.flatMap((text) =>
    text === null ? [{ kind: 'hidden' as const, reason: `${program}'s program is known only when the line runs` }] : awkProgramRuns(program, text),
  );
}

type Token = { kind: 'string'; value: string } | { kind: 'name'; value: string } | { kind: 'op'; value: string } | { kind: 'operand' } | { kind: 'end' };

/** The lines an awk program's text runs. */
function awkProgramRuns(program: string, text: string): Inner[] {
  const tokens = tokenize(text);
  if (!tokens) return [{ kind: 'hidden', reason: `${program}'s program cannot be read, so what it runs is not known` }];
  const inners: Inner[] = [];
  const hidden = (what: string): void => void inners.push({ kind: 'hidden', reason: `${program} ${what}, computed when it runs` });
  const isString = (at: number): boolean => tokens[at]?.kind === 'string';
  const stringAt = (at: number): string => (tokens[at] as { value: string }).value;
  // A token that ends an expression: nothing is concatenated to the string before or after it.
  const ends = (at: number): boolean => {
    const token = tokens[at];
    return (
      !token || token.kind === 'end' || (token.kind === 'op' && [';', '}', ')', ',', '{', '(', '||', '&&', '>', '>>', '=', '!', '?', ':'].includes(token.value))
    );
  };
  for (let at = 0; at < tokens.length; at++) {
    const token = tokens[at] as Token;
    if (token.kind === 'name' && token.value === 'system') {
      const literal =
        tokens[at + 1]?.kind === 'op' &&
        (tokens[at + 1] as { value: string }).value === '(' &&
        isString(at + 2) &&
        tokens[at + 3]?.kind === 'op' &&
        (tokens[at + 3] as { value: string }).value === ')';
      if (literal) inners.push(runsLine(`${program} system()`, stringAt(at + 2), ''));
      else hidden('runs a command with system()');
    } else if (token.kind === 'name' && (token.value === '@load' || token.value === '@include')) {
      hidden(`loads ${token.value === '@load' ? 'an extension' : 'a file'}`);
    } else if (token.kind === 'op' && (token.value === '|' || token.value === '|&')) {
      const next = tokens[at + 1];
      if (next?.kind === 'name' && next.value === 'getline') {
        // `"cmd" | getline`: the command is the string before the pipe.
        const before = at - 1;
        if (isString(before) && ends(before - 1)) inners.push(runsLine(`${program} | getline`, stringAt(before), ''));
        else hidden('reads from a command');
      } else if (isString(at + 1) && ends(at + 2)) {
        // `print … | "cmd"`: cmd reads what awk prints, which the engine does not know.
        inners.push(runsLine(`${program} print |`, stringAt(at + 1), '', { pipe: true }));
      } else {
        hidden('prints into a command');
      }
    }
  }
  return inners;
}

/** Tokens of an awk program, enough to find calls and pipes; null when it cannot be read. */
function tokenize(text: string): Token[] | null {
  const tokens: Token[] = [];
  // A `/` starts a regular expression where an operand is expected, else it divides.
  const operandExpected = (): boolean => {
    const last = tokens.at(-1);
    if (!last || last.kind === 'end') return true;
    if (last.kind === 'op') return ![')', ']', '++', '--', '$'].includes(last.value);
    return false;
  };
  let at = 0;
  while (at < text.length) {
    const char = text[at] as string;
    if (char === '\\' && text[at + 1] === '\n') {
      at += 2;
    } else if (char === ' ' || char === '\t' || char === '\r') {
      at++;
    } else if (char === '\n' || char === ';') {
      tokens.push(char === ';' ? { kind: 'op', value: ';' } : { kind: 'end' });
      at++;
    } else if (char === '#') {
      while (at < text.length && text[at] !== '\n') at++;
    } else if (char === '"') {
      let value = '';
      at++;
      for (;;) {
        if (at >= text.length || text[at] === '\n') return null;
        const c = text[at] as string;
        if (c === '"') break;
        if (c === '\\') {
          value += unescape(text[at + 1] ?? '');
          at += 2;
        } else {
          value += c;
          at++;
        }
      }
      at++;
      tokens.push({ kind: 'string', value });
    } else if (char === '/' && operandExpected()) {
      at++;
      let bracket = false;
      for (;;) {
        if (at >= text.length || text[at] === '\n') return null;
        const c = text[at] as string;
        if (c === '\\') at++;
        else if (c === '[') bracket = true;
        else if (c === ']') bracket = false;
        else if (c === '/' && !bracket) break;
        at++;
      }
      at++;
      tokens.push({ kind: 'operand' });
    } else if (/[A-Za-z_@]/.test(char)) {
      const match = /^@?[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(at));
      if (!match) return null;
      tokens.push({ kind: 'name', value: match[0] });
      at += match[0].length;
    } else if (/[0-9.]/.test(char)) {
      const match = /^[0-9.]+([eE][+-]?[0-9]+)?/.exec(text.slice(at)) as RegExpExecArray;
      tokens.push({ kind: 'operand' });
      at += match[0].length;
    } else {
      const two = text.slice(at, at + 2);
      const op = ['||', '&&', '|&', '>>', '++', '--', '==', '!=', '<=', '>=', '+=', '-=', '*=', '/=', '%=', '^='].includes(two) ? two : char;
      tokens.push({ kind: 'op', value: op });
      at += op.length;
    }
  }
  return tokens;
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', f: '\f', v: '\v', '"': '"', '\\': '\\', '/': '/' };

function unescape(char: string): string {
  return ESCAPES[char] ?? `\\${char}`;
}
