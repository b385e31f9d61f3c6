import { ErrorCode, SwitchboardError } from '../core/index.js';

/**
 * What a tool asks to run, as the command line the person's policy judges (docs/design.md §2.9).
 * `open`'s program and arguments become the line that runs exactly that argv: each word quoted, the
 * environment it adds as assignments before it (`GIT_SSH_COMMAND='…' git …`), so the engine sees
 * what the program gets, and a shell's `-c` is read as `bash -c` is in `execute`.
 */
export function argvLine(argv: readonly string[], env: Readonly<Record<string, string>> = {}): string {
  const assignments = Object.entries(env).map(([name, value]) => `${name}=${quoteWord(value)}`);
  return [...assignments, ...argv.map(quoteWord)].join(' ');
}

/** A word as the shell reads it back verbatim: bare when it is plain, else single-quoted. */
function quoteWord(word: string): string {
  if (word !== '' && /^[A-Za-z0-9_./:@%+,=-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * An `execute` command is typed into the shell's line editor, which acts on control characters
 * as keys (ctrl+u erases what was typed before it, a CR runs the line so far, a tab completes): the
 * line that would run is not the line the policy reads. Such a command is refused, saying where
 * the character is and what to write instead. A newline is fine (a multi-line script runs whole),
 * and a tab is too inside a multi-line script, which is pasted as one.
 */
export function assertTypable(command: string): void {
  const multiLine = command.includes('\n');
  const match = (multiLine ? /[\x00-\x08\x0b-\x1f\x7f]/ : /[\x00-\x08\x0b-\x1f\x7f\t]/).exec(command);
  if (!match) return;
  const char = match[0];
  const code = char.charCodeAt(0);
  const name =
    char === '\t'
      ? 'a tab'
      : char === '\r'
        ? 'a carriage return'
        : code === 0x7f
          ? 'a DEL (backspace)'
          : `ctrl+${String.fromCharCode(code + 0x60)} (U+${code.toString(16).toUpperCase().padStart(4, '0')})`;
  throw new SwitchboardError(
    ErrorCode.InvalidArgument,
    `command: holds ${name} at character ${match.index + 1}, which the shell's line editor would act on as a key rather than run as written; write it as an escape the command decodes ($'\\t', printf '\\r'), use spaces, or send keys with send.`,
    { parameter: 'command' },
  );
}
