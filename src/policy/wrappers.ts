import { literalWord, unknownWord, type Word } from './words.js';

/**
 * What a command runs besides itself (docs/design.md §2.9): `sudo rm x` runs `rm x`,
 * `bash -c 'a; b'` runs the line `a; b`, `find . -exec rm {} ;` runs `rm`. The engine checks
 * the wrapper and what it runs, each against the rules.
 */
export type Inner =
  /** Another simple command; `cwdChanged`: it runs elsewhere (`env -C dir`, `sudo -D dir`). */
  | { kind: 'command'; words: Word[]; how: string; cwdChanged?: boolean }
  /** A line of shell, parsed in turn. */
  | { kind: 'script'; text: string; how: string }
  /** It runs something the engine cannot read. */
  | { kind: 'hidden'; reason: string };

/** What a shell without `-c` reads on its standard input, when the line says (`<<<`, `<<EOF`). */
export type Stdin = { text: string | null } | { file: true } | undefined;

interface OptionSpec {
  /** Options whose value is the next word. */
  value?: readonly string[];
  /** `NAME=value` words may come before the command (`sudo`, `env`). */
  assignments?: boolean;
  /** Operands before the command (`timeout`'s duration, `chroot`'s new root). */
  skip?: number;
  /** With one of these, no command runs (`command -v`, `sudo -l`). */
  noCommand?: readonly string[];
  /** These options run the command in another directory. */
  chdir?: readonly string[];
}

const PREFIX_WRAPPERS: Readonly<Record<string, OptionSpec>> = {
  sudo: {
    value: ['-u', '-g', '-h', '-p', '-C', '-D', '-r', '-t', '-U', '-T', '--user', '--group', '--host', '--prompt', '--close-from', '--chdir', '--role', '--type', '--other-user', '--command-timeout'],
    assignments: true,
    noCommand: ['-l', '-v', '-e', '-V', '--list', '--validate', '--edit', '--version'],
    chdir: ['-D', '--chdir'],
  },
  doas: { value: ['-u', '-C'], noCommand: ['-C'] },
  env: { value: ['-u', '--unset', '-C', '--chdir', '-a', '--argv0', '-P'], assignments: true, chdir: ['-C', '--chdir'] },
  timeout: { value: ['-k', '--kill-after', '-s', '--signal'], skip: 1 },
  nice: { value: ['-n', '--adjustment'] },
  nohup: {},
  time: { value: ['-f', '--format', '-o', '--output'] },
  command: { noCommand: ['-v', '-V'] },
  builtin: {},
  exec: { value: ['-a'] },
  stdbuf: { value: ['-i', '-o', '-e', '--input', '--output', '--error'] },
  ionice: { value: ['-c', '--class', '-n', '--classdata', '-p', '--pid', '-P', '--pgid', '-u', '--uid'], noCommand: ['-p', '--pid', '-P', '--pgid', '-u', '--uid'] },
  setsid: {},
  chroot: { value: ['--groups', '--userspec'], skip: 1 },
  coproc: {},
  busybox: {},
};

const XARGS: OptionSpec = {
  value: ['-a', '--arg-file', '-d', '--delimiter', '-E', '-I', '-L', '-n', '--max-args', '-P', '--max-procs', '-s', '--max-chars', '--process-slot-var', '--max-lines'],
};
const WATCH: OptionSpec = { value: ['-n', '--interval', '-q', '--equexit'] };

/** Shells whose `-c` string (and here-string or heredoc on standard input) is a line of shell. */
export const SHELLS: ReadonlySet<string> = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'yash', 'posh', 'fish']);

export const WRAPPER_NAMES: readonly string[] = [...Object.keys(PREFIX_WRAPPERS), 'xargs', 'watch', 'find', 'eval', 'source', '.', 'trap', 'alias', ...SHELLS];

