/**
 * Where each statement of a TOML file is, as text: table headers and key/value lines with their
 * dotted keys and offsets. Only run on text that a TOML parser has accepted, so it need not
 * report errors; it must only never mistake a bracket inside a string or a multi-line value for a
 * header. Comments and blank lines are not statements: they stay where they are.
 */

export interface TomlStatement {
  kind: 'table' | 'arrayTable' | 'keyValue';
  /** The header's key, or the key/value's key relative to its table, unquoted. */
  key: string[];
  /** Offset of the start of its first line. */
  start: number;
  /** Offset just past its last line's line break (or the end of the text). */
  end: number;
}

const BARE_KEY = /[A-Za-z0-9_-]+/y;

export function scanTomlStatements(text: string): TomlStatement[] {
  const statements: TomlStatement[] = [];
  let i = 0;
  const n = text.length;

  const skipBlanks = (): void => {
    while (i < n && (text[i] === ' ' || text[i] === '\t')) i++;
  };
  // Past the rest of the line (a comment included) and its line break.
  const skipLine = (): void => {
    while (i < n && text[i] !== '\n') i++;
    if (i < n) i++;
  };
  const readBasic = (): string => {
    let value = '';
    i++;
    while (i < n && text[i] !== '"') {
      if (text[i] === '\\') {
        value += unescape(text.slice(i, i + 10));
        i += escapeLength(text, i);
      } else value += text[i++];
    }
    i++;
    return value;
  };
  const readLiteral = (): string => {
    const close = text.indexOf("'", i + 1);
    const value = text.slice(i + 1, close);
    i = close + 1;
    return value;
  };
  const skipMultiline = (quote: string): void => {
    i += 3;
    while (i < n) {
      if (quote === '"' && text[i] === '\\') i += 2;
      else if (text.startsWith(quote.repeat(3), i)) {
        i += 3;
        // A closing delimiter may be preceded by up to two quotes of the content: """a""""".
        for (let extra = 0; extra < 2 && text[i] === quote; extra++) i++;
        return;
      } else i++;
    }
  };
  const skipString = (): void => {
    if (text.startsWith('"""', i)) skipMultiline('"');
    else if (text.startsWith("'''", i)) skipMultiline("'");
    else if (text[i] === '"') readBasic();
    else readLiteral();
  };
  const readKey = (): string[] => {
    const parts: string[] = [];
    for (;;) {
      skipBlanks();
      if (text[i] === '"') parts.push(readBasic());
      else if (text[i] === "'") parts.push(readLiteral());
      else {
        BARE_KEY.lastIndex = i;
        const bare = BARE_KEY.exec(text)?.[0] ?? '';
        parts.push(bare);
        i += Math.max(bare.length, 1);
      }
      skipBlanks();
      if (text[i] !== '.') return parts;
      i++;
    }
  };
  const skipValue = (): void => {
    skipBlanks();
    if (text[i] === '"' || text[i] === "'") return skipString();
    if (text[i] !== '[' && text[i] !== '{') {
      while (i < n && text[i] !== '\n' && text[i] !== '#') i++;
      return;
    }
    let depth = 0;
    do {
      const c = text[i];
      if (c === '[' || c === '{') {
        depth++;
        i++;
      } else if (c === ']' || c === '}') {
        depth--;
        i++;
      } else if (c === '"' || c === "'") skipString();
      else if (c === '#') while (i < n && text[i] !== '\n') i++;
      else i++;
    } while (depth > 0 && i < n);
  };

  while (i < n) {
    const start = i;
    skipBlanks();
    if (i >= n) break;
    const c = text[i];
    if (c === '\n' || c === '\r' || c === '#') {
      skipLine();
      continue;
    }
    if (c === '[') {
      const array = text[i + 1] === '[';
      i += array ? 2 : 1;
      const key = readKey();
      skipLine();
      statements.push({ kind: array ? 'arrayTable' : 'table', key, start, end: i });
      continue;
    }
    const key = readKey();
    i++; // '='
    skipValue();
    skipLine();
    statements.push({ kind: 'keyValue', key, start, end: i });
  }
  return statements;
}

/** Characters an escape at `at` takes: \uXXXX, \UXXXXXXXX, \xHH (TOML 1.1), else two. */
function escapeLength(text: string, at: number): number {
  switch (text[at + 1]) {
    case 'u':
      return 6;
    case 'U':
      return 10;
    case 'x':
      return 4;
    default:
      return 2;
  }
}

const SIMPLE_ESCAPES: Record<string, string> = { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', e: '\x1b', '"': '"', '\\': '\\' };

function unescape(escape: string): string {
  const kind = escape[1];
  if (kind === 'u' || kind === 'U' || kind === 'x') {
    const hex = escape.slice(2, escapeLength(escape, 0));
    return String.fromCodePoint(parseInt(hex, 16));
  }
  return SIMPLE_ESCAPES[kind] ?? escape.slice(0, 2);
}
