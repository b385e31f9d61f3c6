/// <reference lib="dom" />
/**
 * Remotes in the window (docs/design.md §4.7, §5.2), in Debian's chromium against a real
 * `switchboard serve` whose settings name a remote behind a real OpenSSH server on loopback
 * (test/integration/helpers/sshServer.ts) and one whose host key changed: the sidebar lists
 * sessions under their machine and says why a remote is down; the person watches a remote
 * session live, takes it over, types into it and hands it back; the settings page adds and
 * removes a remote. An agent reaches the remote through the shim (SDK 1.x). Writes
 * test-results/screenshots/remote-*.png. Runs against dist/: `npm run build` first.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { whenFile } from '../integration/helpers/fileWatch.js';
import { stopHubIn } from '../integration/helpers/hubCleanup.js';
import { BIN, cleanEnv, ROOT, startHub, tempHome, type HubProcess } from '../integration/helpers/hubProcess.js';
import { startSshServer, type SshServer } from '../integration/helpers/sshServer.js';
import { toolAnswer } from '../integration/helpers/toolAnswer.js';
import { closeScene, launchChromium, SHOTS, waitForRow } from './browser.js';

const REMOTE_COMMAND = `${process.execPath} ${BIN}`;

let ssh: SshServer;
let hub: HubProcess;
let browser: Browser;
let page: Page;
let agent: Client;

async function call(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const answer = toolAnswer(await agent.callTool({ name, arguments: args }, undefined, { timeout: 60_000 }));
  if (answer.isError) throw new Error(`${name} ${JSON.stringify(args)} failed: ${answer.text}`);
  return answer.sc;
}

async function screenshot(name: string): Promise<void> {
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

function savedRemotes(): string[] {
  try {
    return ((JSON.parse(readFileSync(path.join(hub.home, 'settings.json'), 'utf8')) as { remotes?: { name: string }[] }).remotes ?? []).map(
      (remote) => remote.name,
    );
  } catch {
    return [];
  }
}

beforeAll(async () => {
  ssh = await startSshServer();
  const home = tempHome('sb-local-ui-');
  writeFileSync(
    path.join(home, 'settings.json'),
    JSON.stringify({
      remotes: [
        { name: 'devbox', destination: ssh.host, command: REMOTE_COMMAND, sshConfig: ssh.clientConfig },
        { name: 'changed', destination: ssh.wrongKeyHost, command: REMOTE_COMMAND, sshConfig: ssh.clientConfig },
      ],
    }),
  );
  hub = await startHub({ home });
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'dark', deviceScaleFactor: 1 });
  page = await context.newPage();
  page.setDefaultTimeout(20_000);
  page.on('pageerror', (error) => console.error(`page error: ${error.message}`));
  agent = new Client({ name: 'remote-ui-agent', version: '1.0.0' });
  await agent.connect(
    new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env: cleanEnv({ SWITCHBOARD_HOME: hub.home }), cwd: ROOT, stderr: 'pipe' }),
  );
}, 60_000);

afterAll(async () => {
  await closeScene({ agent, browser, hub });
  if (ssh) await stopHubIn(ssh.remoteState);
  await ssh?.stop();
});

describe('remotes in the window', () => {
  it('lists a remote session under its machine, says why another remote is down, and watches it live', async () => {
    await page.goto(`http://127.0.0.1:${hub.port}/?key=${hub.uiKey}`);
    await page.locator('.conn.conn-open').waitFor({ timeout: 10_000 });
    await page.locator('[data-machine="devbox"][data-machine-state="connected"]').waitFor();
    await page.locator('[data-machine="changed"][data-machine-state="disconnected"]').waitFor();
    expect(await page.locator('[data-machine="changed"] .machine-problem').textContent()).toContain('host key');
    await page.locator('[data-machine="local"]').waitFor();

    const session = String((await call('open', { host: 'devbox', name: 'remote-build' })).session);
    expect(session).toMatch(/^devbox:/);
    const row = page.locator(`[data-machine="devbox"] [data-session="${session}"]`);
    await row.waitFor();
    expect(await page.locator(`[data-machine="local"] [data-session="${session}"]`).count()).toBe(0);
    await row.click();
    await call('execute', { session, command: 'echo remote-$((6*7))' });
    await waitForRow(page, 'remote-42', 15_000);
    await screenshot('remote-sidebar');
  }, 60_000);

  it('takes a remote session over, types into it there, and hands it back to the agent', async () => {
    const session = await page.locator('[data-machine="devbox"] [data-session]').first().getAttribute('data-session');
    await page.locator('[data-action="take-over"]').click();
    await page.locator('.banner[data-banner="control"]').waitFor({ timeout: 10_000 });
    await page.locator('.term-host:not([hidden]) .xterm').click();
    await page.keyboard.type('echo typed-over-$((40+1))');
    await page.keyboard.press('Enter');
    await waitForRow(page, 'typed-over-41', 15_000);
    // The agent's writes are refused while the person has the keyboard, as on this machine.
    const refused = toolAnswer(await agent.callTool({ name: 'execute', arguments: { session, command: 'echo not-now' } }));
    expect(refused.isError).toBe(true);
    expect(refused.error?.code).toBe('SESSION_CONTROLLED_BY_USER');
    await page.locator('[data-action="hand-back"]').click();
    await page.locator('[data-action="take-over"]').waitFor({ timeout: 10_000 });
    const back = await call('execute', { session, command: 'echo agent-again' });
    expect(back).toMatchObject({ status: 'completed', output: 'agent-again' });
  }, 60_000);

  it('the settings page adds a remote (it connects) and removes one', async () => {
    await page.locator('[data-action="open-settings"]').click();
    const remotes = page.locator('[data-hub-setting="remotes"]');
    await remotes.locator('[data-remote="devbox"]').waitFor();
    await remotes.locator('input[name="remote-name"]').fill('again');
    await remotes.locator('input[name="remote-destination"]').fill(ssh.host);
    await remotes.locator('input[name="remote-command"]').fill(REMOTE_COMMAND);
    await remotes.locator('input[name="remote-ssh-config"]').fill(ssh.clientConfig);
    await remotes.locator('[data-action="add-remote"]').click();
    await whenFile(path.join(hub.home, 'settings.json'), () => savedRemotes().includes('again'), 'the remote added');
    await expect.poll(async () => remotes.locator('[data-remote="again"] .remote-state').textContent(), { timeout: 20_000 }).toContain('connected');
    await remotes.evaluate((element) => element.scrollIntoView({ block: 'start' }));
    await screenshot('remote-settings');
    await remotes.locator('[data-remove-remote="changed"]').click();
    await whenFile(path.join(hub.home, 'settings.json'), () => !savedRemotes().includes('changed'), 'the remote removed');
    expect(savedRemotes()).toEqual(['devbox', 'again']);
    await page.locator('[data-action="close-settings"]').click();
    await page.locator('[data-machine="again"][data-machine-state="connected"]').waitFor();
    expect(await page.locator('[data-machine="changed"]').count()).toBe(0);
  }, 60_000);
});
