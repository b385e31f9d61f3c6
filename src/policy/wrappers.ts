import { awkRuns } from './awkPrograms.js';
import { bindRuns } from './keyBindings.js';
import { gitRuns } from './gitConfig.js';
import { sedRuns } from './sedScripts.js';
import type { Inner, Stdin } from './inner.js';
import { literalWord, unknownWord, type Word } from './words.js';

export type { Inner, Stdin } from './inner.js';

interface OptionSpec {
  /** Options whose value is the next word. */
  value?: readonly string[];
  /** `NAME=value` words may come before the command (`sudo`, `env`). */
  assignments?: boolean;
  /** Operands before the command (`timeout`'s duration, `chroot`'s new root, `flock`'s file). */
  skip?: number;
  /** With one of these, no command runs (`command -v`, `sudo -l`). */
  noCommand?: readonly string[];
  /** These options run the command in another directory. */
  chdir?: readonly string[];
  /** These options take a line of shell (`npx -c 'cmd'`, `script -c 'cmd'`): that line runs instead. */
  script?: readonly string[];
}

const PREFIX_WRAPPERS: Readonly<Record<string, OptionSpec>> = {
  sudo: {
    value: [
      '-u',
      '-g',
      '-h',
      '-p',
      '-C',
      '-D',
      '-r',
      '-t',
      '-U',
      '-T',
      '--user',
      '--group',
      '--host',
      '--prompt',
      '--close-from',
      '--chdir',
      '--role',
      '--type',
      '--other-user',
      '--command-timeout',
    ],
    assignments: true,
    noCommand: ['-l', '-v', '-e', '-V', '--list', '--validate', '--edit', '--version'],
    chdir: ['-D', '--chdir'],
  },
  doas: { value: ['-u', '-C'], noCommand: ['-C'] },
  pkexec: { value: ['--user'] },
  env: { value: ['-u', '--unset', '-C', '--chdir', '-a', '--argv0', '-P'], assignments: true, chdir: ['-C', '--chdir'] },
  timeout: { value: ['-k', '--kill-after', '-s', '--signal'], skip: 1 },
  nice: { value: ['-n', '--adjustment'] },
  nohup: {},
  time: { value: ['-f', '--format', '-o', '--output'] },
  command: { noCommand: ['-v', '-V'] },
  builtin: {},
  exec: { value: ['-a'] },
  stdbuf: { value: ['-i', '-o', '-e', '--input', '--output', '--error'] },
  ionice: {
    value: ['-c', '--class', '-n', '--classdata', '-p', '--pid', '-P', '--pgid', '-u', '--uid'],
    noCommand: ['-p', '--pid', '-P', '--pgid', '-u', '--uid'],
  },
  setsid: {},
  chroot: { value: ['--groups', '--userspec'], skip: 1 },
  coproc: {},
  busybox: {},
  // util-linux: getopt stops at the first operand (`+`), then the mask, priority or lock file.
  taskset: { noCommand: ['-p', '--pid'], skip: 1 },
  chrt: { value: ['-T', '-P', '-D', '--sched-runtime', '--sched-period', '--sched-deadline'], noCommand: ['-p', '--pid', '-m', '--max'], skip: 1 },
  flock: { value: ['-w', '--wait', '--timeout', '-E', '--conflict-exit-code'], skip: 1 },
  unbuffer: {},
  script: {
    value: ['-E', '--echo', '-I', '--log-in', '-O', '--log-out', '-B', '--log-io', '-T', '--log-timing', '-m', '--logging-format', '-o', '--output-limit'],
    script: ['-c', '--command'],
  },
  'systemd-run': {
    value: [
      '-u',
      '--unit',
      '-p',
      '--property',
      '--description',
      '--slice',
      '-E',
      '--setenv',
      '--uid',
      '--gid',
      '-M',
      '--machine',
      '-H',
      '--host',
      '--working-directory',
      '--nice',
      '--service-type',
      '--on-active',
      '--on-boot',
      '--on-startup',
      '--on-unit-active',
      '--on-unit-inactive',
      '--on-calendar',
      '--on-timezone-change',
      '--on-clock-change',
      '--timer-property',
      '--path-property',
      '--socket-property',
      '--expand-environment',
    ],
    chdir: ['--working-directory'],
  },
  npx: { value: ['-p', '--package', '-w', '--workspace', '--prefix'], script: ['-c', '--call'] },
  pnpx: { value: ['--package'], script: ['-c', '--shell-mode'] },
  bunx: { value: ['-p', '--package'] },
  uvx: {
    value: [
      '--from',
      '--with',
      '--with-requirements',
      '--python',
      '-p',
      '--index',
      '--index-url',
      '--extra-index-url',
      '--directory',
      '--project',
      '--env-file',
    ],
  },
};

