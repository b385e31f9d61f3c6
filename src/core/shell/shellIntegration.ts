/**
 * Shell integration injection (docs/design.md §2.5), as pure functions: given a
 * shell, return the arguments and environment that make it print the marks of ./marks.ts. The
 * session spawns the shell with them; nothing here spawns processes or touches the person's files.
 *
 *   bash  `--init-file assets/shell-integration/bash.sh -i` (the script reads the usual rc files)
 *   zsh   `ZDOTDIR=assets/shell-integration/zsh` (its files source the person's, then add hooks)
 *   fish  `--init-command 'source assets/shell-integration/fish.fish'` (fish reads its config itself)
 *   sh    `ENV=assets/shell-integration/sh.sh` defines `__sb_exec`; each command is wrapped
 *   other no injection; each command is wrapped inline (POSIX syntax assumed)
 *
 * planLaunch puts it together for a session: the configured shell, a `program` that is a shell
 * (`bash -l`, `/bin/zsh`), or a program run as given.
 */
import { join } from 'node:path';
import { packageRoot } from '../../packageInfo.js';

import { NONCE_ENV, OSC_CWD, OSC_FINAL_TERM } from './marks.js';
import type { Detection, ShellKind } from '../types.js';

export interface ShellIntegrationPlan {
  kind: ShellKind | 'unknown';
  /** Arguments to spawn the shell with (the shell path itself excluded). */
  args: string[];
  /** Variables to add to the session's environment (on top of the person's). */
  env: Record<string, string>;
  /** How command completion will be detected in this shell. */
  detection: Detection;
}

interface ShellIntegrationOptions {
  /** Per-session random token carried by every mark; `[A-Za-z0-9_-]` only. */
  nonce: string;
  /** Start as a login shell (read profile files). */
  login: boolean;
  /** The environment the shell would otherwise get (read for ZDOTDIR and ENV). */
  userEnv: NodeJS.ProcessEnv;
}

/** Environment variables the integration scripts read (and unset). */
const LOGIN_ENV = 'SWITCHBOARD_LOGIN';
const USER_ZDOTDIR_ENV = 'SWITCHBOARD_ZDOTDIR';
const USER_ENV_ENV = 'SWITCHBOARD_USER_ENV';

/** The nonce goes into prompts and typed command lines: keep it to characters no shell treats specially. */
const NONCE_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

const SH_LIKE = new Set(['sh', 'dash', 'ash', 'ksh', 'mksh', 'ksh93', 'busybox']);

/** The kind of shell at `shellPath`, by basename (`/bin/bash`, `zsh-5.9`, `-bash` all count). */
export function detectShellKind(shellPath: string): ShellKind | 'unknown' {
  const base = (shellPath.split(/[\\/]/).pop() ?? '')
    .replace(/^-/, '') // login shells show up as `-bash`
    .replace(/\.exe$/i, '')
    .replace(/-?[0-9][0-9.]*$/, '') // versioned binaries: zsh-5.9, bash5
    .toLowerCase();
  if (base === 'bash' || base === 'zsh' || base === 'fish') return base;
  if (SH_LIKE.has(base)) return 'sh';
  return 'unknown';
}

/** A `program` that is a shell (its kind; whether a login shell was asked for), or why it is not. */
type ProgramShellPlan = { shell: true; kind: ShellKind; login: boolean } | { shell: false; reason: string };

/**
 * Arguments that keep a shell a shell. They are taken by meaning, not passed through (the plan
 * builds each shell's argv), so `--interactive` counts for bash too, which itself knows only `-i`.
 */
const LOGIN_FLAG = '--login';
const INTERACTIVE_FLAG = '--interactive';
/** `-l`, `-i` and clusters of them (`-il`, `-li`). */
const SHORT_FLAGS = /^-[il]+$/;

/**
 * Whether `open` with `program` + `args` opens a shell (docs/design.md §2.5: "a shell is a shell
 * however it is opened"): a program whose name is a shell's, with no arguments but the login and
 * interactive flags, gets the same integration as the configured shell. Any other argument
 * (`-c '…'`, a script, `--norc`, `-x`, `-o …`) has a meaning the integration would have to carry
 * into its own arguments, and several defeat it (`-c` runs and exits, `zsh -f` skips our
 * ZDOTDIR, `bash --rcfile` conflicts with `--init-file`): such a program runs as given.
 */
