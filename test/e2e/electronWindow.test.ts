/// <reference lib="dom" />
/**
 * The Electron window's page, without Electron: the built renderer in Debian's chromium, with
 * the real preload (`dist/main/preload.cjs`, run in the page against a stand-in for
 * `contextBridge`/`ipcRenderer`) and main's real `IpcBridge` (a fake `ipcMain` and web
 * contents relay its IPC through Playwright) in front of a real hub in this process. The
 * agent is the official MCP client over HTTP. Electron itself is the only thing replaced.
 *
 * What it shows: the page, served by main's own scheme handler with the window's CSP (no
 * network at all), reaches the hub through the preload alone and runs without a CSP complaint;
 * the person's tray commands (Watch, Settings) reach the page, including a Watch that arrives
 * before the hub has listed the session.
 *
 * Runs against dist/: `npm run build` first.
 */
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.mock('electron', async () => (await import('../unit/main/fakeElectron.js')).electronModule);
// electron-store (main's AppPreferencesStore) imports the real `electron` package, whose index throws
// without a downloaded binary; with this it exports a path instead (test/unit/main/preferences.test.ts).
vi.hoisted(() => {
  process.env.ELECTRON_OVERRIDE_DIST_PATH ??= '/nonexistent-electron';
});

import { Hub } from '../../src/hub/hub.js';
import { loadSettings } from '../../src/hub/settings/settings.js';
import { APP_ORIGIN, APP_URL, appResponse } from '../../main/appProtocol.js';
import { IPC_CHANNELS, IpcBridge } from '../../main/ipc.js';
import { AppPreferencesStore, notificationSettingsOf } from '../../main/preferences.js';
import { cleanEnv, removeHome, ROOT, tempHome } from '../integration/helpers/hubProcess.js';
import { shellPath } from '../integration/helpers/shells.js';
import { FakeWebContents, fake, ipcEvent } from '../unit/main/fakeElectron.js';
import { agentOverHttp, launchChromium, SHOTS, waitForScreen } from './browser.js';

const PRELOAD = path.join(ROOT, 'dist', 'main', 'preload.cjs');
const quiet = { info: () => undefined, warn: () => undefined, error: (line: string) => console.error(line) };

/**
 * Runs the preload's CommonJS in the page before the app's script, as Electron runs a preload:
 * `require('electron')` yields a `contextBridge` that defines the global and an `ipcRenderer`
 * whose `send` goes to main (a Playwright binding) and whose listeners main's sends reach.
 */
function preloadInPage(source: string): string {
  return `(() => {
    const listeners = new Map();
    window.__ipcFromMain = (channel, value) => {
      for (const listener of listeners.get(channel) ?? []) listener({}, value);
    };
    const electron = {
      contextBridge: { exposeInMainWorld: (key, api) => Object.defineProperty(window, key, { value: Object.freeze(api) }) },
      ipcRenderer: {
        send: (channel, ...args) => window.__ipcToMain(channel, ...args),
        on: (channel, listener) => listeners.set(channel, [...(listeners.get(channel) ?? []), listener]),
      },
    };
    const require = (name) => {
      if (name !== 'electron') throw new Error('a sandboxed preload cannot require ' + name);
      return electron;
    };
    const module = { exports: {} };
    (function (require, module, exports) {\n${source}\n})(require, module, module.exports);
  })();`;
}

/** What Electron's structured clone makes of a value sent to the page (a Buffer arrives as a Uint8Array). */
function cloned(value: unknown): unknown {
  if (value instanceof Uint8Array) return new Uint8Array(value);
  if (Array.isArray(value)) return value.map(cloned);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, cloned(entry)]));
  return value;
}

let hub: Hub;
let home: string;
let browser: Browser;
let page: Page;
let agent: Client;
let ipc: IpcBridge;
let contents: FakeWebContents;
let websockets = 0;
let stateDir: string;
/** What the page's console said about its Content-Security-Policy (a blocked style, font, socket…). */
const cspComplaints: string[] = [];
/** Where the page is served from in the browser: main's own `switchboard://ui/` handler answers it. */
const PAGE_ORIGIN = 'http://switchboard-ui.test';

/** Main → page, in order. `holdMessages` keeps hub messages back (not app commands) until released. */
let delivery: Promise<unknown> = Promise.resolve();
let held: [string, unknown][] | null = null;
function toPage(channel: string, value: unknown): void {
  if (held && channel === IPC_CHANNELS.message) return void held.push([channel, value]);
  const args = [channel, cloned(value)] as const;
  delivery = delivery
    .then(() => page.evaluate(([c, v]) => (window as unknown as { __ipcFromMain(c: string, v: unknown): void }).__ipcFromMain(c, v), args))
    .catch(() => undefined);
}
function holdMessages(): () => void {
  held = [];
  return () => {
    const pending = held ?? [];
    held = null;
    for (const [channel, value] of pending) toPage(channel, value);
  };
}

