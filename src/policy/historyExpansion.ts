/**
 * History expansion (docs/design.md §2.9): an interactive bash or zsh replaces `!!`, `!-2`,
 * `!rm`, `!?x?`, `!$` and a leading `^old^new` with lines from its history before it parses the
 * line, and that history holds the person's own commands (the shell loads their history file).
 * The engine cannot see what they recall, so a line typed into a shell that holds one is a line
 * it cannot see. Bash's rules, kept strict: `!` starts an expansion unless a blank, `=`, `(` or
 * the end follows it, it is inside single quotes or escaped, or it is bash's `$!`, `${!x}` or a
 * glob's `[!…]`.
 */
export function historyExpansion(line: string): string | null {
  if (/^\s*\^/.test(line)) return line.trim().split(/\s/)[0] ?? '^';
  let quote: "'" | '"' | null = null;
  for (let at = 0; at < line.length; at++) {
    const char = line[at];
    if (char === '\\' && quote !== "'") {
      at++;
      continue;
    }
    if (char === "'" && quote !== '"') quote = quote === "'" ? null : "'";
    else if (char === '"' && quote !== "'") quote = quote === '"' ? null : '"';
    if (char !== '!' || quote === "'") continue;
    const next = line[at + 1];
    const before = line[at - 1];
    if (next === undefined || /[\s=(]/.test(next) || (quote === '"' && next === '"')) continue;
    if (before === '$' || before === '[' || (before === '{' && line[at - 2] === '$')) continue;
    return line.slice(at, at + 1 + (/^[^\s;&|)]*/.exec(line.slice(at + 1))?.[0].length ?? 0));
  }
  return null;
}
