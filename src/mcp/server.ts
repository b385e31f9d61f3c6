/**
 * The MCP server factory: one `McpServer` per connection, every tool registered on it, all of
 * them calling into one shared hub (DESIGN §1, §3).
 */
import * as fs from 'node:fs';
import { CLIENT_INFO_META_KEY, McpServer, type ServerContext } from '@modelcontextprotocol/server';
import type { SessionManager } from '../core/sessionManager.js';
import { registerExecute } from './tools/execute.js';
import { registerKill } from './tools/kill.js';
import { registerList } from './tools/list.js';

/**
 * What the tools need from the hub. `src/mcp/` may not import `src/hub/` (DESIGN §1, enforced
 * by lint), so this is the structural slice of `Hub` the tools use; a `Hub` satisfies it.
 */
export interface ToolHost {
  readonly manager: SessionManager;
  readonly settings: { readonly executeTimeoutMs: number; readonly maxLines: number };
  readonly logger: { error(message: string): void };
}

/** Everything a tool's registration gets: the hub and who is calling. */
export interface ToolDeps {
  host: ToolHost;
  /** `"<clientInfo.name> <clientInfo.version>"` of the caller: the `creator.client` of its sessions. */
  clientName(ctx: ServerContext): string;
}

const INSTRUCTIONS = [
  'Switchboard runs your commands in real terminal sessions that a person can watch and take over.',
  'Use execute for shell commands: it returns the exact output and exit_code, and without a session it reuses your idle shell (per cwd) or opens one, so cd and variables persist between calls.',
  'If execute returns status "running" (timeout or background), the command keeps going: wait for it with read and wait.exit, or stop it with kill; a new execute in that session gets SESSION_BUSY meanwhile.',
  'Use list to see sessions and their state, and kill with close: true to end a session you no longer need.',
].join(' ');

export function createMcpServer(host: ToolHost): McpServer {
  const server = new McpServer(
    { name: 'switchboard', version: packageVersion() },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );
  const deps: ToolDeps = { host, clientName: (ctx) => clientName(server, ctx) };
  registerExecute(server, deps);
  registerList(server, deps);
  registerKill(server, deps);
  return server;
}

/**
 * 2026-07-28 clients name themselves on every request (the `_meta` envelope); 2025 clients
 * once, in `initialize`.
 */
function clientName(server: McpServer, ctx: ServerContext): string {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const fromEnvelope = envelope?.[CLIENT_INFO_META_KEY];
  const info = isImplementation(fromEnvelope) ? fromEnvelope : server.server.getClientVersion();
  if (!info) return 'unknown client';
  return `${info.name} ${info.version}`.trim();
}

function isImplementation(value: unknown): value is { name: string; version: string } {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return typeof record.name === 'string' && typeof record.version === 'string';
}

let cachedVersion: string | undefined;

/** Our package.json's version, found by walking up from this file (src/ under vitest, dist/src/ when built). */
export function packageVersion(): string {
  if (cachedVersion !== undefined) return cachedVersion;
  cachedVersion = '0.0.0';
  let dir = new URL('.', import.meta.url);
  for (let i = 0; i < 6; i++) {
    try {
      const pkg = JSON.parse(fs.readFileSync(new URL('package.json', dir), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'switchboard' && typeof pkg.version === 'string') {
        cachedVersion = pkg.version;
        break;
      }
    } catch {
      // No package.json at this level: keep walking up.
    }
    dir = new URL('..', dir);
  }
  return cachedVersion;
}