/** `npm exec cmd`: a subcommand that runs its arguments, with its own options. */
const SUBCOMMAND_RUNNERS: Readonly<Record<string, Readonly<Record<string, OptionSpec>>>> = {
  npm: { exec: PREFIX_WRAPPERS.npx as OptionSpec, x: PREFIX_WRAPPERS.npx as OptionSpec },
  pnpm: {
    dlx: PREFIX_WRAPPERS.pnpx as OptionSpec,
    exec: { value: ['--filter', '-F', '-C', '--dir', '--workspace-concurrency'], script: ['-c', '--shell-mode'] },
  },
  yarn: { dlx: { value: ['-p', '--package'] }, exec: {} },
  bun: { x: PREFIX_WRAPPERS.bunx as OptionSpec },
  uv: {
    run: {
      value: [
        '--with',
        '--with-editable',
        '--with-requirements',
        '--python',
        '-p',
        '--directory',
        '--project',
        '--env-file',
        '--extra',
        '--group',
        '--only-group',
        '--package',
        '--index',
        '--index-url',
        '--extra-index-url',
        '--find-links',
        '-f',
      ],
      chdir: ['--directory'],
    },
    tool: {},
  },
};

const XARGS: OptionSpec = {
  value: [
    '-a',
    '--arg-file',
    '-d',
    '--delimiter',
    '-E',
    '-I',
    '-L',
    '-n',
    '--max-args',
    '-P',
    '--max-procs',
    '-s',
    '--max-chars',
    '--process-slot-var',
    '--max-lines',
  ],
};
const WATCH: OptionSpec = { value: ['-n', '--interval', '-q', '--equexit'] };
const SU: OptionSpec = {
  value: ['-s', '--shell', '-g', '--group', '-G', '--supp-group', '-w', '--whitelist-environment', '-u', '--user'],
  script: ['-c', '--command', '--session-command'],
};
const PARALLEL: OptionSpec = {
  value: [
    '-j',
    '--jobs',
    '-P',
    '--max-procs',
    '-S',
    '--sshlogin',
    '--colsep',
    '-C',
    '-d',
    '--delimiter',
    '-a',
    '--arg-file',
    '-I',
    '--joblog',
    '--results',
    '--tmpdir',
    '--timeout',
    '--delay',
    '-n',
    '--max-args',
    '-N',
    '--max-replace-args',
    '-L',
    '--max-lines',
    '--header',
    '--tag-string',
    '--env',
  ],
};

