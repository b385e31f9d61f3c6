/// <reference lib="dom" />
/**
 * The policy on the settings page (docs/design.md §2.9, §5.5), in Debian's chromium against a
 * real `switchboard serve`: the starting rules are shown in full; a rule edited, added, moved and
 * removed on the page lands in settings.json; a bad rule is refused with the hub's words under
 * it, kept as typed until reverted, and nothing is saved; policyDefault is a select. Writes
 * test-results/screenshots/policy-rules*.png. Runs against dist/: `npm run build` first.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_POLICY } from '../../src/policy/index.js';
import { whenFile } from '../integration/helpers/fileWatch.js';
import { startHub, type HubProcess } from '../integration/helpers/hubProcess.js';
import { shellPath } from '../integration/helpers/shells.js';
import { closeScene, launchChromium, SHOTS } from './browser.js';

let hub: HubProcess;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launchChromium();
  hub = await startHub({ env: { SHELL: shellPath('bash') } });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: 'dark', deviceScaleFactor: 1 });
  page = await context.newPage();
  page.setDefaultTimeout(10_000);
  page.on('pageerror', (error) => console.error(`page error: ${error.message}`));
}, 30_000);

afterAll(async () => {
  await closeScene({ browser, hub });
});

function saved(): Record<string, unknown> {
  try {
    return JSON.parse(readFileSync(path.join(hub.home, 'settings.json'), 'utf8')) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** Waits until settings.json holds what `check` wants (the file's own change events). */
async function savedWhen(check: (settings: Record<string, unknown>) => boolean, what: string): Promise<Record<string, unknown>> {
  await whenFile(path.join(hub.home, 'settings.json'), () => check(saved()), what);
  return saved();
}

const rules = (): Locator => page.locator('[data-hub-setting="policy"] [data-rule]');
const rule = (index: number): Locator => page.locator(`[data-hub-setting="policy"] [data-rule="${index}"]`);
const matches = (settings: Record<string, unknown>): string[] => ((settings.policy as { match: string }[] | undefined) ?? []).map((entry) => entry.match);

