/// <reference lib="dom" />
/**
 * The person answers an agent's command in the window (docs/design.md §2.9, §5.2), in Debian's
 * chromium against a real `switchboard serve` whose policy asks about `echo approve-me*` (a
 * harmless line): the agent is the MCP SDK 1.x client hosts embed, over the stdio shim, blocked in
 * `execute` while the tab's banner shows the command, cwd, agent and rule; the sidebar row says
 * "needs you". Allow once runs it; Deny with a reason is the agent's COMMAND_DENIED with that
 * reason; the audit names the window as the channel of both answers. Writes
 * test-results/screenshots/approval-banner.png. Runs against dist/.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { whenFile } from '../integration/helpers/fileWatch.js';
import { BIN, cleanEnv, ROOT, startHub, type HubProcess } from '../integration/helpers/hubProcess.js';
import { shellPath } from '../integration/helpers/shells.js';
import { toolAnswer, type ToolAnswer } from '../integration/helpers/toolAnswer.js';
import { closeScene, launchChromium, openPage, SHOTS, waitForRow } from './browser.js';

const POLICY = JSON.stringify([{ match: 'echo approve-me*', action: 'ask', reason: 'the e2e test asks' }]);

let hub: HubProcess;
let browser: Browser;
let page: Page;
let agent: Client;

const call = async (name: string, args: Record<string, unknown>): Promise<ToolAnswer> => toolAnswer(await agent.callTool({ name, arguments: args }));

beforeAll(async () => {
  browser = await launchChromium();
  hub = await startHub({ env: { SHELL: shellPath('bash'), SWITCHBOARD_POLICY: POLICY } });
  page = await openPage(browser);
  agent = new Client({ name: 'approval-e2e-agent', version: '1.4.0' });
  await agent.connect(
    new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env: cleanEnv({ SWITCHBOARD_HOME: hub.home }), cwd: ROOT, stderr: 'pipe' }),
  );
  await agent.listTools(); // as hosts do: the 1.x client checks every result against these schemas
}, 30_000);

afterAll(async () => {
  await closeScene({ agent, browser, hub });
});

describe('an agent blocked on the person’s approval', () => {
  it('the banner shows what asks; Allow once runs it; Deny with a reason is COMMAND_DENIED with it', async () => {
    await page.goto(`http://127.0.0.1:${hub.port}/?key=${hub.uiKey}`);
    await page.locator('.conn.conn-open').waitFor({ timeout: 10_000 });
    const first = await call('execute', { command: 'echo ready-for-approval' });
    const session = String(first.sc.session);
    await page.locator(`.tab[data-tab="${session}"]`).waitFor();
    await waitForRow(page, 'ready-for-approval');

    const running = call('execute', { session, command: 'echo approve-me from-chromium', timeout_ms: 60_000 });
    const banner = page.locator('#banner[data-banner="approval"]');
    await banner.waitFor({ timeout: 10_000 });
    expect(await banner.locator('.approval-command').textContent()).toBe('echo approve-me from-chromium');
    const text = (await banner.textContent()) ?? '';
    expect(text).toContain('approval-e2e-agent 1.4.0');
    expect(text).toContain('rule 0');
    expect(text).toContain('echo approve-me*');
    expect(text).toContain('the e2e test asks');
    expect(text).toContain(String(first.sc.cwd));
    await page.locator(`.session-row[data-session="${session}"][data-state="needs_you"]`).waitFor();
    expect(await page.locator(`.session-row[data-session="${session}"] .badge`).textContent()).toBe('needs you');
    await page.screenshot({ path: path.join(SHOTS, 'approval-banner.png') });

    await banner.locator('[data-action="approval-allow-once"]').click();
    const allowed = await running;
    expect(allowed.sc).toMatchObject({ status: 'completed', exit_code: 0, output: 'approve-me from-chromium' });
    await page
      .locator('#banner[data-banner="approval"]')
      .waitFor({ state: 'detached', timeout: 10_000 })
      .catch(async () => {
        expect(await page.locator('#banner').getAttribute('data-banner')).not.toBe('approval');
      });
    await waitForRow(page, 'approve-me from-chromium');

    const refused = call('execute', { session, command: 'echo approve-me again', timeout_ms: 60_000 });
    await banner.waitFor({ timeout: 10_000 });
    await banner.locator('input.approval-reason').fill('use the staging box');
    await banner.locator('[data-action="approval-deny"]').click();
    const denied = await refused;
    expect(denied.isError).toBe(true);
    expect(denied.text).toBe(
      'COMMAND_DENIED: The person denied `echo approve-me again`: use the staging box. Nothing was typed; do not retry it in another form — ask the person what to do instead.',
    );
    expect(denied.error).toMatchObject({ code: 'COMMAND_DENIED', by: 'person', reason: 'use the staging box' });
    // Both answers came from the person's window, signed in with its cookie: the audit says so.
    const audit = path.join(hub.home, 'audit.jsonl');
    const answers = (): Record<string, unknown>[] =>
      readFileSync(audit, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line.action === 'answer_approval');
    await whenFile(audit, () => answers().length === 2, 'both answers in audit.jsonl');
    expect(answers().map((line) => [line.answer, line.channel])).toEqual([
      ['allow_once', 'window'],
      ['deny', 'window'],
    ]);
  });

  it('an agent’s open waits above the tabs (no session yet); Allow once opens it', async () => {
    const tabs = await page.locator('.tab').count();
    const opening = call('open', { program: 'echo', args: ['approve-me', 'from-open'] });
    const banner = page.locator('#new-approvals [data-banner="new-approval"]');
    await banner.waitFor({ timeout: 10_000 });
    const text = (await banner.textContent()) ?? '';
    expect(text).toContain('approval-e2e-agent 1.4.0 wants to open');
    expect(await banner.locator('.approval-command').textContent()).toBe('echo approve-me from-open');
    expect(text).toContain('rule 0');
    expect(text).toContain('the e2e test asks');
    // Nothing was opened while it waits.
    expect(await page.locator('.tab').count()).toBe(tabs);
    await page.screenshot({ path: path.join(SHOTS, 'approval-open-banner.png') });

    await banner.locator('[data-action="approval-allow-once"]').click();
    const opened = await opening;
    expect(opened.isError, opened.text).toBe(false);
    expect(typeof opened.sc.session).toBe('string');
    await banner.waitFor({ state: 'detached', timeout: 10_000 });
  });
});
