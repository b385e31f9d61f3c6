/// <reference lib="dom" />
/**
 * "Save screenshot" in Debian's chromium against a real `switchboard serve` (docs/design.md §5.2):
 * an agent colours its session (`printf`, `ls --color=always`), the person, whose page is in the
 * light theme, clicks the session bar's camera; the browser's download is
 * `<session name>-<yyyymmdd-hhmmss>.png`, a PNG of the session's size, byte for byte the agent's
 * `screenshot` tool's PNG of the same screen in that theme. Writes the download, the tool's PNG
 * and the page (with the button) to test-results/screenshots/. Runs against dist/: `npm run build` first.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshotSize } from '../../src/hub/screenshot/pngRenderer.js';
import { startHub, type HubProcess } from '../integration/helpers/hubProcess.js';
import { shellPath } from '../integration/helpers/shells.js';
import { toolAnswer, type ToolAnswer } from '../integration/helpers/toolAnswer.js';
import { agentOverHttp, closeScene, launchChromium, openPage, SHOTS, waitForRow } from './browser.js';

let hub: HubProcess;
let browser: Browser;
let page: Page;
let agent: Client;

async function call(name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  const answer = toolAnswer(await agent.callTool({ name, arguments: args }));
  if (answer.isError) throw new Error(`${name} ${JSON.stringify(args)} failed: ${answer.text}`);
  return answer;
}

beforeAll(async () => {
  browser = await launchChromium();
  hub = await startHub({ env: { SHELL: shellPath('bash') } });
  // The person's page follows a light system theme: the saved PNG must be in it.
  page = await openPage(browser, { colorScheme: 'light', acceptDownloads: true });
  agent = await agentOverHttp(hub.port, hub.token, { name: 'screenshot-e2e-agent', version: '1.0.0' });
}, 30_000);

afterAll(async () => {
  await closeScene({ agent, browser, hub });
});

describe('the person saves a screenshot of a tab', () => {
  it('downloads <name>-<yyyymmdd-hhmmss>.png: the screenshot tool’s PNG of the same screen, in the page’s theme', async () => {
    await page.goto(`http://127.0.0.1:${hub.port}/?key=${hub.uiKey}`);
    await page.locator('.conn.conn-open').waitFor({ timeout: 10_000 });
    const opened = await call('open', { name: 'colours' });
    const session = String(opened.sc.session);
    await call('execute', {
      session,
      command:
        "printf '\\033[31mred\\033[0m \\033[42;30m green-bg \\033[0m \\033[1;34mbold-blue\\033[0m \\033[38;5;208m256-orange\\033[0m \\033[38;2;200;100;255mtrue-violet\\033[0m\\n'; ls --color=always / /dev | head -n 12",
    });
    await page.locator(`.tab[data-tab="${session}"]`).click();
    await waitForRow(page, 'red  green-bg  bold-blue 256-orange true-violet');
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('light');

    const button = page.locator('#session-bar [data-action="screenshot"]');
    expect(await button.getAttribute('title')).toContain('Save a screenshot');
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    await page.screenshot({ path: path.join(SHOTS, 'save-screenshot-page.png') });
    await page.locator('#session-bar').screenshot({ path: path.join(SHOTS, 'save-screenshot-bar.png') });

    const [download] = await Promise.all([page.waitForEvent('download', { timeout: 20_000 }), button.click()]);
    expect(download.suggestedFilename()).toMatch(/^colours-\d{8}-\d{6}\.png$/);
    const file = await download.path();
    const saved = readFileSync(file);
    writeFileSync(path.join(SHOTS, 'save-screenshot-download.png'), saved);

    const shot = await call('screenshot', { session, theme: 'light' });
    const toolPng = Buffer.from(shot.content.find((item) => item.type === 'image')?.data ?? '', 'base64');
    writeFileSync(path.join(SHOTS, 'save-screenshot-tool.png'), toolPng);
    const listed = ((await call('list', {})).sc.sessions as { id: string; cols: number; rows: number }[]).find((entry) => entry.id === session)!;
    expect(saved.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect({ width: saved.readUInt32BE(16), height: saved.readUInt32BE(20) }).toEqual(screenshotSize(listed.cols, listed.rows));
    expect(saved.equals(toolPng), 'the download is the tool’s light PNG of the same screen').toBe(true);
    const dark = Buffer.from((await call('screenshot', { session, theme: 'dark' })).content.find((item) => item.type === 'image')?.data ?? '', 'base64');
    expect(saved.equals(dark)).toBe(false);
    // The button is back for the next one once the file is saved.
    await expect.poll(() => button.isEnabled(), { timeout: 5_000 }).toBe(true);
  });
});
