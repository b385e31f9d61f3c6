/// <reference lib="dom" />
/**
 * The real app (docs/design.md §7): the built Electron main (dist/main/index.js)
 * under Playwright's Electron driver, with a temporary SWITCHBOARD_HOME. It starts and its hub
 * answers; an agent's activity (MCP over HTTP with the token from the state dir) re-renders the
 * tray's menu and shows, focuses and activates nothing; the window, opened from the tray's own
 * menu item as a person's click would, reaches the hub through the preload alone.
 *
 * Not part of `npm test` (vitest.config.ts leaves test/app/ out): `npm run test:app` runs it
 * where the Electron binary is installed, and elsewhere says it did not run (exit 77). Run
 * directly without the binary, it fails saying so: it is never skipped into a pass.
 *
 * How the tray is seen: Electron cannot list Tray objects, so `Menu.buildFromTemplate` is
 * wrapped in main once the app runs; the tray's menu (first item "Open Switchboard") is rebuilt
 * on every session change, which proves the tray is there and follows the hub, and its items'
 * `click` are the very functions Electron calls when the person clicks them.
 */
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { _electron, type ElectronApplication, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { electronBinary } from '../../scripts/electronBinary.mjs';
import { agentOverHttp, waitForScreen } from '../e2e/browser.js';
import { whenFile } from '../integration/helpers/fileWatch.js';
import { removeHome, ROOT, tempHome } from '../integration/helpers/hubProcess.js';

const MAIN = path.join(ROOT, 'dist', 'main', 'index.js');
const AGENT = { name: 'app-smoke-agent', version: '1.0.0' };

/** What main records once the test's watch is installed (globalThis.__switchboardAppWatch). */
interface AppWatch {
  /** Every menu template built since: the tray's among them. */
  menus: Electron.MenuItemConstructorOptions[][];
  /** Windows created, shown or focused, and app.focus/app.show calls, in order. */
  events: string[];
  /** Called after each menu is built. */
  waiters: Set<() => void>;
}

let home: string;
let app: ElectronApplication;
let agent: Client;
let port: number;
/** The agent's session. */
let session = '';

/** The environment of the app: ours, without the hub's overrides of this shell, plus `extra`. */
function appEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('SWITCHBOARD_') && key !== 'ELECTRON_RUN_AS_NODE') env[key] = value;
  }
  return { ...env, ...extra };
}

/**
 * Resolves with the labels of the tray menu built next (or already built) in which `session`
 * has an entry whose label contains `text`; bounded.
 */
function trayMenuShowing(session: string, text: string, timeoutMs = 15_000): Promise<string> {
  return app.evaluate(
    (_electron, { session, text, timeoutMs }) =>
      new Promise<string>((resolve, reject) => {
        const watch = (globalThis as unknown as { __switchboardAppWatch: AppWatch }).__switchboardAppWatch;
        const check = (): boolean => {
          for (const menu of watch.menus) {
            if (menu[0]?.id !== 'open') continue; // not the tray's
            const entry = menu.find((item) => Array.isArray(item.submenu) && item.submenu.some((sub) => sub.id === `watch:${session}`));
            if (entry && String(entry.label).includes(text)) {
              resolve(menu.map((item) => String(item.label ?? '—')).join(' | '));
              return true;
            }
          }
          return false;
        };
        if (check()) return;
        const timer = setTimeout(() => {
          watch.waiters.delete(waiter);
          reject(new Error(`no tray menu showed session ${session} with "${text}" within ${timeoutMs} ms`));
        }, timeoutMs);
        const waiter = (): void => {
          if (!check()) return;
          clearTimeout(timer);
          watch.waiters.delete(waiter);
        };
        watch.waiters.add(waiter);
      }),
    { session, text, timeoutMs },
  );
}

/** What the person could see: the app's windows, and what main recorded. */
function windowsNow(): Promise<{ windows: { visible: boolean; focused: boolean }[]; focused: boolean; events: string[] }> {
  return app.evaluate(({ BrowserWindow }) => ({
    windows: BrowserWindow.getAllWindows().map((window) => ({ visible: window.isVisible(), focused: window.isFocused() })),
    focused: BrowserWindow.getFocusedWindow() !== null,
    events: [...(globalThis as unknown as { __switchboardAppWatch: AppWatch }).__switchboardAppWatch.events],
  }));
}

async function execute(command: string): Promise<Record<string, unknown>> {
  const result = await agent.callTool({ name: 'execute', arguments: { command, ...(session ? { session } : {}) } });
  const first = result.content[0];
  if (result.isError) throw new Error(`execute ${command} failed: ${first?.type === 'text' ? first.text : ''}`);
  return (result.structuredContent ?? {}) as Record<string, unknown>;
}

