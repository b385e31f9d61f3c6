/// <reference lib="dom" />
/**
 * A test page that plays an MCP host drawing the terminal app, the way the
 * MCP Apps spec describes a web host: the official MCP client (2.x, declaring the extension)
 * talks to a live hub over HTTP; the ext-apps package's own host side (`AppBridge`,
 * `PostMessageTransport`) drives the view, which runs in a sandbox proxy frame of another
 * origin that loads the app's HTML under the CSP the resource asks for.
 *
 * Bundled for the browser by test/e2e/terminalApp.test.ts; `window.host` is what the test reads.
 */
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

interface HostConfig {
  token: string;
  /** Whether the host tells the hub it draws MCP Apps (a host that draws them without saying so gets no live view). */
  declareApps: boolean;
  sandboxUrl: string;
  /** The model's call the host draws the app for. */
  call: { name: string; arguments: Record<string, unknown> };
}

interface HostRecord {
  /** Links the view asked the host to open. */
  openedLinks: string[];
  /** The call's result, as the host got it. */
  result?: unknown;
  resourceUri?: string;
  sizes: { width?: number; height?: number }[];
  error?: string;
}

declare global {
  interface Window {
    hostConfig: HostConfig;
    host: HostRecord;
  }
}

const record: HostRecord = { openedLinks: [], sizes: [] };
window.host = record;

async function main(): Promise<void> {
  const config = window.hostConfig;
  const apps = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };
  const client = new Client({ name: 'e2e-apps-host', version: '1.0.0' }, { capabilities: config.declareApps ? apps : {} });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', location.origin), { requestInit: { headers: { Authorization: `Bearer ${config.token}` } } }),
  );

  // What a host does for a tool whose definition names a ui:// resource.
  const { tools } = await client.listTools();
  const tool = tools.find((candidate) => candidate.name === config.call.name);
  const ui = (tool?._meta as { ui?: { resourceUri?: string } } | undefined)?.ui;
  if (!tool || !ui?.resourceUri) throw new Error(`${config.call.name} names no ui:// resource`);
  record.resourceUri = ui.resourceUri;
  const read = await client.readResource({ uri: ui.resourceUri });
  const content = read.contents[0] as { text?: string; mimeType?: string; _meta?: { ui?: { csp?: Record<string, string[]> } } };
  if (content.mimeType !== 'text/html;profile=mcp-app' || typeof content.text !== 'string') throw new Error(`unexpected resource: ${content.mimeType}`);
  const html = content.text;

  const frame = document.createElement('iframe');
  frame.id = 'sandbox';
  frame.setAttribute('sandbox', 'allow-scripts allow-same-origin');
  document.getElementById('chat')!.append(frame);

  const bridge = new AppBridge(
    client,
    { name: 'e2e-apps-host', version: '1.0.0' },
    { openLinks: {}, serverTools: {}, serverResources: {}, logging: {} },
    {
      hostContext: {
        theme: 'dark',
        displayMode: 'inline',
        availableDisplayModes: ['inline'],
        platform: 'web',
        toolInfo: { tool },
        containerDimensions: { width: 880, maxHeight: 720 },
      },
    },
  );
  bridge.onopenlink = async ({ url }) => {
    record.openedLinks.push(url);
    return {};
  };
  bridge.onsizechange = ({ width, height }) => {
    record.sizes.push({ width, height });
    if (height !== undefined) frame.style.height = `${Math.min(720, height)}px`;
  };
  bridge.onsandboxready = () => void bridge.sendSandboxResourceReady({ html, csp: content._meta?.ui?.csp ?? {} });
  bridge.oninitialized = () => {
    void (async () => {
      await bridge.sendToolInput({ arguments: config.call.arguments });
      const result = await client.callTool({ name: config.call.name, arguments: config.call.arguments });
      record.result = result;
      await bridge.sendToolResult(result as Parameters<AppBridge['sendToolResult']>[0]);
    })().catch((error: unknown) => (record.error = String(error)));
  };
  await bridge.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!));
  // Loaded once the bridge listens: the sandbox's first message is its "ready".
  frame.src = config.sandboxUrl;
}

main().catch((error: unknown) => {
  record.error = error instanceof Error ? `${error.message}\n${error.stack}` : String(error);
});
