/**
 * `switchboard config` and `switchboard status`, run as real processes with a temp HOME and
 * SWITCHBOARD_HOME (dist/ must be built).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import stripJsonComments from 'strip-json-comments';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { changedRegion } from './helpers/changedRegion.js';
import { BIN, cleanEnv, connectRaw, initializeRaw, removeHome, ROOT, startHub, tempHome, type HubProcess } from './helpers/hubProcess.js';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function switchboard(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: cleanEnv(env), cwd: ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const homes: string[] = [];
function home(): string {
  const dir = tempHome('sb-cli-');
  homes.push(dir);
  return dir;
}

afterAll(() => {
  for (const dir of homes) removeHome(dir);
});

/** Where the hosts' own variables point nowhere unless a test sets them. */
const NO_HOST_VARIABLES = { XDG_CONFIG_HOME: '', CODEX_HOME: '', GEMINI_CLI_HOME: '', FLATPAK_XDG_CONFIG_HOME: '' };

describe('switchboard config', () => {
  const shim = { command: process.execPath, args: [BIN, 'mcp'] };

  it('prints each host’s entry launching the shim with absolute paths', async () => {
    const HOME = home();
    const env = { HOME, ...NO_HOST_VARIABLES };
    const claude = await switchboard(['config', 'claude-code'], env);
    expect(claude.code).toBe(0);
    expect(JSON.parse(claude.stdout)).toEqual({ mcpServers: { switchboard: { type: 'stdio', ...shim } } });
    expect(claude.stderr).toContain(path.join(HOME, '.claude.json'));
    const cursor = JSON.parse((await switchboard(['config', 'cursor'], env)).stdout);
    expect(cursor).toEqual({ mcpServers: { switchboard: shim } });
    const vscode = JSON.parse((await switchboard(['config', 'vscode'], env)).stdout);
    expect(vscode).toEqual({ servers: { switchboard: { type: 'stdio', ...shim } } });
    const desktop = JSON.parse((await switchboard(['config', 'claude-desktop'], env)).stdout);
    expect(desktop).toEqual({ mcpServers: { switchboard: shim } });
    expect(JSON.parse((await switchboard(['config', 'gemini'], env)).stdout)).toEqual({ mcpServers: { switchboard: shim } });
    expect(JSON.parse((await switchboard(['config', 'windsurf'], env)).stdout)).toEqual({ mcpServers: { switchboard: shim } });
    expect(JSON.parse((await switchboard(['config', 'zed'], env)).stdout)).toEqual({ context_servers: { switchboard: shim } });
    const codex = await switchboard(['config', 'codex'], env);
    expect(codex.stdout).toBe(`[mcp_servers.switchboard]\ncommand = ${JSON.stringify(shim.command)}\nargs = [${JSON.stringify(BIN)}, "mcp"]\n`);
    expect(codex.stderr).toContain(path.join(HOME, '.codex', 'config.toml'));
    expect(path.isAbsolute(shim.command) && path.isAbsolute(shim.args[0])).toBe(true);
  });

  it('--help lists every host with the file it reads', async () => {
    const HOME = home();
    const help = await switchboard(['config', '--help'], { HOME, ...NO_HOST_VARIABLES });
    expect(help.code).toBe(0);
    for (const [host, file] of [
      ['claude-code', path.join(HOME, '.claude.json')],
      ['cursor', path.join(HOME, '.cursor', 'mcp.json')],
      ['claude-desktop', 'claude_desktop_config.json'],
      ['vscode', path.join('Code', 'User', 'mcp.json')],
      ['codex', path.join(HOME, '.codex', 'config.toml')],
      ['gemini', path.join(HOME, '.gemini', 'settings.json')],
      ['windsurf', path.join(HOME, '.codeium', 'windsurf', 'mcp_config.json')],
      ['zed', path.join(HOME, '.config', 'zed', 'settings.json')],
    ]) {
      expect(help.stdout).toMatch(new RegExp(`^  ${host} +.*${file.replace(/[.]/g, '\\.')}`, 'm'));
    }
  });

  it('carries SWITCHBOARD_HOME over so the shim reaches the same hub', async () => {
    const HOME = home();
    const state = path.join(HOME, 'state');
    const out = JSON.parse((await switchboard(['config', 'cursor'], { HOME, SWITCHBOARD_HOME: state })).stdout);
    expect(out.mcpServers.switchboard.env).toEqual({ SWITCHBOARD_HOME: state });
    const codex = await switchboard(['config', 'codex'], { HOME, SWITCHBOARD_HOME: state, CODEX_HOME: '' });
    expect(codex.stdout).toContain(`\nenv = { SWITCHBOARD_HOME = ${JSON.stringify(state)} }\n`);
  });

  it('--install merges into each host’s file and keeps everything else', async () => {
    const HOME = home();
    const env = { HOME, ...NO_HOST_VARIABLES };
    const claudeFile = path.join(HOME, '.claude.json');
    writeFileSync(claudeFile, JSON.stringify({ numStartups: 3, projects: { '/x': { mcpServers: {} } }, mcpServers: { other: { command: 'other' } } }), {
      mode: 0o600,
    });
    const installed = await switchboard(['config', 'claude-code', '--install'], env);
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).toBe('');
    const merged = JSON.parse(readFileSync(claudeFile, 'utf8'));
    expect(merged).toEqual({
      numStartups: 3,
      projects: { '/x': { mcpServers: {} } },
      mcpServers: { other: { command: 'other' }, switchboard: { type: 'stdio', ...shim } },
    });
    expect(statSync(claudeFile).mode & 0o777).toBe(0o600);
    const again = await switchboard(['config', 'claude-code', '--install'], env);
    expect(again.stderr).toContain('Already up to date');

    // Files that do not exist yet are created, with their folders.
    expect((await switchboard(['config', 'cursor', '--install'], env)).code).toBe(0);
    expect(JSON.parse(readFileSync(path.join(HOME, '.cursor', 'mcp.json'), 'utf8'))).toEqual({ mcpServers: { switchboard: shim } });
    expect((await switchboard(['config', 'vscode', '--install'], env)).code).toBe(0);
    const vscodeFile =
      process.platform === 'darwin'
        ? path.join(HOME, 'Library', 'Application Support', 'Code', 'User', 'mcp.json')
        : path.join(HOME, '.config', 'Code', 'User', 'mcp.json');
    expect(JSON.parse(readFileSync(vscodeFile, 'utf8'))).toEqual({ servers: { switchboard: { type: 'stdio', ...shim } } });
    expect((await switchboard(['config', 'claude-desktop', '--install'], env)).code).toBe(0);
    const desktopFile =
      process.platform === 'darwin'
        ? path.join(HOME, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json')
        : path.join(HOME, '.config', 'Claude', 'claude_desktop_config.json');
    expect(JSON.parse(readFileSync(desktopFile, 'utf8'))).toEqual({ mcpServers: { switchboard: shim } });
  });

  it('refuses to rewrite a file it cannot parse, naming the line, and unknown hosts', async () => {
    const HOME = home();
    const file = path.join(HOME, '.cursor', 'mcp.json');
    mkdirSync(path.dirname(file), { recursive: true });
    const jsonc = '{\n  // my servers\n  "mcpServers": {}\n}\n';
    writeFileSync(file, jsonc);
    const refused = await switchboard(['config', 'cursor', '--install'], { HOME, ...NO_HOST_VARIABLES });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`not touching ${file}: line 2, column 3: a comment`);
    expect(refused.stderr).toContain('not parse as plain JSON');
    expect(readFileSync(file, 'utf8')).toBe(jsonc);

    const codexHome = path.join(HOME, 'codex');
    mkdirSync(codexHome);
    const broken = '# mine\nmodel = "o3"\n\n[mcp_servers.docs\ncommand = "docs"\n';
    writeFileSync(path.join(codexHome, 'config.toml'), broken);
    const toml = await switchboard(['config', 'codex', '--install'], { HOME, ...NO_HOST_VARIABLES, CODEX_HOME: codexHome });
    expect(toml.code).toBe(1);
    expect(toml.stderr).toMatch(/not touching .*config\.toml: line 4, column \d+: .*does not parse as TOML/);
    expect(readFileSync(path.join(codexHome, 'config.toml'), 'utf8')).toBe(broken);

    // Zed's JSONC that parses but cannot be edited safely: which of two keys Zed uses is its business.
    const linux = process.platform === 'linux';
    const zedFile = path.join(HOME, linux ? 'xdg' : '.config', 'zed', 'settings.json');
    mkdirSync(path.dirname(zedFile), { recursive: true });
    const twice = '{\n  // mine\n  "context_servers": {},\n  "context_servers": { "a": { "command": "a", "args": [] }, },\n}\n';
    writeFileSync(zedFile, twice);
    const zed = await switchboard(['config', 'zed', '--install'], {
      HOME,
      ...NO_HOST_VARIABLES,
      ...(linux ? { XDG_CONFIG_HOME: path.join(HOME, 'xdg') } : {}),
    });
    expect(zed.code).toBe(1);
    expect(zed.stderr).toContain(`not touching ${zedFile}: line 4: "context_servers" appears a second time`);
    expect(readFileSync(zedFile, 'utf8')).toBe(twice);

    const unknown = await switchboard(['config', 'emacs'], { HOME });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown host');
  });
});

