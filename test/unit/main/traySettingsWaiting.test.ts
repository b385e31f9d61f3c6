/**
 * A settings change that waits for the person, in the menu-bar app (docs/design.md §5.1, §5.5): the
 * app's real composition (main/app.ts) over a real hub in this process and a real settings.json;
 * only `electron` is fake. A hand edit that removes the deny rule turns the icon to attention and
 * puts "Settings change waiting — review…" in the menu, which opens the window's settings; the
 * menu itself confirms nothing. The window's page confirms over IPC, and the audit says `app`.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  process.env.ELECTRON_OVERRIDE_DIST_PATH ??= '/nonexistent-electron';
});
vi.mock('electron', async () => (await import('./fakeElectron.js')).electronModule);

import type { SwitchboardApp as App } from '../../../main/app.js';
import type { MenuItemModel } from '../../../main/trayMenu.js';
import type { HubMessage } from '../../../src/ui-protocol/index.js';
import { shellPath } from '../../integration/helpers/shells.js';

const { SwitchboardApp } = await import('../../../main/app.js');
const { IPC_CHANNELS } = await import('../../../main/ipc.js');
const { FakeBrowserWindow, fake, ipcEvent } = await import('./fakeElectron.js');
const { UI_PROTOCOL_VERSION } = await import('../../../src/ui-protocol/index.js');

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const DENY_RM = { match: 'rm -rf *', action: 'deny' };
type Item = Extract<MenuItemModel, { kind: 'item' }>;

let stateDir: string;
let switchboard: App;

async function until(predicate: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function item(id: string): Item | undefined {
  return switchboard.tray.model.find((entry): entry is Item => entry.kind === 'item' && entry.id === id);
}

beforeAll(async () => {
  stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-tray-settings-'));
  fs.writeFileSync(path.join(stateDir, 'settings.json'), JSON.stringify({ policy: [DENY_RM] }));
  switchboard = await SwitchboardApp.start({
    stateDir,
    logger: quiet,
    env: { ...process.env, SWITCHBOARD_SHELL: shellPath('bash') },
    listen: { socket: false, http: false },
    platform: 'darwin',
    iconsDir: '/icons',
    preload: '/preload.cjs',
    rendererDir: stateDir,
  });
}, 30_000);

afterAll(async () => {
  await switchboard?.dispose();
  fs.rmSync(stateDir, { recursive: true, force: true });
});

describe('a settings change waiting for the person, in the app', () => {
  it('the menu says so and opens the settings; the window confirms it over IPC; the audit says "app"', async () => {
    expect(item('settingsWaiting')).toBeUndefined();
    fs.writeFileSync(path.join(stateDir, 'settings.json'), JSON.stringify({ policy: [] }));
    await until(() => item('settingsWaiting') !== undefined, 'the menu item');
    expect(switchboard.tray.state).toBe('attention');
    expect(item('settingsWaiting')).toMatchObject({
      label: 'Settings change waiting — review…',
      toolTip: 'policy rule 0 `rm -rf *` deny → removed',
      action: { type: 'settings' },
    });
    expect(switchboard.hub.settings.policy).toEqual([DENY_RM]);

    // The person clicks it: the window opens on the settings (the person's own action shows it).
    switchboard.handleTrayAction(item('settingsWaiting')!.action!);
    const window = FakeBrowserWindow.instances.at(-1)!;
    await until(() => window.loadedUrl !== undefined, 'the window’s page');
    const contents = window.webContents;
    fake.ipcMain.emit(IPC_CHANNELS.connect, ipcEvent(contents));
    fake.ipcMain.emit(IPC_CHANNELS.send, ipcEvent(contents), { type: 'hello', protocol: UI_PROTOCOL_VERSION });
    const messages = (): HubMessage[] => contents.sentOn(IPC_CHANNELS.message) as HubMessage[];
    const held = messages().find((m): m is Extract<HubMessage, { type: 'heldSettings' }> => m.type === 'heldSettings')?.held;
    expect(held?.changes.map((change) => change.text)).toEqual(['policy rule 0 `rm -rf *` deny → removed']);
    fake.ipcMain.emit(IPC_CHANNELS.send, ipcEvent(contents), { type: 'confirmSettings', id: held!.id, req: 3 });
    await until(() => messages().some((m) => 'req' in m && m.req === 3), 'the answer to confirmSettings');
    expect(messages().find((m) => 'req' in m && m.req === 3)).toMatchObject({ type: 'done', for: 'confirmSettings' });
    expect(switchboard.hub.settings.policy).toEqual([]);
    await until(() => item('settingsWaiting') === undefined, 'the item to leave the menu');
    const audit = (): string => (fs.existsSync(path.join(stateDir, 'audit.jsonl')) ? fs.readFileSync(path.join(stateDir, 'audit.jsonl'), 'utf8') : '');
    await until(() => audit().includes('confirm_settings'), 'the confirmation audited');
    expect(audit()).toContain('"action":"confirm_settings","channel":"app","settings":["policy"]');
  });
});
