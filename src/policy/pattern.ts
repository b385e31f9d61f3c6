import { canonicalFlag, takesValue } from './flagSyntax.js';
import type { Word } from './words.js';

/**
 * A rule's `match` (docs/design.md §2.9): a glob-like pattern over one simple command, as
 * the shell would run it, after wrappers are unwrapped.
 *
 *   rm -r *           program, then words; a word that starts with `-` is a flag
 *   git push --force* `*` any characters, `?` one, `[abc]` a class, `{a,b}` either
 *   * | {sh,bash} *   `A | B`: B when it reads the output of A (a pipeline's next stage)
 *
 * - The program matches its basename (`/bin/rm` is `rm`) unless the pattern names a path.
 * - Flags match in any order and form: `-rf` is found in `-fr`, `-r -f`, `-Rf` and, for the
 *   programs flagSyntax.ts knows, `--recursive --force`. A flag in a rule also matches the same
 *   word after `--` (`kill -- -1`).
 * - Other words (operands) match in order; a bare `*` stands for any number of them.
 * - A pattern whose last word ends in `*` is open: the command may have more words, flags
 *   included. Otherwise it must have no other operand and no flag the pattern does not name.
 */
export interface CommandPattern {
  source: string;
  /** Pipeline stages, upstream first; the last is the command the rule is about. */
  stages: StagePattern[];
}

interface StagePattern {
  program: Glob;
  flags: Glob[];
  operands: (Glob | 'any')[];
  open: boolean;
}

interface Glob {
  source: string;
  regex: RegExp;
  /** No wildcard: compared as a word. */
  literal: boolean;
}

/** The command a pattern is matched against: its program's value and its arguments. */
interface CommandWords {
  program: string | null;
  args: readonly Word[];
}

/** `certain`: it matches whatever unknown words hold; `possible`: it may, depending on them. */
export type Certainty = 'certain' | 'possible';

export function parsePattern(source: string): CommandPattern | { problem: string } {
  const tokens = tokenize(source);
  if ('problem' in tokens) return tokens;
  const stages: StagePattern[] = [];
  let current: Token[] = [];
  const endStage = (): string | undefined => {
    if (current.length === 0) return stages.length === 0 && tokens.list.length === 0 ? 'it is empty' : 'a `|` has no command on one side';
    const [program, ...rest] = current;
    if (!program || program.flag) return `it must start with a program, not the flag ${program?.raw ?? ''}`;
    const flags: Glob[] = [];
    const operands: (Glob | 'any')[] = [];
    for (const token of rest) {
      if (token.raw === '--') continue;
      if (token.star) operands.push('any');
      else if (token.flag) flags.push(token.glob);
      else operands.push(token.glob);
    }
    stages.push({ program: program.glob, flags, operands, open: current.at(-1)?.endsWithStar ?? false });
    current = [];
    return undefined;
  };
  for (const token of tokens.list) {
    if (token.pipe) {
      const problem = endStage();
      if (problem) return { problem };
    } else current.push(token);
  }
  const problem = endStage();
  if (problem) return { problem };
  return { source, stages };
}

interface Token {
  raw: string;
  glob: Glob;
  pipe: boolean;
  star: boolean;
  flag: boolean;
  endsWithStar: boolean;
}

