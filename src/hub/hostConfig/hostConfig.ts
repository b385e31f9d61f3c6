import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tomlTableText } from './tomlEntryEditor.js';

/** The MCP hosts `switchboard config` knows (docs/design.md §4.5), in the order `--help` lists them. */
export const HOSTS = ['claude-code', 'cursor', 'claude-desktop', 'vscode', 'codex', 'gemini', 'windsurf', 'zed'] as const;
export type HostName = (typeof HOSTS)[number];

interface HostFormat {
  title: string;
  /** The file the host reads (user scope). */
  file: string;
  /** How the host parses that file, which decides how it is edited (docs/decisions.md, "Host configs"). */
  syntax: 'json' | 'toml';
  /** JSON only: whether the host's parser accepts comments, and trailing commas. */
  comments: boolean;
  trailingCommas: boolean;
  /** The top-level key (JSON) or table (TOML) holding servers by name. */
  key: 'mcpServers' | 'servers' | 'context_servers' | 'mcp_servers';
  /** Whether entries carry `"type": "stdio"`. */
  typed: boolean;
  /**
   * The entry's keys that say how the host starts or reaches a server: `--install` sets them and
   * drops the ones it does not use. Every other key in the entry is the person's choice in that
   * host (trust, per-tool approvals, timeouts, enabled) and is kept.
   */
  launchKeys: readonly string[];
}

export const SERVER_NAME = 'switchboard';

/** The launch keys of the JSON hosts' entries (stdio and HTTP forms of each host's schema). */
const JSON_LAUNCH_KEYS = ['type', 'command', 'args', 'env', 'envFile', 'cwd', 'url', 'serverUrl', 'httpUrl', 'headers', 'tcp'] as const;

/**
 * Codex's launch keys: the stdio and streamable-HTTP fields of `RawMcpServerConfig`
 * (openai/codex, codex-rs/core/src/config/types.rs). Its other keys (`enabled`, `tools.*` approvals,
 * `tool_timeout_sec`, ...) are the person's.
 */
const CODEX_LAUNCH_KEYS = [
  'command',
  'args',
  'env',
  'env_vars',
  'cwd',
  'url',
  'bearer_token',
  'bearer_token_env_var',
  'http_headers',
  'env_http_headers',
  'http_headers_helper',
] as const;

const JSON_PLAIN = { syntax: 'json', comments: false, trailingCommas: false, launchKeys: JSON_LAUNCH_KEYS } as const;

/** Formats per host; each cites where its file, key and entry shape are documented. */
export function hostFormat(host: HostName, env: NodeJS.ProcessEnv = process.env): HostFormat {
  const home = os.homedir();
  switch (host) {
    case 'claude-code':
      // User scope: top-level mcpServers in ~/.claude.json (what `claude mcp add -s user` writes).
      return { ...JSON_PLAIN, title: 'Claude Code', file: path.join(home, '.claude.json'), key: 'mcpServers', typed: true };
    case 'cursor':
      return { ...JSON_PLAIN, title: 'Cursor', file: path.join(home, '.cursor', 'mcp.json'), key: 'mcpServers', typed: false };
    case 'claude-desktop':
      return {
        ...JSON_PLAIN,
        title: 'Claude Desktop',
        file: path.join(appConfigDir(env), 'Claude', 'claude_desktop_config.json'),
        key: 'mcpServers',
        typed: false,
      };
    case 'vscode':
      // VS Code reads mcp.json with its JSONC parser (its docs' examples carry comments).
      return {
        ...JSON_PLAIN,
        comments: true,
        trailingCommas: true,
        title: 'VS Code',
        file: path.join(appConfigDir(env), 'Code', 'User', 'mcp.json'),
        key: 'servers',
        typed: true,
      };
    case 'codex':
      // $CODEX_HOME/config.toml (CODEX_HOME defaults to ~/.codex), `[mcp_servers.<name>]` with
      // command, args, env: openai/codex docs/config.md, "MCP integration".
      return {
        syntax: 'toml',
        comments: true,
        trailingCommas: false,
        launchKeys: CODEX_LAUNCH_KEYS,
        title: 'Codex CLI',
        file: path.join(env.CODEX_HOME ? path.resolve(env.CODEX_HOME) : path.join(home, '.codex'), 'config.toml'),
        key: 'mcp_servers',
        typed: false,
      };
    case 'gemini':
      // $GEMINI_CLI_HOME/.gemini/settings.json (else the home directory), top-level mcpServers
      // with command, args, env: google-gemini/gemini-cli docs/tools/mcp-server.md; read with
      // JSON.parse(stripJsonComments(...)) (packages/cli/src/config/settings.ts): comments, but
      // no trailing commas.
      return {
        ...JSON_PLAIN,
        comments: true,
        title: 'Gemini CLI',
        file: path.join(env.GEMINI_CLI_HOME || home, '.gemini', 'settings.json'),
        key: 'mcpServers',
        typed: false,
      };
    case 'windsurf':
      // ~/.codeium/windsurf/mcp_config.json on every platform, "the same schema as the config
      // file for Claude Desktop": docs.windsurf.com/windsurf/cascade/mcp.
      return { ...JSON_PLAIN, title: 'Windsurf', file: path.join(home, '.codeium', 'windsurf', 'mcp_config.json'), key: 'mcpServers', typed: false };
    case 'zed':
      // settings.json in Zed's config dir (zed-industries/zed, crates/paths/src/paths.rs), key
      // context_servers with { command, args, env } (docs/src/ai/mcp.md, "As Custom Servers"),
      // read with serde_json_lenient: comments and trailing commas.
      return {
        ...JSON_PLAIN,
        comments: true,
        trailingCommas: true,
        title: 'Zed',
        file: path.join(zedConfigDir(env), 'settings.json'),
        key: 'context_servers',
        typed: false,
      };
  }
}

