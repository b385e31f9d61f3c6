/**
 * Sets Switchboard's entry in a JSON config file, plain or with comments (JSONC), and leaves every
 * other byte as the person wrote it: jsonc-parser (VS Code's own) finds where things are, and the
 * edit is one splice, the new entry inserted after the last server or the old entry's value
 * replaced. The result must parse, the way the host parses, to exactly the old data with only the
 * entry changed, or nothing is written (docs/decisions.md, "Host configs").
 */
import { createScanner, getNodeValue, parse, parseTree, printParseErrorCode, SyntaxKind, type Node, type ParseError, type ParseOptions } from 'jsonc-parser';
import { applySplices, ConfigEditRefused, lineAndColumn, lineBreakOf, planEntry, type EntryEdit, type Splice } from './entryEdit.js';
import { asRecord, sameData } from './sameData.js';

export interface JsonEntryTarget {
  /** What the host's parser accepts beyond plain JSON. */
  comments: boolean;
  trailingCommas: boolean;
  /** The top-level key holding servers by name (`mcpServers`, `servers`, `context_servers`). */
  key: string;
  name: string;
  entry: Record<string, unknown>;
  launchKeys: readonly string[];
}

interface Style {
  eol: string;
  /** One level of indentation: the file's own. */
  unit: string;
}

export function setJsonEntry(text: string, target: JsonEntryTarget): EntryEdit {
  const { key, name, entry, launchKeys } = target;
  const options: ParseOptions = { disallowComments: !target.comments, allowTrailingComma: target.trailingCommas, allowEmptyContent: true };
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, options);
  if (errors.length > 0) throw new ConfigEditRefused(describeError(text, errors[0], target));
  const style: Style = { eol: lineBreakOf(text), unit: indentUnit(text) };

  if (root === undefined) {
    // Empty, or only comments: the object goes after whatever is there.
    const plan = planEntry(undefined, entry, launchKeys);
    const lead = text.trim() === '' ? '' : `${text}${text.endsWith('\n') ? '' : style.eol}`;
    const fresh = `${lead}{${style.eol}${style.unit}${JSON.stringify(key)}: ${pretty({ [name]: plan.merged }, style.unit, style)}${style.eol}}${style.eol}`;
    return checked(text, fresh, options, key, name, plan.merged, 'added');
  }
  if (root.type !== 'object') throw new ConfigEditRefused('the file does not hold a JSON object');
  const serversProperty = onlyProperty(text, root, key, `"${key}"`);
  const servers = serversProperty?.children?.[1];
  if (servers !== undefined && servers.type !== 'object') throw new ConfigEditRefused(`"${key}" is not an object`);
  const entryProperty = servers ? onlyProperty(text, servers, name, `"${key}.${name}"`) : undefined;
  const existing: unknown = entryProperty?.children?.[1] ? getNodeValue(entryProperty.children[1]) : undefined;
  const plan = planEntry(existing, entry, launchKeys);
  if (plan.upToDate) return { text, outcome: 'unchanged' };

  let splices: Splice[];
  if (entryProperty?.children?.[1]) {
    const value = entryProperty.children[1];
    const indent = lineIndentBefore(text, entryProperty.offset) ?? style.unit.repeat(2);
    splices = [{ start: value.offset, end: value.offset + value.length, text: pretty(plan.merged, indent, style) }];
  } else if (servers) {
    splices = insertProperty(text, servers, name, plan.merged, style);
  } else {
    splices = insertProperty(text, root, key, { [name]: plan.merged }, style);
  }
  return checked(text, applySplices(text, splices), options, key, name, plan.merged, entryProperty ? 'updated' : 'added');
}

/** The edited text parses to the old data with only the entry changed, or it is refused. */
function checked(
  text: string,
  after: string,
  options: ParseOptions,
  key: string,
  name: string,
  merged: Record<string, unknown>,
  outcome: EntryEdit['outcome'],
): EntryEdit {
  const expected = asRecord(parse(text, [], options)) ?? {};
  expected[key] = { ...(asRecord(expected[key]) ?? {}), [name]: merged };
  const errors: ParseError[] = [];
  const result: unknown = parse(after, errors, options);
  if (errors.length > 0 || !sameData(result, expected)) {
    throw new ConfigEditRefused(`the "${key}.${name}" entry could not be written in place without changing something else in the file`);
  }
  return { text: after, outcome };
}

/** The one property of `object` named `name`; two of them are refused (which one counts differs by host). */
function onlyProperty(text: string, object: Node, name: string, label: string): Node | undefined {
  const matches = (object.children ?? []).filter((property) => property.children?.[0]?.value === name);
  if (matches.length > 1) {
    const { line } = lineAndColumn(text, matches[1].offset);
    throw new ConfigEditRefused(`line ${line}: ${label} appears a second time in the same object; keep one`);
  }
  return matches[0];
}