/** Python's tomllib: a TOML 1.0 parser other than the one `--install` uses, strict as Codex's. */
function parseTomlAsCodex(file: string): Record<string, unknown> {
  const python = spawnSync('python3', ['-c', 'import json, sys, tomllib; print(json.dumps(tomllib.load(open(sys.argv[1], "rb")), default=str))', file], {
    encoding: 'utf8',
  });
  if (python.status !== 0) throw new Error(`tomllib refused ${file}: ${python.stderr}`);
  return JSON.parse(python.stdout);
}

const stringMap = z.record(z.string(), z.string());

/**
 * Each host's documented entry shape, strict, so a key the host does not know fails:
 * - Codex: https://github.com/openai/codex/blob/main/docs/config.md#mcp_servers (and
 *   `RawMcpServerConfig`, codex-rs/core/src/config/types.rs);
 * - Gemini CLI: https://github.com/google-gemini/gemini-cli/blob/main/docs/tools/mcp-server.md#configuration-properties;
 * - Windsurf: https://docs.windsurf.com/windsurf/cascade/mcp ("the same schema as the config file
 *   for Claude Desktop": command, args, env);
 * - Zed: https://zed.dev/docs/ai/mcp ("As Custom Servers"; `ContextServerSettingsContent::Stdio`).
 */
