/// <reference lib="dom" />
/**
 * The search across every session's commands in a real browser (docs/design.md §2.7, §5.2):
 * Debian's chromium (playwright-core) on the UI a real `switchboard serve` serves, the official
 * MCP client as the agent over HTTP. The agent runs commands in two sessions (one fails) and
 * closes one; the person opens History from the keyboard, sees both with the failed one in red,
 * opens the closed one's output read only, runs it again in a new terminal and sees its output
 * there; a live session's result opens its tab. Screenshots go to test-results/screenshots/.
 * Runs against dist/: `npm run build` first.
 */
import { mkdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHub, type HubProcess } from '../integration/helpers/hubProcess.js';
import { shellPath } from '../integration/helpers/shells.js';
import { toolAnswer } from '../integration/helpers/toolAnswer.js';
import { agentOverHttp, closeScene, launchChromium, SHOTS, waitForRow } from './browser.js';

/** The page's test hook (renderer/src/app.ts `inspect`), the parts read here. */
interface PageHook {
  switchboard?: { inspect(): { tabs: string[]; session(id: string): { creator: { kind: string }; cwd: string | null } | null } };
}

let hub: HubProcess;
let browser: Browser;
let page: Page;
let agent: Client;

async function tool(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const answer = toolAnswer(await agent.callTool({ name, arguments: args }));
  if (answer.isError) throw new Error(`${name} ${JSON.stringify(args)} failed: ${answer.text}`);
  return answer.sc;
}

async function screenshot(name: string): Promise<void> {
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

beforeAll(async () => {
  browser = await launchChromium();
  hub = await startHub({ env: { SHELL: shellPath('bash') } });
  const context = await browser.newContext({ viewport: { width: 1360, height: 820 }, colorScheme: 'dark', deviceScaleFactor: 1 });
  page = await context.newPage();
  page.on('pageerror', (error) => console.error(`page error: ${error.message}`));
  agent = await agentOverHttp(hub.port, hub.token, { name: 'history-e2e-agent', version: '1.0.0' });
}, 30_000);

afterAll(async () => {
  const work = hub ? `${hub.home}-work` : undefined;
  await closeScene({ agent, browser, hub });
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('History in the window', () => {
  it("finds both sessions' commands (the failed one red), opens a closed one's output, runs it again in a new terminal", async () => {
    // Beside the hub's state folder: the agent's sandboxed session may not work in it.
    const project = path.join(`${hub.home}-work`, 'project');
    mkdirSync(project, { recursive: true });
    const closed = await tool('execute', { command: "printf 'alpha-out-%s\\n' 1 2 3 # histe2e-alpha", cwd: project });
    await tool('kill', { session: closed.session, close: true });
    const failing = await tool('execute', { command: 'ls /histe2e-missing # histe2e-beta', cwd: project });
    expect(failing.exit_code).not.toBe(0);

    await page.goto(`http://127.0.0.1:${hub.port}/?key=${hub.uiKey}`);
    await page.locator('.conn.conn-open').waitFor({ timeout: 10_000 });

    // The keyboard opens it; typing searches every session's commands.
    await page.keyboard.press('Control+Shift+H');
    const query = page.locator('[data-role="history-query"]');
    await query.waitFor();
    expect(await query.evaluate((element) => element === document.activeElement)).toBe(true);
    await page.keyboard.type('histe2e');
    const rows = page.locator('.hp-row');
    await page.waitForFunction(() => document.querySelectorAll('.hp-row').length === 2 && document.querySelector('.hp-count')?.textContent === '2', undefined, {
      timeout: 10_000,
    });
    const [beta, alpha] = [rows.nth(0), rows.nth(1)];
    expect(await beta.getAttribute('data-session')).toBe(failing.session);
    expect(await alpha.getAttribute('data-session')).toBe(closed.session);
    expect(await beta.locator('.hp-command').textContent()).toBe('ls /histe2e-missing # histe2e-beta');
    // The failed one is marked as in the timeline: its exit code, in red.
    expect(await beta.getAttribute('class')).toContain('tone-fail');
    expect(await beta.locator('.exit').textContent()).toBe(String(failing.exit_code));
    expect(await beta.locator('.hp-command').evaluate((element) => getComputedStyle(element).color)).toBe('rgb(244, 122, 128)');
    expect(await alpha.locator('.exit').textContent()).toBe('✓');
    expect(await alpha.locator('.hp-command').evaluate((element) => getComputedStyle(element).color)).not.toBe('rgb(244, 122, 128)');
    // When, where, who.
    const meta = await alpha.locator('.hp-meta').textContent();
    expect(meta).toContain('just now');
    expect(meta).toContain('work/project');
    expect(meta).toContain('history-e2e-agent');
    // Failed only (Alt+F) leaves the failed one.
    await page.keyboard.press('Alt+F');
    await page.waitForFunction(() => document.querySelectorAll('.hp-row').length === 1);
    await screenshot('history-results-failed-only');
    await page.keyboard.press('Alt+F');
    await page.waitForFunction(() => document.querySelectorAll('.hp-row').length === 2);
    await screenshot('history-results');

    // The closed session's command: Enter shows its output here, read only.
    await page.keyboard.press('ArrowDown');
    expect(await alpha.getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('Enter');
    const output = page.locator('[data-role="command-output"]');
    await page.waitForFunction(
      () => document.querySelector('[data-role="command-output"]')?.textContent === 'alpha-out-1\nalpha-out-2\nalpha-out-3',
      undefined,
      { timeout: 10_000 },
    );
    expect(await output.evaluate((element) => (element as HTMLElement).isContentEditable)).toBe(false);
    await screenshot('history-output');

    // Run again (Ctrl+Enter) in a new terminal: it opens in front, in the command's folder, and the output shows.
    const tabsBefore = await page.evaluate(() => (window as unknown as PageHook).switchboard?.inspect().tabs.length ?? 0);
    await page.keyboard.press('Control+Enter');
    await page.locator('.hp-target.selected[data-target="new"]').waitFor();
    await page.keyboard.press('Enter');
    await page.waitForFunction((before) => ((window as unknown as PageHook).switchboard?.inspect().tabs.length ?? 0) > before, tabsBefore, { timeout: 10_000 });
    expect(await page.locator('#history').isHidden()).toBe(true);
    await waitForRow(page, 'alpha-out-3', 15_000);
    const mine = await page.evaluate(() => window.switchboard?.inspect().active ?? '');
    expect(mine).not.toBe(failing.session);
    const info = await page.evaluate((id) => (window as unknown as PageHook).switchboard?.inspect().session(id) ?? null, mine);
    expect(info).toMatchObject({ creator: { kind: 'user' }, cwd: project });
    await screenshot('history-rerun');

    // A live session's result opens its tab in front (History from the scrollback search box's button, with its words).
    await page.locator('[data-role="search"]').fill('histe2e');
    await page.locator('[data-action="search-all"]').click();
    expect(await query.inputValue()).toBe('histe2e');
    await page.waitForFunction(() => document.querySelectorAll('.hp-row').length === 3);
    await page.locator(`.hp-row[data-session="${String(failing.session)}"] [data-action="open"]`).click();
    await page.waitForFunction((id) => window.switchboard?.inspect().active === id, failing.session, { timeout: 10_000 });
    expect(await page.locator('#history').isHidden()).toBe(true);
  });
});
