/**
 * `switchboard ui` in a real browser: Debian's chromium (playwright-core) opens the link the
 * command handed to $BROWSER (a script that records it), as the person's browser would. The
 * page comes up signed in with the code gone from the address bar, and the same link a second
 * time shows the page that says to run `switchboard ui` again. Runs against dist/.
 */
import { spawn } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, removeHome, ROOT, startHub, tempHome, type HubProcess } from '../integration/helpers/hubProcess.js';
import { within } from '../integration/helpers/within.js';
import { launchChromium } from './browser.js';

let hub: HubProcess;
let browser: Browser;
let scratch: string;

beforeAll(async () => {
  browser = await launchChromium();
  hub = await startHub();
  scratch = tempHome('sb-e2e-ui-');
}, 30_000);

afterAll(async () => {
  await browser?.close();
  if (hub) expect(await hub.stop()).toBe(0);
  removeHome(hub.home);
  removeHome(scratch);
});

/** `switchboard ui` with $BROWSER recording its argument: the link it would have opened. */
async function linkFromUi(): Promise<string> {
  const record = path.join(scratch, 'link');
  const script = path.join(scratch, 'browser.sh');
  writeFileSync(script, `#!/bin/sh\nprintf '%s' "$1" > '${record}'\n`);
  chmodSync(script, 0o755);
  const child = spawn(process.execPath, [BIN, 'ui'], { env: cleanEnv({ SWITCHBOARD_HOME: hub.home, BROWSER: script }), cwd: ROOT, stdio: 'ignore' });
  expect(await within(new Promise((resolve) => child.once('exit', resolve)), 20_000, 'switchboard ui to exit')).toBe(0);
  return readFileSync(record, 'utf8');
}

describe('switchboard ui in chromium', () => {
  it('the link signs the browser in once; the second time it says to run switchboard ui again', async () => {
    const link = await linkFromUi();
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(link);
      expect(new URL(page.url()).search).toBe(''); // the code leaves the address bar
      await page.locator('.conn.conn-open').waitFor({ timeout: 10_000 }); // the UI's WebSocket is signed in
      const cookies = await context.cookies();
      expect(cookies.find((cookie) => cookie.name === `switchboard_${hub.port}`)).toMatchObject({ httpOnly: true, sameSite: 'Strict' });

      const stranger = await browser.newContext();
      try {
        const reused = await stranger.newPage();
        const answer = await reused.goto(link);
        expect(answer?.status()).toBe(401);
        expect(await reused.locator('body').textContent()).toContain('Run `switchboard ui` again to open the UI.');
      } finally {
        await stranger.close();
      }
    } finally {
      await context.close();
    }
  });
});
