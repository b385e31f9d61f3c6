/**
 * Agent-supplied text (commands, paths, titles, names) reaches the page only as text: the
 * views are lit-html templates, whose values become text nodes and attribute values, never
 * markup. This keeps it so: no renderer module parses a string as HTML, and none imports
 * lit-html's escape hatches (unsafeHTML, unsafeSVG, unsafeMathML).
 */
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../../renderer/src');
const HTML_FROM_STRINGS =
  /\b(innerHTML|outerHTML|insertAdjacentHTML|createContextualFragment|DOMParser|document\.write|unsafeHTML|unsafeSVG|unsafeMathML|srcdoc)\b|directives\/unsafe-/;

describe('the renderer builds no markup from strings', () => {
  const files = readdirSync(SRC).filter((name) => name.endsWith('.ts'));

  it('looks at every module', () => {
    expect(files.length).toBeGreaterThan(20);
  });

  it.each(files)('%s', (name) => {
    const lines = readFileSync(path.join(SRC, name), 'utf8').split('\n');
    const found = lines.flatMap((line, index) => (HTML_FROM_STRINGS.test(line) ? [`${name}:${index + 1}: ${line.trim()}`] : []));
    expect(found).toEqual([]);
  });
});
