import { runsLine, type Inner } from './inner.js';
import type { Word } from './words.js';

/**
 * What git runs from its configuration (docs/design.md §2.9), where the line itself sets it:
 * `git -c alias.x='!cmd' x` runs cmd, `git -c alias.p='push --force' p` is a force push,
 * `git -c core.pager='cmd' log` pipes into cmd; `git config alias.x '!cmd'` stores a line the
 * next `git x` runs, so it is judged where it is set, as a function's body is. A value known
 * only when the line runs, or a key that points git at files (`include.path`, `core.hooksPath`),
 * hides what runs.
 */

/** Keys whose value git runs as a line of shell (section and name lower-case; `*` a subsection). */
const SHELL_KEYS = [
  'core.pager',
  'core.editor',
  'core.sshcommand',
  'core.askpass',
  'core.fsmonitor',
  'core.gitproxy',
  'core.alternaterefscommand',
  'sequence.editor',
  'diff.external',
  'diff.*.command',
  'diff.*.textconv',
  'merge.*.driver',
  'mergetool.*.cmd',
  'difftool.*.cmd',
  'filter.*.clean',
  'filter.*.smudge',
  'filter.*.process',
  'gpg.program',
  'gpg.*.program',
  'pager.*',
  'interactive.difffilter',
  'uploadpack.packobjectshook',
  'remote.*.receivepack',
  'remote.*.uploadpack',
  'web.browser',
  'browser.*.cmd',
  'browser.*.path',
  'man.viewer',
  'man.*.cmd',
  'man.*.path',
  'instaweb.httpd',
  'trailer.*.command',
  'trailer.*.cmd',
  'sendemail.smtpserver',
  'sendemail.tocmd',
  'sendemail.cccmd',
  'sendemail.*.smtpserver',
  'credential.helper',
  'credential.*.helper',
  'submodule.*.update',
].map(keyPattern);
/** Keys that make git read files or run programs the engine cannot see. */
const HIDDEN_KEYS = ['include.path', 'includeif.*.path', 'core.hookspath', 'remote.*.vcs'].map(keyPattern);

/** Values of boolean-or-command keys (`pager.log=false`, `core.fsmonitor=true`) that run nothing. */
const BOOLEAN = /^(true|false|yes|no|on|off|1|0|)$/i;