/** macOS Application Support, Windows %APPDATA%, else $XDG_CONFIG_HOME or ~/.config. */
function appConfigDir(env: NodeJS.ProcessEnv): string {
  const home = os.homedir();
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Application Support');
  if (process.platform === 'win32') return env.APPDATA ?? path.join(home, 'AppData', 'Roaming');
  return env.XDG_CONFIG_HOME || path.join(home, '.config');
}

/**
 * Zed's `config_dir()`: ~/.config/zed on macOS too (not Application Support); on Linux the
 * Flatpak's config home, else $XDG_CONFIG_HOME when absolute (the `dirs` crate), else ~/.config.
 */
function zedConfigDir(env: NodeJS.ProcessEnv): string {
  const home = os.homedir();
  if (process.platform === 'win32') return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'Zed');
  if (process.platform === 'linux') {
    if (env.FLATPAK_XDG_CONFIG_HOME) return path.join(env.FLATPAK_XDG_CONFIG_HOME, 'zed');
    const xdg = env.XDG_CONFIG_HOME;
    return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(home, '.config'), 'zed');
  }
  return path.join(home, '.config', 'zed');
}

interface ServerEntry {
  type?: 'stdio';
  command: string;
  args: string[];
  env?: Record<string, string>;
}

/**
 * The entry that launches the shim: this very runtime (absolute, so a host with another PATH
 * finds it) running this checkout's bin/switchboard.js. SWITCHBOARD_HOME is carried over when
 * set, so the shim reaches the same hub as this shell.
 */
export function serverEntry(host: HostName, env: NodeJS.ProcessEnv = process.env): ServerEntry {
  const entryEnv: Record<string, string> = {};
  if (env.SWITCHBOARD_HOME) entryEnv.SWITCHBOARD_HOME = path.resolve(env.SWITCHBOARD_HOME);
  // Inside the packaged app the runtime is Electron's binary, which needs this to act as Node.
  if (process.versions.electron) entryEnv.ELECTRON_RUN_AS_NODE = '1';
  const entry: ServerEntry = { command: process.execPath, args: [binPath(), 'mcp'] };
  if (Object.keys(entryEnv).length > 0) entry.env = entryEnv;
  return hostFormat(host, env).typed ? { type: 'stdio', ...entry } : entry;
}

/** `{ "<key>": { "switchboard": entry } }`: what the host's file must contain, as data. */
export function configSnippet(host: HostName, env: NodeJS.ProcessEnv = process.env): Record<string, unknown> {
  return { [hostFormat(host, env).key]: { [SERVER_NAME]: serverEntry(host, env) } };
}

/** The snippet as the host's file would hold it: JSON, or Codex's TOML table. */
export function configText(host: HostName, env: NodeJS.ProcessEnv = process.env): string {
  const format = hostFormat(host, env);
  if (format.syntax === 'toml') return tomlTableText([format.key, SERVER_NAME], { ...serverEntry(host, env) }, '\n');
  return `${JSON.stringify(configSnippet(host, env), null, 2)}\n`;
}

/** Absolute path of bin/switchboard.js, found from this file (src/ under tests, dist/src/ built). */
function binPath(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = path.join(dir, 'bin', 'switchboard.js');
    if (fs.existsSync(candidate) && fs.existsSync(path.join(dir, 'package.json'))) return candidate;
    dir = path.dirname(dir);
  }
  throw new Error('cannot find bin/switchboard.js above this installation');
}
