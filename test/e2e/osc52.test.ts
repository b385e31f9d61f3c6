/// <reference lib="dom" />
/**
 * The UI never acts on clipboard-writing OSC 52 from agent sessions. An agent prints
 * OSC 52 (BEL- and ST-terminated, every selection target, and the `?` query) into a session the
 * page watches; the person's clipboard keeps what it held and no clipboard API was called. The
 * control: the UI's own copy (a selection, Ctrl+Shift+C) does reach the clipboard, through the
 * same hooks, so the assertions would see a write if the page made one.
 *
 * Debian's chromium (playwright-core) against a real `switchboard serve`; the agent is the
 * official MCP client over HTTP. Runs against dist/: `npm run build` first. Writes a screenshot
 * to test-results/screenshots/osc52.png.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHub, type HubProcess } from '../integration/helpers/hubProcess.js';
import { shellPath } from '../integration/helpers/shells.js';
import { agentOverHttp, closeScene, launchChromium, SHOTS, waitForRow } from './browser.js';

/** What the person's clipboard holds before the agent tries. */
const BEFORE = 'the-persons-clipboard';
/** What the agent tries to put there. */
const PAYLOAD = 'pwned';

let hub: HubProcess;
let home: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let agent: Client;

interface ClipboardCall {
  api: string;
  args: string[];
}

async function tool(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = await agent.callTool({ name, arguments: args });
  const first = result.content[0];
  if (result.isError) throw new Error(`${name} failed: ${first?.type === 'text' ? first.text : ''}`);
  return (result.structuredContent ?? {}) as Record<string, unknown>;
}

/** Every clipboard write the page attempted since the hooks were installed (or last reset). */
function clipboardCalls(): Promise<ClipboardCall[]> {
  return page.evaluate(() => (window as unknown as { __clipboardCalls: ClipboardCall[] }).__clipboardCalls.slice());
}

function readClipboard(): Promise<string> {
  return page.evaluate(() => navigator.clipboard.readText());
}

beforeAll(async () => {
  browser = await launchChromium();
  // Sessions get an empty private HOME: no rc file of the machine's user runs in them.
  home = mkdtempSync(path.join(tmpdir(), 'sb-e2e-osc52-home-'));
  hub = await startHub({ env: { SHELL: shellPath('bash'), HOME: home } });
  const origin = `http://127.0.0.1:${hub.port}`;
  context = await browser.newContext({ viewport: { width: 1200, height: 760 }, colorScheme: 'dark' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  // Record every way a page can write the clipboard, before any of the app's code runs.
  await context.addInitScript(() => {
    const calls: { api: string; args: string[] }[] = [];
    (window as unknown as { __clipboardCalls: typeof calls }).__clipboardCalls = calls;
    const proto = Clipboard.prototype as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    for (const api of ['writeText', 'write']) {
      const original = proto[api]!;
      proto[api] = function (this: Clipboard, ...args: unknown[]) {
        calls.push({ api, args: args.map(String) });
        return original.apply(this, args);
      };
    }
    const execCommand = Document.prototype.execCommand;
    Document.prototype.execCommand = function (this: Document, command: string, ...rest: unknown[]) {
      if (/^(copy|cut)$/i.test(command)) calls.push({ api: 'execCommand', args: [command] });
      return execCommand.call(this, command, ...(rest as [boolean?, string?]));
    };
    document.addEventListener('copy', () => calls.push({ api: 'copy event', args: [] }), true);
  });
  page = await context.newPage();
  page.on('pageerror', (error) => console.error(`page error: ${error.message}`));
  agent = await agentOverHttp(hub.port, hub.token, { name: 'osc52-agent', version: '1.0.0' });
}, 30_000);

afterAll(async () => {
  await closeScene({ agent, browser, hub });
  if (home) rmSync(home, { recursive: true, force: true });
});

describe('OSC 52 from an agent session', () => {
  it('never reaches the person’s clipboard, while the UI’s own copy does', async () => {
    await page.goto(`http://127.0.0.1:${hub.port}/?key=${hub.uiKey}`);
    await page.locator('.conn.conn-open').waitFor({ timeout: 10_000 });
    // The person's clipboard holds something of theirs; the hooks start from zero after that.
    await page.evaluate((text) => navigator.clipboard.writeText(text), BEFORE);
    expect(await readClipboard()).toBe(BEFORE);
    await page.evaluate(() => ((window as unknown as { __clipboardCalls: unknown[] }).__clipboardCalls.length = 0));

    const opened = await tool('open', { cwd: home, name: 'osc52' });
    const session = String(opened.session);
    await page.locator(`.tab[data-tab="${session}"]`).click();
    await page.locator(`.tab.active[data-tab="${session}"]`).waitFor();

    // The agent's attempts: BEL and ST terminators, the clipboard / primary / select targets,
    // an empty target list, and the query form (asks the terminal to send the clipboard back).
    const attempts = [
      `printf '\\033]52;c;%s\\a' "$(printf ${PAYLOAD} | base64)"`,
      `printf '\\033]52;c;%s\\033\\\\' "$(printf ${PAYLOAD}-st | base64)"`,
      `printf '\\033]52;p;%s\\a' "$(printf ${PAYLOAD}-p | base64)"`,
      `printf '\\033]52;s0;%s\\a' "$(printf ${PAYLOAD}-s | base64)"`,
      `printf '\\033]52;;%s\\a' "$(printf ${PAYLOAD}-none | base64)"`,
      `printf '\\033]52;c;?\\a'`,
    ];
    const ran = await tool('execute', { session, command: `${attempts.join('; ')}; echo osc52-printed` });
    expect(ran).toMatchObject({ status: 'completed', exit_code: 0, output: 'osc52-printed' });
    // The page has parsed every byte the agent printed: the marker's own output row comes after
    // them (the command line that typed it shows the marker too, before them).
    await waitForRow(page, 'osc52-printed');
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    await page.screenshot({ path: path.join(SHOTS, 'osc52.png') });

    expect(await clipboardCalls()).toEqual([]);
    expect(await readClipboard()).toBe(BEFORE);
    // The query was not answered by the page as if the person typed (that would ask to take over).
    expect(await page.locator('.dialog').count()).toBe(0);
    expect((await tool('list', {})).sessions).toEqual(expect.arrayContaining([expect.objectContaining({ id: session, controller: 'agent' })]));

    // The control: the UI's own copy reaches the clipboard through the same hooks.
    const word = 'copyme4242';
    await tool('execute', { session, command: `echo ${word}` });
    await waitForRow(page, word);
    const box = await page.evaluate((needle) => {
      const rows = Array.from(document.querySelectorAll('.term-host:not([hidden]) .xterm-rows > div'));
      const row = rows.find((r) => (r.textContent ?? '').replace(/\u00a0/g, ' ').trim() === needle);
      if (!row) return null;
      const rect = row.getBoundingClientRect();
      const screen = document.querySelector('.term-host:not([hidden]) .xterm-screen')!.getBoundingClientRect();
      return { x: screen.left, y: rect.top + rect.height / 2, width: screen.width };
    }, word);
    expect(box, `a row showing exactly ${word}`).not.toBeNull();
    const cols = Number(opened.cols);
    // Double-click the word's third cell: xterm selects the word.
    await page.mouse.dblclick(box!.x + (box!.width / cols) * 2.5, box!.y);
    await page.keyboard.press('Control+Shift+C');
    await expect.poll(readClipboard).toBe(word);
    expect(await clipboardCalls()).toEqual([{ api: 'writeText', args: [word] }]);
    expect(await page.locator('.dialog').count()).toBe(0);
  }, 60_000);
});
