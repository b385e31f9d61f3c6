import { runsLine, type Inner } from './inner.js';

/**
 * Variables whose value the shell, or a program the line starts, runs later (docs/design.md
 * §2.9): `PROMPT_COMMAND='cmd'` runs cmd before every prompt, `BASH_ENV` and `ENV` are expanded
 * (command substitutions run) and sourced by the next shell, `GIT_SSH_COMMAND`, `PAGER`, `EDITOR`
 * and their kin are run by the programs that read them. Their value is judged as a line where it
 * is assigned. Prompts (`PS0`, `PS1`, `PS2`, `PS4`, zsh's `PROMPT`, `RPROMPT`) run only the
 * command substitutions in them. A value known only when the line runs hides what runs.
 */
const LINE_VARIABLES = new Set([
  'PROMPT_COMMAND',
  'BASH_ENV',
  'ENV',
  'GIT_SSH_COMMAND',
  'GIT_SSH',
  'GIT_PAGER',
  'GIT_EDITOR',
  'GIT_SEQUENCE_EDITOR',
  'GIT_EXTERNAL_DIFF',
  'GIT_PROXY_COMMAND',
  'GIT_ASKPASS',
  'SSH_ASKPASS',
  'PAGER',
  'MANPAGER',
  'SYSTEMD_PAGER',
  'EDITOR',
  'VISUAL',
  'BROWSER',
  'LESSOPEN',
  'LESSCLOSE',
]);
const PROMPT_VARIABLES = new Set(['PS0', 'PS1', 'PS2', 'PS4', 'PROMPT', 'PROMPT2', 'RPROMPT', 'RPS1', 'PROMPT4']);
/** git reads configuration from these: any key, commands included. */
const GIT_CONFIG_ENV = /^GIT_CONFIG_(PARAMETERS|COUNT|KEY_\d+|VALUE_\d+)$/;

/** What assigning `value` (null: known only when the line runs) to `name` makes run later, if anything. */
export function assignmentRuns(name: string, value: string | null): Inner[] {
  const how = `${name}=`;
  if (LINE_VARIABLES.has(name)) {
    // LESSOPEN='|cmd %s' and its kin mark a pipe with a leading `|`.
    return [runsLine(how, value === null ? null : value.replace(/^\|+/, ''), `${name} is set to a value known only when the line runs, and that value runs`)];
  }
  if (PROMPT_VARIABLES.has(name)) {
    if (value === null)
      return [{ kind: 'hidden', reason: `${name} is set to a value known only when the line runs; its command substitutions run at every prompt` }];
    if (!/\$\(|`/.test(value)) return [];
    // The prompt is expanded as a double-quoted string: its substitutions run.
    return [runsLine(how, `: "${value.replace(/"/g, '\\"')}"`, '')];
  }
  if (GIT_CONFIG_ENV.test(name)) return [{ kind: 'hidden', reason: `${name} hands git configuration, which may set commands it runs` }];
  if (name === 'histchars')
    return [{ kind: 'hidden', reason: 'histchars changes the history expansion character, after which lines recall history the engine cannot see' }];
  return [];
}

/** A `NAME=value` word (an argument of `env`, `sudo`, `export`), or null when it is not one. */
export function assignmentWord(text: string): { name: string; value: string } | null {
  const match = /^([A-Za-z_][A-Za-z0-9_]*)\+?=([\s\S]*)$/.exec(text);
  return match ? { name: match[1] as string, value: match[2] as string } : null;
}