/**
 * A new property at the end of `object`, on its own line after the last one (after any comma and
 * comment that end that line), indented like it; a one-line object stays on one line.
 */
function insertProperty(text: string, object: Node, name: string, value: unknown, style: Style): Splice[] {
  const open = object.offset;
  const close = object.offset + object.length - 1;
  const properties = object.children ?? [];
  const objectIndent = lineIndentAt(text, open);
  if (properties.length === 0) {
    const inner = objectIndent + style.unit;
    const property = `${style.eol}${inner}${JSON.stringify(name)}: ${pretty(value, inner, style)}`;
    const inside = text.slice(open + 1, close);
    if (inside.trim() === '' && !/[\r\n]/.test(inside)) return [{ start: open + 1, end: close, text: `${property}${style.eol}${objectIndent}` }];
    return [{ start: open + 1, end: open + 1, text: property }];
  }
  const last = properties[properties.length - 1];
  const lastEnd = last.offset + last.length;
  const scanner = createScanner(text, false);
  scanner.setPosition(lastEnd);
  let comma = -1;
  let lineBreak = -1;
  for (let token = scanner.scan(); token !== SyntaxKind.EOF; token = scanner.scan()) {
    if (token === SyntaxKind.CommaToken && comma === -1) comma = scanner.getTokenOffset();
    else if (token === SyntaxKind.LineBreakTrivia) {
      lineBreak = scanner.getTokenOffset();
      break;
    } else if (token !== SyntaxKind.Trivia && token !== SyntaxKind.LineCommentTrivia && token !== SyntaxKind.BlockCommentTrivia) break;
  }
  const compact = `${JSON.stringify(name)}: ${JSON.stringify(value)}`;
  if (lineBreak === -1) {
    // The closing brace is on the last property's line.
    return comma === -1 ? [{ start: lastEnd, end: lastEnd, text: `, ${compact}` }] : [{ start: comma + 1, end: comma + 1, text: ` ${compact},` }];
  }
  const indent = lineIndentBefore(text, last.offset) ?? objectIndent + style.unit;
  const property = `${style.eol}${indent}${JSON.stringify(name)}: ${pretty(value, indent, style)}${comma === -1 ? '' : ','}`;
  const splices: Splice[] = [{ start: lineBreak, end: lineBreak, text: property }];
  // The comma first: both may go at the same offset, right after the last value.
  if (comma === -1) splices.unshift({ start: lastEnd, end: lastEnd, text: ',' });
  return splices;
}

/** `value` as indented JSON whose lines after the first start with `indent`. */
function pretty(value: unknown, indent: string, style: Style): string {
  return JSON.stringify(value, null, style.unit)
    .split('\n')
    .join(style.eol + indent);
}

/** The whitespace that starts the line holding `offset`. */
function lineIndentAt(text: string, offset: number): string {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart, offset))?.[0] ?? '';
}

/** The indentation before `offset` when only whitespace precedes it on its line. */
function lineIndentBefore(text: string, offset: number): string | undefined {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const before = text.slice(lineStart, offset);
  return /^[ \t]*$/.test(before) ? before : undefined;
}

/** The file's indentation step, from its first indented line (two spaces when it has none). */
function indentUnit(text: string): string {
  const first = /^([ \t]+)["}\]/]/m.exec(text)?.[1];
  if (first === undefined) return '  ';
  if (first.includes('\t')) return '\t';
  return ' '.repeat(Math.min(first.length, 8));
}

const ERROR_WORDS: Partial<Record<string, string>> = {
  InvalidCommentToken: 'a comment, which this file may not have (the host reads it as plain JSON)',
  UnexpectedEndOfComment: 'a comment that is not closed',
  UnexpectedEndOfString: 'a string that is not closed',
  PropertyNameExpected: 'a property name was expected here',
  ValueExpected: 'a value was expected here',
  ColonExpected: 'a colon was expected here',
  CommaExpected: 'a comma was expected here',
  CloseBraceExpected: 'a closing brace was expected here',
  CloseBracketExpected: 'a closing bracket was expected here',
  EndOfFileExpected: 'text after the end of the JSON value',
  InvalidSymbol: 'an unexpected character',
};

function describeError(text: string, error: ParseError, target: JsonEntryTarget): string {
  const { line, column } = lineAndColumn(text, error.offset);
  const code = printParseErrorCode(error.error);
  const trailingComma = (code === 'PropertyNameExpected' || code === 'ValueExpected') && /^\s*[}\]]/.test(text.slice(error.offset));
  const dialect = target.comments ? (target.trailingCommas ? 'JSON with comments' : 'JSON with comments (no trailing commas)') : 'plain JSON';
  const words = trailingComma ? 'a trailing comma, which this file may not have' : (ERROR_WORDS[code] ?? code);
  return `line ${line}, column ${column}: ${words} (it does not parse as ${dialect})`;
}
