/**
 * Switchboard's entry in a JSON or JSONC host file: one splice, every other byte kept, the result
 * checked the way the host parses it (docs/decisions.md, "Host configs").
 */
import { parse } from 'jsonc-parser';
import { describe, expect, it } from 'vitest';
import { setJsonEntry, type JsonEntryTarget } from '../../../../src/hub/hostConfig/jsonEntryEditor.js';
import { changedRegion } from '../../../integration/helpers/changedRegion.js';

const LAUNCH_KEYS = ['type', 'command', 'args', 'env', 'cwd', 'url', 'headers'];
const entry = { command: '/opt/node/bin/node', args: ['/home/me/switchboard/bin/switchboard.js', 'mcp'] };
const plain: JsonEntryTarget = { comments: false, trailingCommas: false, key: 'mcpServers', name: 'switchboard', entry, launchKeys: LAUNCH_KEYS };
const zed: JsonEntryTarget = { ...plain, comments: true, trailingCommas: true, key: 'context_servers' };
const gemini: JsonEntryTarget = { ...plain, comments: true };

function data(text: string): Record<string, unknown> {
  return parse(text, [], { allowTrailingComma: true }) as Record<string, unknown>;
}

describe('setJsonEntry', () => {
  it('inserts after the last server, indented like it, and changes nothing else', () => {
    const before = '{\n    "numStartups": 3,\n    "mcpServers": {\n        "other": {"command": "other", "args": []}\n    },\n    "tipsHistory": {}\n}\n';
    const edit = setJsonEntry(before, plain);
    expect(edit.outcome).toBe('added');
    const region = changedRegion(before, edit.text);
    expect(region.start).toBe(region.end);
    expect(region.inserted).toBe(
      ',\n        "switchboard": {\n            "command": "/opt/node/bin/node",\n            "args": [\n                "/home/me/switchboard/bin/switchboard.js",\n                "mcp"\n            ]\n        }',
    );
    expect(data(edit.text)).toEqual({ numStartups: 3, mcpServers: { other: { command: 'other', args: [] }, switchboard: entry }, tipsHistory: {} });
  });

  it('keeps comments and trailing commas where a JSONC host allows them (Zed)', () => {
    const before = `// Zed settings
{
  "theme": "One Dark", // mine
  "context_servers": {
    /* a server I wrote */
    "notes": { "command": "notes-server", "args": [] }, // trailing comma next
  },
  "vim_mode": true,
}
`;
    const edit = setJsonEntry(before, zed);
    const region = changedRegion(before, edit.text);
    expect(region.start).toBe(region.end);
    expect(edit.text).toContain('    "notes": { "command": "notes-server", "args": [] }, // trailing comma next\n    "switchboard": {\n');
    expect(data(edit.text)).toEqual({
      theme: 'One Dark',
      context_servers: { notes: { command: 'notes-server', args: [] }, switchboard: entry },
      vim_mode: true,
    });
  });

  it('adds the servers key to a file without one, in the file’s own indentation and line breaks', () => {
    const before = '{\r\n\t"theme": "light"\r\n}\r\n';
    const edit = setJsonEntry(before, plain);
    expect(edit.text).toBe(
      '{\r\n\t"theme": "light",\r\n\t"mcpServers": {\r\n\t\t"switchboard": {\r\n\t\t\t"command": "/opt/node/bin/node",\r\n\t\t\t"args": [\r\n\t\t\t\t"/home/me/switchboard/bin/switchboard.js",\r\n\t\t\t\t"mcp"\r\n\t\t\t]\r\n\t\t}\r\n\t}\r\n}\r\n',
    );
  });

  it('fills an empty servers object, and keeps a one-line object on one line', () => {
    expect(data(setJsonEntry('{ "mcpServers": {} }', plain).text)).toEqual({ mcpServers: { switchboard: entry } });
    const oneLine = '{"mcpServers": {"a": {"command": "a"}}}';
    const edit = setJsonEntry(oneLine, plain);
    expect(edit.text).toBe(`{"mcpServers": {"a": {"command": "a"}, "switchboard": ${JSON.stringify(entry)}}}`);
  });

  it('creates the document in an empty file, after any comments', () => {
    expect(JSON.parse(setJsonEntry('', plain).text)).toEqual({ mcpServers: { switchboard: entry } });
    const edit = setJsonEntry('// my settings\n', zed);
    expect(edit.text.startsWith('// my settings\n{\n')).toBe(true);
    expect(data(edit.text)).toEqual({ context_servers: { switchboard: entry } });
  });

  it('updates an older entry in place, keeping the person’s own keys (Gemini’s trust)', () => {
    const head = '{\n  // servers\n  "mcpServers": {\n    "switchboard": ';
    const old = '{ "command": "/usr/bin/node", "args": ["/old/bin/switchboard.js", "mcp"], "env": { "SWITCHBOARD_HOME": "/old" }, "trust": true }';
    const tail = ',\n    "other": { "command": "x" }\n  }\n}\n';
    const before = head + old + tail;
    const edit = setJsonEntry(before, gemini);
    expect(edit.outcome).toBe('updated');
    const region = changedRegion(before, edit.text);
    expect(region.start).toBeGreaterThanOrEqual(head.length);
    expect(region.end).toBeLessThanOrEqual(head.length + old.length);
    expect((data(edit.text).mcpServers as Record<string, unknown>).switchboard).toEqual({ ...entry, trust: true });
    const again = setJsonEntry(edit.text, gemini);
    expect(again.outcome).toBe('unchanged');
    expect(again.text).toBe(edit.text);
  });

  it('refuses what the host could not read, naming the line, and what it cannot edit safely', () => {
    expect(() => setJsonEntry('{\n  // mine\n  "mcpServers": {}\n}\n', plain)).toThrow(/^line 2, column 3: a comment, .*plain JSON/);
    expect(() => setJsonEntry('{\n  "mcpServers": {},\n}\n', gemini)).toThrow(/^line 3, column 1: a trailing comma/);
    expect(() => setJsonEntry('{\n  "a": 1\n  "b": 2\n}', zed)).toThrow(/^line 3, column 3: a comma was expected/);
    expect(() => setJsonEntry('[1, 2]', plain)).toThrow(/does not hold a JSON object/);
    expect(() => setJsonEntry('{"mcpServers": []}', plain)).toThrow(/"mcpServers" is not an object/);
    expect(() => setJsonEntry('{"mcpServers": {},\n "mcpServers": {"x": {}}}', plain)).toThrow(/^line 2: "mcpServers" appears a second time/);
  });
});
