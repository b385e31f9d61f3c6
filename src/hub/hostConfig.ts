import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The MCP hosts `switchboard config` knows, and where each reads its user-level config. */
export const HOSTS = ['claude-code', 'cursor', 'claude-desktop', 'vscode'] as const;
export type HostName = (typeof HOSTS)[number];

export interface HostFormat {
  title: string;
  /** The file the host reads (user scope). */
  file: string;
  /** The top-level key holding servers by name. */
  key: 'mcpServers' | 'servers';
  /** Whether entries carry `"type": "stdio"`. */
  typed: boolean;
}

export const SERVER_NAME = 'switchboard';

/** Formats per host (from each host's documentation). */
export function hostFormat(host: HostName, env: NodeJS.ProcessEnv = process.env): HostFormat {
  const home = os.homedir();
  switch (host) {
    case 'claude-code':
      // User scope: top-level mcpServers in ~/.claude.json (what `claude mcp add -s user` writes).
      return { title: 'Claude Code', file: path.join(home, '.claude.json'), key: 'mcpServers', typed: true };
    case 'cursor':
      return { title: 'Cursor', file: path.join(home, '.cursor', 'mcp.json'), key: 'mcpServers', typed: false };
    case 'claude-desktop':
      return { title: 'Claude Desktop', file: path.join(appConfigDir(env), 'Claude', 'claude_desktop_config.json'), key: 'mcpServers', typed: false };
    case 'vscode':
      return { title: 'VS Code', file: path.join(appConfigDir(env), 'Code', 'User', 'mcp.json'), key: 'servers', typed: true };
  }
}

/** macOS Application Support, Windows %APPDATA%, else $XDG_CONFIG_HOME or ~/.config. */
function appConfigDir(env: NodeJS.ProcessEnv): string {
  const home = os.homedir();
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Application Support');
  if (process.platform === 'win32') return env.APPDATA ?? path.join(home, 'AppData', 'Roaming');
  return env.XDG_CONFIG_HOME || path.join(home, '.config');
}

export interface ServerEntry {
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

/** `{ "<key>": { "switchboard": entry } }`: what the host's file must contain. */
export function configSnippet(host: HostName, env: NodeJS.ProcessEnv = process.env): Record<string, unknown> {
  return { [hostFormat(host, env).key]: { [SERVER_NAME]: serverEntry(host, env) } };
}

/** Absolute path of bin/switchboard.js, found from this file (src/ under tests, dist/src/ built). */
export function binPath(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = path.join(dir, 'bin', 'switchboard.js');
    if (fs.existsSync(candidate) && fs.existsSync(path.join(dir, 'package.json'))) return candidate;
    dir = path.dirname(dir);
  }
  throw new Error('cannot find bin/switchboard.js above this installation');
}
