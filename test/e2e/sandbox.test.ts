/// <reference lib="dom" />
/**
 * The agents' sandbox in the window (docs/design.md §2.10, §5.2, §5.5), in Debian's chromium
 * against a real `switchboard serve`: an agent's session shows "sandboxed" in its session bar
 * (the summary as its tooltip), the person's own shows nothing; the settings page edits the
 * `sandbox` setting part by part into settings.json; on a hub where no sandbox can start (a PATH
 * without bubblewrap) the bar says "not sandboxed" and the banner under it the reason and the fix. Writes
 * test-results/screenshots/sandbox-*.png. Runs against dist/: `npm run build` first.
 */
import { mkdirSync, readdirSync, readFileSync, symlinkSync, existsSync } from 'node:fs';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { whenFile } from '../integration/helpers/fileWatch.js';
import { removeHome, startHub, tempHome, type HubProcess } from '../integration/helpers/hubProcess.js';
import { shellPath } from '../integration/helpers/shells.js';
import { agentOverHttp, closeScene, launchChromium, openPage, SHOTS } from './browser.js';

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
}, 30_000);
afterAll(async () => {
  await browser?.close();
});

async function screenshot(page: Page, name: string): Promise<void> {
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

/** The window on `hub`, signed in, with an agent session `session` in front. */
async function windowOn(hub: HubProcess, agent: Client, name: string, cwd: string): Promise<{ page: Page; session: string }> {
  const opened = (await agent.callTool({ name: 'open', arguments: { name, cwd } })) as { structuredContent: { session: string } };
  const page = await openPage(browser);
  page.setDefaultTimeout(10_000);
  await page.goto(`http://127.0.0.1:${hub.port}/?key=${hub.uiKey}`);
  await page.locator('.conn.conn-open').waitFor();
  await page.locator(`[data-session="${opened.structuredContent.session}"]`).first().click();
  await page.locator('.sb-title .sandbox-badge').waitFor();
  return { page, session: opened.structuredContent.session };
}

describe('the sandbox in the window', () => {
  it("an agent's session says it is sandboxed; the settings page edits the sandbox into settings.json", async () => {
    const work = tempHome('sb-e2e-project-');
    const hub = await startHub({ env: { SHELL: shellPath('bash') } });
    const agent = await agentOverHttp(hub.port, hub.token, { name: 'sandbox-e2e', version: '1.0' });
    try {
      const { page } = await windowOn(hub, agent, 'sandboxed-agent', work);
      const badge = page.locator('.sb-title .sandbox-badge');
      expect(await badge.getAttribute('data-sandbox')).toBe('on');
      expect(await badge.textContent()).toBe('sandboxed');
      expect(await badge.getAttribute('title')).toMatch(/^sandboxed: .*network on$/);
      await screenshot(page, 'sandbox-session-bar');

      await page.locator('[data-action="open-settings"]').click();
      const editor = page.locator('[data-hub-setting="sandbox"]');
      await editor.waitFor();
      expect(await editor.locator('select[name="sandbox.filesystem"]').inputValue()).toBe('project');
      expect(await editor.locator('textarea[name="sandbox.writable"]').inputValue()).toContain('~/.npm');
      await editor.evaluate((element) => element.previousElementSibling?.scrollIntoView({ block: 'start' }));
      const settingsFile = path.join(hub.home, 'settings.json');
      const saved = (): { sandbox?: Record<string, unknown> } =>
        existsSync(settingsFile) ? (JSON.parse(readFileSync(settingsFile, 'utf8')) as { sandbox?: Record<string, unknown> }) : {};

      await editor.locator('textarea[name="sandbox.denied"]').fill('~/.ssh\n~/.aws');
      await editor.locator('textarea[name="sandbox.denied"]').blur();
      await whenFile(settingsFile, () => JSON.stringify(saved().sandbox?.denied) === '["~/.ssh","~/.aws"]', 'the denied paths saved');
      // Only these domains: nothing is sent until the list has one.
      await editor.locator('select[name="sandbox.network"]').selectOption('domains');
      const domains = editor.locator('textarea[name="sandbox.network.domains"]');
      await domains.fill('registry.npmjs.org\n*.github.com');
      await domains.blur();
      await whenFile(settingsFile, () => JSON.stringify(saved().sandbox?.network) === '["registry.npmjs.org","*.github.com"]', 'the domains saved');
      await editor.locator('input[name="sandbox.required"]').check();
      await whenFile(settingsFile, () => saved().sandbox?.required === true, 'required saved');
      expect(saved().sandbox).toMatchObject({
        filesystem: 'project',
        denied: ['~/.ssh', '~/.aws'],
        network: ['registry.npmjs.org', '*.github.com'],
        required: true,
      });
      await screenshot(page, 'sandbox-settings');
      // A path the hub refuses: its words on top of the page, nothing saved.
      await editor.locator('textarea[name="sandbox.denied"]').fill('relative/path');
      await editor.locator('textarea[name="sandbox.denied"]').blur();
      await page.locator('[data-settings-error]').waitFor();
      expect(await page.locator('[data-settings-error]').textContent()).toMatch(/sandbox\.denied\.0: must be an absolute path or start with ~\//);
      expect(saved().sandbox?.denied).toEqual(['~/.ssh', '~/.aws']);
    } finally {
      await closeScene({ agent, hub });
      removeHome(work);
    }
  });

  it('where no sandbox can start, the session bar says "not sandboxed", its banner the reason and the fix', async () => {
    const bins = tempHome('sb-e2e-nobwrap-');
    const dir = path.join(bins, 'bin');
    mkdirSync(dir);
    for (const entry of (process.env.PATH ?? '').split(':')) {
      if (!entry.startsWith('/') || !existsSync(entry)) continue;
      for (const file of readdirSync(entry))
        if (file !== 'bwrap' && !existsSync(path.join(dir, file))) symlinkSync(path.join(entry, file), path.join(dir, file));
    }
    const hub = await startHub({ env: { SHELL: shellPath('bash'), PATH: dir } });
    const agent = await agentOverHttp(hub.port, hub.token, { name: 'sandbox-e2e', version: '1.0' });
    try {
      const { page } = await windowOn(hub, agent, 'unsandboxed-agent', bins);
      const badge = page.locator('.sb-title .sandbox-badge');
      expect(await badge.getAttribute('data-sandbox')).toBe('unavailable');
      expect(await badge.textContent()).toBe('not sandboxed');
      const banner = page.locator('[data-banner="unsandboxed"]');
      await banner.waitFor();
      expect(await banner.textContent()).toBe('Not sandboxedbubblewrap (bwrap) is not installed; to fix it: sudo apt-get install bubblewrap');
      expect(await banner.locator('code').textContent()).toBe('sudo apt-get install bubblewrap');
      await screenshot(page, 'sandbox-unavailable');
    } finally {
      await closeScene({ agent, hub });
      removeHome(bins);
    }
  });
});
