import { ErrorCode, SwitchboardError } from '../errors.js';

/**
 * What sessions an agent opens get so that no command leaves the agent in an editor or pager
 * (docs/design.md §2.2; decisions.md, "Agent sessions' editors and pagers"). The person's own
 * sessions keep the person's editor and pager. Each value makes a program go on as its
 * non-interactive form would (`--no-pager`, `--no-edit`), never turns a question into a failure.
 */
export const AGENT_ENV_DEFAULTS: Readonly<Record<string, string>> = {
  // Pagers: output goes straight to the screen, where `execute` reads it.
  /** Programs that page through $PAGER (psql, aws, bat, most CLIs). */
  PAGER: 'cat',
  /** git: outranks core.pager in the person's gitconfig. */
  GIT_PAGER: 'cat',
  /** gh: outranks its own `pager` config. */
  GH_PAGER: 'cat',
  /** man: outranks $PAGER and man's own default (less). */
  MANPAGER: 'cat',
  /** systemctl, journalctl: empty means no pager. */
  SYSTEMD_PAGER: '',
  // Editors: `true` ends at once having changed nothing, so a program keeps the text it proposed
  // (merge, revert, `rebase --continue`, `--amend`) or, having none, stops saying so (`git commit`
  // without -m: "Aborting commit due to empty commit message."). An executable rather than `:`,
  // which only git special-cases: gh, crontab, kubectl run the editor without a shell.
  /** git: outranks core.editor, VISUAL and EDITOR. */
  GIT_EDITOR: 'true',
  /** `git rebase -i`: runs the plan as proposed; outranks sequence.editor (e.g. an interactive rebase tool). */
  GIT_SEQUENCE_EDITOR: 'true',
  /** `git merge`, `git pull`: take the default merge message without calling an editor at all. */
  GIT_MERGE_AUTOEDIT: 'no',
  /** Programs that edit through $VISUAL before $EDITOR (crontab -e, kubectl edit, hg, jj). */
  VISUAL: 'true',
  /** Programs that edit through $EDITOR: nothing changed, and they say so. */
  EDITOR: 'true',
};

/**
 * Variables neither an agent (`open`'s `env`) nor the person's `agentEnv` may give an agent's
 * session: they change how the shell itself and Switchboard's integration load.
 */
const FORBIDDEN = [/^LD_/, /^DYLD_/, /^BASH_ENV$/, /^ENV$/, /^ZDOTDIR$/, /^PROMPT_COMMAND$/, /^SWITCHBOARD_/];

export function isForbiddenAgentVariable(name: string): boolean {
  return FORBIDDEN.some((re) => re.test(name));
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * What is wrong with an entry of the `agentEnv` setting (a phrase for the settings page), or
 * undefined: `NAME=value` sets NAME in agents' sessions, `NAME` alone sets nothing for it (the
 * value the session inherits, if any, stays; so `EDITOR` gives agents the person's editor back).
 */
export function agentEnvEntryProblem(entry: string): string | undefined {
  const equals = entry.indexOf('=');
  const name = equals === -1 ? entry : entry.slice(0, equals);
  if (!NAME.test(name))
    return `"${entry}" must be NAME=value, or NAME alone to keep the inherited value; NAME of letters, digits and _, not starting with a digit`;
  if (isForbiddenAgentVariable(name)) return `${name} cannot be set for agents' sessions (it changes how the shell and Switchboard's integration load)`;
  if (entry.includes('\0')) return `the value of ${name} contains a NUL byte, which no environment can hold`;
  return undefined;
}

/**
 * The variables an agent's session gets over what it inherits: the defaults, then the person's
 * `agentEnv` entries in order (a later one for a name wins). null: set nothing for that name.
 * Entries are checked when the settings are read; one that is still wrong is an error here.
 */
export function agentEnvironment(entries: readonly string[] = []): Record<string, string | null> {
  const env: Record<string, string | null> = { ...AGENT_ENV_DEFAULTS };
  for (const entry of entries) {
    const problem = agentEnvEntryProblem(entry);
    if (problem !== undefined)
      throw new SwitchboardError(ErrorCode.InvalidArgument, `setting agentEnv: ${problem}. Fix it on the settings page or in settings.json.`);
    const equals = entry.indexOf('=');
    if (equals === -1) env[entry] = null;
    else env[entry.slice(0, equals)] = entry.slice(equals + 1);
  }
  return env;
}
