/**
 * What the engine knows of a few programs' options, so that a rule written one way matches the
 * command written another (docs/design.md §2.9): flags that mean the same (`rm --recursive` is
 * `rm -r`, `rm --interactive=never` is `rm -f`), any unambiguous prefix of a long option, as GNU
 * getopt and git accept it (`rm --rec --f`), and options that take a value, so the value is not
 * read as an operand (`git -C dir push` is a push). Kept to the programs of the default rules and
 * their kin; any other program's flags match as written.
 */

/** Program → flag as written (after abbreviations are resolved) → the flag it means. */
const SAME_FLAG: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  rm: { '-R': '-r', '--recursive': '-r', '--force': '-f', '--interactive=never': '-f', '--interactive=no': '-f', '--interactive=none': '-f' },
  cp: { '-R': '-r', '--recursive': '-r', '--force': '-f' },
  chmod: { '--recursive': '-R' },
  chown: { '--recursive': '-R' },
  chgrp: { '--recursive': '-R' },
  git: { '-f': '--force' },
  kill: { '-KILL': '-9', '-SIGKILL': '-9' },
};

/**
 * Program → every long option it takes (GNU coreutils 9, git 2.39 `push`), for resolving an
 * abbreviation. A list must hold no option the program lacks: an extra one would make a prefix
 * look ambiguous here that the program takes as one option. git's own global options are not
 * abbreviated by git, so only `push`'s are listed.
 */
const LONG_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  rm: ['--dir', '--force', '--help', '--interactive', '--no-preserve-root', '--one-file-system', '--preserve-root', '--recursive', '--verbose', '--version'],
  cp: [
    '--archive',
    '--attributes-only',
    '--backup',
    '--context',
    '--copy-contents',
    '--dereference',
    '--force',
    '--help',
    '--interactive',
    '--link',
    '--no-clobber',
    '--no-dereference',
    '--no-preserve',
    '--no-target-directory',
    '--one-file-system',
    '--parents',
    '--preserve',
    '--recursive',
    '--reflink',
    '--remove-destination',
    '--sparse',
    '--strip-trailing-slashes',
    '--suffix',
    '--symbolic-link',
    '--target-directory',
    '--update',
    '--verbose',
    '--version',
  ],
  chmod: ['--changes', '--help', '--no-preserve-root', '--preserve-root', '--quiet', '--recursive', '--reference', '--silent', '--verbose', '--version'],
  chown: [
    '--changes',
    '--dereference',
    '--from',
    '--help',
    '--no-dereference',
    '--no-preserve-root',
    '--preserve-root',
    '--quiet',
    '--recursive',
    '--reference',
    '--silent',
    '--verbose',
    '--version',
  ],
  chgrp: [
    '--changes',
    '--dereference',
    '--help',
    '--no-dereference',
    '--no-preserve-root',
    '--preserve-root',
    '--quiet',
    '--recursive',
    '--reference',
    '--silent',
    '--verbose',
    '--version',
  ],
  git: [
    '--all',
    '--atomic',
    '--branches',
    '--delete',
    '--dry-run',
    '--exec',
    '--follow-tags',
    '--force',
    '--force-if-includes',
    '--force-with-lease',
    '--ipv4',
    '--ipv6',
    '--mirror',
    '--no-verify',
    '--porcelain',
    '--progress',
    '--prune',
    '--push-option',
    '--quiet',
    '--receive-pack',
    '--recurse-submodules',
    '--repo',
    '--set-upstream',
    '--signed',
    '--tags',
    '--thin',
    '--verbose',
    '--verify',
  ],
};

/** Program → options whose value is the next word. */
const VALUE_OPTIONS: Readonly<Record<string, ReadonlySet<string>>> = {
  git: new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--config-env', '--exec-path']),
  kill: new Set(['-s', '-n']),
};

/** The flag a word means for `program`: an abbreviation spelled out, then its synonym. */
export function canonicalFlag(program: string, flag: string): string {
  const full = expandLongOption(program, flag);
  return SAME_FLAG[program]?.[full] ?? full;
}

/**
 * `--rec` → `--recursive` when exactly one long option of the program starts so (or one is
 * exactly that); `--i=never` → `--interactive=never`. Anything else is returned as written.
 */
function expandLongOption(program: string, flag: string): string {
  const options = LONG_OPTIONS[program];
  if (!options || !flag.startsWith('--') || flag.length < 3) return flag;
  const equals = flag.indexOf('=');
  const name = equals < 0 ? flag : flag.slice(0, equals);
  const rest = equals < 0 ? '' : flag.slice(equals);
  if (options.includes(name)) return flag;
  const candidates = options.filter((option) => option.startsWith(name));
  return candidates.length === 1 ? `${candidates[0]}${rest}` : flag;
}

export function takesValue(program: string, option: string): boolean {
  return VALUE_OPTIONS[program]?.has(option) ?? false;
}
