import { runsLine, type Inner } from './inner.js';
import type { Word } from './words.js';

/**
 * Key bindings that type or run a line (docs/design.md §2.9): bash `bind -x '"\C-t": cmd'` runs
 * cmd when the key is pressed, a readline macro (`bind '"\C-t": "cmd\n"'`) types it, zsh
 * `bindkey -s '^T' 'cmd\n'` types it, fish `bind \ct 'cmd'` runs it. Each is judged where it is
 * set, as a function's body is: the keys that later press it are not a line the hub can read.
 * Bindings read from a file (`bind -f`) hide what they run.
 */
export function bindRuns(program: string, args: readonly Word[]): Inner[] {
  if (program === 'bindkey') return bindkey(args);
  const inners: Inner[] = [];
  const operands: Word[] = [];
  for (let index = 0; index < args.length; index++) {
    const value = args[index]?.value ?? null;
    if (value === '-f') return [{ kind: 'hidden', reason: 'bind -f reads key bindings from a file, which the engine cannot see' }];
    if (value === '-x' || value === '-m') {
      const binding = args[++index];
      if (value === '-x' && binding) inners.push(bindingRuns(binding, true));
      continue;
    }
    if (value !== null && value.startsWith('-') && value.length > 1) continue;
    if (args[index]) operands.push(args[index] as Word);
  }
  // bash: `"keys": function-or-"macro"`; fish: `bind KEYS command…`.
  if (operands.some((word) => word.value === null || word.value.includes(':'))) inners.push(...operands.map((word) => bindingRuns(word, false)));
  else if (operands.length >= 2)
    inners.push(
      runsLine(
        'fish bind',
        operands
          .slice(1)
          .map((word) => word.value)
          .join(' '),
        '',
      ),
    );
  return inners;
}

/** One bash binding `"keys": value`: a -x command, or a macro string typed as keys. */
function bindingRuns(word: Word, command: boolean): Inner {
  if (word.value === null) return { kind: 'hidden', reason: `bind ${word.text} is known only when the line runs` };
  const colon = separator(word.value);
  if (colon < 0) return { kind: 'hidden', reason: `bind ${word.value} cannot be read, so what the key runs is not known` };
  const value = word.value.slice(colon + 1).trim();
  const quoted = /^(["'])([\s\S]*)\1$/.exec(value);
  // A function name (`forward-word`) is judged as a program name: harmless, and never allowed by mistake.
  const text = quoted ? readlineEscapes(quoted[2] as string) : value;
  return runsLine(command ? 'bind -x' : 'bind macro', text, '');
}

/** The colon after the key sequence (which may itself be quoted and hold a colon). */
function separator(binding: string): number {
  if (binding.startsWith('"')) {
    for (let at = 1; at < binding.length; at++) {
      if (binding[at] === '\\') at++;
      else if (binding[at] === '"') return binding.indexOf(':', at);
    }
    return -1;
  }
  return binding.indexOf(':');
}

/** zsh `bindkey -s in out`: out is typed when in is pressed. */
function bindkey(args: readonly Word[]): Inner[] {
  const string = args.findIndex((word) => word.value !== null && /^-[a-zA-Z]*s/.test(word.value) && !word.value.startsWith('--'));
  if (string < 0) return [];
  const out = args[string + 2];
  if (!out) return [];
  return [runsLine('bindkey -s', out.value === null ? null : readlineEscapes(out.value), `bindkey -s types ${out.text}, known only when the line runs`)];
}

/** `\n`, `\r`, `\C-m`, `^M`, `\e`: the keys a macro types, as the line they make (a newline ends a line). */
function readlineEscapes(text: string): string {
  return text
    .replace(/\\C-[mMjJ]|\^[MJ]|\\[nr]/g, '\n')
    .replace(/\\e|\\C-.|\^./g, ' ')
    .replace(/\\(.)/g, '$1');
}
