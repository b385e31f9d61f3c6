/**
 * The invisible marks shell integration prints, in one place (docs/design.md §2.5).
 *
 *   OSC 133 ; A ; nonce=<n>          prompt start
 *   OSC 133 ; B ; nonce=<n>          prompt end, input start
 *   OSC 633 ; E ; <cmdline> ; <n>    the command line about to run (VS Code's escaping; zsh, fish)
 *   OSC 633 ; F ; <n> / G ; <n>      around a continuation prompt (bash's PS2)
 *   OSC 133 ; C ; nonce=<n>          command output starts
 *   OSC 7   ; file://<host><path>    cwd (emitted before D and before the first prompt)
 *   OSC 133 ; D ; <exit> ; nonce=<n> command finished with <exit>
 *   OSC 633 ; R ; <exit> ; <n>      re-armed: the integration is installed again, and the
 *                                    command that ran before had <exit> (empty: unknown)
 *
 * Order around one command: E, C, <output>, OSC 7, D, A, <prompt>, B.
 * bash prints no E (it would cost a fork per command): the command line is read from the
 * screen between B and C, continuation prompts (F…G) left out (see CommandTracker).
 * The nonce is random per session, handed to the shell in NONCE_ENV and unset by the
 * script, so a program that prints a fake "finished" mark cannot end a command early.
 */
export const OSC_FINAL_TERM = 133;
export const OSC_VSCODE = 633;
export const OSC_CWD = 7;

/** Environment variable that carries the nonce into the integration script (unset there). */
export const NONCE_ENV = 'SWITCHBOARD_NONCE';
/** Marks every process of a session so close can find double-forked and setsid children. */
export const SESSION_ENV = 'SWITCHBOARD_SESSION';

/** Unescapes the OSC 633;E command line: `\\` → `\`, `\xNN` → char. */
export function unescapeCommandLine(value: string): string {
  return value.replace(/\\(\\|x([0-9a-fA-F]{2}))/g, (_m, esc: string, hex?: string) => (hex ? String.fromCharCode(parseInt(hex, 16)) : esc));
}

/** Parses `key=value` options after the mark letter (e.g. `nonce=abc`). */
export function markOptions(parts: readonly string[]): Map<string, string> {
  const options = new Map<string, string>();
  for (const part of parts) {
    const eq = part.indexOf('=');
    if (eq > 0) options.set(part.slice(0, eq), part.slice(eq + 1));
  }
  return options;
}