function tokenize(source: string): { list: Token[] } | { problem: string } {
  const list: Token[] = [];
  let index = 0;
  while (index < source.length) {
    const char = source[index] ?? '';
    if (/\s/.test(char)) {
      index++;
      continue;
    }
    if (char === '|') {
      list.push({ raw: '|', glob: literalGlob('|'), pipe: true, star: false, flag: false, endsWithStar: false });
      index++;
      continue;
    }
    let regex = '';
    let raw = '';
    let literal = true;
    let lastUnquotedStar = false;
    while (index < source.length && !/[\s|]/.test(source[index] ?? '')) {
      const c = source[index] ?? '';
      lastUnquotedStar = false;
      if (c === "'" || c === '"') {
        const end = source.indexOf(c, index + 1);
        if (end < 0) return { problem: `a ${c} is not closed` };
        const quoted = source.slice(index + 1, end);
        regex += escapeRegex(quoted);
        raw += quoted;
        index = end + 1;
        continue;
      }
      if (c === '\\') {
        const next = source[index + 1] ?? '\\';
        regex += escapeRegex(next);
        raw += next;
        index += 2;
        continue;
      }
      if (c === '*' || c === '?') {
        regex += c === '*' ? '.*' : '.';
        literal = false;
        lastUnquotedStar = c === '*';
      } else if (c === '[') {
        const end = source.indexOf(']', index + 2);
        if (end < 0) return { problem: 'a `[` has no `]`' };
        const body = source.slice(index + 1, end);
        regex += `[${body.startsWith('!') ? `^${body.slice(1)}` : body}]`.replace(/\\/g, '\\\\');
        raw += source.slice(index, end + 1);
        literal = false;
        index = end + 1;
        continue;
      } else if (c === '{') {
        const end = source.indexOf('}', index);
        if (end < 0) return { problem: 'a `{` has no `}`' };
        const body = source.slice(index + 1, end);
        if (/[{\s|]/.test(body)) return { problem: 'a `{…}` holds a space, `|` or another `{`' };
        regex += `(?:${body.split(',').map(escapeRegex).join('|')})`;
        raw += source.slice(index, end + 1);
        literal = false;
        index = end + 1;
        continue;
      } else regex += escapeRegex(c);
      raw += c;
      index++;
    }
    const star = raw === '*' && !literal;
    list.push({
      raw,
      glob: { source: raw, regex: new RegExp(`^${regex}$`, 's'), literal },
      pipe: false,
      star,
      flag: raw.length > 1 && raw.startsWith('-') && raw !== '--',
      endsWithStar: lastUnquotedStar,
    });
  }
  return { list };
}

function literalGlob(text: string): Glob {
  return { source: text, regex: new RegExp(`^${escapeRegex(text)}$`), literal: true };
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** How a pattern's program glob is compared: a path when it names one, else the basename. */
function programMatches(glob: Glob, program: string): boolean {
  return glob.regex.test(glob.source.includes('/') ? program : basename(program));
}

export function basename(program: string): string {
  const slash = program.replace(/\/+$/, '').lastIndexOf('/');
  return slash < 0 ? program : program.slice(slash + 1);
}

/** Whether one stage pattern matches a command, and how surely. */
export function matchStage(stage: StagePattern, command: CommandWords): Certainty | null {
  if (command.program !== null && !programMatches(stage.program, command.program)) return null;
  const shape = classify(command);
  if (command.program !== null && matchShape(stage, shape, false)) return 'certain';
  return matchShape(stage, shape, true) ? 'possible' : null;
}

/**
 * Commands a stage pattern matches, one per alternative of its program (`{sudo,su} *` gives
 * `sudo …` and `su …`): its flags as written, literal operands as words, a wildcard operand or
 * `*` as an unknown word. To ask whether another pattern matches some of the same commands
 * (shadowedRules.ts).
 */
export function exampleCommands(stage: StagePattern): CommandWords[] {
  const alternatives = /^\{([^{}]*)\}$/.exec(stage.program.source)?.[1]?.split(',') ?? [stage.program.source];
  const args: Word[] = [
    ...stage.flags.map((flag) => ({ value: flag.literal ? flag.source : flag.source.replace(/[*?]|\[[^\]]*\]/g, ''), text: flag.source, glob: false })),
    ...stage.operands.map((operand) =>
      operand !== 'any' && operand.literal
        ? { value: operand.source, text: operand.source, glob: false }
        : { value: null, text: operand === 'any' ? '*' : operand.source, glob: false },
    ),
  ];
  return alternatives.map((program) => ({ program, args }));
}

/** The last stage of a pattern: the command a rule is about. */
export function lastStage(pattern: CommandPattern): StagePattern {
  return pattern.stages[pattern.stages.length - 1] as StagePattern;
}

interface Shape {
  program: string;
  /** Each flag as written, and its parts: `-rf` → `-rf`, `-r`, `-f`; `--a=b` → `--a=b`, `--a`. Canonical (flagSyntax.ts). */
  atoms: Set<string>;
  /** The flags as written, canonical, for an exact pattern to account for. */
  flagWords: string[];
  /** Operands (null: unknown), `--` dropped. */
  operands: (string | null)[];
  /** Words after `--`, which a rule's flag also matches. */
  afterDashes: Set<string>;
  /** An unknown word may hold options. */
  unknown: boolean;
}

function classify(command: CommandWords): Shape {
  const program = command.program === null ? '' : basename(command.program);
  const shape: Shape = { program, atoms: new Set(), flagWords: [], operands: [], afterDashes: new Set(), unknown: false };
  let dashes = false;
  for (let index = 0; index < command.args.length; index++) {
    const word = command.args[index];
    const value = word?.value ?? null;
    if (value === null) {
      shape.operands.push(null);
      if (!word?.path) shape.unknown = true;
    } else if (dashes) {
      shape.operands.push(value);
      shape.afterDashes.add(value);
    } else if (value === '--') dashes = true;
    else if (value.length > 1 && value.startsWith('-')) {
      shape.flagWords.push(canonicalFlag(program, value));
      for (const atom of atomsOf(value)) shape.atoms.add(canonicalFlag(program, atom));
      if (takesValue(program, value)) index++;
    } else shape.operands.push(value);
  }
  return shape;
}

function atomsOf(flag: string): string[] {
  if (flag.startsWith('--')) {
    const equals = flag.indexOf('=');
    return equals < 0 ? [flag] : [flag, flag.slice(0, equals)];
  }
  return flag.length > 2 ? [flag, ...[...flag.slice(1)].map((letter) => `-${letter}`)] : [flag];
}

/** `possibly`: an unknown word may be any words, flags included. */
function matchShape(stage: StagePattern, shape: Shape, possibly: boolean): boolean {
  for (const flag of stage.flags) {
    if (!hasFlag(flag, shape) && !(possibly && shape.unknown)) return false;
  }
  if (!stage.open && !shape.flagWords.every((word) => explains(stage.flags, shape.program, word))) return false;
  return matchOperands(stage.operands, shape.operands, stage.open, possibly);
}

function hasFlag(flag: Glob, shape: Shape): boolean {
  if (!flag.literal) return [...shape.atoms].some((atom) => flag.regex.test(atom));
  const wanted = canonicalFlag(shape.program, flag.source);
  if (shape.atoms.has(wanted) || shape.afterDashes.has(flag.source)) return true;
  // `-rf` in a rule: every letter, in whatever cluster or form.
  return (
    !flag.source.startsWith('--') &&
    flag.source.length > 2 &&
    atomsOf(flag.source)
      .slice(1)
      .every((atom) => shape.atoms.has(canonicalFlag(shape.program, atom)))
  );
}

/** An exact pattern accounts for a flag the command has: named whole, or each of its letters named. */
function explains(flags: readonly Glob[], program: string, word: string): boolean {
  const named = new Set<string>();
  for (const flag of flags) {
    if (!flag.literal && flag.regex.test(word)) return true;
    for (const atom of atomsOf(flag.source)) named.add(canonicalFlag(program, atom));
  }
  if (named.has(word)) return true;
  return (
    !word.startsWith('--') &&
    word.length > 2 &&
    atomsOf(word)
      .slice(1)
      .every((atom) => named.has(canonicalFlag(program, atom)))
  );
}

function matchOperands(tokens: readonly (Glob | 'any')[], operands: readonly (string | null)[], open: boolean, possibly: boolean): boolean {
  const seen = new Map<number, boolean>();
  const from = (i: number, j: number): boolean => {
    const key = i * (operands.length + 1) + j;
    const known = seen.get(key);
    if (known !== undefined) return known;
    seen.set(key, false); // no cycles: every step moves i or j forward
    let result: boolean;
    const token = tokens[i];
    const operand = j < operands.length ? operands[j] : undefined;
    if (token === undefined) {
      result = j === operands.length || open || (possibly && operands.slice(j).every((word) => word === null));
    } else if (token === 'any') {
      result = from(i + 1, j) || (operand !== undefined && from(i, j + 1));
    } else if (operand === undefined) {
      result = false;
    } else if (operand === null) {
      // An unknown word is any number of words: none, this one, or this one and more.
      result = possibly && (from(i, j + 1) || from(i + 1, j) || from(i + 1, j + 1));
    } else {
      result = token.regex.test(operand) && from(i + 1, j + 1);
    }
    seen.set(key, result);
    return result;
  };
  return from(0, 0);
}
