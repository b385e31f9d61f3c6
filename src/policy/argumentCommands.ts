import type { SeenCommand } from './commands.js';
import { basename } from './pattern.js';

/**
 * A program the engine does not know may run its arguments as a command (`mytool rm -rf /x`,
 * `strace rm -rf /x`, `docker run img rm -rf /x`): each run of its arguments that starts with a
 * word that is not an option is a command it may run (docs/design.md §2.9). A deny or ask rule
 * that matches one makes the line asked at least; these never allow anything, and never deny
 * (the engine does not know the program runs them). Programs known never to run their arguments
 * are left alone, so `echo rm -rf x` and `man sudo` are not asked.
 */
const NOT_RUNNERS: ReadonlySet<string> = new Set([
  'echo',
  'printf',
  'man',
  'info',
  'help',
  'which',
  'whereis',
  'whatis',
  'apropos',
  'type',
  'tldr',
  'command_not_found_handle',
  'cat',
  'less',
  'more',
  'head',
  'tail',
  'wc',
  'sort',
  'uniq',
  'cut',
  'tr',
  'tee',
  'diff',
  'cmp',
  'grep',
  'egrep',
  'fgrep',
  'rg',
  'ag',
  'ls',
  'stat',
  'file',
  'du',
  'df',
  'touch',
  'mkdir',
  'rmdir',
  'rm',
  'cp',
  'mv',
  'ln',
  'chmod',
  'chown',
  'chgrp',
  'kill',
  'pkill',
  'pgrep',
  'test',
  '[',
  '[[',
  'true',
  'false',
  ':',
  'cd',
  'pushd',
  'popd',
  'export',
  'declare',
  'typeset',
  'local',
  'readonly',
  'unset',
  'set',
  'shopt',
  'history',
  'read',
  'hash',
  'jobs',
  'fg',
  'bg',
  'wait',
  'exit',
  'return',
  'shift',
  'let',
  'dirs',
  'umask',
  'ulimit',
  'getopts',
]);

/** The commands an unknown program's arguments may form, each as the engine would see it run. */
export function argumentCommands(command: SeenCommand): SeenCommand[] {
  const program = command.words[0]?.value;
  if (command.read || command.hidden || program === null || program === undefined || NOT_RUNNERS.has(basename(program))) return [];
  const found: SeenCommand[] = [];
  for (let index = 1; index < command.words.length; index++) {
    const word = command.words[index];
    if (!word || word.value === null || word.value.startsWith('-') || word.value === '') continue;
    const words = command.words.slice(index);
    found.push({
      words,
      text: words.map((part) => part.text).join(' '),
      via: [...command.via, basename(program)],
      cwds: command.cwds,
      ...(command.pipe ? { pipe: command.pipe } : {}),
    });
  }
  return found;
}
