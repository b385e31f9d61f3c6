/**
 * What the engine knows of a few programs' options, so that a rule written one way matches the
 * command written another (docs/design.md §2.9): flags that mean the same (`rm --recursive` is
 * `rm -r`), and options that take a value, so the value is not read as an operand
 * (`git -C dir push` is a push). Kept to the programs of the default rules and their kin; any
 * other program's flags match as written.
 */

/** Program → flag as written → the flag it means. */
const SAME_FLAG: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  rm: { '-R': '-r', '--recursive': '-r', '--force': '-f' },
  cp: { '-R': '-r', '--recursive': '-r', '--force': '-f' },
  chmod: { '--recursive': '-R' },
  chown: { '--recursive': '-R' },
  chgrp: { '--recursive': '-R' },
  git: { '-f': '--force' },
  kill: { '-KILL': '-9', '-SIGKILL': '-9' },
};

/** Program → options whose value is the next word. */
const VALUE_OPTIONS: Readonly<Record<string, ReadonlySet<string>>> = {
  git: new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--config-env', '--exec-path']),
  kill: new Set(['-s', '-n']),
};

export function canonicalFlag(program: string, flag: string): string {
  return SAME_FLAG[program]?.[flag] ?? flag;
}

export function takesValue(program: string, option: string): boolean {
  return VALUE_OPTIONS[program]?.has(option) ?? false;
}