const GLOBAL_VALUE_OPTIONS = new Set(['-C', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--exec-path', '--attr-source', '--list-cmds']);
const CONFIG_VALUE_OPTIONS = new Set(['-f', '--file', '--blob', '--type', '--default', '--comment', '--value']);
const CONFIG_READ_OPTIONS = /^--(get|get-all|get-regexp|get-urlmatch|get-color|get-colorbool|list|unset|unset-all|remove-section|rename-section|edit)$|^-[le]$/;

function keyPattern(key: string): RegExp {
  return new RegExp(`^${key.replace(/\./g, '\\.').replace(/\*/g, '.+')}$`);
}

/** What `git …` runs from configuration the line gives it. */
export function gitRuns(args: readonly Word[]): Inner[] {
  const inners: Inner[] = [];
  const aliases = new Map<string, string | null>();
  let index = 0;
  for (; index < args.length; index++) {
    const word = args[index] as Word;
    const value = word.value;
    if (value === null) return [...inners, { kind: 'hidden', reason: `git ${word.text}: an option known only when the line runs may set what git runs` }];
    if (!value.startsWith('-')) break;
    if (value === '-c' || value === '--config-env' || value.startsWith('--config-env=')) {
      const pair = value.startsWith('--config-env=') ? value.slice('--config-env='.length) : (args[++index]?.value ?? null);
      inners.push(...configPair(pair, value === '-c' ? 'value' : 'environment', aliases));
    } else if (value === '--exec-path' || value.startsWith('--exec-path=')) {
      // git runs its subcommands from that folder: programs the engine cannot see.
      if (value === '--exec-path' ? args[index + 1] !== undefined : true)
        inners.push({ kind: 'hidden', reason: 'git --exec-path runs its commands from a folder the line names' });
      if (value === '--exec-path') index++;
    } else if (GLOBAL_VALUE_OPTIONS.has(value)) index++;
  }
  const subcommand = args[index];
  if (!subcommand) return inners;
  const rest = args.slice(index + 1);
  if (subcommand.value === null)
    return aliases.size > 0
      ? [...inners, { kind: 'hidden', reason: `git runs ${subcommand.text}, known only when the line runs, with aliases the line sets` }]
      : inners;
  const alias = aliases.get(subcommand.value.toLowerCase());
  if (alias !== undefined) inners.push(aliasRuns(subcommand.value, alias, args.slice(0, index), rest));
  else if (subcommand.value === 'config') inners.push(...configSet(rest));
  return inners;
}

/** `key=value` given to `git -c` (or `--config-env=key=VAR`, whose value is in the environment). */
function configPair(pair: string | null, source: 'value' | 'environment', aliases: Map<string, string | null>): Inner[] {
  if (pair === null) return [{ kind: 'hidden', reason: 'git -c sets a key known only when the line runs' }];
  const equals = pair.indexOf('=');
  const key = (equals < 0 ? pair : pair.slice(0, equals)).toLowerCase();
  const value = source === 'environment' ? null : equals < 0 ? 'true' : pair.slice(equals + 1);
  if (key.startsWith('alias.')) {
    aliases.set(key.slice('alias.'.length), value);
    return [];
  }
  return keyRuns(key, value, 'git -c');
}

/** What a config key set to `value` (null: unknown) makes git run. */
function keyRuns(key: string, value: string | null, how: string): Inner[] {
  if (HIDDEN_KEYS.some((pattern) => pattern.test(key)))
    return [{ kind: 'hidden', reason: `${how} ${key} makes git run what files hold, which the engine cannot see` }];
  if (!SHELL_KEYS.some((pattern) => pattern.test(key))) return [];
  if (value === null) return [{ kind: 'hidden', reason: `${how} ${key} sets a command known only when the line runs` }];
  if (BOOLEAN.test(value) && (key.startsWith('pager.') || key === 'core.fsmonitor')) return [];
  if (key.endsWith('.update') || key.endsWith('helper')) {
    // submodule.x.update and credential helpers run a shell line only after `!` (a helper also as a path).
    if (value.startsWith('!')) return [runsLine(`${how} ${key}`, value.slice(1), '')];
    return value.startsWith('/') ? [runsLine(`${how} ${key}`, value, '')] : [];
  }
  return [runsLine(`${how} ${key}`, value, '')];
}

/** `git x args` where the line set alias.x: `!cmd` runs `cmd args` in a shell, else `git <alias> args`. */
function aliasRuns(name: string, alias: string | null, globalOptions: readonly Word[], rest: readonly Word[]): Inner {
  if (alias === null) return { kind: 'hidden', reason: `git ${name} runs an alias known only when the line runs` };
  const args = rest.map((word) => word.text).join(' ');
  if (alias.startsWith('!')) return runsLine(`git alias ${name}`, `${alias.slice(1)} ${args}`.trim(), '');
  // The options come along, so an alias of an alias is followed (bounded by the engine's depth).
  return runsLine(`git alias ${name}`, ['git', ...globalOptions.map((word) => word.text), alias, args].filter(Boolean).join(' '), '');
}

/** `git config [options] name value` (and `git config set name value`) storing a key that runs something. */
function configSet(args: readonly Word[]): Inner[] {
  const operands: Word[] = [];
  for (let index = 0; index < args.length; index++) {
    const word = args[index] as Word;
    const value = word.value;
    if (value !== null && CONFIG_READ_OPTIONS.test(value)) return [];
    if (value !== null && CONFIG_VALUE_OPTIONS.has(value)) {
      index++;
      continue;
    }
    if (value !== null && value.startsWith('-') && value.length > 1) continue;
    operands.push(word);
  }
  if (operands[0]?.value === 'set') operands.shift();
  const [name, value] = operands;
  if (!name || !value) return [];
  if (name.value === null) return [{ kind: 'hidden', reason: `git config sets ${name.text}, known only when the line runs` }];
  const key = name.value.toLowerCase();
  if (key.startsWith('alias.')) {
    if (value.value === null) return [{ kind: 'hidden', reason: `git config ${key} sets an alias known only when the line runs` }];
    // Judged where it is set: the next `git <name>` runs it.
    return [value.value.startsWith('!') ? runsLine(`git config ${key}`, value.value.slice(1), '') : runsLine(`git config ${key}`, `git ${value.value}`, '')];
  }
  return keyRuns(key, value.value, 'git config');
}
