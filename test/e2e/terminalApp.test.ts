/// <reference lib="dom" />
/**
 * The terminal inside the chat (docs/design.md §3.8), in Debian's chromium:
 * a test page plays a web host with the ext-apps package's own host side (AppBridge and its
 * PostMessageTransport, test/e2e/appHost/hostPage.ts) and the official MCP client declaring
 * MCP Apps, against a live `switchboard serve`. The host reads `ui://switchboard/terminal`, loads
 * it in a sandbox proxy frame of another origin under the CSP its metadata asks for (the spec's
 * default: `connect-src 'none'`), makes the model's `execute` and hands the view its input and
 * result. The view must show the session's output, follow it when another agent prints more,
 * show its name and state, ask the host to open it in Switchboard (the link opens that
 * session's tab in the UI), and reach nothing over the network. Writes the screenshot
 * test-results/screenshots/mcp-app.png. Runs against dist/: `npm run build` first.
 */
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { build } from 'esbuild';
import type { Browser, Frame, FrameLocator, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, startHub, type HubProcess } from '../integration/helpers/hubProcess.js';
import { toolAnswer } from '../integration/helpers/toolAnswer.js';
import { agentOverHttp, closeScene, launchChromium, openPage, SHOTS } from './browser.js';

/** The frame a host draws the app in is another origin than the host's page. */
const SANDBOX_HOST = 'localhost';

let hub: HubProcess;
let browser: Browser;
let page: Page;
let agent: Client;
let hostScript: string;
const requests: { url: string; frame: Frame }[] = [];
const cspViolations: string[] = [];

/** The spec's CSP for a view, from the resource's `_meta.ui.csp` (its restrictive default when the lists are empty). */
function viewCsp(csp: Record<string, string[] | undefined>): string {
  const resources = (csp.resourceDomains ?? []).join(' ');
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline' ${resources}`.trim(),
    `style-src 'self' 'unsafe-inline' ${resources}`.trim(),
    `img-src 'self' data: ${resources}`.trim(),
    `media-src 'self' data: ${resources}`.trim(),
    `connect-src ${(csp.connectDomains ?? []).join(' ') || "'none'"}`,
    `frame-src ${(csp.frameDomains ?? []).join(' ') || "'none'"}`,
    "object-src 'none'",
    `base-uri ${(csp.baseUriDomains ?? []).join(' ') || "'self'"}`,
  ].join('; ');
}

/**
 * The sandbox proxy of the spec's web hosts: announces itself, loads the view's HTML in an
 * inner frame (which keeps this page's CSP) and passes every other message both ways.
 */
const SANDBOX_PAGE = `<!doctype html><html><head><meta charset="utf-8"><style>html,body{margin:0;height:100%}iframe{border:0;width:100%;height:100%;display:block}</style></head><body><script>
const hostOrigin = new URLSearchParams(location.search).get('host');
const inner = document.createElement('iframe');
inner.setAttribute('sandbox', 'allow-scripts');
document.body.append(inner);
window.addEventListener('message', (event) => {
  if (event.source === window.parent) {
    if (event.origin !== hostOrigin) return;
    if (event.data && event.data.method === 'ui/notifications/sandbox-resource-ready') { inner.srcdoc = event.data.params.html; return; }
    inner.contentWindow.postMessage(event.data, '*');
  } else if (event.source === inner.contentWindow) {
    window.parent.postMessage(event.data, hostOrigin);
  }
});
window.parent.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/sandbox-proxy-ready', params: {} }, hostOrigin);
</script></body></html>`;

