/**
 * Sets Switchboard's entry in a TOML config file (Codex's config.toml) and leaves the rest of the
 * text as the person wrote it: comments, order, other tables, formatting. smol-toml parses and
 * validates; the edit itself is a splice of the `[<table>.<name>]` table's launch-key lines, or a
 * new table at the end, and the result must parse to exactly the old data with only the entry
 * changed, or nothing is written (docs/decisions.md, "Host configs").
 */
import { parse, TomlError } from 'smol-toml';
import { applySplices, ConfigEditRefused, lineBreakOf, planEntry, type EntryEdit, type Splice } from './entryEdit.js';
import { asRecord, sameData } from './sameData.js';
import { scanTomlStatements, type TomlStatement } from './tomlStatements.js';

interface TomlEntryTarget {
  /** The table holding servers by name (`mcp_servers`). */
  table: string;
  name: string;
  entry: Record<string, unknown>;
  launchKeys: readonly string[];
}

export function setTomlEntry(text: string, target: TomlEntryTarget): EntryEdit {
  const { table, name, entry, launchKeys } = target;
  const before = parseToml(text);
  const servers = before[table];
  if (servers !== undefined && asRecord(servers) === undefined)
    throw new ConfigEditRefused(`"${table}" is not a table; Switchboard adds its entry only to a [${table}] table`);
  const existing = asRecord(servers)?.[name];
  if (existing !== undefined && asRecord(existing) === undefined) throw new ConfigEditRefused(`"${table}.${name}" is not a table`);
  const plan = planEntry(existing, entry, launchKeys);
  if (plan.upToDate) return { text, outcome: 'unchanged' };

  const eol = lineBreakOf(text);
  const path = [table, name];
  const statements = scanTomlStatements(text);
  const header = statements.find((s) => s.kind === 'table' && sameKey(s.key, path));
  const splices = [
    ...launchKeyLines(statements, header, path, launchKeys),
    header ? underHeader(text, header, entry, eol) : appendTable(text, path, entry, eol),
  ];
  const after = applySplices(text, splices);

  const expected = parseToml(text);
  const expectedServers = asRecord(expected[table]) ?? {};
  expectedServers[name] = plan.merged;
  expected[table] = expectedServers;
  let result: Record<string, unknown> | undefined;
  try {
    result = parse(after);
  } catch {
    result = undefined;
  }
  if (result === undefined || !sameData(result, expected)) throw new ConfigEditRefused(whyNotInPlace(path, header !== undefined, existing !== undefined));
  return { text: after, outcome: existing === undefined ? 'added' : 'updated' };
}

function whyNotInPlace(path: string[], hadHeader: boolean, hadEntry: boolean): string {
  const table = `[${path.join('.')}]`;
  if (hadHeader) return `its ${table} table could not be edited in place without changing something else in the file`;
  const written = hadEntry ? `its "${path.join('.')}" entry is` : `"${path[0]}" is`;
  return `${written} written as an inline table or with dotted keys, which Switchboard does not rewrite (it edits a ${table} table in place, or adds one at the end)`;
}

/** The entry as a TOML table: `[a.b]` and one `key = value` line per key (`env` inline). */
export function tomlTableText(path: string[], entry: Record<string, unknown>, eol: string): string {
  return `[${path.map(tomlKey).join('.')}]${eol}${entryLines(entry, eol)}`;
}

function parseToml(text: string): Record<string, unknown> {
  try {
    return parse(text);
  } catch (error) {
    if (error instanceof TomlError) {
      const reason = error.message.split('\n')[0].replace(/^Invalid TOML document: /, '');
      throw new ConfigEditRefused(`line ${error.line}, column ${error.column}: ${reason} (it does not parse as TOML)`);
    }
    throw error;
  }
}

/**
 * The lines that give the entry's launch keys today: those under its `[table.name]` header, and
 * subtables of a launch key such as `[table.name.env]`. Every other line stays.
 */
function launchKeyLines(statements: TomlStatement[], header: TomlStatement | undefined, path: string[], launchKeys: readonly string[]): Splice[] {
  const splices: Splice[] = [];
  statements.forEach((statement, index) => {
    if (statement.kind === 'keyValue') return;
    const next = statements.findIndex((s, i) => i > index && s.kind !== 'keyValue');
    const section = statements.slice(index + 1, next === -1 ? undefined : next);
    if (statement === header) {
      for (const line of section) if (launchKeys.includes(line.key[0])) splices.push({ start: line.start, end: line.end, text: '' });
    } else if (statement.key.length > path.length && sameKey(statement.key.slice(0, path.length), path) && launchKeys.includes(statement.key[path.length])) {
      // The subtable's header and its lines; comments after its last line stay for what follows.
      splices.push({ start: statement.start, end: (section.at(-1) ?? statement).end, text: '' });
    }
  });
  return splices;
}

/** The new launch-key lines, right under the existing header. */
function underHeader(text: string, header: TomlStatement, entry: Record<string, unknown>, eol: string): Splice {
  const headerEndsText = header.end === text.length && !text.endsWith('\n');
  return { start: header.end, end: header.end, text: (headerEndsText ? eol : '') + entryLines(entry, eol) };
}

function appendTable(text: string, path: string[], entry: Record<string, unknown>, eol: string): Splice {
  const separator = text.trim() === '' ? '' : `${text.endsWith('\n') ? '' : eol}${eol}`;
  return { start: text.length, end: text.length, text: separator + tomlTableText(path, entry, eol) };
}

function entryLines(entry: Record<string, unknown>, eol: string): string {
  return Object.entries(entry)
    .map(([key, value]) => `${tomlKey(key)} = ${tomlValue(value)}${eol}`)
    .join('');
}

function sameKey(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((part, i) => part === b[i]);
}

function tomlKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : tomlString(key);
}

function tomlValue(value: unknown): string {
  if (typeof value === 'string') return tomlString(value);
  if (Array.isArray(value)) return `[${value.map(tomlValue).join(', ')}]`;
  const record = asRecord(value);
  if (record) {
    const pairs = Object.entries(record).map(([key, item]) => `${tomlKey(key)} = ${tomlValue(item)}`);
    return pairs.length === 0 ? '{}' : `{ ${pairs.join(', ')} }`;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new Error(`cannot write ${typeof value} as TOML`);
}

/** A TOML basic string: quote, backslash and control characters escaped. */
function tomlString(value: string): string {
  let out = '"';
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0;
    if (char === '"' || char === '\\') out += `\\${char}`;
    else if (char === '\n') out += '\\n';
    else if (char === '\t') out += '\\t';
    else if (char === '\r') out += '\\r';
    else if (code < 0x20 || code === 0x7f) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += char;
  }
  return `${out}"`;
}
