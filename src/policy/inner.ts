import type { Word } from './words.js';

/**
 * What a command runs besides itself (docs/design.md §2.9): `sudo rm x` runs `rm x`,
 * `bash -c 'a; b'` runs the line `a; b`, `find . -exec rm {} ;` runs `rm`,
 * `awk 'BEGIN { system("x") }'` runs the line `x`. The engine checks the command and what it
 * runs, each against the rules.
 */
export type Inner =
  /** Another simple command; `cwdChanged`: it runs elsewhere (`env -C dir`, `sudo -D dir`). */
  | { kind: 'command'; words: Word[]; how: string; cwdChanged?: boolean }
  /** A line of shell, parsed in turn; `stdin`: what its commands read (awk's `print | "sh"`: a pipe). */
  | { kind: 'script'; text: string; how: string; stdin?: Stdin }
  /** It runs something the engine cannot read. */
  | { kind: 'hidden'; reason: string };

/**
 * What a command reads on standard input, when the line says: a here-string or heredoc (`<<<`,
 * `<<EOF`; text null when it holds substitutions), a file (`< x`), or a pipe (a later stage of a
 * pipeline, or what awk prints into it).
 */
export type Stdin = { text: string | null } | { file: true } | { pipe: true } | undefined;

/** A line a program runs (awk's `system("…")`, sed's `e …`, a git alias), or why it is hidden when not known. */
export function runsLine(how: string, text: string | null, hiddenWhy: string, stdin?: Stdin): Inner {
  return text === null ? { kind: 'hidden', reason: hiddenWhy } : { kind: 'script', text, how, ...(stdin ? { stdin } : {}) };
}