/** Shells whose `-c` string (and here-string or heredoc on standard input) is a line of shell. */
const SHELLS: ReadonlySet<string> = new Set(['sh', 'bash', 'rbash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'yash', 'posh', 'fish']);

/**
 * Programs whose arguments the engine reads for what they run, so their arguments are never a
 * command of their own (`git rm -rf x` is git's). The subcommand runners (`npm`, `uv`) are not
 * among them: only their running subcommands are read.
 */
export const WRAPPER_NAMES: ReadonlySet<string> = new Set([
  ...Object.keys(PREFIX_WRAPPERS),
  ...SHELLS,
  'xargs',
  'watch',
  'find',
  'eval',
  'source',
  '.',
  'trap',
  'alias',
  'su',
  'runuser',
  'sg',
  'parallel',
  'fc',
  'awk',
  'gawk',
  'mawk',
  'nawk',
  'sed',
  'git',
  'bind',
  'bindkey',
]);

/**
 * Files that are a descriptor: a shell or `source` reading one reads a here-string, a pipe or
 * whatever the line opened there, not a script on disk.
 */
const STDIN_FILES = /^\/dev\/(stdin|fd\/0)$|^\/proc\/(self|thread-self|\d+)\/fd\/0$/;
const DESCRIPTOR_FILES = /^\/dev\/(stdin|fd\/\d+)$|^\/proc\/(self|thread-self|\d+)\/fd\/\d+$/;

/** What `program` (a basename) runs, given its arguments and what it reads on standard input. */
export function unwrap(program: string, args: readonly Word[], stdin: Stdin): Inner[] {
  const spec = PREFIX_WRAPPERS[program];
  if (spec) return prefixWrapper(program, args, spec);
  if (SHELLS.has(program)) return shell(program, args, stdin);
  const subcommands = SUBCOMMAND_RUNNERS[program];
  if (subcommands) return subcommandRunner(program, args, subcommands);
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
      if (found.options.some((option) => option === '-x' || option === '--exec'))
        return found.rest.length > 0 ? [{ kind: 'command', words: found.rest, how: 'watch' }] : [];
      return joined('watch', found.rest);
    }
    case 'eval':
      // `eval -- 'line'`: bash takes `--` as the end of eval's (no) options.
      return joined('eval', args[0]?.value === '--' ? args.slice(1) : args);
    case 'find':
      return findExec(args);
    case 'source':
    case '.':
      return sourced(program, args, stdin);
    case 'trap':
      return trap(args);
    case 'alias':
      return args.flatMap((arg): Inner[] => {
        if (arg.value === null) return [{ kind: 'hidden', reason: `the alias ${arg.text} is known only when the line runs` }];
        const equals = arg.value.indexOf('=');
        return equals < 0 ? [] : [{ kind: 'script', text: arg.value.slice(equals + 1), how: 'alias' }];
      });
    case 'su':
    case 'runuser':
      return su(program, args);
    case 'sg': {
      // `sg group [-c] command`: the command is a line for /bin/sh.
      const rest = args.slice(1);
      return joined('sg', rest[0]?.value === '-c' ? rest.slice(1) : rest);
    }
    case 'parallel':
      return parallel(args);
    case 'fc':
      // `fc` (without -l) edits and runs lines from the shell's history, which the engine cannot see.
      return args.some((arg) => arg.value === null || /^-[a-zA-Z]*l/.test(arg.value))
        ? []
        : [{ kind: 'hidden', reason: 'fc runs lines from the shell history, which the engine cannot see' }];
    case 'awk':
    case 'gawk':
    case 'mawk':
    case 'nawk':
      return awkRuns(program, args);
    case 'sed':
      return sedRuns(args);
    case 'git':
      return gitRuns(args);
    case 'bind':
    case 'bindkey':
      return bindRuns(program, args);
    default:
      return [];
  }
}

function prefixWrapper(program: string, args: readonly Word[], spec: OptionSpec): Inner[] {
  const found = afterOptions(program, args, spec);
  if ('hidden' in found) return [found.hidden];
  if (found.script) return found.script;
  if (found.options.some((option) => spec.noCommand?.includes(option))) return [];
  if (program === 'env') {
    const split = found.splitString;
    if (split !== undefined)
      return split === null
        ? [{ kind: 'hidden', reason: 'env -S splits a string known only when the line runs' }]
        : joined('env -S', [literalWord(split), ...found.rest]);
  }
  if (program === 'flock' && (found.rest[0]?.value === '-c' || found.rest[0]?.value === '--command')) return joined('flock -c', found.rest.slice(1, 2));
  if (found.rest.length === 0) return [];
  const cwdChanged = found.options.some((option) => spec.chdir?.includes(option));
  return [{ kind: 'command', words: found.rest, how: program, ...(cwdChanged ? { cwdChanged } : {}) }];
}

/** `npm exec -- rm x`, `uv run rm x`, `uv tool run x`: the runner's subcommand, then a prefix wrapper. */
function subcommandRunner(program: string, args: readonly Word[], subcommands: Readonly<Record<string, OptionSpec>>): Inner[] {
  // Options before the subcommand (`npm --prefix x exec`) are skipped; one of unknown value hides it.
  let index = 0;
  while (index < args.length && args[index]?.value?.startsWith('-')) index++;
  const word = args[index];
  if (!word) return [];
  if (word.value === null) return [{ kind: 'hidden', reason: `${program} ${word.text}: the subcommand is known only when the line runs` }];
  const spec = subcommands[word.value];
  if (!spec) return [];
  const rest = args.slice(index + 1);
  if (program === 'uv' && word.value === 'tool') return rest[0]?.value === 'run' ? prefixWrapper('uvx', rest.slice(1), PREFIX_WRAPPERS.uvx as OptionSpec) : [];
  return prefixWrapper(`${program} ${word.value}`, rest, spec);
}

