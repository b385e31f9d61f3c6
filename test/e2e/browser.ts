/// <reference lib="dom" />
/**
 * What the browser tests share: Debian's chromium through playwright-core (`npx playwright
 * install` cannot work here), the built UI's presence, an MCP agent over the hub's HTTP, and
 * reading the visible terminal the way the person sees it (the DOM rows).
 */
import { existsSync, mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { removeHome, ROOT, type HubProcess } from '../integration/helpers/hubProcess.js';

const CHROMIUM = '/usr/bin/chromium';
export const SHOTS = path.join(ROOT, 'test-results', 'screenshots');

/** Chromium, headless, after checking that it and the built UI are there (and the screenshot folder). */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(path.join(ROOT, 'dist', 'renderer', 'app.js'))) throw new Error('dist/renderer is missing: run `npm run build` first.');
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing (apt-get install chromium).`);
  mkdirSync(SHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--headless', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** The official MCP client as an agent, over the hub's HTTP endpoint with its token. */
export async function agentOverHttp(port: number, token: string, info: { name: string; version: string }): Promise<Client> {
  const agent = new Client(info);
  await agent.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
  );
  return agent;
}

/** The visible terminal's rows as the DOM renders them (what the person sees). */
export function screenOf(page: Page): Promise<string> {
  return page.evaluate(() => {
    const rows = document.querySelector('.term-host:not([hidden]) .xterm-rows');
    return (rows?.textContent ?? '').replace(/\u00a0/g, ' ');
  });
}

/**
 * Waits until a row of the visible terminal shows exactly `text` (trimmed): a command's own
 * output line, which `waitForScreen` cannot tell from the command line that typed it.
 */
export async function waitForRow(page: Page, text: string, timeout = 10_000): Promise<void> {
  await page.waitForFunction(
    (needle) =>
      Array.from(document.querySelectorAll('.term-host:not([hidden]) .xterm-rows > div')).some(
        (row) => (row.textContent ?? '').replace(/\u00a0/g, ' ').trim() === needle,
      ),
    text,
    { timeout, polling: 'raf' },
  );
}

/** Waits until the visible terminal shows `text` (read from the DOM rows, each animation frame). */
export async function waitForScreen(page: Page, text: string, timeout = 10_000): Promise<void> {
  await page.waitForFunction(
    (needle) => {
      const rows = document.querySelector('.term-host:not([hidden]) .xterm-rows');
      return (rows?.textContent ?? '').replace(/\u00a0/g, ' ').includes(needle);
    },
    text,
    { timeout, polling: 'raf' },
  );
}

/** A page in a fresh context (1280×800, dark unless told), its errors on the console. */
export async function openPage(browser: Browser, options: BrowserContextOptions = {}): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'dark', deviceScaleFactor: 1, ...options });
  const page = await context.newPage();
  page.on('pageerror', (error) => console.error(`page error: ${error.message}`));
  return page;
}

/** The end of an e2e file: the agent and the browser closed, the hub stopped cleanly (exit 0) and its home removed. */
export async function closeScene(scene: { agent?: { close(): Promise<void> }; browser?: Browser; hub?: HubProcess }): Promise<void> {
  await scene.agent?.close().catch(() => undefined);
  await scene.browser?.close().catch(() => undefined);
  if (scene.hub) {
    expect(await scene.hub.stop()).toBe(0);
    removeHome(scene.hub.home);
  }
}
