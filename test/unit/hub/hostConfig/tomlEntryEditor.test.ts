/**
 * Switchboard's entry in a TOML file (Codex's config.toml): the person's text is kept as written,
 * only the `[mcp_servers.switchboard]` table's launch keys change (docs/decisions.md, "Host configs").
 */
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { ConfigEditRefused } from '../../../../src/hub/hostConfig/entryEdit.js';
import { setTomlEntry, tomlTableText } from '../../../../src/hub/hostConfig/tomlEntryEditor.js';
import { changedRegion } from '../../../integration/helpers/changedRegion.js';

const LAUNCH_KEYS = ['command', 'args', 'env', 'env_vars', 'cwd', 'url'];
const entry = { command: '/opt/node/bin/node', args: ['/home/me/switchboard/bin/switchboard.js', 'mcp'] };
const target = { table: 'mcp_servers', name: 'switchboard', entry, launchKeys: LAUNCH_KEYS };

// A file as a person writes it: comments everywhere, odd spacing, other tables after the
// servers, and strings that look like table headers (which must not be taken for them).
const PERSONS_FILE = `# my Codex setup
model = "gpt-5.1"   # the default
approval_policy = "on-request"
notes = """
[mcp_servers.switchboard]
command = "not a table, a string"
"""
trusted = [
  "[mcp_servers.switchboard]", # still a string
  'literal ] with bracket',
]

[mcp_servers.docs]
command = "docs-server"
args = ["--port", "4000"]
env = { "API_KEY" = "value" }

# comments between tables stay too
[profiles.fast]
model    =    "o4-mini"
`;

describe('setTomlEntry', () => {
  it('adds the table at the end and leaves every byte before it as it was', () => {
    const edit = setTomlEntry(PERSONS_FILE, target);
    expect(edit.outcome).toBe('added');
    expect(edit.text.startsWith(PERSONS_FILE)).toBe(true);
    expect(edit.text.slice(PERSONS_FILE.length)).toBe(
      '\n[mcp_servers.switchboard]\ncommand = "/opt/node/bin/node"\nargs = ["/home/me/switchboard/bin/switchboard.js", "mcp"]\n',
    );
    const data = parse(edit.text) as { mcp_servers: Record<string, unknown>; notes: string };
    expect({ ...(data.mcp_servers.switchboard as object) }).toEqual(entry);
    expect(data.notes).toContain('not a table, a string');
  });

  it('says so, and returns the same text, when the entry is already there', () => {
    const once = setTomlEntry(PERSONS_FILE, target).text;
    const again = setTomlEntry(once, target);
    expect(again.outcome).toBe('unchanged');
    expect(again.text).toBe(once);
  });

  it('updates an older entry in place: launch keys replaced, the person’s own keys and approvals kept', () => {
    const head = `model = "o3"\n\n[mcp_servers.docs]\ncommand = "docs"\n\n`;
    const table = `[mcp_servers.switchboard]
# launched by the old checkout
command = "/usr/bin/node"
args = ["/old/switchboard/bin/switchboard.js", "mcp"]
tool_timeout_sec = 300
enabled = true

[mcp_servers.switchboard.env]
SWITCHBOARD_HOME = "/old/state"
`;
    const tail = `
# approvals Codex saved
[mcp_servers.switchboard.tools.execute]
approval_mode = "approve"

[profiles.fast]
model = "o4-mini"
`;
    const before = head + table + tail;
    const edit = setTomlEntry(before, target);
    expect(edit.outcome).toBe('updated');
    // Only the table (header to its env subtable's last line) changed.
    const region = changedRegion(before, edit.text);
    expect(region.start).toBeGreaterThanOrEqual(head.length);
    expect(region.end).toBeLessThanOrEqual(head.length + table.length);
    const data = parse(edit.text) as { mcp_servers: { switchboard: Record<string, unknown> } };
    expect(JSON.parse(JSON.stringify(data.mcp_servers.switchboard))).toEqual({
      ...entry,
      tool_timeout_sec: 300,
      enabled: true,
      tools: { execute: { approval_mode: 'approve' } },
    });
    expect(edit.text).toContain('# launched by the old checkout\n');
    expect(edit.text).toContain('# approvals Codex saved\n[mcp_servers.switchboard.tools.execute]\n');
    expect(setTomlEntry(edit.text, target).outcome).toBe('unchanged');
  });

  it('adds the table when only its subtables exist, dropping a launch-key subtable and keeping the rest', () => {
    const before = '[mcp_servers.switchboard.env]\nSWITCHBOARD_HOME = "/old"\n\n[mcp_servers.switchboard.tools.execute]\napproval_mode = "approve"\n';
    const edit = setTomlEntry(before, target);
    expect(edit.outcome).toBe('updated');
    expect(edit.text).toBe(
      `\n[mcp_servers.switchboard.tools.execute]\napproval_mode = "approve"\n\n${tomlTableText(['mcp_servers', 'switchboard'], entry, '\n')}`,
    );
  });

  it('finds a quoted header and keeps Windows line breaks', () => {
    const before = 'model = "o3"\r\n\r\n[ mcp_servers . "switchboard" ]\r\ncommand = "old"\r\n';
    const edit = setTomlEntry(before, { ...target, entry: { ...entry, env: { SWITCHBOARD_HOME: 'C:\\state "x"' } } });
    expect(edit.outcome).toBe('updated');
    expect(edit.text).not.toMatch(/[^\r]\n/);
    expect(edit.text.startsWith('model = "o3"\r\n\r\n[ mcp_servers . "switchboard" ]\r\n')).toBe(true);
    const data = parse(edit.text) as { mcp_servers: { switchboard: { env: object } } };
    expect({ ...data.mcp_servers.switchboard.env }).toEqual({ SWITCHBOARD_HOME: 'C:\\state "x"' });
  });

  it('creates a file that holds only the table', () => {
    const edit = setTomlEntry('', target);
    expect(edit.text).toBe(tomlTableText(['mcp_servers', 'switchboard'], entry, '\n'));
    expect(setTomlEntry('# nothing yet', target).text).toBe(`# nothing yet\n\n${edit.text}`);
  });

  it('refuses a file that does not parse, naming the line', () => {
    expect(() => setTomlEntry('model = "o3"\n[mcp_servers.docs\ncommand = "x"\n', target)).toThrow(/^line 2, column \d+: .*does not parse as TOML/);
  });

  it('refuses, rather than rewrites, an entry or a server table written inline or with dotted keys', () => {
    const inline = '[mcp_servers]\nswitchboard = { command = "old", args = [] }\n';
    expect(() => setTomlEntry(inline, target)).toThrow(ConfigEditRefused);
    expect(() => setTomlEntry(inline, target)).toThrow(/"mcp_servers.switchboard" entry is written as an inline table or with dotted keys/);
    const dotted = 'mcp_servers.switchboard.command = "old"\n';
    expect(() => setTomlEntry(dotted, target)).toThrow(/inline table or with dotted keys/);
    const inlineServers = 'mcp_servers = { docs = { command = "docs" } }\n';
    expect(() => setTomlEntry(inlineServers, target)).toThrow(/"mcp_servers" is written as an inline table/);
    expect(() => setTomlEntry('[[mcp_servers]]\nname = "x"\n', target)).toThrow(/"mcp_servers" is not a table/);
  });
});
