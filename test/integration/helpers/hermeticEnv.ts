/**
 * The one environment every test's shells and hubs start from (docs/conventions.md, "How tests
 * start shells"): a home folder the test run made, holding no rc file, and none of the variables
 * through which a machine's own shell setup reaches a shell. So the person's ~/.bashrc (a pyenv
 * init and its prompt hook cost every shell half a second here), ~/.zshrc or fish config cannot
 * change a result or its speed. test/setup/hermeticHome.ts applies it to every test process
 * (vitest `setupFiles`), so `process.env` is already this environment; helpers that build a
 * child's environment start from `testEnv()`. A test about rc files writes them into a home
 * of its own.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { shellPath } from './shells.js';

/**
 * Variables that point a shell at configuration, or carry it: rc locations (ZDOTDIR; fish and
 * others read XDG_CONFIG_HOME, fish keeps its history and generated completions under
 * XDG_DATA_HOME), rc files run by name (ENV for sh and dash, BASH_ENV for every non-interactive
 * bash), prompts and hooks bash takes from the environment, exported bash functions, readline's
 * and history's files, and our own settings (SWITCHBOARD_*, including the state folder).
 */
const SHELL_SETUP = [
  /^SWITCHBOARD_/,
  /^ZDOTDIR$/,
  /^XDG_(CONFIG|DATA|STATE|CACHE)_HOME$/,
  /^XDG_(CONFIG|DATA)_DIRS$/,
  /^(ENV|BASH_ENV)$/,
  /^(PROMPT_COMMAND|PS0|PS1|PS2|PS4)$/,
  /^BASH_FUNC_/,
  /^(HISTFILE|INPUTRC)$/,
  // The locale is the test run's, not the machine's: C.UTF-8, as the hub gives sessions without one.
  /^(LC_.+|LANGUAGE)$/,
];

export function isShellSetup(name: string): boolean {
  return SHELL_SETUP.some((re) => re.test(name));
}

/**
 * A fresh home folder under the system temp folder: empty but for the mark that fish has made
 * its man-page completions (else every interactive fish started in it runs
 * `create_manpage_completions.py` in the background: ~25 s of CPU taken from the tests beside it).
 */
export function makeHermeticHome(prefix = 'sb-home-'): string {
  const home = mkdtempSync(path.join(tmpdir(), prefix));
  skipFishFirstRun(home);
  return home;
}

export function skipFishFirstRun(home: string): void {
  mkdirSync(path.join(home, '.local', 'share', 'fish', 'generated_completions'), { recursive: true });
}

/** `base` without the machine's shell setup, with `home` as HOME, bash as SHELL and the C.UTF-8 locale. */
export function hermeticEnv(base: NodeJS.ProcessEnv, home: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) if (value !== undefined && !isShellSetup(name)) env[name] = value;
  return { ...env, HOME: home, SHELL: shellPath('bash'), LANG: 'C.UTF-8' };
}

/**
 * Makes `env` (this process's `process.env`, in test/setup/hermeticHome.ts) hermetic in place:
 * a fresh home, the shell setup variables gone. Returns the home, for removal.
 */
export function applyHermeticHome(env: NodeJS.ProcessEnv, prefix = 'sb-test-home-'): string {
  const home = makeHermeticHome(prefix);
  const clean = hermeticEnv(env, home);
  for (const name of Object.keys(env)) if (!(name in clean)) delete env[name];
  Object.assign(env, clean);
  return home;
}

/**
 * The environment of this test process (already hermetic, see above) for a child: a copy, with
 * SWITCHBOARD_* left out (a test sets its own), plus `extra`.
 */
export function testEnv(extra: Record<string, string> = {}): Record<string, string> {
  const home = process.env.HOME;
  if (!home) throw new Error('HOME is unset: test/setup/hermeticHome.ts did not run (vitest setupFiles)');
  return { ...hermeticEnv(process.env, home), ...extra };
}