const SCHEMAS = {
  codex: z.strictObject({
    command: z.string(),
    args: z.array(z.string()).optional(),
    env: stringMap.optional(),
    env_vars: z.array(z.string()).optional(),
    cwd: z.string().optional(),
    startup_timeout_sec: z.number().optional(),
    tool_timeout_sec: z.number().optional(),
    enabled: z.boolean().optional(),
    required: z.boolean().optional(),
    enabled_tools: z.array(z.string()).optional(),
    disabled_tools: z.array(z.string()).optional(),
    tools: z.record(z.string(), z.strictObject({ approval_mode: z.enum(['auto', 'prompt', 'approve']).optional() })).optional(),
  }),
  gemini: z.strictObject({
    command: z.string(),
    args: z.array(z.string()).optional(),
    env: stringMap.optional(),
    cwd: z.string().optional(),
    timeout: z.number().optional(),
    trust: z.boolean().optional(),
    description: z.string().optional(),
    includeTools: z.array(z.string()).optional(),
    excludeTools: z.array(z.string()).optional(),
  }),
  windsurf: z.strictObject({ command: z.string(), args: z.array(z.string()).optional(), env: stringMap.optional(), disabled: z.boolean().optional() }),
  zed: z.strictObject({
    command: z.string(),
    args: z.array(z.string()),
    env: stringMap.optional(),
    timeout: z.number().optional(),
    enabled: z.boolean().optional(),
    remote: z.boolean().optional(),
  }),
};

interface HostCase {
  host: keyof typeof SCHEMAS;
  /** The host's own variable pointing at a temp folder, where it has one. */
  env(home: string): Record<string, string>;
  file(home: string): string;
  key: string;
  /** The file as a person left it: comments, other servers, unrelated settings. */
  fresh: string;
  /** The same with an entry an older Switchboard wrote, plus a key the person added to it. */
  older: string;
  /** That key, which must survive the update. */
  personsKey: Record<string, unknown>;
  /** Text that follows the old entry (its last occurrence): nothing from there on may change. */
  olderTail: string;
  /** Parsed the way the host parses it. */
  read(file: string): Record<string, unknown>;
}

const OLD = { command: '/usr/local/bin/node', args: ['/old/checkout/bin/switchboard.js', 'mcp'] };

