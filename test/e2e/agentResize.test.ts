/// <reference lib="dom" />
/**
 * The person's side of an agent's resize (docs/design.md §5.2), in Debian's chromium against a
 * real `switchboard serve`: the agent's `send` `resize` shows in the tab's status line ("resized
 * by <client> to C×R") and the watching view follows the new grid, without resizing the PTY back;
 * once the person takes over, their size wins and the note goes. Writes
 * test-results/screenshots/agent-resized.png. Runs against dist/: `npm run build` first.
 */
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHub, type HubProcess } from '../integration/helpers/hubProcess.js';
import { shellPath } from '../integration/helpers/shells.js';
import { toolAnswer, type ToolAnswer } from '../integration/helpers/toolAnswer.js';
import { agentOverHttp, closeScene, launchChromium, openPage, SHOTS, waitForRow } from './browser.js';

const AGENT = { name: 'resize-e2e-agent', version: '0.9.1' };

let hub: HubProcess;
let browser: Browser;
let page: Page;
let agent: Client;

async function ok(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const answer: ToolAnswer = toolAnswer(await agent.callTool({ name, arguments: args }));
  if (answer.isError) throw new Error(`${name} ${JSON.stringify(args)} failed: ${answer.text}`);
  return answer.sc;
}

async function size(id: string): Promise<{ rows: unknown; cols: unknown }> {
  const sessions = (await ok('list', {})).sessions as Record<string, unknown>[];
  const found = sessions.find((entry) => entry.id === id);
  return { rows: found?.rows, cols: found?.cols };
}

beforeAll(async () => {
  browser = await launchChromium();
  hub = await startHub({ env: { SHELL: shellPath('bash') } });
  page = await openPage(browser);
  agent = await agentOverHttp(hub.port, hub.token, AGENT);
}, 30_000);

afterAll(async () => {
  await closeScene({ agent, browser, hub });
});

describe('an agent resizes a session the person watches', () => {
  it('the status line says who resized it and to what; the view follows the new grid; taking over, the person’s size wins', async () => {
    await page.goto(`http://127.0.0.1:${hub.port}/?key=${hub.uiKey}`);
    await page.locator('.conn.conn-open').waitFor({ timeout: 10_000 });
    const first = await ok('execute', { command: 'echo before-resize' });
    const session = String(first.session);
    await page.locator(`.tab[data-tab="${session}"]`).waitFor();
    await waitForRow(page, 'before-resize');
    const note = page.locator('#statusline .resized-by');
    expect(await note.count()).toBe(0);

    const sent = await ok('send', {
      session,
      resize: { rows: 20, cols: 64 },
      text: 'stty size',
      keys: ['enter'],
      wait: { pattern: '^20 64$', timeout_ms: 10_000 },
    });
    expect(sent.waited).toBe('pattern');
    await note.waitFor({ timeout: 10_000 });
    expect(await note.textContent()).toBe('resized by resize-e2e-agent to 64×20');
    expect(await note.getAttribute('title')).toContain('resize-e2e-agent 0.9.1 resized this session to 64×20');
    await waitForRow(page, '20 64');
    // The view shows the agent's new grid; watching sent no resize back (the PTY keeps 64×20).
    await page.waitForFunction(() => {
      const view = window.switchboard?.inspect().view();
      return view?.cols === 64 && view.rows === 20;
    });
    expect(await page.evaluate(() => window.switchboard?.inspect().view()?.mode)).toBe('watch');
    await ok('execute', { session, command: 'echo after-resize' });
    await waitForRow(page, 'after-resize');
    expect(await size(session)).toEqual({ rows: 20, cols: 64 });
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    await page.screenshot({ path: path.join(SHOTS, 'agent-resized.png') });

    // The person takes over: their pane's size is applied, and the agent's note no longer holds.
    await page.locator('[data-action="take-over"]').click();
    await page.waitForFunction(() => window.switchboard?.inspect().view()?.mode === 'fit');
    await note.waitFor({ state: 'detached', timeout: 10_000 });
    const fitted = await page.evaluate(() => window.switchboard?.inspect().view() ?? null);
    await expect.poll(() => size(session)).toEqual({ rows: fitted?.rows, cols: fitted?.cols });
    expect(fitted?.cols).not.toBe(64);
  });
});