interface Found {
  /** The options as written, without their values (`--user=x` as `--user`). */
  options: string[];
  rest: Word[];
  /** `env -S string`'s string (null: unknown). */
  splitString?: string | null;
  /** An option that takes a line of shell was given (`-c 'cmd'`): what runs. */
  script?: Inner[];
}

/** Skips a wrapper's options (and assignments, and leading operands) to the command it runs. */
function afterOptions(program: string, args: readonly Word[], spec: OptionSpec): Found | { hidden: Inner } {
  const found: Found = { options: [], rest: [] };
  let index = 0;
  while (index < args.length) {
    const word = args[index] as Word;
    const value = word.value;
    if (value === null)
      return { hidden: { kind: 'hidden', reason: `${word.text} after ${program} is known only when the line runs, so what ${program} runs is not known` } };
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
      if (spec.script?.includes(name)) {
        const inline = name !== value ? literalWord(value.slice(name.length + 1)) : undefined;
        const text = inline ?? args[index + 1];
        found.script = text ? joined(`${program} ${name}`, [text]) : [];
        return found;
      }
      // A cluster of short flags holding a script option (`script -qc 'cmd'`, `-qccmd`).
      const letter = /^-[a-zA-Z]{2,}/.test(value) ? spec.script?.find((option) => option.length === 2 && value.includes(option[1] as string)) : undefined;
      if (letter) {
        const inline = value.slice(value.indexOf(letter[1] as string) + 1);
        const text = inline ? literalWord(inline) : args[index + 1];
        found.script = text ? joined(`${program} ${letter}`, [text]) : [];
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
function joined(how: string, words: readonly Word[], stdin?: Stdin): Inner[] {
  if (words.length === 0) return [];
  const unknown = words.find((word) => word.value === null);
  if (unknown) return [{ kind: 'hidden', reason: `${how} runs a line built from ${unknown.text}, known only when the line runs` }];
  return [{ kind: 'script', text: words.map((word) => word.value).join(' '), how, ...(stdin ? { stdin } : {}) }];
}

/** `-c` (alone or in a cluster: `-lc`, `-xc`), a script file, or a script on standard input. */
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
      if (value.startsWith('--command=') || value.startsWith('--init-command='))
        return [{ kind: 'script', text: value.slice(value.indexOf('=') + 1), how: `${program} ${value.slice(0, value.indexOf('='))}` }];
      index += value === '--rcfile' || value === '--init-file' || value === '--command' || value === '--init-command' ? 2 : 1;
      if (value === '--command' || value === '--init-command') {
        const text = args[index - 1];
        return text?.value == null
          ? [{ kind: 'hidden', reason: `${program} ${value} runs a string known only when the line runs` }]
          : [{ kind: 'script', text: text.value, how: `${program} ${value}` }];
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
    return text.value === null
      ? [{ kind: 'hidden', reason: `${how} runs ${text.text}, known only when the line runs` }]
      : [{ kind: 'script', text: text.value, how }];
  }
  const script = rest[0];
  if (script && !fromStdin) {
    if (script.value === null) return [{ kind: 'hidden', reason: `${program} runs the script ${script.text}, which the engine cannot see` }];
    // `bash /dev/stdin <<< '…'` reads its here-string; any other descriptor is not seen.
    if (STDIN_FILES.test(script.value)) return fromStandardInput(program, stdin);
    if (DESCRIPTOR_FILES.test(script.value))
      return [{ kind: 'hidden', reason: `${program} runs what it reads from ${script.value}, which the engine cannot see` }];
    // A script file runs unread, as `./script.sh` would.
    return [];
  }
  // No script and no -c: a shell reading standard input; at a terminal, that is opening a shell.
  if (stdin === undefined || 'file' in stdin) return [];
  return fromStandardInput(program, stdin);
}

/** A shell or `source` reading its commands from standard input: a here-string or heredoc is read; a pipe is not. */
function fromStandardInput(how: string, stdin: Stdin): Inner[] {
  if (stdin === undefined)
    return [{ kind: 'hidden', reason: `${how} reads its commands from the terminal or whatever the line connects, which the engine cannot see` }];
  if ('pipe' in stdin) return [{ kind: 'hidden', reason: `${how} runs the commands piped into it, which the engine cannot see` }];
  if ('file' in stdin) return [{ kind: 'hidden', reason: `${how} runs the commands of a file, which the engine cannot see` }];
  return stdin.text === null
    ? [{ kind: 'hidden', reason: `${how} reads a here-document with substitutions the engine cannot see` }]
    : [{ kind: 'script', text: stdin.text, how: `${how} <<` }];
}

/** `source file`, `. /dev/stdin <<< '…'`. */
function sourced(program: string, args: readonly Word[], stdin: Stdin): Inner[] {
  const file = args[0]?.value === '--' ? args[1] : args[0];
  if (!file) return [];
  if (file.value === null || file.text.startsWith('<('))
    return [{ kind: 'hidden', reason: `it reads shell code from ${file.text}, which the engine cannot see` }];
  if (STDIN_FILES.test(file.value)) return fromStandardInput(program, stdin);
  if (DESCRIPTOR_FILES.test(file.value) || file.value === '/dev/tty')
    return [{ kind: 'hidden', reason: `it reads shell code from ${file.value}, which the engine cannot see` }];
  return [];
}

/** `trap [--] action signal…`: the action is a line, run on EXIT, DEBUG, RETURN, ERR or any signal. */
function trap(args: readonly Word[]): Inner[] {
  const rest = args[0]?.value === '--' ? args.slice(1) : args;
  const action = rest[0];
  if (!action || (args[0]?.value !== '--' && action.value?.startsWith('-'))) return [];
  if (action.value === null) return [{ kind: 'hidden', reason: `the trap runs ${action.text}, known only when the line runs` }];
  return action.value === '' ? [] : [{ kind: 'script', text: action.value, how: 'trap' }];
}

/** `su [-] [user] -c 'cmd'` (anywhere among its words, as util-linux passes it to the shell). */
function su(program: string, args: readonly Word[]): Inner[] {
  for (let index = 0; index < args.length; index++) {
    const value = args[index]?.value;
    if (value === null || value === undefined) continue;
    for (const option of SU.script ?? []) {
      if (value === option) return joined(`${program} ${option}`, args.slice(index + 1, index + 2));
      if (value.startsWith(`${option}=`)) return joined(`${program} ${option}`, [literalWord(value.slice(option.length + 1))]);
    }
    // `-lc 'cmd'`, `-ccmd`: a cluster ending in c takes the next word; c followed by more letters holds its value.
    if (/^-[a-zA-Z]*c/.test(value) && !value.startsWith('--')) {
      const at = value.indexOf('c');
      const inline = value.slice(at + 1);
      return inline ? joined(`${program} -c`, [literalWord(inline)]) : joined(`${program} -c`, args.slice(index + 1, index + 2));
    }
  }
  return [];
}

/** GNU `parallel cmd ::: args`: the command (with its `{}`) is a line of shell; without one, it runs lines from its input. */
function parallel(args: readonly Word[]): Inner[] {
  const found = afterOptions('parallel', args, PARALLEL);
  if ('hidden' in found) return [found.hidden];
  const separator = found.rest.findIndex((word) => word.value !== null && /^:::+\+?$/.test(word.value));
  const command = separator < 0 ? found.rest : found.rest.slice(0, separator);
  if (command.length === 0) return [{ kind: 'hidden', reason: 'parallel runs the command lines it reads, which the engine cannot see' }];
  // The arguments after ::: are appended where the command has no {}: judged with them.
  const inputs = separator < 0 ? [] : found.rest.slice(separator + 1).filter((word) => !/^:::+\+?$/.test(word.value ?? ''));
  const words = command.some((word) => word.value?.includes('{')) ? command : [...command, ...inputs];
  return joined('parallel', words);
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