async function execute(args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = await agent.callTool({ name: 'execute', arguments: args });
  if (result.isError) throw new Error(`execute failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent as Record<string, unknown>;
}

type Inspectable = { switchboard: { inspect(): { active: string | null; view(): { mode: string } | null } } };

function activeTab(): Promise<string | null> {
  return page.evaluate(() => (window as unknown as Inspectable).switchboard.inspect().active);
}

function waitForActive(id: string): Promise<unknown> {
  return page.waitForFunction((want) => (window as unknown as Inspectable).switchboard.inspect().active === want, id, { timeout: 10_000 });
}

beforeAll(async () => {
  if (!existsSync(PRELOAD)) throw new Error('dist/main is missing: run `npm run build` first.');
  browser = await launchChromium();
  home = tempHome('sb-window-');
  stateDir = path.join(home, 'state');
  hub = await Hub.start({
    stateDir,
    logger: quiet,
    env: cleanEnv({ HOME: home, SHELL: shellPath('bash'), SWITCHBOARD_PORT: '0', SWITCHBOARD_LOGIN_SHELL: 'false' }),
    listen: { socket: false, http: true },
  });

  // Main's side: our window's web contents showing our UI, its sends relayed into the page.
  contents = new FakeWebContents();
  contents.mainFrame.url = APP_URL;
  contents.send = (channel: string, value?: unknown) => toPage(channel, value);
  fake.ipcMain.removeAllListeners();
  ipc = new IpcBridge({
    ipcMain: fake.ipcMain as never,
    host: hub.ui,
    windowContents: () => contents as never,
    logger: quiet,
    notificationSettings: notificationSettingsOf(new AppPreferencesStore(stateDir)),
  });

  const context = await browser.newContext({ viewport: { width: 1280, height: 760 }, colorScheme: 'dark', deviceScaleFactor: 1 });
  page = await context.newPage();
  page.on('pageerror', (error) => console.error(`page error: ${error.message}`));
  page.on('websocket', () => (websockets += 1));
  page.on('console', (message) => {
    if (/Content.Security.Policy/i.test(message.text())) cspComplaints.push(message.text());
  });
  await page.exposeBinding('__ipcToMain', (_source, channel: string, payload: unknown) => {
    fake.ipcMain.emit(channel, ipcEvent(contents), payload);
  });
  await page.addInitScript({ content: preloadInPage(readFileSync(PRELOAD, 'utf8')) });
  // The page's files come from main's scheme handler (appProtocol.ts), with its CSP (no
  // network at all), as in the window; Chromium here cannot load a custom scheme, so an
  // http origin is routed to that handler.
  await page.route(`${PAGE_ORIGIN}/**`, async (route) => {
    const request = route.request();
    const response = appResponse(request.method(), request.url().replace(PAGE_ORIGIN, APP_ORIGIN), path.join(ROOT, 'dist', 'renderer'));
    const headers: Record<string, string> = {};
    response.headers.forEach((value, key) => (headers[key] = value));
    await route.fulfill({ status: response.status, headers, body: Buffer.from(await response.arrayBuffer()) });
  });
  await page.goto(`${PAGE_ORIGIN}/index.html`);

  agent = await agentOverHttp(hub.port!, hub.token!, { name: 'window-e2e-agent', version: '1.0.0' });
}, 30_000);

afterAll(async () => {
  await agent?.close().catch(() => undefined);
  await browser?.close().catch(() => undefined);
  ipc?.dispose();
  await hub?.dispose();
  if (home) removeHome(home);
});

describe('the Electron window’s page over the preload and main’s IpcBridge', () => {
  it('connects through the preload, opening no WebSocket, and shows an agent’s session live', async () => {
    await page.locator('.conn.conn-open').waitFor({ timeout: 10_000 });
    expect(ipc.size).toBe(1);
    const result = await execute({ command: 'echo over-ipc-$((6*7))' });
    expect(result).toMatchObject({ exit_code: 0, output: 'over-ipc-42' });
    await page.locator(`.tab[data-tab="${String(result.session)}"]`).waitFor();
    await waitForScreen(page, 'over-ipc-42');
    expect(websockets).toBe(0);
    expect(cspComplaints).toEqual([]);
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    await page.screenshot({ path: path.join(SHOTS, 'window-over-ipc.png') });
  });

  it('the person types into their own terminal through the preload', async () => {
    await page.locator('#new-terminal').click();
    await page.locator('.tab.user.active').waitFor();
    await page.waitForFunction(() => (window as unknown as Inspectable).switchboard.inspect().view()?.mode === 'fit', null, { timeout: 10_000 });
    await page.locator('.term-host:not([hidden]) .xterm').click();
    await page.keyboard.type('echo typed-$((40+2))');
    await page.keyboard.press('Enter');
    await waitForScreen(page, 'typed-42');
    expect(websockets).toBe(0);
    expect(cspComplaints).toEqual([]);
  });

  it('Save screenshot works through the preload under the window’s CSP: the download is the hub’s PNG of that screen', async () => {
    const id = await activeTab();
    expect(id).not.toBeNull();
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: 20_000 }), page.locator('#session-bar [data-action="screenshot"]').click()]);
    // An unnamed session: its id names the file.
    expect(download.suggestedFilename()).toMatch(new RegExp(`^${id!}-\\d{8}-\\d{6}\\.png$`));
    const saved = readFileSync(await download.path());
    expect(saved.equals((await hub.screenshot(id!, { theme: 'dark' })).png), 'the download is the hub’s dark PNG').toBe(true);
    // What main's will-download sees is a blob of the page's own origin (here the test's stand-in for it).
    expect(download.url()).toMatch(new RegExp(`^blob:${PAGE_ORIGIN}/`));
    expect(cspComplaints).toEqual([]);
  });

  it('Watch from the tray brings a session’s tab to front, even one the page has not been told of yet; Settings opens the settings', async () => {
    const first = String((await execute({ command: 'echo first', cwd: '/tmp' })).session);
    await page.locator(`.tab[data-tab="${first}"]`).waitFor();
    expect(await activeTab()).not.toBe(first); // an agent's new session never takes the front by itself

    contents.send(IPC_CHANNELS.command, { type: 'watch', session: first });
    await waitForActive(first);

    // The tray's "New terminal": the hub's news of the session can reach the page after main's Watch.
    const release = holdMessages();
    const session = await hub.manager.open({ creator: { kind: 'user' } });
    contents.send(IPC_CHANNELS.command, { type: 'watch', session: session.id });
    await delivery;
    expect(await page.locator(`.tab[data-tab="${session.id}"]`).count()).toBe(0);
    release();
    await waitForActive(session.id);

    contents.send(IPC_CHANNELS.command, { type: 'settings' });
    await page.locator('.settings-page').waitFor();
    // A command of unknown shape is ignored, not thrown.
    contents.send(IPC_CHANNELS.command, { type: 'format-disk' });
    await delivery;
    expect(await activeTab()).toBe(session.id);
  });

  it('the settings page turns notifications on and sets what a long command is, in app-preferences.json', async () => {
    const preferencesFile = path.join(stateDir, 'app-preferences.json');
    const onDisk = (): Record<string, unknown> =>
      existsSync(preferencesFile) ? (JSON.parse(readFileSync(preferencesFile, 'utf8')) as Record<string, unknown>) : {};
    contents.send(IPC_CHANNELS.command, { type: 'settings' });
    const notify = page.locator('.settings-page [data-setting="notifications"]');
    await notify.waitFor();
    expect(await notify.isChecked()).toBe(false); // off by default (docs/design.md §5.3)
    expect(await page.locator('.settings-page select[data-setting="notifyAfterMs"]').isDisabled()).toBe(true);
    await notify.check();
    await expect.poll(() => onDisk().notifications, { timeout: 5_000 }).toBe(true);
    const after = page.locator('.settings-page select[data-setting="notifyAfterMs"]');
    await expect.poll(() => after.isEnabled(), { timeout: 5_000 }).toBe(true);
    await after.selectOption({ label: '5 minutes' });
    await expect.poll(() => onDisk().notifyAfterMs, { timeout: 5_000 }).toBe(300_000);
    // Only what the person changed is written, in the app's file: settings.json is the hub's.
    expect(onDisk()).toEqual({ notifications: true, notifyAfterMs: 300_000 });
    expect(existsSync(path.join(stateDir, 'settings.json'))).toBe(false);
    await page.screenshot({ path: path.join(SHOTS, 'window-settings.png') });
  });

  it('the hub’s settings on the same page go to settings.json through the hub, the app’s to its own file', async () => {
    const settingsFile = path.join(stateDir, 'settings.json');
    const preferencesFile = path.join(stateDir, 'app-preferences.json');
    const onDisk = (): Record<string, unknown> => JSON.parse(readFileSync(settingsFile, 'utf8')) as Record<string, unknown>;
    const preferences = (): Record<string, unknown> => JSON.parse(readFileSync(preferencesFile, 'utf8')) as Record<string, unknown>;
    contents.send(IPC_CHANNELS.command, { type: 'settings' });
    const timeout = page.locator('[data-hub-setting="executeTimeoutMs"] input');
    await timeout.waitFor();
    await timeout.fill('45000');
    await timeout.press('Enter');
    await page.locator('[data-reset="executeTimeoutMs"]').waitFor();
    expect(onDisk()).toEqual({ executeTimeoutMs: 45_000 });
    // Main (electron-store) writes the app's file only; settings.json stays as the hub wrote it.
    const written = readFileSync(settingsFile, 'utf8');
    await page.locator('.settings-page [data-setting="notifications"]').uncheck();
    await page.waitForFunction(
      () => (document.querySelector('.settings-page select[data-setting="notifyAfterMs"]') as HTMLSelectElement | null)?.disabled === true,
    );
    expect(preferences()).toEqual({ notifications: false, notifyAfterMs: 300_000 });
    expect(readFileSync(settingsFile, 'utf8')).toBe(written);
    expect(loadSettings(stateDir, {}).executeTimeoutMs).toBe(45_000);
    await page.locator('[data-reset="executeTimeoutMs"]').click();
    await page.locator('[data-reset="executeTimeoutMs"]').waitFor({ state: 'detached' });
    expect(onDisk()).toEqual({});
    expect(preferences()).toEqual({ notifications: false, notifyAfterMs: 300_000 });
  });
});
