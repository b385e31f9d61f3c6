/// <reference lib="dom" />
/**
 * The person's side end to end: Debian's chromium (playwright-core) on the UI that a real
 * `node bin/switchboard.js serve` serves, while the official MCP client acts as the agent over
 * HTTP. Covers auth of the page, live agent output in a labelled tab, geometry (watching never
 * resizes the agent's PTY), take over / hand back, interrupt, a flood, and a secret prompt
 * answered by the person. Writes screenshots to test-results/screenshots/.
 *
 * Runs against dist/: `npm run build` first. Waits are event-driven (page.waitForFunction,
 * locator waits, the tools' own `wait`), never fixed sleeps.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeHome, startHub, type HubProcess } from '../integration/helpers/hubProcess.js';
import { agentOverHttp, launchChromium, screenOf, SHOTS, waitForScreen } from './browser.js';
import { toolAnswer, type ToolAnswer } from '../integration/helpers/toolAnswer.js';
import { shellPath } from '../integration/helpers/shells.js';
import { within } from '../integration/helpers/within.js';

const AGENT = { name: 'ui-e2e-agent', version: '1.0.0' };
const SECRET = 's3cr3t-xyz';

let hub: HubProcess;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let agent: Client;
/** The agent's session, shared by the tests in order. */
let session = '';

async function call(name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
  return toolAnswer(await agent.callTool({ name, arguments: args }));
}

async function execute(args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = await call('execute', args);
  if (result.isError) throw new Error(`execute ${JSON.stringify(args)} failed: ${result.text}`);
  return result.sc;
}

async function listed(id: string): Promise<Record<string, unknown>> {
  const sessions = (await call('list')).sc.sessions as Record<string, unknown>[];
  const found = sessions.find((entry) => entry.id === id);
  if (!found) throw new Error(`session ${id} is not listed`);
  return found;
}

async function screenshot(name: string, target: Page = page): Promise<void> {
  // Let the terminal paint what it parsed before the picture is taken.
  await target.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  await target.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

/** The agent's session screen as the hub's emulator holds it. */
async function agentScreen(): Promise<string> {
  const result = await call('read', { session, view: 'screen' });
  if (result.isError) throw new Error(`read screen failed: ${result.text}`);
  return String(result.sc.content);
}

/** Two renderings of a screen are the same, row for row, ignoring trailing blanks. */
function sameScreen(a: string, b: string): boolean {
  const rows = (text: string): string[] =>
    text
      .replace(/\s+$/, '')
      .split('\n')
      .map((row) => row.trimEnd());
  return JSON.stringify(rows(a)) === JSON.stringify(rows(b));
}

function rowState(id: string): Promise<string | null> {
  return page.locator(`.session-row[data-session="${id}"]`).getAttribute('data-state');
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    const stat = statSync(full, { throwIfNoEntry: false });
    if (stat?.isDirectory()) out.push(...filesUnder(full));
    else if (stat?.isFile()) out.push(full);
  }
  return out;
}

beforeAll(async () => {
  browser = await launchChromium();
  hub = await startHub({ env: { SHELL: shellPath('bash') } });
  context = await browser.newContext({ viewport: { width: 1360, height: 820 }, colorScheme: 'dark', deviceScaleFactor: 1 });
  page = await context.newPage();
  page.on('pageerror', (error) => console.error(`page error: ${error.message}`));
  agent = await agentOverHttp(hub.port, hub.token, AGENT);
}, 30_000);

afterAll(async () => {
  await agent?.close().catch(() => undefined);
  await browser?.close().catch(() => undefined);
  if (hub) {
    expect(await hub.stop()).toBe(0);
    // The secret the person typed is in no file under the state dir, and not in the hub's log.
    for (const file of filesUnder(hub.home)) expect(readFileSync(file).includes(SECRET), `${file} holds the secret`).toBe(false);
    expect(hub.stderr()).not.toContain(SECRET);
    removeHome(hub.home);
  }
});