/** What `program` (a basename) runs, given its arguments. */
export function unwrap(program: string, args: readonly Word[], stdin: Stdin): Inner[] {
  const spec = PREFIX_WRAPPERS[program];
  if (spec) return prefixWrapper(program, args, spec);
  if (SHELLS.has(program)) return shell(program, args, stdin);
  switch (program) {
    case 'xargs': {
      const found = afterOptions(program, args, XARGS);
      if ('hidden' in found) return [found.hidden];
      // Its input supplies more arguments: an unknown word stands for them.
      const words = found.rest.length > 0 ? [...found.rest] : [literalWord('echo')];
      return [{ kind: 'command', words: [...words, unknownWord('(arguments from input)')], how: 'xargs' }];
    }
    case 'watch': {
      const found = afterOptions(program, args, WATCH);
      if ('hidden' in found) return [found.hidden];
      if (found.options.some((option) => option === '-x' || option === '--exec')) return found.rest.length > 0 ? [{ kind: 'command', words: found.rest, how: 'watch' }] : [];
      return joined('watch', found.rest);
    }
    case 'eval':
      return joined('eval', args);
    case 'find':
      return findExec(args);
    case 'source':
    case '.': {
      const file = args[0];
      if (file && (file.value === null || file.text.startsWith('<(') || file.value === '/dev/stdin')) return [{ kind: 'hidden', reason: `it reads shell code from ${file.text}, which the engine cannot see` }];
      return [];
    }
    case 'trap': {
      const [action, ...signals] = args;
      if (!action || signals.length === 0 || action.value?.startsWith('-')) return [];
      return action.value === null ? [{ kind: 'hidden', reason: `the trap runs ${action.text}, known only when the line runs` }] : [{ kind: 'script', text: action.value, how: 'trap' }];
    }
    case 'alias':
      return args.flatMap((arg): Inner[] => {
        if (arg.value === null) return [{ kind: 'hidden', reason: `the alias ${arg.text} is known only when the line runs` }];
        const equals = arg.value.indexOf('=');
        return equals < 0 ? [] : [{ kind: 'script', text: arg.value.slice(equals + 1), how: 'alias' }];
      });
    default:
      return [];
  }
}

function prefixWrapper(program: string, args: readonly Word[], spec: OptionSpec): Inner[] {
  const found = afterOptions(program, args, spec);
  if ('hidden' in found) return [found.hidden];
  if (found.options.some((option) => spec.noCommand?.includes(option))) return [];
  if (program === 'env') {
    const split = found.splitString;
    if (split !== undefined) return split === null ? [{ kind: 'hidden', reason: 'env -S splits a string known only when the line runs' }] : joined('env -S', [literalWord(split), ...found.rest]);
  }
  if (found.rest.length === 0) return [];
  const cwdChanged = found.options.some((option) => spec.chdir?.includes(option));
  return [{ kind: 'command', words: found.rest, how: program, ...(cwdChanged ? { cwdChanged } : {}) }];
}

interface Found {
  /** The options as written, without their values (`--user=x` as `--user`). */
  options: string[];
  rest: Word[];
  /** `env -S string`'s string (null: unknown). */
  splitString?: string | null;
}

/** Skips a wrapper's options (and assignments, and leading operands) to the command it runs. */
function afterOptions(program: string, args: readonly Word[], spec: OptionSpec): Found | { hidden: Inner } {
  const found: Found = { options: [], rest: [] };
  let index = 0;
  while (index < args.length) {
    const word = args[index] as Word;
    const value = word.value;
    if (value === null) return { hidden: { kind: 'hidden', reason: `${word.text} after ${program} is known only when the line runs, so what ${program} runs is not known` } };
    if (value === '--') {
      index++;
      break;
    }
    if (value.length > 1 && value.startsWith('-')) {
      const name = value.startsWith('--') && value.includes('=') ? value.slice(0, value.indexOf('=')) : value;
      found.options.push(name);
      if (program === 'env' && (name === '-S' || name === '--split-string')) {
        const inline = value.includes('=') ? value.slice(value.indexOf('=') + 1) : undefined;
        found.splitString = inline ?? args[index + 1]?.value ?? null;
        index += inline === undefined ? 2 : 1;
        found.rest = args.slice(index);
        return found;
      }
      if (program === 'env' && value.startsWith('-S') && value.length > 2) {
        found.splitString = value.slice(2);
        found.rest = args.slice(index + 1);
        return found;
      }
      index += spec.value?.includes(value) ? 2 : 1;
      continue;
    }
    if (spec.assignments && /^[A-Za-z_][A-Za-z0-9_]*=/.test(value)) {
      index++;
      continue;
    }
    break;
  }
  index += spec.skip ?? 0;
  found.rest = args.slice(index);
  return found;
}