const CASES: HostCase[] = [
  {
    host: 'codex',
    env: (home) => ({ CODEX_HOME: path.join(home, 'codex-home') }),
    file: (home) => path.join(home, 'codex-home', 'config.toml'),
    key: 'mcp_servers',
    fresh: `# Codex, by hand
model = "gpt-5.1"  # the default
approval_policy = "on-request"

[mcp_servers.docs]
command = "docs-server"
args = ["--port", "4000"]

[mcp_servers.docs.env]
API_KEY = "value"

# a profile for quick questions
[profiles.fast]
model = "o4-mini"
`,
    older: `model = "gpt-5.1"

[mcp_servers.switchboard]
command = "${OLD.command}"
args = ["${OLD.args[0]}", "mcp"]
tool_timeout_sec = 600

[mcp_servers.switchboard.env]
SWITCHBOARD_HOME = "/old/state"

[mcp_servers.docs]
command = "docs-server"
`,
    personsKey: { tool_timeout_sec: 600 },
    olderTail: '[mcp_servers.docs]',
    read: parseTomlAsCodex,
  },
  {
    host: 'gemini',
    env: (home) => ({ GEMINI_CLI_HOME: path.join(home, 'gemini-home') }),
    file: (home) => path.join(home, 'gemini-home', '.gemini', 'settings.json'),
    key: 'mcpServers',
    fresh: `{
  // Gemini CLI reads comments here
  "theme": "GitHub",
  "mcpServers": {
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"] /* the official one */
    }
  },
  "general": { "vimMode": true }
}
`,
    older: `{
  "mcpServers": {
    "switchboard": { "command": "${OLD.command}", "args": ["${OLD.args[0]}", "mcp"], "trust": true },
    "github": { "command": "npx" }
  }
}
`,
    personsKey: { trust: true },
    olderTail: '"github"',
    // What gemini-cli does: JSON.parse(stripJsonComments(content)), packages/cli/src/config/settings.ts.
    read: (file) => JSON.parse(stripJsonComments(readFileSync(file, 'utf8'))),
  },
  {
    host: 'windsurf',
    env: () => ({}),
    file: (home) => path.join(home, '.codeium', 'windsurf', 'mcp_config.json'),
    key: 'mcpServers',
    fresh:
      '{\n    "mcpServers": {\n        "github": {\n            "command": "npx",\n            "args": ["-y", "@modelcontextprotocol/server-github"],\n            "env": { "GITHUB_PERSONAL_ACCESS_TOKEN": "<token>" }\n        }\n    }\n}\n',
    older: `{"mcpServers": {"switchboard": {"command": "${OLD.command}", "args": ["${OLD.args[0]}", "mcp"], "disabled": false}}}`,
    personsKey: { disabled: false },
    olderTail: '}}',
    read: (file) => JSON.parse(readFileSync(file, 'utf8')),
  },
  {
    host: 'zed',
    // Zed's config dir: $XDG_CONFIG_HOME/zed on Linux, ~/.config/zed on macOS (crates/paths).
    env: (home): Record<string, string> => (process.platform === 'linux' ? { XDG_CONFIG_HOME: path.join(home, 'xdg') } : {}),
    file: (home) => path.join(home, process.platform === 'linux' ? 'xdg' : '.config', 'zed', 'settings.json'),
    key: 'context_servers',
    fresh: `// Zed settings
//
// For information on how to configure Zed, see the Zed
// documentation: https://zed.dev/docs/configuring-zed
{
  "ui_font_size": 16,
  "theme": {
    "mode": "system",
    "light": "One Light",
    "dark": "One Dark",
  },
  "vim_mode": false, // not yet
}
`,
    older: `{
  "context_servers": {
    "switchboard": {
      "command": "${OLD.command}",
      "args": ["${OLD.args[0]}", "mcp"],
      "enabled": true,
    },
    "postgres": { "command": "pg-mcp", "args": [] },
  },
}
`,
    personsKey: { enabled: true },
    olderTail: '"postgres"',
    // serde_json_lenient: comments and trailing commas.
    read: (file) => JSON.parse(stripJsonComments(readFileSync(file, 'utf8'), { trailingCommas: true })),
  },
];

