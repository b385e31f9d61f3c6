/// <reference lib="dom" />
/**
 * A hand edit of settings.json that loosens the policy waits for the person in the window
 * (docs/design.md §5.2, §5.5), in Debian's chromium against a real `switchboard serve` whose
 * settings.json denies `rm -rf *`. The agent (the official MCP client over HTTP with the token)
 * aims `rm -rf` at a folder made for this test under the system temp folder, and nothing else:
 * the edit that removes the rule shows a banner naming it and the command stays denied; Discard
 * puts settings.json back; a tightening edit applies at once with no banner; the next loosening
 * edit, confirmed in the banner, lets the command run and the folder goes. Writes
 * test-results/screenshots/held-settings-*.png. Runs against dist/: `npm run build` first.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { whenFile } from '../integration/helpers/fileWatch.js';
import { startHub, tempHome, type HubProcess } from '../integration/helpers/hubProcess.js';
import { shellPath } from '../integration/helpers/shells.js';
import { toolAnswer, type ToolAnswer } from '../integration/helpers/toolAnswer.js';
import { personCookie, UiClient } from '../integration/helpers/uiClient.js';
import { agentOverHttp, closeScene, launchChromium, openPage, SHOTS } from './browser.js';

const DENY_RM = { match: 'rm -rf *', action: 'deny', reason: 'never delete folders' };
const DENY_TOUCH = { match: 'touch *', action: 'deny' };

let hub: HubProcess;
let browser: Browser;
let page: Page;
let agent: Client;
let victim: string;
/** A second window of the person's, over /ws: it hears the hub's settings as they change. */
let watcher: UiClient;

const call = async (name: string, args: Record<string, unknown>): Promise<ToolAnswer> => toolAnswer(await agent.callTool({ name, arguments: args }));
const settingsFile = (): string => path.join(hub.home, 'settings.json');
const onDisk = (): Record<string, unknown> => JSON.parse(readFileSync(settingsFile(), 'utf8')) as Record<string, unknown>;
const banner = () => page.locator('#held-settings');

async function screenshot(name: string): Promise<void> {
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

/** The agent's `rm -rf` of the test's own folder is refused, and the folder is still there. */
async function expectRmDenied(): Promise<void> {
  const denied = await call('execute', { command: `rm -rf ${victim}` });
  expect(denied.error?.code, denied.text).toBe('COMMAND_DENIED');
  expect(existsSync(path.join(victim, 'keep.txt'))).toBe(true);
}

beforeAll(async () => {
  victim = mkdtempSync(path.join(tmpdir(), 'sb-held-victim-'));
  mkdirSync(path.join(victim, 'inside'));
  writeFileSync(path.join(victim, 'keep.txt'), 'the test’s own file\n');
  browser = await launchChromium();
  const home = tempHome();
  writeFileSync(path.join(home, 'settings.json'), JSON.stringify({ policy: [DENY_RM] }));
  hub = await startHub({ home, env: { SHELL: shellPath('bash') } });
  agent = await agentOverHttp(hub.port, hub.token, { name: 'held-e2e-agent', version: '1.0.0' });
  page = await openPage(browser);
  page.setDefaultTimeout(10_000);
  watcher = await UiClient.connect(hub, await personCookie(hub));
}, 30_000);

afterAll(async () => {
  watcher?.close();
  await closeScene({ agent, browser, hub });
  rmSync(victim, { recursive: true, force: true });
});

describe('a settings change that waits for the person', () => {
  it('a hand edit that removes the deny rule shows a banner naming it, and the command stays denied', async () => {
    await page.goto(`http://127.0.0.1:${hub.port}/?key=${hub.uiKey}`);
    await page.locator('.conn.conn-open').waitFor();
    await expectRmDenied();
    expect(await banner().isHidden()).toBe(true);

    writeFileSync(settingsFile(), JSON.stringify({ policy: [] }));
    await banner().waitFor({ state: 'visible' });
    expect(await banner().locator('.held-line[data-source="settings.json"]').textContent()).toBe('settings.json: policy rule 0 rm -rf * deny → removed');
    expect(await banner().locator('.held-change code').textContent()).toBe('rm -rf *');
    expect(await banner().textContent()).toContain('Not in force');
    await screenshot('held-settings-banner');
    await expectRmDenied();

    // Over the settings page too; the rules there are the ones in force, marked as waiting.
    await page.locator('[data-action="open-settings"]').click();
    const rules = page.locator('[data-hub-setting="policy"]');
    await rules.locator('[data-held]').waitFor();
    expect(await rules.locator('[data-rule="0"] input[name="match"]').inputValue()).toBe('rm -rf *');
    expect(await banner().isVisible()).toBe(true);
    await rules.evaluate((element) => element.previousElementSibling?.scrollIntoView({ block: 'start' }));
    await screenshot('held-settings-over-page');
    await page.keyboard.press('Escape');
  });

  it('Discard puts settings.json back to what is in force; the command is still denied', async () => {
    await banner().locator('[data-action="held-discard"]').click();
    await banner().waitFor({ state: 'hidden' });
    await whenFile(settingsFile(), () => JSON.stringify(onDisk().policy) === JSON.stringify([DENY_RM]), 'settings.json back to the deny rule');
    await expectRmDenied();
  });

  it('a tightening edit applies at once, with no banner', async () => {
    const from = watcher.mark();
    writeFileSync(settingsFile(), JSON.stringify({ policy: [DENY_RM, DENY_TOUCH] }));
    // The hub tells every window the settings it now runs with: the two rules in force.
    const inForce = (m: Parameters<Parameters<UiClient['waitFor']>[0]>[0]): boolean =>
      m.type === 'hubSettings' && JSON.stringify(m.settings.find((setting) => setting.key === 'policy')?.value) === JSON.stringify([DENY_RM, DENY_TOUCH]);
    await watcher.waitFor(inForce, 'the tightened policy in force', { from });
    const denied = await call('execute', { command: `touch ${path.join(victim, 'new.txt')}` });
    expect(denied.error).toMatchObject({ code: 'COMMAND_DENIED', rule: { index: 1, match: 'touch *' } });
    expect(existsSync(path.join(victim, 'new.txt'))).toBe(false);
    expect(await banner().isHidden()).toBe(true);
  });

  it('Confirm in the banner puts a loosening edit in force: the command runs and the folder goes', async () => {
    writeFileSync(settingsFile(), JSON.stringify({ policy: [DENY_TOUCH] }));
    await banner().waitFor({ state: 'visible' });
    expect(await banner().locator('.held-line[data-source="settings.json"]').textContent()).toBe('settings.json: policy rule 0 rm -rf * deny → removed');
    await expectRmDenied();
    await banner().locator('[data-action="held-confirm"]').click();
    await banner().waitFor({ state: 'hidden' });
    const ran = await call('execute', { command: `rm -rf ${victim}` });
    expect(ran.sc, ran.text).toMatchObject({ status: 'completed', exit_code: 0 });
    expect(existsSync(victim)).toBe(false);
    const audit = readFileSync(path.join(hub.home, 'audit.jsonl'), 'utf8');
    expect(audit).toContain('"action":"discard_settings","channel":"window","settings":["policy"]');
    expect(audit).toContain('"action":"confirm_settings","channel":"window","settings":["policy"]');
  });
});