async function screenshot(name: string): Promise<void> {
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

describe('the policy on the settings page', () => {
  it('shows the starting rules, and a rule edited, added, moved and removed there lands in settings.json', async () => {
    await page.goto(`http://127.0.0.1:${hub.port}/?key=${hub.uiKey}`);
    await page.locator('.conn.conn-open').waitFor({ timeout: 10_000 });
    await page.locator('[data-action="open-settings"]').click();
    await rule(0).waitFor();
    expect(await rules().count()).toBe(DEFAULT_POLICY.length);
    for (const [index, expected] of DEFAULT_POLICY.entries()) {
      expect(await rule(index).locator('input[name="match"]').inputValue()).toBe(expected.match);
      expect(await rule(index).locator('select[name="action"]').inputValue()).toBe(expected.action);
    }
    expect(await rule(1).locator('input[name="outsideProject"]').isChecked()).toBe(true);
    await page.locator('[data-hub-setting="policy"]').evaluate((element) => element.previousElementSibling?.scrollIntoView({ block: 'start' }));
    await screenshot('policy-rules');

    // Edit rule 3's pattern and its client.
    await rule(3).locator('input[name="match"]').fill('git push --force-with-lease*');
    await rule(3).locator('input[name="match"]').press('Enter');
    let settings = await savedWhen((s) => matches(s)[3] === 'git push --force-with-lease*', 'rule 3 edited');
    expect((settings.policy as unknown[]).length).toBe(DEFAULT_POLICY.length);
    await rule(3).locator('input[name="client"]').fill('claude*');
    await rule(3).locator('input[name="client"]').press('Enter');
    settings = await savedWhen((s) => (s.policy as { client?: string }[] | undefined)?.[3]?.client === 'claude*', 'rule 3 narrowed to a client');
    expect((settings.policy as unknown[])[3]).toEqual({
      match: 'git push --force-with-lease*',
      action: 'ask',
      client: 'claude*',
      reason: DEFAULT_POLICY[3]?.reason,
    });

    // Add a rule: kept on the page until it has a pattern, then saved at the end; then deny it.
    await page.locator('[data-action="add-rule"]').click();
    const added = rule(DEFAULT_POLICY.length);
    await added.waitFor();
    await added.locator('input[name="match"]').fill('npm publish*');
    await added.locator('input[name="match"]').press('Enter');
    await savedWhen((s) => matches(s).at(-1) === 'npm publish*', 'the rule added');
    await added.locator('select[name="action"]').selectOption('deny');
    settings = await savedWhen((s) => (s.policy as { action: string }[]).at(-1)?.action === 'deny', 'the added rule denies');
    expect((settings.policy as unknown[]).at(-1)).toEqual({ match: 'npm publish*', action: 'deny' });

    // Move it up once, then remove it.
    await added.locator('[data-rule-move="up"]').click();
    await savedWhen((s) => matches(s).at(-2) === 'npm publish*', 'the added rule moved up');
    // The page draws on its next animation frame, which may come after the file is written.
    await expect
      .poll(() =>
        rule(DEFAULT_POLICY.length - 1)
          .locator('input[name="match"]')
          .inputValue(),
      )
      .toBe('npm publish*');
    await rule(DEFAULT_POLICY.length - 1)
      .locator('[data-rule-remove]')
      .click();
    settings = await savedWhen((s) => !matches(s).includes('npm publish*'), 'the added rule removed');
    expect(matches(settings)).toEqual(DEFAULT_POLICY.map((entry, index) => (index === 3 ? 'git push --force-with-lease*' : entry.match)));
    await rules().nth(DEFAULT_POLICY.length).waitFor({ state: 'detached' });

    // policyDefault is a select.
    await page.locator('[data-hub-setting="policyDefault"] select').selectOption('ask');
    await savedWhen((s) => s.policyDefault === 'ask', 'policyDefault ask');
    await page.locator('[data-hub-setting="policyDefault"]').scrollIntoViewIfNeeded();
    await screenshot('policy-default');
  });

  it('refuses a bad rule with the reason under it, keeps it as typed, saves nothing; the saved rules come back on request', async () => {
    const before = JSON.stringify(saved());
    const field = rule(1).locator('input[name="match"]');
    await field.fill('rm -r {a,b');
    await field.press('Enter');
    const problem = page.locator('[data-rule-problem="1"]');
    await problem.waitFor();
    expect(await problem.textContent()).toContain('match: "rm -r {a,b" cannot be read: a `{` has no `}`');
    expect(await page.locator('[data-settings-error]').textContent()).toContain('policy rule 1 (match)');
    expect(await field.inputValue()).toBe('rm -r {a,b');
    expect(JSON.stringify(saved())).toBe(before);
    await rule(1).scrollIntoViewIfNeeded();
    await screenshot('policy-rules-refused');

    await page.locator('[data-action="revert-rules"]').click();
    await problem.waitFor({ state: 'detached' });
    expect(await field.inputValue()).toBe(DEFAULT_POLICY[1]?.match);

    // Default puts the starting rules back (the key leaves settings.json).
    await page.locator('[data-reset="policy"]').click();
    await savedWhen((s) => !('policy' in s), 'policy back to the default');
    await page.locator('[data-reset="policy"]').waitFor({ state: 'detached' });
    expect(await rule(3).locator('input[name="match"]').inputValue()).toBe(DEFAULT_POLICY[3]?.match);
  });

  it('a deny rule an earlier ask rule shadows is saved, with a warning under it naming that rule', async () => {
    await page.locator('[data-action="add-rule"]').click();
    const added = rule(DEFAULT_POLICY.length);
    await added.locator('input[name="match"]').fill('rm -rf *');
    await added.locator('input[name="match"]').press('Enter');
    await savedWhen((s) => matches(s).at(-1) === 'rm -rf *', 'the rule added');
    await added.locator('select[name="action"]').selectOption('deny');
    await savedWhen((s) => (s.policy as { action: string }[]).at(-1)?.action === 'deny', 'the added rule denies');
    const warning = page.locator(`[data-rule-warning="${DEFAULT_POLICY.length}"]`);
    await warning.waitFor();
    expect(await warning.textContent()).toContain('Rule 1 (rm -r *, ask) comes first and matches commands this deny rule is about');
    expect(await added.getAttribute('class')).not.toContain('refused');
    // Its "outside the sandbox" box is there, unchecked.
    expect(await added.locator('input[name="outsideSandbox"]').isChecked()).toBe(false);
    await added.scrollIntoViewIfNeeded();
    await screenshot('policy-rules-shadowed');

    // Moved above the ask rule, it is no longer shadowed: the warning goes.
    for (let at = DEFAULT_POLICY.length; at > 1; at--) {
      await rule(at).locator('[data-rule-move="up"]').click();
      await savedWhen((s) => matches(s)[at - 1] === 'rm -rf *', `the deny rule at ${at - 1}`);
    }
    await page.locator('[data-rule-warning]').first().waitFor({ state: 'detached' });
    await page.locator('[data-reset="policy"]').click();
    await savedWhen((s) => !('policy' in s), 'policy back to the default');
  });
});
