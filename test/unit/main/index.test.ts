/**
 * The entry (main/index.ts) as Electron runs it, on the fake `electron`: the state dir is the
 * shim's (`defaultStateDir()`), the hub starts as `serve` starts it (socket + HTTP, hub.json),
 * a second launch is the one way the entry shows the window, and quitting closes the sessions
 * and releases the state dir before Electron is let go.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  process.env.ELECTRON_OVERRIDE_DIST_PATH ??= '/nonexistent-electron';
});
vi.mock('electron', async () => (await import('./fakeElectron.js')).electronModule);

import { APP_URL } from '../../../main/appProtocol.js';
import { FakeBrowserWindow, FakeTray, fake, resetRecords, stolenFocus } from './fakeElectron.js';
import { IPC_CHANNELS } from '../../../main/ipc.js';
import { defaultStateDir } from '../../../src/hub/common/stateDir.js';
import { UI_PROTOCOL_VERSION, type HubMessage } from '../../../src/ui-protocol/index.js';
import { shellPath } from '../../integration/helpers/shells.js';

const saved = { ...process.env };
let stateDir: string;

async function until(predicate: () => boolean, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

beforeAll(() => {
  stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-app-'));
  process.env.SWITCHBOARD_HOME = stateDir;
  process.env.SWITCHBOARD_PORT = '0';
  process.env.SWITCHBOARD_SHELL = shellPath('sh');
});

afterAll(() => {
  process.env = saved;
  fs.rmSync(stateDir, { recursive: true, force: true });
});

describe('main/index.ts', () => {
  it('starts the hub on the shim’s state dir, in the menu bar, with nothing shown', async () => {
    resetRecords();
    await import('../../../main/index.js');
    await until(() => fs.existsSync(path.join(stateDir, 'hub.json')), 'hub.json');

    expect(defaultStateDir()).toBe(stateDir); // the folder the shim waits on
    const info = JSON.parse(fs.readFileSync(path.join(stateDir, 'hub.json'), 'utf8')) as { pid: number; socket: string; port: number };
    expect(info.pid).toBe(process.pid);
    expect(info.socket).toBe(path.join(stateDir, 'hub.sock'));
    expect(info.port).toBeGreaterThan(0);
    expect(fs.existsSync(info.socket)).toBe(true);

    expect(fake.app.setPath).toHaveBeenCalledWith('userData', path.join(stateDir, 'electron'));
    expect(fake.app.enableSandbox).toHaveBeenCalled();
    expect(fake.protocol.registerSchemesAsPrivileged).toHaveBeenCalledWith([expect.objectContaining({ scheme: 'switchboard' })]);
    expect(fake.protocol.handle).toHaveBeenCalledWith('switchboard', expect.any(Function));
    expect(fake.app.requestSingleInstanceLock).toHaveBeenCalled();
    expect(fake.app.listenerCount('window-all-closed')).toBe(1); // staying in the menu bar
    expect(fake.app.listenerCount('activate')).toBe(0); // re-opens (the shim's `open -g`) show nothing
    expect(FakeTray.instances).toHaveLength(1);
    expect(FakeBrowserWindow.instances).toHaveLength(0);
    expect(stolenFocus()).toEqual([]);
    expect(fake.app.dock.show).not.toHaveBeenCalled();

    // ---- a second launch: the person wants the window ----
    fake.app.emit('second-instance', {}, ['switchboard'], '/');
    await until(() => FakeBrowserWindow.instances[0]?.show.mock.calls.length === 1, 'the window shown');
    const window = FakeBrowserWindow.instances[0]!;
    expect(window.loadedUrl).toBe(APP_URL);
    expect(window.options).toMatchObject({
      show: false,
      webPreferences: { contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true, webviewTag: false },
    });
    expect((window.options.webPreferences as { preload: string }).preload).toMatch(/dist[/\\]main[/\\]preload\.cjs$/);
    // Navigation and pop-ups are denied; permissions refused.
    expect(window.webContents.windowOpenHandler?.({ url: 'https://evil.example/' })).toEqual({ action: 'deny' });
    const navigation = { preventDefault: vi.fn() };
    window.webContents.emit('will-navigate', navigation, 'https://evil.example/');
    expect(navigation.preventDefault).toHaveBeenCalled();
    let granted: boolean | undefined;
    window.webContents.permissionRequestHandler?.(window.webContents, 'media', (g) => (granted = g));
    expect(granted).toBe(false);

    // ---- the page opens a terminal over IPC (a real session in the real hub) ----
    const contents = window.webContents;
    fake.ipcMain.emit(IPC_CHANNELS.connect, { sender: contents, senderFrame: contents.mainFrame });
    fake.ipcMain.emit(IPC_CHANNELS.send, { sender: contents, senderFrame: contents.mainFrame }, { type: 'hello', protocol: UI_PROTOCOL_VERSION });
    fake.ipcMain.emit(IPC_CHANNELS.send, { sender: contents, senderFrame: contents.mainFrame }, { type: 'openTerminal', cols: 80, rows: 24, req: 1 });
    const messages = () => contents.sentOn(IPC_CHANNELS.message) as HubMessage[];
    await until(() => messages().some((m) => m.type === 'done' && m.for === 'openTerminal'), 'the new terminal');
    const done = messages().find((m) => m.type === 'done' && m.for === 'openTerminal') as Extract<HubMessage, { type: 'done' }>;
    const sessionDir = path.join(stateDir, 'sessions', done.session!);
    expect(fs.existsSync(sessionDir)).toBe(true);

    // ---- quit: before-quit waits for the hub to close everything, then lets Electron go ----
    const quitEvent = { preventDefault: vi.fn() };
    fake.app.emit('before-quit', quitEvent);
    expect(quitEvent.preventDefault).toHaveBeenCalled();
    await until(() => fake.app.quit.mock.calls.length > 0, 'app.quit after the hub closed');
    const meta = JSON.parse(fs.readFileSync(path.join(sessionDir, 'meta.json'), 'utf8')) as { closed_at: string | null };
    expect(meta.closed_at).toEqual(expect.any(String)); // the session was closed and its transcript finished
    expect(fs.existsSync(path.join(stateDir, 'hub.json'))).toBe(false);
    expect(fs.existsSync(path.join(stateDir, 'hub.lock'))).toBe(false);
    expect(fs.existsSync(info.socket)).toBe(false);
    expect(contents.sentOn(IPC_CHANNELS.status)).toEqual(['open', 'closed']);
    // The second before-quit (from that app.quit) goes through.
    const second = { preventDefault: vi.fn() };
    fake.app.emit('before-quit', second);
    expect(second.preventDefault).not.toHaveBeenCalled();
    expect(FakeTray.instances[0]!.destroyed).toBe(true);
  }, 30_000);

  it('a second instance hands over to the first and exits non-zero, starting nothing', async () => {
    // A fresh main/index.js; the mocked `electron` (this file's fake) stays.
    vi.resetModules();
    resetRecords();
    fake.app.requestSingleInstanceLock.mockReturnValueOnce(false);
    // The entry decides while its module is evaluated: once the import resolves it has exited
    // or asked for \`whenReady\`, and everything it starts waits for \`whenReady\`.
    const listeners = (): number[] => ['before-quit', 'second-instance', 'window-all-closed'].map((name) => fake.app.listenerCount(name));
    const listenersBefore = listeners(); // the first instance's, from the test above
    await import('../../../main/index.js');
    expect(fake.app.exit).toHaveBeenCalledWith(1);
    expect(fake.app.whenReady).not.toHaveBeenCalled();
    expect(listeners()).toEqual(listenersBefore);
    expect(FakeTray.instances).toHaveLength(0);
    expect(fs.existsSync(path.join(stateDir, 'hub.json'))).toBe(false);
  });
});