export function planProgramShell(program: string, args: readonly string[]): ProgramShellPlan {
  const kind = detectShellKind(program);
  // busybox is a multi-call binary: without an applet argument it is no shell.
  if (kind === 'unknown' || /^busybox$/i.test(basename(program))) return { shell: false, reason: 'not a shell' };
  let login = false;
  for (const arg of args) {
    if (arg === LOGIN_FLAG || (SHORT_FLAGS.test(arg) && arg.includes('l'))) login = true;
    else if (arg !== INTERACTIVE_FLAG && !SHORT_FLAGS.test(arg)) {
      return { shell: false, reason: `not as a shell: it was opened with ${JSON.stringify(arg)} (only -l, --login, -i and --interactive open a shell)` };
    }
  }
  return { shell: true, kind, login };
}

/** How a session starts: the file, its arguments and environment, and how commands end. */
export interface LaunchPlan {
  file: string;
  args: string[];
  env: Record<string, string>;
  /** null: a program, not a shell (execute is refused, see `notShell`). */
  shellKind: ShellKind | 'unknown' | null;
  detection: Detection;
  /** Why a program is not run as a shell (for execute's refusal). */
  notShell?: string;
}

interface LaunchOptions {
  /** A program to run instead of the configured shell. */
  program?: string;
  /** Where `program` was found (PATH, cwd): a shell is spawned from there, as the default shell is. */
  programPath?: string;
  args?: string[];
  /** The configured shell, used when there is no `program`. */
  shell: string;
  /** The configured shell starts as a login shell. */
  login: boolean;
  /** The session's environment. */
  env: Record<string, string>;
}

/** The launch of one session, with the nonce its marks will carry. */
export function planLaunch(options: LaunchOptions, nonce: string): LaunchPlan {
  let shell = options.shell;
  let login = options.login;
  if (options.program) {
    const asShell = planProgramShell(options.program, options.args ?? []);
    if (!asShell.shell) {
      return {
        file: options.program,
        args: options.args ?? [],
        env: { ...options.env },
        shellKind: null,
        detection: 'command_wrapper',
        notShell: asShell.reason,
      };
    }
    shell = options.programPath ?? options.program;
    login = asShell.login;
  }
  const plan = planShellIntegration(shell, { nonce, login, userEnv: options.env });
  return { file: shell, args: plan.args, env: { ...options.env, ...plan.env, [NONCE_ENV]: nonce }, shellKind: plan.kind, detection: plan.detection };
}

function basename(path: string): string {
  return path.split(/[\\/]/).pop() ?? '';
}

/** `<package root>/assets`: the integration scripts ship beside the code. */
export function assetsDir(): string {
  return join(packageRoot(), 'assets');
}

