/**
 * What Switchboard's MCP server says of itself before any tool is called: its name, what it
 * tells the model (instructions), its capabilities, and the 2026-era protocol revisions it
 * serves. Two places say it: the hub's McpServer (src/mcp/server.ts), and the shim, which
 * answers `server/discover` itself, at once, without waiting for a hub to start
 * (src/shim/discover.ts; docs/design.md §4.4). Plain data, so the shim may import it without
 * loading MCP code; test/integration/shimForwarder.test.ts checks the shim's answer against
 * the hub's own.
 */

export const SERVER_NAME = 'switchboard';

export const INSTRUCTIONS = [
  'Switchboard runs your commands in real terminal sessions that a person can watch and take over.',
  'Use execute for shell commands: it returns the exact output and exit_code; without session it reuses your idle shell (per cwd) or opens one, so cd and variables persist.',
  'execute status "running" (timeout or background): the command goes on; wait with read {view:"command", wait:{exit:true}} or stop it with kill.',
  'status "awaiting_input": it wants keyboard input, of input_kind "line" (send text, keys:["enter"]), "screen" (a full-screen program: send keys, read view "screen") or "secret" (a password: ask the person to type it in Switchboard).',
  'For interactive programs (python3, vim, ssh, htop) use open, then send keys and read the screen.',
  'list shows sessions; kill stops a command, kill with close:true ends a session you no longer need.',
  'history finds commands run earlier in any session, closed ones too.',
].join(' ');

/** MCP Apps (`@modelcontextprotocol/ext-apps`, stable 2026-01-26): the extension's identifier and the one kind of view it draws. */
export const MCP_APPS_EXTENSION = 'io.modelcontextprotocol/ui';
export const MCP_APP_MIME_TYPE = 'text/html;profile=mcp-app';

/**
 * What the server offers: tools, whose list can change (the `execute` defaults it names);
 * resources: sessions' screens (docs/design.md §3.7), whose list changes as sessions open and end,
 * each one subscribable (`resources/subscribe`, or `subscriptions/listen` on 2026-07-28), and the
 * terminal app that hosts with MCP Apps draw for `open` and `execute` (§3.8); and that extension.
 */
export const SERVER_CAPABILITIES = {
  tools: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  extensions: { [MCP_APPS_EXTENSION]: { mimeTypes: [MCP_APP_MIME_TYPE] } },
};

/** The revisions served with per-request `_meta` (no `initialize`): the SDK's modern era. */
export const MODERN_PROTOCOL_VERSIONS: readonly string[] = ['2026-07-28'];