/** `eval a b`, `watch a b`: the words joined with spaces are a line of shell. */
function joined(how: string, words: readonly Word[]): Inner[] {
  if (words.length === 0) return [];
  const unknown = words.find((word) => word.value === null);
  if (unknown) return [{ kind: 'hidden', reason: `${how} runs a line built from ${unknown.text}, known only when the line runs` }];
  return [{ kind: 'script', text: words.map((word) => word.value).join(' '), how }];
}

/** `-c` (alone or in a cluster: `-lc`, `-xc`), or a script on standard input. */
function shell(program: string, args: readonly Word[], stdin: Stdin): Inner[] {
  let command = false;
  let fromStdin = false;
  let index = 0;
  while (index < args.length) {
    const word = args[index] as Word;
    const value = word.value;
    if (value === null) return [{ kind: 'hidden', reason: `${word.text} in the options of ${program} is known only when the line runs` }];
    if (value === '--' || value === '-') {
      index++;
      break;
    }
    if (value.startsWith('--')) {
      if (value.startsWith('--command=') || value.startsWith('--init-command=')) return [{ kind: 'script', text: value.slice(value.indexOf('=') + 1), how: `${program} ${value.slice(0, value.indexOf('='))}` }];
      index += value === '--rcfile' || value === '--init-file' || value === '--command' || value === '--init-command' ? 2 : 1;
      if (value === '--command' || value === '--init-command') {
        const text = args[index - 1];
        return text?.value == null ? [{ kind: 'hidden', reason: `${program} ${value} runs a string known only when the line runs` }] : [{ kind: 'script', text: text.value, how: `${program} ${value}` }];
      }
      continue;
    }
    if (value.length > 1 && (value.startsWith('-') || value.startsWith('+'))) {
      const letters = value.slice(1);
      if (value.startsWith('-') && letters.includes('c')) command = true;
      if (letters.includes('s')) fromStdin = true;
      index += /[oO]/.test(letters) ? 2 : 1;
      continue;
    }
    break;
  }
  const rest = args.slice(index);
  const how = `${program} -c`;
  if (command) {
    const text = rest[0];
    if (!text) return [];
    return text.value === null ? [{ kind: 'hidden', reason: `${how} runs ${text.text}, known only when the line runs` }] : [{ kind: 'script', text: text.value, how }];
  }
  const script = rest[0];
  if (script && !fromStdin) {
    // A script file runs unread, as `./script.sh` would; one produced by the line is hidden.
    return script.value === null ? [{ kind: 'hidden', reason: `${program} runs the script ${script.text}, which the engine cannot see` }] : [];
  }
  if (stdin === undefined || 'file' in stdin) return [];
  return stdin.text === null ? [{ kind: 'hidden', reason: `${program} reads a here-document with substitutions the engine cannot see` }] : [{ kind: 'script', text: stdin.text, how: `${program} <<` }];
}

/** `find … -exec cmd {} ;` (and `-execdir`, `-ok`, `-okdir`): each command, `{}` unknown. */
function findExec(args: readonly Word[]): Inner[] {
  const inners: Inner[] = [];
  for (let index = 0; index < args.length; index++) {
    const action = args[index]?.value;
    if (action !== '-exec' && action !== '-execdir' && action !== '-ok' && action !== '-okdir') continue;
    const words: Word[] = [];
    for (index++; index < args.length; index++) {
      const word = args[index] as Word;
      if (word.value === ';' || word.value === '+') break;
      // find names what it found by its start path, so `{}` is never taken for an option.
      words.push(word.value === '{}' ? unknownWord(word.text, true) : word.value?.includes('{}') ? unknownWord(word.text) : word);
    }
    if (words.length > 0) inners.push({ kind: 'command', words, how: `find ${action}`, ...(action.endsWith('dir') ? { cwdChanged: true } : {}) });
  }
  return inners;
}
