/**
 * The terminal inside the chat (docs/design.md §3.8): one MCP App (`@modelcontextprotocol/ext-apps`,
 * stable 2026-01-26), a read-only xterm.js view of a session that hosts with MCP Apps draw with
 * the result of `open` and `execute`. This file is its server side: the `ui://` resource that
 * serves the view's HTML, the `_meta` that names it on those two tools, and who is offered the
 * app-only tool the view calls (`screen_updates`, tools/screenUpdates.ts).
 *
 * The view itself is `apps/terminal/`, built into one HTML document (scripts/buildRenderer.mjs)
 * that the hub reads (ToolHost.terminalApp): this layer imports no file system.
 */
import type { ClientCapabilities, McpServer, RegisteredResource, RegisteredTool } from '@modelcontextprotocol/server';
import { MCP_APP_MIME_TYPE, MCP_APPS_EXTENSION } from '../mcpIntroduction.js';
import type { ToolHost } from './toolHost.js';

const TERMINAL_APP_URI = 'ui://switchboard/terminal';

/**
 * `_meta` of `open` and `execute`: hosts with MCP Apps draw their result in the terminal app.
 * Hosts without it ignore `_meta`, and the result itself is the same either way. Every tool
 * listing carries it, so the tools/list budget pays for it (docs/design.md §3.6).
 */
export const SHOWN_IN_TERMINAL_APP = { ui: { resourceUri: TERMINAL_APP_URI } };

/**
 * `_meta` of the app-only tool: visible to the app, hidden from the model (the host leaves it
 * out of the model's tools and refuses it to other servers' apps).
 */
export const APP_ONLY = { ui: { resourceUri: TERMINAL_APP_URI, visibility: ['app'] } };

/**
 * What the view's frame may reach: nothing. Everything it shows comes through the host's tool
 * calls, so the spec's default (`connect-src 'none'`, no outside scripts, styles, fonts or
 * frames) is all it needs; the lists are written out empty to say so.
 */
const TERMINAL_APP_UI_META = { ui: { csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] }, prefersBorder: true } };

/**
 * Whether the client said it draws MCP Apps (`capabilities.extensions["io.modelcontextprotocol/ui"]`
 * with our MIME type, in `initialize` or a 2026 request's `_meta` envelope).
 */
function declaresMcpApps(capabilities: ClientCapabilities | undefined): boolean {
  const extensions = (capabilities as { extensions?: Record<string, unknown> } | undefined)?.extensions;
  const settings = extensions?.[MCP_APPS_EXTENSION] as { mimeTypes?: unknown } | undefined;
  return Array.isArray(settings?.mimeTypes) && settings.mimeTypes.includes(MCP_APP_MIME_TYPE);
}

/**
 * Offers an app-only tool only to clients that declared MCP Apps, as the spec asks servers to
 * check before offering UI tools: the others do not list it (a host without MCP Apps would hand
 * every tool to its model) and cannot call it. `enabled` is what McpServer reads for both, on
 * every tools/list and tools/call, so it is answered from the capabilities of the connection,
 * or of the request on a stateless 2026 connection (the SDK seeds them from its envelope).
 */
export function offerOnlyToApps(tool: RegisteredTool, server: McpServer): void {
  Object.defineProperty(tool, 'enabled', {
    get: () => declaresMcpApps(server.server.getClientCapabilities()),
    // enable()/disable() would assign it: the client's capabilities decide, nothing else.
    set: () => undefined,
    configurable: true,
    enumerable: true,
  });
}

/**
 * Registers the `ui://` resource hosts read (`resources/read`) to draw the view: the HTML the
 * hub hands over, with the extension's MIME type and its CSP metadata.
 */
export function registerTerminalApp(server: McpServer, host: Pick<ToolHost, 'terminalApp'>): RegisteredResource {
  return server.registerResource(
    'terminal',
    TERMINAL_APP_URI,
    {
      title: 'Switchboard terminal',
      description: 'A read-only live view of the session an open or execute call used, for hosts that draw MCP Apps.',
      mimeType: MCP_APP_MIME_TYPE,
      _meta: TERMINAL_APP_UI_META,
    },
    async (uri) => {
      const html = await host.terminalApp?.();
      if (html === undefined) throw new Error(`${TERMINAL_APP_URI} is not available from this hub (it has no built terminal app).`);
      return { contents: [{ uri: uri.href, mimeType: MCP_APP_MIME_TYPE, text: html, _meta: TERMINAL_APP_UI_META }] };
    },
  );
}