beforeAll(async () => {
  const found = electronBinary();
  if (!found.binary) throw new Error(`The real app cannot run here: ${found.reason}. Run \`npm run test:app\`, which says so without counting it as passed.`);
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` first (npm run test:app does).`);
  home = tempHome('sb-app-');
  // SWITCHBOARD_LOG=info: the app logs "app: hub ready" once the tray and window are wired.
  app = await _electron.launch({
    args: [MAIN],
    cwd: ROOT,
    env: appEnv({ SWITCHBOARD_HOME: home, SWITCHBOARD_PORT: '0', SWITCHBOARD_LOG: 'info' }),
    timeout: 30_000,
  });
  const log = path.join(home, 'hub.log');
  await whenFile(log, () => readFileSync(log, 'utf8').includes('app: hub ready'), 'the app to report its hub ready', 30_000).catch((error: Error) => {
    // A hub that could not start says why in the log (and shows the attention tray).
    throw new Error(`${error.message}; hub.log:\n${existsSync(log) ? readFileSync(log, 'utf8') : '(none)'}`);
  });

  // From here on, main records every menu built and everything that could show or focus.
  await app.evaluate(({ app: electronApp, BrowserWindow, Menu }) => {
    const watch: AppWatch = { menus: [], events: [], waiters: new Set() };
    (globalThis as unknown as { __switchboardAppWatch: AppWatch }).__switchboardAppWatch = watch;
    const build = Menu.buildFromTemplate.bind(Menu);
    Menu.buildFromTemplate = (template) => {
      watch.menus.push(template as Electron.MenuItemConstructorOptions[]);
      const menu = build(template);
      for (const waiter of [...watch.waiters]) waiter();
      return menu;
    };
    const follow = (window: Electron.BrowserWindow): void => {
      window.on('show', () => watch.events.push('window shown'));
      window.on('focus', () => watch.events.push('window focused'));
    };
    BrowserWindow.getAllWindows().forEach(follow);
    electronApp.on('browser-window-created', (_event, window) => {
      watch.events.push('window created');
      follow(window);
    });
    const focus = electronApp.focus.bind(electronApp);
    electronApp.focus = (options) => {
      watch.events.push('app.focus');
      focus(options);
    };
    // app.show exists on macOS only.
    if (typeof electronApp.show === 'function') {
      const show = electronApp.show.bind(electronApp);
      electronApp.show = () => {
        watch.events.push('app.show');
        show();
      };
    }
  });

  const info = JSON.parse(readFileSync(path.join(home, 'hub.json'), 'utf8')) as { pid: number; port: number };
  port = info.port;
  agent = await agentOverHttp(port, readFileSync(path.join(home, 'token'), 'utf8').trim(), AGENT);
}, 90_000);

afterAll(async () => {
  await agent?.close().catch(() => undefined);
  if (app) {
    const exited = new Promise<number | null>((resolve) => {
      const child = app.process();
      if (child.exitCode !== null) resolve(child.exitCode);
      else child.once('exit', (code) => resolve(code));
    });
    await app.close();
    // Quit closed every session and released the state dir (docs/app.md, decision 8).
    expect(await exited).toBe(0);
    expect(existsSync(path.join(home, 'hub.json'))).toBe(false);
  }
  if (home) removeHome(home);
}, 60_000);

describe('the real Electron app', () => {
  it('starts in the menu bar: its own hub answers, and no window exists', async () => {
    const info = JSON.parse(readFileSync(path.join(home, 'hub.json'), 'utf8')) as { pid: number };
    expect(info.pid).toBe(app.process().pid); // the hub runs inside the app's main process
    expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(401);
    expect(await windowsNow()).toEqual({ windows: [], focused: false, events: [] });
  });

  it('an agent’s commands re-render the tray, and show, focus or activate nothing', async () => {
    const first = await execute('echo from-agent');
    expect(first).toMatchObject({ status: 'completed', exit_code: 0, output: 'from-agent' });
    session = String(first.session);
    expect(await execute('(exit 3)')).toMatchObject({ status: 'completed', exit_code: 3 });
    // The tray's menu lists the agent's session with its failed command: the tray exists and
    // has handled the very events that might have tempted the app to show itself.
    const menu = await trayMenuShowing(session, 'last command failed (3)');
    expect(menu).toContain('Open Switchboard');
    expect(menu).toContain('Quit Switchboard');
    expect(await windowsNow()).toEqual({ windows: [], focused: false, events: [] });
  });

  it('the window, opened from the tray as a person’s click does, reaches the hub through the preload', async () => {
    const opened = app.waitForEvent('window', { timeout: 20_000 });
    await app.evaluate(() => {
      const watch = (globalThis as unknown as { __switchboardAppWatch: AppWatch }).__switchboardAppWatch;
      const tray = [...watch.menus].reverse().find((menu) => menu[0]?.id === 'open');
      const open = tray?.[0]?.click as (() => void) | undefined;
      if (!open) throw new Error('the tray menu has no "Open Switchboard" item to click');
      open(); // what Electron calls when the person clicks the item
    });
    const page: Page = await opened;
    await page.waitForLoadState('domcontentloaded');
    expect(page.url()).toMatch(/^switchboard:\/\/ui\//);
    // The page has the preload's bridge and no Node: everything goes through IPC.
    expect(
      await page.evaluate(() => ({
        bridge: typeof (window as unknown as { switchboardBridge?: unknown }).switchboardBridge,
        require: typeof (window as unknown as { require?: unknown }).require,
      })),
    ).toEqual({
      bridge: 'object',
      require: 'undefined',
    });
    await page.locator('.conn.conn-open').waitFor({ timeout: 15_000 });
    // Hub → page: the agent's session is listed; page → hub → page: watching it streams its screen.
    const row = page.locator(`.session-row[data-session="${session}"]`);
    await row.waitFor({ timeout: 15_000 });
    await row.click();
    await waitForScreen(page, 'from-agent', 15_000);
    // The person's click did show and focus the window: the watch above would have seen an agent's.
    const now = await windowsNow();
    expect(now.windows).toEqual([{ visible: true, focused: expect.any(Boolean) }]);
    expect(now.events).toContain('window created');
    expect(now.events).toContain('window shown');
    // The app's log (info level here) never holds the token.
    expect(readFileSync(path.join(home, 'hub.log'), 'utf8')).not.toContain(readFileSync(path.join(home, 'token'), 'utf8').trim());
  });
});
