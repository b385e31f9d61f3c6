import type { SyntaxNode } from './shellParser.js';

/** One word of a simple command, as the program would receive it. */
export interface Word {
  /**
   * After quote removal and escapes, as the shell passes it; null when only running the line
   * would tell (`$X`, `$(…)`, `` `…` ``, `<(…)`, arithmetic, a brace expansion `{a,b}`).
   */
  value: string | null;
  /** As written on the line. */
  text: string;
  /** Has unquoted `*`, `?` or `[`: the shell may expand it into file names. */
  glob: boolean;
  /** Unknown, but surely not an option: `find -exec`'s `{}` is a path find found. */
  path?: true;
}

/**
 * A word the engine adds itself (`xargs`' arguments from its input, `find -exec`'s `{}`):
 * unknown, and standing for any number of words, options among them unless `path`.
 */
export function unknownWord(text: string, path = false): Word {
  return { value: null, text, glob: false, ...(path ? { path: true as const } : {}) };
}

export function literalWord(value: string): Word {
  return { value, text: value, glob: false };
}

const DYNAMIC = new Set(['simple_expansion', 'expansion', 'command_substitution', 'process_substitution', 'arithmetic_expansion', 'brace_expression']);

/** The word a node of tree-sitter-bash stands for (a `word`, `string`, `concatenation`, …). */
export function evaluateWord(node: SyntaxNode): Word {
  const parts = { value: '' as string | null, unquoted: '', glob: false };
  addPart(node, parts);
  // Brace expansion (`{rm,-rf}` or `x{1..3}`): the grammar leaves most of it as plain words.
  if (parts.value !== null && /\{[^{}]*(,|\.\.)[^{}]*\}/.test(parts.unquoted)) parts.value = null;
  return { value: parts.value, text: node.text, glob: parts.glob };
}

function addPart(node: SyntaxNode, parts: { value: string | null; unquoted: string; glob: boolean }): void {
  const append = (text: string | null): void => {
    parts.value = parts.value === null || text === null ? null : parts.value + text;
  };
  if (DYNAMIC.has(node.type)) {
    append(null);
    return;
  }
  switch (node.type) {
    case 'word': {
      const text = unescapeUnquoted(node.text);
      if (/(^|[^\\])[*?[]/.test(node.text)) parts.glob = true;
      parts.unquoted += node.text;
      append(text);
      return;
    }
    case 'number':
      parts.unquoted += node.text;
      append(node.text);
      return;
    case 'raw_string':
      parts.unquoted += '_';
      append(node.text.slice(1, -1));
      return;
    case 'ansi_c_string':
      parts.unquoted += '_';
      append(decodeAnsiC(node.text.slice(2, -1)));
      return;
    case 'string':
      parts.unquoted += '_';
      for (const child of node.children) {
        if (!child || child.type === '"') continue;
        if (child.type === 'string_content') append(unescapeDoubleQuoted(child.text));
        else append(null);
      }
      return;
    case 'translated_string':
    case 'concatenation':
      for (const child of node.children) {
        if (child && child.type !== '$') addPart(child, parts);
      }
      return;
    default:
      append(null);
  }
}

/** Backslashes outside quotes: `\x` is `x`, a backslash-newline is nothing. */
function unescapeUnquoted(text: string): string {
  return text.replace(/\\(\n|.)/gs, (_all, char: string) => (char === '\n' ? '' : char));
}

/** Inside double quotes a backslash escapes only `$`, `` ` ``, `"`, `\` and newline. */
function unescapeDoubleQuoted(text: string): string {
  return text.replace(/\\([$`"\\\n])/g, (_all, char: string) => (char === '\n' ? '' : char));
}

const ANSI_C: Record<string, string> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
};

/** The inside of `$'…'` as bash reads it (`$'\x72m'` is `rm`). */
export function decodeAnsiC(body: string): string {
  return body.replace(/\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/gs, (all, escape: string) => {
    const kind = escape[0] ?? '';
    if (kind === 'x' || kind === 'u' || kind === 'U') {
      const point = Number.parseInt(escape.slice(1), 16);
      return point <= 0x10ffff ? String.fromCodePoint(point) : all;
    }
    if (/[0-7]/.test(kind)) return String.fromCharCode(Number.parseInt(escape, 8) & 0xff);
    if (kind === 'c') return String.fromCharCode((escape.charCodeAt(1) & 0x1f) >>> 0);
    return ANSI_C[kind] ?? all;
  });
}