describe('the UI in a browser against switchboard serve', () => {
  it('needs the UI key: without it 401, with /?key=… the app (and an empty state that says how to connect an agent)', async () => {
    const bare = await fetch(`http://127.0.0.1:${hub.port}/`);
    expect(bare.status).toBe(401);
    await page.goto(`http://127.0.0.1:${hub.port}/?key=${hub.uiKey}`);
    // The key leaves the address bar (cookie auth from here on).
    expect(new URL(page.url()).search).toBe('');
    await page.locator('.conn.conn-open').waitFor({ timeout: 10_000 });
    const empty = page.locator('[data-empty="no-sessions"]');
    await empty.waitFor();
    expect(await empty.textContent()).toContain('switchboard config claude-code');
    await screenshot('empty');
  });

  it('shows an agent’s execute live, in a tab labelled with the agent’s client name', async () => {
    const result = await execute({ command: 'echo visible-77' });
    expect(result).toMatchObject({ status: 'completed', exit_code: 0, output: 'visible-77' });
    session = String(result.session);
    const tab = page.locator(`.tab[data-tab="${session}"]`);
    await tab.waitFor();
    expect(await tab.textContent()).toContain(AGENT.name);
    await waitForScreen(page, 'visible-77');
    // Grouped under the agent's name in the sidebar, with an agent badge.
    const group = page.locator('.session-group', { has: page.locator(`.session-row[data-session="${session}"]`) });
    expect(await group.locator('.group-title').textContent()).toBe(AGENT.name);
  });

  it('shows characters of every width, and bytes that are not UTF-8, exactly as the hub’s emulator does', async () => {
    // Frames carry bytes for xterm.js to decode: a character cut between reads, and bytes xterm.js
    // would drop, must still land where the hub's emulator puts them (U+FFFD takes a cell).
    await execute({ session, command: "printf 'wide 界😀 é|'; printf '\\xe7\\x95'; sleep 0.2; printf '\\x8c|bad \\xff\\xc3 end|\\n'" });
    await waitForScreen(page, 'end|');
    const hubScreen = await agentScreen();
    expect(hubScreen).toContain('wide 界😀 é|界|bad \ufffd\ufffd end|');
    await expect
      .poll(async () => sameScreen(await page.evaluate(() => window.switchboard?.inspect().screen() ?? ''), hubScreen), { timeout: 5_000 })
      .toBe(true);
  });

  it('never resizes the agent’s session when the browser window changes size', async () => {
    const before = await listed(session);
    for (const viewport of [
      { width: 700, height: 420 },
      { width: 1600, height: 1000 },
      { width: 1360, height: 820 },
    ]) {
      await page.setViewportSize(viewport);
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    }
    // A round trip through the session after the resizes, then the size is unchanged.
    await execute({ session, command: 'echo geometry-ok' });
    const after = await listed(session);
    expect({ rows: after.rows, cols: after.cols }).toEqual({ rows: before.rows, cols: before.cols });
    // The view keeps the agent's grid (it shrinks the font instead).
    const view = await page.evaluate(() => window.switchboard?.inspect().view() ?? null);
    expect(view).toMatchObject({ cols: before.cols, rows: before.rows, mode: 'watch' });
  });

  it('Interrupt stops the agent’s running `sleep 1000` and the session is idle again', async () => {
    await execute({ session, command: 'ls -la /etc | head -n 12' });
    await execute({ session, command: 'git --version || true' });
    const started = await execute({
      session,
      command: 'for i in 1 2 3 4 5; do echo "[build] step $i/5 compiled"; done; sleep 1000',
      timeout_ms: 1500,
    });
    expect(started.status).toBe('running');
    await page.locator(`.session-row[data-session="${session}"][data-state="running"]`).waitFor();
    await waitForScreen(page, 'step 5/5');
    await screenshot('busy-agent');
    await page.locator('[data-action="interrupt"]').click();
    await page.locator(`.session-row[data-session="${session}"][data-state="idle"]`).waitFor({ timeout: 10_000 });
    expect((await listed(session)).state).toBe('idle');
  });

  it('Take over refuses the agent’s writes, passes the person’s keys to the shell; Hand back restores the agent', async () => {
    await page.locator('[data-action="take-over"]').click();
    await page.locator('.banner[data-banner="control"]').waitFor();
    expect(await page.locator('.banner[data-banner="control"]').textContent()).toContain('You control this session');
    const refused = await call('execute', { session, command: 'echo should-not-run' });
    expect(refused.isError).toBe(true);
    expect(refused.error?.code).toBe('SESSION_CONTROLLED_BY_USER');

    // The person's tab size wins once they control the session.
    await page.waitForFunction(() => window.switchboard?.inspect().view()?.mode === 'fit');
    await page.locator('.term-host:not([hidden]) .xterm').click();
    await page.keyboard.type('echo typed-$((6*7))');
    await page.keyboard.press('Enter');
    const seen = await call('read', { session, view: 'screen', wait: { pattern: 'typed-42', timeout_ms: 5000 } });
    expect(seen.isError).toBe(false);
    expect(String(seen.sc.content)).toContain('typed-42');
    await waitForScreen(page, 'typed-42');
    const view = await page.evaluate(() => window.switchboard?.inspect().view() ?? null);
    await expect
      .poll(async () => {
        const info = await listed(session);
        return { cols: info.cols, rows: info.rows };
      })
      .toEqual({ cols: view?.cols, rows: view?.rows });
    await screenshot('taken-over');

    await page.locator('.banner [data-action="banner-hand-back"]').click();
    await page.locator('[data-action="take-over"]').waitFor();
    const back = await execute({ session, command: 'echo agent-again' });
    expect(back).toMatchObject({ status: 'completed', output: 'agent-again' });
  });

  it('typing into an agent tab asks once, then takes over', async () => {
    await page.locator('.term-host:not([hidden]) .xterm').click();
    await page.keyboard.type('x');
    const dialog = page.locator('.dialog');
    await dialog.waitFor({ timeout: 5_000 });
    expect(await dialog.textContent()).toContain("The agent's writes will be refused until you hand it back");
    await dialog.locator('[data-dialog="confirm"]').click();
    await page.locator('.banner[data-banner="control"]').waitFor({ timeout: 5_000 });
    // The key that asked went through once control arrived.
    await waitForScreen(page, '# x', 5_000);
    await page.keyboard.press('Backspace');
    await page.locator('[data-action="hand-back"]').click();
    await page.locator('[data-action="take-over"]').waitFor({ timeout: 5_000 });
  });

  it('shows failed commands in red in the timeline', async () => {
    const failed = await execute({ session, command: 'ls /nonexistent-dir' });
    expect(failed.exit_code).toBe(2);
    await page.locator('.timeline-item.tone-fail').first().waitFor();
    await page.locator(`.status-item.last-exit.tone-fail`).waitFor();
    await page.locator('.timeline-item .tl-button').first().click();
    await screenshot('failed-command');
    await page.locator('[data-action="toggle-theme"]').click();
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'light');
    await screenshot('light-theme');
    await page.locator('[data-action="toggle-theme"]').click();
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
  });

  it('keeps the search box focused and the buttons in place while the agent works', async () => {
    const search = page.locator('[data-role="search"]');
    await search.click();
    await page.keyboard.type('usr');
    const interrupt = await page.locator('[data-action="interrupt"]').elementHandle();
    // Each command changes the session under the person: running, idle, its folder.
    for (const dir of ['/usr', '/usr/share']) await execute({ session, command: `cd ${dir}` });
    await page.locator('.status-item.cwd[title="/usr/share"]').waitFor();
    await page.locator('.sb-title .badge', { hasText: 'idle' }).waitFor();
    // Still typing into the search box; a button being clicked is the same element.
    await page.keyboard.type('/share');
    expect(await search.inputValue()).toBe('usr/share');
    expect(await interrupt!.evaluate((element) => element.isConnected)).toBe(true);
    await search.fill('');
    await execute({ session, command: 'cd ~' });

    // A session that ends while the person types in its search box: the buttons change
    // (disabled), the box stays the same element, focused, with what was typed.
    const ending = (await call('open', { name: 'ends-while-searched' })).sc.session as string;
    await page.locator(`.tab[data-tab="${ending}"]`).click();
    const box = page.locator('[data-role="search"]');
    await box.click();
    await page.keyboard.type('abc');
    const element = await box.elementHandle();
    await call('kill', { session: ending, close: true });
    await page.locator('.sb-actions [data-action="interrupt"][disabled]').waitFor({ timeout: 5_000 });
    await page.keyboard.type('def');
    expect(await element!.evaluate((node) => node.isConnected && node === document.activeElement)).toBe(true);
    expect(await box.inputValue()).toBe('abcdef');
    await screenshot('search-while-session-ends');
    await box.fill('');
    // Leave as found: the ended session's tab closed (no question for an ended one).
    await page.locator('[data-action="close"]').click();
    await page.locator(`.tab[data-tab="${ending}"]`).waitFor({ state: 'detached' });
    await page.locator(`.tab[data-tab="${session}"]`).click();
    await page.locator(`.tab.active[data-tab="${session}"]`).waitFor();
  });

  it('stays live through a flood, in this page and in a second one', async () => {
    // Another viewer in its own window: a separate context (it signs in with the key too). Two
    // tabs of one headless window would not do: only the front tab gets prompt animation frames.
    const secondContext = await browser.newContext({ viewport: { width: 1100, height: 700 }, colorScheme: 'dark' });
    const second = await secondContext.newPage();
    await second.goto(`http://127.0.0.1:${hub.port}/?key=${hub.uiKey}`);
    await second.locator(`.tab[data-tab="${session}"]`).click();
    await waitForScreen(second, 'agent-again');

    const flood = await execute({ session, command: 'yes | head -n 300000', timeout_ms: 60_000, max_lines: 5 });
    expect(flood.status).toBe('completed');
    await execute({ session, command: 'echo after-flood' });
    // Live after the flood: both pages show what came after it, are not behind, and show the
    // session's screen row for row (the hub's emulator is the truth). How soon after the flood a
    // page shows new output is bench/viewer.ts's figure (key echo during a flood, same-run idle).
    await Promise.all([waitForScreen(page, 'after-flood', 10_000), waitForScreen(second, 'after-flood', 10_000)]);
    for (const viewer of [page, second]) {
      await expect
        .poll(async () => sameScreen(await viewer.evaluate(() => window.switchboard?.inspect().screen() ?? ''), await agentScreen()), { timeout: 5_000 })
        .toBe(true);
      expect(await viewer.evaluate(() => window.switchboard?.inspect().view()?.behind)).toBe(false);
    }
    await secondContext.close();
  });

  it('a flooding tab in front keeps the page drawing and ends on the session’s final screen', async () => {
    // An endless flood, watched: the view writes a bounded share per animation frame, the rest
    // becomes the hub's `behind` and a fresh snapshot; the page keeps drawing meanwhile.
    const flooding = await execute({ session, command: 'yes flood-line', timeout_ms: 800, max_lines: 2 });
    expect(flooding.status).toBe('running');
    await waitForScreen(page, 'flood-line');
    // The page keeps drawing while the flood goes on: animation frames keep coming (a frozen page
    // runs none). Counted, not timed: 30 frames, bounded only so a frozen page fails saying so.
    // How many a second, beside an idle page, is bench/viewer.ts's figure.
    const frames = await within(
      page.evaluate(
        () =>
          new Promise<number>((resolve) => {
            let count = 0;
            const frame = (): void => {
              count += 1;
              if (count < 30) requestAnimationFrame(frame);
              else resolve(count);
            };
            requestAnimationFrame(frame);
          }),
      ),
      10_000,
      '30 animation frames of the page during the flood',
    );
    expect(await call('list', {}).then((r) => (r.sc.sessions as { id: string; state: string }[]).find((s) => s.id === session)?.state)).toBe('running'); // still flooding
    await screenshot('flood-watched');
    expect((await call('kill', { session, signal: 'SIGINT' })).isError).toBe(false);
    await page.locator(`.session-row[data-session="${session}"][data-state="idle"]`).waitFor({ timeout: 10_000 });
    await execute({ session, command: 'echo flood-over-$((3*3))' });
    await waitForScreen(page, 'flood-over-9');
    // What the person sees is the session's screen, row for row (the hub's emulator is the truth).
    await expect
      .poll(async () => sameScreen(await page.evaluate(() => window.switchboard?.inspect().screen() ?? ''), await agentScreen()), { timeout: 5_000 })
      .toBe(true);
    expect(await page.evaluate(() => window.switchboard?.inspect().view()?.behind)).toBe(false);
    await screenshot('flood-watched-after');
    // Drawing went on during the flood.
    expect(frames).toBe(30);
  });

  it('a tab behind another one parses none of a flood, and shows the current screen when brought to front', async () => {
    await page.locator('#new-terminal').click();
    const front = page.locator('.tab.user.active');
    await front.waitFor();
    const mine = String(await front.getAttribute('data-tab'));
    const hiddenBefore = await page.evaluate((id) => window.switchboard?.inspect().view(id) ?? null, session);
    expect(hiddenBefore).not.toBeNull();

    const flood = await execute({ session, command: 'yes hidden-line | head -n 200000; echo hidden-done-$((2+5))', timeout_ms: 60_000, max_lines: 2 });
    expect(flood.status).toBe('completed');
    // The hidden view acknowledged the flood's frames without writing them into xterm.
    await page.waitForFunction(([id, before]) => (window.switchboard?.inspect().view(id)?.skippedFrames ?? 0) > before, [
      session,
      hiddenBefore!.skippedFrames,
    ] as const);
    const hiddenAfter = await page.evaluate((id) => window.switchboard?.inspect().view(id) ?? null, session);
    expect(hiddenAfter?.renderedFrames).toBe(hiddenBefore!.renderedFrames);
    await screenshot('flood-behind-another-tab');

    await page.locator(`.tab[data-tab="${session}"]`).click();
    await waitForScreen(page, 'hidden-done-7');
    await expect
      .poll(async () => sameScreen(await page.evaluate(() => window.switchboard?.inspect().screen() ?? ''), await agentScreen()), { timeout: 5_000 })
      .toBe(true);
    expect(await screenOf(page)).not.toContain('catching up');
    await screenshot('hidden-tab-shown-again');

    // Live again after the fresh snapshot.
    await execute({ session, command: 'echo live-again-$((4*4))' });
    await waitForScreen(page, 'live-again-16');

    // A little output while hidden is kept (acknowledged, not parsed) and written when shown.
    await page.locator(`.tab[data-tab="${mine}"]`).click();
    await page.locator(`.tab.active[data-tab="${mine}"]`).waitFor();
    const before = await page.evaluate((id) => window.switchboard?.inspect().view(id) ?? null, session);
    await execute({ session, command: 'echo small-while-hidden-$((5*5))' });
    await page.waitForFunction(([id, skipped]) => (window.switchboard?.inspect().view(id)?.skippedFrames ?? 0) > skipped, [
      session,
      before!.skippedFrames,
    ] as const);
    expect((await page.evaluate((id) => window.switchboard?.inspect().view(id) ?? null, session))?.renderedFrames).toBe(before!.renderedFrames);
    await page.locator(`.tab[data-tab="${session}"]`).click();
    await waitForScreen(page, 'small-while-hidden-25');
    await expect
      .poll(async () => sameScreen(await page.evaluate(() => window.switchboard?.inspect().screen() ?? ''), await agentScreen()), { timeout: 5_000 })
      .toBe(true);

    // Leave as found: the person's terminal closed, the agent's tab in front.
    await page.locator(`.tab[data-tab="${mine}"]`).click();
    await page.locator('[data-action="close"]').click();
    await page.locator('.dialog [data-dialog="confirm"]').click();
    await page.locator(`.tab[data-tab="${mine}"]`).waitFor({ state: 'detached' });
    await page.locator(`.tab.active[data-tab="${session}"]`).waitFor();
  });

  it('a session that floods and ends while its tab is behind another one shows its last screen when brought to front', async () => {
    // A second agent session: its tab opens in the background (agent activity never takes focus).
    const opened = await call('open', {});
    expect(opened.isError, opened.text).toBe(false);
    const other = String(opened.sc.session);
    expect(other).not.toBe(session);
    await page.locator(`.tab[data-tab="${other}"]`).waitFor();
    expect(await page.evaluate(() => window.switchboard?.inspect().active)).toBe(session);
    await execute({ session: other, command: 'yes other-line | head -n 100000; echo other-done-$((3+3))', timeout_ms: 60_000, max_lines: 2 });
    await call('execute', { session: other, command: 'exit 0', timeout_ms: 5_000 });
    await page.locator(`.session-row[data-session="${other}"][data-state="exited"]`).waitFor({ timeout: 10_000 });
    // Nothing of it was drawn while behind (the flood's frames were acked, not parsed).
    expect(await page.evaluate((id) => window.switchboard?.inspect().view(id) ?? null, other)).toMatchObject({ renderedFrames: 0 });
    expect((await page.evaluate((id) => window.switchboard?.inspect().view(id) ?? null, other))?.skippedFrames).toBeGreaterThan(0);
    await page.locator(`.tab[data-tab="${other}"]`).click();
    await waitForScreen(page, 'other-done-6');
    expect(await page.evaluate((id) => window.switchboard?.inspect().view(id)?.behind, other)).toBe(false);
    await screenshot('ended-while-hidden');
    await page.locator(`.tab[data-tab="${session}"]`).click();
    await page.locator(`.tab.active[data-tab="${session}"]`).waitFor();
  });

  it('a click on a tab lands though the agent changes the session between press and release', async () => {
    const other = String(await page.locator(`.tab:not([data-tab="${session}"])`).first().getAttribute('data-tab'));
    const box = (await page.locator(`.tab[data-tab="${other}"]`).boundingBox())!;
    const agentTab = await page.locator(`.tab[data-tab="${session}"]`).elementHandle();
    const agentRow = await page.locator(`.session-row[data-session="${session}"]`).elementHandle();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    // The agent works meanwhile: its session changes (running, idle, its folder), and the page
    // hears of it, and has animation frames to redraw in, while the button is down.
    await execute({ session, command: 'cd /usr/share' });
    await page.waitForFunction((id) => window.switchboard?.inspect().session(id)?.cwd === '/usr/share', session);
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    await page.mouse.up();
    await page.locator(`.tab.active[data-tab="${other}"]`).waitFor({ timeout: 5_000 });
    // The redraw it waited for came with the release; it updated the tabs in place.
    await page.locator(`.session-row[data-session="${session}"] .row-sub[title="/usr/share"]`).waitFor({ timeout: 5_000 });
    expect(await agentTab!.evaluate((element) => element.isConnected && element.getAttribute('title')?.endsWith('/usr/share'))).toBe(true);
    expect(await agentRow!.evaluate((element) => element.isConnected)).toBe(true);
    await screenshot('tab-clicked-while-agent-works');
    await page.locator(`.tab[data-tab="${session}"]`).click();
    await page.locator(`.tab.active[data-tab="${session}"]`).waitFor();
    await execute({ session, command: 'cd ~' });
  });

  it('a secret prompt shows "needs you"; the person types the secret, the command completes', async () => {
    // The command line is recorded (transcript, commands.jsonl), so it spells the secret in two
    // pieces: only the person's keystrokes carry it whole, and those must be recorded nowhere.
    const [head, tail] = [SECRET.slice(0, 6), SECRET.slice(6)];
    const asked = await call('execute', {
      session,
      command: `python3 -c 'import getpass; print(getpass.getpass() == "${head}" + "${tail}")'`,
      timeout_ms: 15_000,
    });
    expect(asked.isError, asked.text).toBe(false);
    expect(asked.sc).toMatchObject({ status: 'awaiting_input', secret: true });
    await page.locator(`.session-row[data-session="${session}"][data-state="needs_you"]`).waitFor();
    const needs = page.locator(`.tab[data-tab="${session}"] .tab-needs`);
    await needs.waitFor();
    expect(await needs.textContent()).toBe('needs you');
    await page.locator('.banner[data-banner="needs-you"]').waitFor();
    await screenshot('needs-you');

    await page.locator('[data-action="banner-take-over"]').click();
    await page.locator('.banner[data-banner="control"]').waitFor();
    await page.locator('.term-host:not([hidden]) .xterm').click();
    await page.keyboard.type(SECRET);
    await page.keyboard.press('Enter');
    await waitForScreen(page, 'True');
    await page.waitForFunction((id) => document.querySelector(`.session-row[data-session="${id}"]`)?.getAttribute('data-state') === 'idle', session);
    expect(await rowState(session)).toBe('idle');
    await needs.waitFor({ state: 'hidden' });
    expect(await screenOf(page)).not.toContain(SECRET);
    await page.locator('[data-action="hand-back"]').click();
    await page.locator('[data-action="take-over"]').waitFor();
  });

  it('New terminal opens the person’s own session, fitted to the pane; Close ends it', async () => {
    await page.locator('#new-terminal').click();
    const tab = page.locator('.tab.user.active');
    await tab.waitFor();
    const mine = String(await tab.getAttribute('data-tab'));
    expect(await tab.textContent()).toContain('terminal');
    await page.waitForFunction(() => window.switchboard?.inspect().view()?.mode === 'fit');
    await page.locator('.term-host:not([hidden]) .xterm').click();
    await page.keyboard.type('echo mine-$((40+2))');
    await page.keyboard.press('Enter');
    await waitForScreen(page, 'mine-42');
    // No question asked (it is the person's), no banner; agents see it as the person's.
    expect(await page.locator('.dialog').count()).toBe(0);
    expect(await listed(mine)).toMatchObject({ creator: { kind: 'user' }, controller: 'user' });

    await page.locator('[data-action="open-settings"]').click();
    await page.locator('.settings-page').waitFor();
    await screenshot('settings');
    await page.locator('[data-action="close-settings"]').click();

    await page.locator('[data-action="close"]').click();
    await page.locator('.dialog [data-dialog="confirm"]').click();
    await page.locator(`.tab[data-tab="${mine}"]`).waitFor({ state: 'detached' });
    await page.locator(`.session-row[data-session="${mine}"]`).waitFor({ state: 'detached' });
  });

  it('the settings page shows the hub’s settings and changes them: a refused value goes back, a saved one reaches the agent’s next execute, Default undoes it', async () => {
    const file = path.join(hub.home, 'settings.json');
    const maxLines = page.locator('[data-hub-setting="maxLines"] input');
    await page.locator('[data-action="open-settings"]').click();
    await maxLines.waitFor();
    expect(await maxLines.inputValue()).toBe('200');
    // The port comes from the environment here (SWITCHBOARD_PORT=0): shown, not editable.
    expect(await page.locator('[data-hub-setting="port"] input').isDisabled()).toBe(true);
    expect(await page.locator('[data-hub-setting="port"]').textContent()).toContain('SWITCHBOARD_PORT');

    await maxLines.fill('99999');
    await maxLines.press('Enter');
    await page.locator('[data-settings-error]').waitFor();
    expect(await page.locator('[data-settings-error]').textContent()).toContain('maxLines must be at most 10000');
    expect(await maxLines.inputValue()).toBe('200');

    await maxLines.fill('4');
    await maxLines.press('Enter');
    await page.locator('[data-reset="maxLines"]').waitFor();
    expect(await page.locator('[data-settings-error]').count()).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ maxLines: 4 });
    await page.locator('[data-hub-setting="maxLines"]').scrollIntoViewIfNeeded();
    await screenshot('settings-hub');
    const short = await execute({ command: 'seq 1 10', session });
    expect(short).toMatchObject({ total_lines: 10, truncated: true });

    await page.locator('[data-reset="maxLines"]').click();
    await page.locator('[data-reset="maxLines"]').waitFor({ state: 'detached' });
    expect(await maxLines.inputValue()).toBe('200');
    expect(JSON.parse(readFileSync(file, 'utf8'))).not.toHaveProperty('maxLines');
    expect(await execute({ command: 'seq 1 10', session })).toMatchObject({ total_lines: 10, truncated: false });
    await page.locator('[data-action="close-settings"]').click();
  });

  it('a setting saved in one window does not sweep away what the person is typing in another', async () => {
    const file = path.join(hub.home, 'settings.json');
    /** A second window on the settings page, and a wait for a message its WebSocket receives. */
    const open = async (): Promise<{ page: Page; received: (test: (text: string) => boolean) => Promise<void> }> => {
      const other = await context.newPage();
      const waiting = new Set<{ test: (text: string) => boolean; resolve: () => void }>();
      other.on('websocket', (ws) =>
        ws.on('framereceived', (frame) => {
          const text = String(frame.payload);
          for (const waiter of [...waiting]) {
            if (!waiter.test(text)) continue;
            waiting.delete(waiter);
            waiter.resolve();
          }
        }),
      );
      await other.goto(`http://127.0.0.1:${hub.port}/`);
      await other.locator('[data-action="open-settings"]').click();
      await other.locator('[data-hub-setting="maxLines"] input').waitFor();
      return { page: other, received: (test) => new Promise<void>((resolve) => waiting.add({ test, resolve })) };
    };
    const typing = await open();
    const saving = await open();
    try {
      const field = typing.page.locator('[data-hub-setting="maxLines"] input');
      await field.fill('7'); // typed, not committed: no Enter, still in the field
      const told = typing.received((text) => text.includes('"hubSettings"') && text.includes('45000'));
      const timeout = saving.page.locator('[data-hub-setting="executeTimeoutMs"] input');
      await timeout.fill('45000');
      await timeout.press('Enter');
      await saving.page.locator('[data-reset="executeTimeoutMs"]').waitFor();
      // The typing window has the change…
      await told;
      await typing.page.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
      // …and what the person typed is still there, in focus.
      expect(await field.inputValue()).toBe('7');
      expect(await field.evaluate((element) => element === document.activeElement)).toBe(true);
      await field.press('Tab'); // leaving the field commits it; the page then shows both
      await typing.page.locator('[data-reset="maxLines"]').waitFor();
      await typing.page.locator('[data-reset="executeTimeoutMs"]').waitFor();
      expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ maxLines: 7, executeTimeoutMs: 45_000 });
      await typing.page.locator('[data-reset="maxLines"]').click();
      await typing.page.locator('[data-reset="maxLines"]').waitFor({ state: 'detached' });
      await typing.page.locator('[data-reset="executeTimeoutMs"]').click();
      await typing.page.locator('[data-reset="executeTimeoutMs"]').waitFor({ state: 'detached' });
    } finally {
      await typing.page.close();
      await saving.page.close();
    }
  });

  it('Stop everything an agent started: one click in its group closes its sessions and what runs in them; other agents keep theirs', async () => {
    const rogue = await agentOverHttp(hub.port, hub.token, { name: 'stop-e2e-agent', version: '2.0.0' });
    try {
      const answer = async (args: Record<string, unknown>): Promise<ToolAnswer> => toolAnswer(await rogue.callTool({ name: 'execute', arguments: args }));
      const first = await answer({ command: 'sleep 300', timeout_ms: 300 });
      expect(first.sc).toMatchObject({ status: 'running' });
      const second = await answer({ command: 'sleep 300', timeout_ms: 300 });
      expect(second.sc.session).not.toBe(first.sc.session); // the first is busy: a second session
      const ids = [String(first.sc.session), String(second.sc.session)];
      for (const id of ids) await page.locator(`.session-row[data-session="${id}"]`).waitFor({ timeout: 10_000 });
      const stop = page.locator('[data-stop-client="stop-e2e-agent 2.0.0"]');
      expect(await stop.getAttribute('title', { timeout: 10_000 })).toBe('Stop everything stop-e2e-agent 2.0.0 started (2 live)');
      await stop.hover();
      await screenshot('stop-client-button');

      await stop.click();
      const dialog = page.locator('.dialog');
      expect(await dialog.textContent()).toContain('Its 2 sessions close now');
      await screenshot('stop-client-confirm');
      await dialog.locator('[data-dialog="confirm"]').click();
      for (const id of ids) await page.locator(`.session-row[data-session="${id}"]`).waitFor({ state: 'detached' });
      expect(await page.locator('[data-stop-client="stop-e2e-agent 2.0.0"]').count()).toBe(0);
      // The agent is told its sessions are gone; the first agent's session is untouched.
      const after = toolAnswer(await rogue.callTool({ name: 'read', arguments: { session: ids[0], view: 'screen' } }));
      expect(after.isError).toBe(false); // closed sessions stay readable from their transcript
      const refused = await answer({ command: 'echo again', session: ids[0] });
      expect(refused.isError).toBe(true);
      expect(refused.text).toMatch(/^SESSION_(NOT_FOUND|EXITED)/);
      expect(await listed(session)).toMatchObject({ state: 'idle' });
    } finally {
      await rogue.close().catch(() => undefined);
    }
  });

  // Last: the agent's HTTP client holds the old token.
  it('Replace now swaps the token and the UI key: the page renews its login and survives a reload; the old ones open nothing', async () => {
    const old = hub.token;
    const oldKey = hub.uiKey;
    await page.locator('[data-action="open-settings"]').click();
    await page.locator('[data-action="rotate-token"]').click();
    const renewed = page.waitForResponse((response) => new URL(response.url()).pathname === '/' && new URL(response.url()).searchParams.has('key'));
    await page.locator('.dialog [data-dialog="confirm"]').click();
    expect((await renewed).status()).toBe(303);
    const fresh = readFileSync(path.join(hub.home, 'token'), 'utf8').trim();
    const freshKey = readFileSync(path.join(hub.home, 'ui-key'), 'utf8').trim();
    expect(fresh).not.toBe(old);
    expect(freshKey).not.toBe(oldKey);
    await page.locator('[data-hub-setting="token"]').scrollIntoViewIfNeeded();
    await screenshot('token-replaced');
    await page.reload();
    await page.locator('#app[data-connection="open"]').waitFor();
    await page.locator(`.session-row[data-session="${session}"]`).waitFor();
    const status = async (url: string): Promise<number> => (await fetch(url, { redirect: 'manual' })).status;
    expect(await status(`http://127.0.0.1:${hub.port}/?key=${oldKey}`)).toBe(401);
    expect(await status(`http://127.0.0.1:${hub.port}/?key=${freshKey}`)).toBe(303);
    // The token signs agents in, never a browser: not even the fresh one.
    expect(await status(`http://127.0.0.1:${hub.port}/?token=${fresh}`)).toBe(401);
  });
});

declare global {
  interface Window {
    switchboard?: {
      inspect(): {
        active: string | null;
        screen(id?: string): string;
        view(
          id?: string,
        ): { cols: number; rows: number; mode: string; fontSize: number; renderedFrames: number; skippedFrames: number; behind: boolean } | null;
        session(id: string): { cwd: string | null } | null;
      };
    };
  }
}