function hostPage(config: object): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>Chat</title><style>
body{margin:0;padding:24px;background:#1b1d22;color:#d7dae0;font:14px system-ui,sans-serif}
.turn{max-width:880px;margin:0 auto 12px}.who{color:#8b93a4;font-size:12px;margin-bottom:4px}
#chat{max-width:880px;margin:0 auto}#sandbox{width:880px;height:480px;border:1px solid #2e3442;border-radius:8px;display:block}
</style></head><body><div class="turn"><div class="who">Agent</div>Running the build in a Switchboard terminal:</div><div id="chat"></div>
<script>window.hostConfig = ${JSON.stringify(config)};</script><script>${hostScript}</script></body></html>`;
}

/** The view inside the sandbox frame. */
function view(): FrameLocator {
  return page.frameLocator('#sandbox').frameLocator('iframe');
}

function viewFrame(): Frame | undefined {
  return page.frames().find((frame) => frame.parentFrame()?.url().includes('/sandbox.html'));
}

async function waitForViewText(text: string, timeout = 15_000): Promise<void> {
  await expect.poll(async () => ((await view().locator('.xterm-rows').textContent()) ?? '').replace(/\u00a0/g, ' '), { timeout }).toContain(text);
}

beforeAll(async () => {
  const bundled = await build({
    entryPoints: [path.join(ROOT, 'test', 'e2e', 'appHost', 'hostPage.ts')],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: ['chrome120'],
    logLevel: 'error',
  });
  hostScript = bundled.outputFiles[0]!.text.replace(/<\/script/gi, '<\\/script');
  browser = await launchChromium();
  hub = await startHub();
  agent = await agentOverHttp(hub.port, hub.token, { name: 'second-agent', version: '1.0.0' });
  page = await openPage(browser, { viewport: { width: 960, height: 720 } });
  page.on('request', (request: Request) => requests.push({ url: request.url(), frame: request.frame() }));
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
  });
}, 60_000);

afterAll(async () => {
  await closeScene({ agent, browser, hub });
});

/** What the next load of the host page does. */
let hostConfig: { declareApps: boolean; call: { name: string; arguments: Record<string, unknown> } };

function hostUrl(): string {
  return `http://127.0.0.1:${hub.port}/__test__/chat.html`;
}

/** Both pages are the test's own (the hub serves neither); the host's MCP calls reach the hub. */
async function routeHostPages(): Promise<void> {
  const sandboxUrl = `http://${SANDBOX_HOST}:${hub.port}/__test__/sandbox.html?host=${encodeURIComponent(`http://127.0.0.1:${hub.port}`)}`;
  await page.route(hostUrl(), (route) => route.fulfill({ contentType: 'text/html', body: hostPage({ token: hub.token, sandboxUrl, ...hostConfig }) }));
  // The CSP the resource asks for, as the host builds it before the frame loads.
  const csp = viewCsp(await agentResourceCsp());
  expect(csp).toContain("connect-src 'none'");
  await page.route(`http://${SANDBOX_HOST}:${hub.port}/__test__/sandbox.html*`, (route) =>
    route.fulfill({ contentType: 'text/html', headers: { 'Content-Security-Policy': csp }, body: SANDBOX_PAGE }),
  );
}

describe('the terminal app in a host', () => {
  let session: string;

  it('draws the session of the model’s execute: its output, name and state', async () => {
    await routeHostPages();
    hostConfig = {
      declareApps: true,
      call: {
        name: 'execute',
        arguments: { command: "printf '\\033[1;32m✓\\033[0m build ok in \\033[1m2.4 s\\033[0m\\n'; ls --color=always -d /usr/share/* | head -n 8" },
      },
    };
    await page.goto(hostUrl());
    await waitForViewText('build ok in 2.4 s');
    const host = await page.evaluate(() => window.host);
    expect(host.error).toBeUndefined();
    expect(host.resourceUri).toBe('ui://switchboard/terminal');
    session = String((host.result as { structuredContent: { session: string } }).structuredContent.session);
    await expect.poll(() => view().locator('.state').textContent()).toBe('idle');
    expect(await view().locator('.label').textContent()).toBe(session);
  });

  it('follows the session when it prints more', async () => {
    const more = toolAnswer(await agent.callTool({ name: 'execute', arguments: { session, command: 'echo "tests: $((40+2)) passed"' } }));
    expect(more.isError).toBe(false);
    await waitForViewText('tests: 42 passed');
    await expect.poll(() => view().locator('.state').textContent()).toBe('idle');
    // What the person sees next to the chat, for the note (looked at, not compared).
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    await page.screenshot({ path: path.join(SHOTS, 'mcp-app.png'), fullPage: true });
  });

  it('asks the host to open the session in Switchboard, and that link opens its tab', async () => {
    const button = view().locator('button.open');
    await expect.poll(() => button.isVisible()).toBe(true);
    await button.click();
    await expect.poll(() => page.evaluate(() => window.host.openedLinks)).toEqual([`http://127.0.0.1:${hub.port}/#session=${session}`]);

    // The person's browser, signed in once (as `switchboard ui` does), follows the link.
    const ui = await openPage(browser);
    await ui.goto(`http://127.0.0.1:${hub.port}/?key=${hub.uiKey}`);
    await ui.locator('.conn.conn-open').waitFor({ timeout: 10_000 });
    await ui.goto(`http://127.0.0.1:${hub.port}/#session=${session}`);
    await ui.locator(`.tab.active[data-tab="${session}"]`).waitFor({ timeout: 10_000 });
    expect(new URL(ui.url()).hash, 'the address is left plain once the tab is open').toBe('');
    await ui.context().close();
  });

  it('reaches nothing over the network from its frame: everything came through the host', async () => {
    const frame = viewFrame();
    expect(frame, 'the view runs in the sandbox’s inner frame').toBeDefined();
    expect(requests.filter((request) => request.frame === frame).map((request) => request.url)).toEqual([]);
    // The host's page, the sandbox page and the host's own MCP calls (and the browser's favicon); nothing else.
    const others = requests.filter(
      (request) =>
        !/\/__test__\/(chat|sandbox)\.html/.test(request.url) && !request.url.endsWith('/favicon.ico') && request.url !== `http://127.0.0.1:${hub.port}/mcp`,
    );
    expect(others.map((request) => request.url)).toEqual([]);
    expect(cspViolations).toEqual([]);
  });
});

describe('a host that draws MCP Apps without declaring them', () => {
  it('is not offered screen_updates: the view shows the result’s output and says there is no live view', async () => {
    hostConfig = { declareApps: false, call: { name: 'execute', arguments: { command: 'echo "no live view, just $((6*7))"' } } };
    await page.goto(hostUrl());
    await waitForViewText('no live view, just 42');
    await expect.poll(() => view().locator('.note').textContent()).toContain('live view unavailable');
    expect(await page.evaluate(() => window.host.error)).toBeUndefined();
  });
});

/** The resource's CSP metadata, read by a client of the test's own (the host page reads it too). */
async function agentResourceCsp(): Promise<Record<string, string[] | undefined>> {
  const read = await agent.readResource({ uri: 'ui://switchboard/terminal' });
  const meta = (read.contents[0] as { _meta?: { ui?: { csp?: Record<string, string[]> } } })._meta;
  return meta?.ui?.csp ?? {};
}