describe.each(CASES)('switchboard config $host --install', (hostCase) => {
  const shim = { command: process.execPath, args: [BIN, 'mcp'] };

  function setUp(text: string): { env: Record<string, string>; file: string } {
    const HOME = home();
    const file = hostCase.file(HOME);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
    return { env: { HOME, ...NO_HOST_VARIABLES, ...hostCase.env(HOME) }, file };
  }

  it('adds the entry in the host’s documented shape and leaves the rest of the file byte for byte', async () => {
    const { env, file } = setUp(hostCase.fresh);
    const before = hostCase.read(file);
    const installed = await switchboard(['config', hostCase.host, '--install'], env);
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stderr).toContain(`Added "switchboard" in ${file} (${hostCase.key})`);
    const after = readFileSync(file, 'utf8');
    // Nothing was removed or rewritten: the new text is the old with the entry inserted.
    const region = changedRegion(hostCase.fresh, after);
    expect(region.start).toBe(region.end);
    if (hostCase.host === 'codex') expect(after.startsWith(hostCase.fresh)).toBe(true);

    const document = hostCase.read(file);
    const servers = document[hostCase.key] as Record<string, unknown>;
    expect(SCHEMAS[hostCase.host].parse(servers.switchboard)).toEqual(shim);
    // Every other server and setting is still there, as it was.
    const { switchboard: _added, ...otherServers } = servers;
    expect({ ...document, [hostCase.key]: otherServers }).toEqual({ ...before, [hostCase.key]: before[hostCase.key] ?? {} });

    const again = await switchboard(['config', hostCase.host, '--install'], env);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('Already up to date');
    expect(readFileSync(file, 'utf8')).toBe(after);
  });

  it('updates an older entry in place and keeps the key the person added to it', async () => {
    const { env, file } = setUp(hostCase.older);
    const before = hostCase.read(file);
    const updated = await switchboard(['config', hostCase.host, '--install'], env);
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.stderr).toContain(`Updated "switchboard" in ${file}`);
    const after = readFileSync(file, 'utf8');
    const document = hostCase.read(file);
    const servers = document[hostCase.key] as Record<string, unknown>;
    expect(SCHEMAS[hostCase.host].parse(servers.switchboard)).toEqual({ ...shim, ...hostCase.personsKey });
    expect({ ...document, [hostCase.key]: { ...servers, switchboard: undefined } }).toEqual({
      ...before,
      [hostCase.key]: { ...(before[hostCase.key] as object), switchboard: undefined },
    });
    // Changed: only the text of the old entry.
    const region = changedRegion(hostCase.older, after);
    const oldStart = hostCase.older.indexOf(hostCase.host === 'codex' ? '[mcp_servers.switchboard]' : '"switchboard"');
    expect(region.start).toBeGreaterThan(oldStart);
    expect(region.end).toBeLessThanOrEqual(hostCase.older.lastIndexOf(hostCase.olderTail));
    expect(await switchboard(['config', hostCase.host, '--install'], env)).toMatchObject({ code: 0, stderr: expect.stringContaining('Already up to date') });
  });
});

describe('switchboard status', () => {
  let hub: HubProcess;
  beforeAll(async () => {
    hub = await startHub({ home: home() });
  });
  afterAll(async () => {
    expect(await hub?.stop()).toBe(0);
  });

  it('exits 3 when no hub runs, or when hub.json names a dead pid', async () => {
    const state = home();
    const none = await switchboard(['status'], { SWITCHBOARD_HOME: state });
    expect(none.code).toBe(3);
    expect(none.stdout).toContain('No Switchboard hub is running');
    writeFileSync(
      path.join(state, 'hub.json'),
      JSON.stringify({ pid: 2 ** 22 + 12345, started_at: 'x', socket: path.join(state, 'hub.sock'), port: 1, version: '0' }),
    );
    const stale = await switchboard(['status', '--json'], { SWITCHBOARD_HOME: state });
    expect(stale.code).toBe(3);
    expect(JSON.parse(stale.stdout)).toMatchObject({ running: false, reason: expect.stringContaining('not running') });
  });

  it('reports the running hub, where it listens, and its sessions', async () => {
    const client = await connectRaw(hub.socket, hub.token);
    await initializeRaw(client, 'status-test');
    const run = await client.request('tools/call', { name: 'execute', arguments: { command: 'echo status' } });
    const session = (run.result as { structuredContent: { session: string } }).structuredContent.session;
    client.close();

    const text = await switchboard(['status'], { SWITCHBOARD_HOME: hub.home });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`pid ${hub.pid}`);
    expect(text.stdout).toContain(`http://127.0.0.1:${hub.port}/`);
    expect(text.stdout).toContain(hub.socket);
    expect(text.stdout).toContain(session);
    expect(text.stdout).not.toContain(hub.token);

    const json = await switchboard(['status', '--json'], { SWITCHBOARD_HOME: hub.home });
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(report).toMatchObject({ running: true, pid: hub.pid, port: hub.port, socket: hub.socket });
    expect(report.sessions.map((s: { id: string }) => s.id)).toContain(session);
    expect(existsSync(path.join(hub.home, 'hub.json'))).toBe(true);
  });
});