/** Arguments and environment that start `shellPath` with shell integration injected. */
export function planShellIntegration(shellPath: string, options: ShellIntegrationOptions): ShellIntegrationPlan {
  const { nonce, login, userEnv } = options;
  if (!NONCE_PATTERN.test(nonce)) {
    throw new Error('shell integration nonce must be 1-128 characters of [A-Za-z0-9_-]');
  }
  const scripts = join(assetsDir(), 'shell-integration');
  const kind = detectShellKind(shellPath);
  switch (kind) {
    case 'bash':
      // `--login` would make bash ignore --init-file: the script reads the profile files itself.
      return {
        kind,
        args: ['--init-file', join(scripts, 'bash.sh'), '-i'],
        env: { [NONCE_ENV]: nonce, ...(login ? { [LOGIN_ENV]: '1' } : {}) },
        detection: 'shell_integration',
      };
    case 'zsh': {
      const ours = join(scripts, 'zsh');
      // A nested hub (ZDOTDIR already ours) must not make the scripts source themselves.
      const userZdotdir = userEnv.ZDOTDIR && userEnv.ZDOTDIR !== ours ? userEnv.ZDOTDIR : '';
      return {
        kind,
        args: login ? ['-l', '-i'] : ['-i'],
        env: { ZDOTDIR: ours, [USER_ZDOTDIR_ENV]: userZdotdir, [NONCE_ENV]: nonce },
        detection: 'shell_integration',
      };
    }
    case 'fish':
      return {
        kind,
        args: [...(login ? ['--login'] : []), '--interactive', '--init-command', `source ${fishQuote(join(scripts, 'fish.fish'))}`],
        env: { [NONCE_ENV]: nonce },
        detection: 'shell_integration',
      };
    case 'sh': {
      const env: Record<string, string> = { ENV: join(scripts, 'sh.sh'), [NONCE_ENV]: nonce };
      if (userEnv.ENV !== undefined && userEnv.ENV !== env.ENV) env[USER_ENV_ENV] = userEnv.ENV;
      return { kind, args: login ? ['-l', '-i'] : ['-i'], env, detection: 'command_wrapper' };
    }
    case 'unknown':
      // Nothing to inject into; wrapCommand carries the nonce in the typed line instead, so it
      // does not sit in the environment of every child process.
      return { kind, args: [], env: {}, detection: 'command_wrapper' };
  }
}

/**
 * The exact text to type (without the Enter) to run `command` so it is bracketed by marks.
 * Shells with hooks (bash, zsh, fish) mark commands themselves: the command is returned as is.
 */
export function wrapCommand(kind: ShellKind | 'unknown', command: string, nonce: string): string {
  switch (kind) {
    case 'bash':
    case 'zsh':
    case 'fish':
      return command;
    case 'sh':
      // __sb_exec (sh.sh) prints C, evals in the current shell (so `cd` sticks), then OSC 7 and D.
      return `__sb_exec ${shQuote(command)}`;
    case 'unknown': {
      if (!NONCE_PATTERN.test(nonce)) {
        throw new Error('shell integration nonce must be 1-128 characters of [A-Za-z0-9_-]');
      }
      // Same marks as __sb_exec, inline. The cwd is not percent-encoded here (no portable way
      // short of a helper script); paths with `%` or non-ASCII may decode imperfectly.
      const c = `\\033]${OSC_FINAL_TERM};C;nonce=${nonce}\\007`;
      const tail = `\\033]${OSC_CWD};file://%s%s\\007\\033]${OSC_FINAL_TERM};D;%s;nonce=${nonce}\\007`;
      return `printf '${c}'; eval ${shQuote(command)}; __sb_s=$?; ` + `printf '${tail}' "$(uname -n 2>/dev/null)" "$PWD" "$__sb_s"`;
    }
  }
}

/** POSIX single-quoting: the text comes back verbatim, newlines included. */
function shQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** fish single-quoting: only `\` and `'` are special inside. */
function fishQuote(text: string): string {
  return `'${text.replace(/[\\']/g, (ch) => `\\${ch}`)}'`;
}

/**
 * The line (without the Enter) that re-arms the integration of a shell back at its prompt
 * without its marks (docs/design.md §2.5): it sources the shell's script again, skipping the
 * person's rc files, and the script answers with an R mark carrying the status of the command
 * before it. The leading space keeps it out of a history that ignores such lines (bash's script
 * also deletes its own entry). null for shells without hooks (the wrapper is typed per command).
 */
export function rearmCommand(kind: ShellKind | 'unknown', nonce: string): string | null {
  if (!NONCE_PATTERN.test(nonce)) throw new Error('shell integration nonce must be 1-128 characters of [A-Za-z0-9_-]');
  const scripts = join(assetsDir(), 'shell-integration');
  switch (kind) {
    case 'bash':
      return ` builtin source ${shQuote(join(scripts, 'bash.sh'))} --rearm ${nonce} $?`;
    case 'zsh':
      return ` builtin source ${shQuote(join(scripts, 'zsh', 'integration.zsh'))} --rearm ${nonce} $?`;
    case 'fish':
      return ` source ${fishQuote(join(scripts, 'fish.fish'))} --rearm ${nonce} $status`;
    default:
      return null;
  }
}
