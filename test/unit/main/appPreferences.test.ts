/**
 * One writer per file, in the app's real composition (main/app.ts) over a real hub; only
 * `electron` is fake. settings.json is written by the hub's SettingsEditor alone: after each
 * step the file is exactly as the editor's last write left it (inode, mtime to the nanosecond,
 * size), so a write by anything else, main/ included, fails the step. The app's preferences
 * (start at login from the tray, notifications from the window) go to app-preferences.json;
 * a hub setting changed in the window goes through the hub. The state dir starts as an
 * earlier version left it: the app's keys in settings.json.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  // electron-store's own `import 'electron'` is not mocked (it is an external module): make the
  // real package export a path instead of throwing for want of a binary.
  process.env.ELECTRON_OVERRIDE_DIST_PATH ??= '/nonexistent-electron';
});
vi.mock('electron', async () => (await import('./fakeElectron.js')).electronModule);

import type { SwitchboardApp as App } from '../../../main/app.js';
import type { UiSession } from '../../../src/ui-protocol/index.js';
import type { FakeWebContents } from './fakeElectron.js';

const { SwitchboardApp } = await import('../../../main/app.js');
const { IPC_CHANNELS } = await import('../../../main/ipc.js');
const { APP_PREFERENCES_FILE } = await import('../../../main/preferences.js');
const { SettingsEditor } = await import('../../../src/hub/settings/settingsEditor.js');
const { UI_PROTOCOL_VERSION } = await import('../../../src/ui-protocol/index.js');
const { FakeNotification, fake, ipcEvent, resetRecords } = await import('./fakeElectron.js');

let stateDir: string;
let settingsFile: string;
let preferencesFile: string;
let switchboard: App;
const logger = { info: vi.fn(), warn: vi.fn(), error: vi.fn() };

/** Changes with every write, in place or renamed over. */
const fingerprint = (file: string): string => {
  const stat = fs.statSync(file, { bigint: true });
  return `${stat.ino}:${stat.mtimeNs}:${stat.size}`;
};
const json = (file: string): unknown => JSON.parse(fs.readFileSync(file, 'utf8'));

/** settings.json right after each write the hub's SettingsEditor made (its one way to write). */
const hubWrites: string[] = [];
let before: string;
type Writer = { writeFile(content: Record<string, unknown>): void };
const editorWrite = (SettingsEditor.prototype as unknown as Writer).writeFile;
vi.spyOn(SettingsEditor.prototype as unknown as Writer, 'writeFile').mockImplementation(function (this: Writer, content) {
  editorWrite.call(this, content);
  hubWrites.push(fingerprint(settingsFile));
});

/** settings.json is as the hub's writer (or the earlier version, before any) left it. */
function expectOnlyTheHubWroteSettings(writes: number): void {
  expect(hubWrites).toHaveLength(writes);
  expect(fingerprint(settingsFile)).toBe(hubWrites.at(-1) ?? before);
}

/** An agent's session as the notifier sees it (only the fields it reads matter). */
function agentSession(change: Partial<UiSession>): UiSession {
  const base = {
    id: 'k3f9q2',
    creator: { kind: 'agent', client: 'test-agent' },
    controller: 'agent',
    state: 'idle',
    command: null,
    running_ms: null,
    last_exit_code: null,
  };
  return { ...base, ...change } as unknown as UiSession;
}

/** A command the agent ran `ms` long that exited `exit`: the notifications it caused. */
function commandFinished(ms: number, exit: number): string[] {
  const shown = FakeNotification.instances.length;
  switchboard.notifier.sessionChanged(agentSession({ state: 'idle' }));
  switchboard.notifier.sessionChanged(agentSession({ state: 'running', command: 'make', running_ms: ms }));
  switchboard.notifier.sessionChanged(agentSession({ state: 'idle', last_exit_code: exit }));
  return FakeNotification.instances.slice(shown).map((n) => n.options.title);
}

beforeAll(async () => {
  resetRecords();
  stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-app-preferences-'));
  settingsFile = path.join(stateDir, 'settings.json');
  preferencesFile = path.join(stateDir, APP_PREFERENCES_FILE);
  // As an earlier version left it: the app's keys (electron-store's) among the hub's.
  fs.writeFileSync(settingsFile, `${JSON.stringify({ maxSessions: 7, notifications: true, notifyAfterMs: 120_000, startAtLogin: true }, null, 2)}\n`, {
    mode: 0o600,
  });
  before = fingerprint(settingsFile);
  switchboard = await SwitchboardApp.start({
    stateDir,
    logger,
    env: { HOME: process.env.HOME, PATH: process.env.PATH },
    listen: { socket: false, http: false },
    platform: 'darwin', // login items work there
    iconsDir: '/icons',
    preload: '/preload.cjs',
    rendererDir: stateDir,
  });
}, 30_000);

afterAll(async () => {
  await switchboard?.dispose();
  fs.rmSync(stateDir, { recursive: true, force: true });
});

describe('one writer per file', () => {
  it('an earlier version’s settings.json: the app’s keys move to app-preferences.json, removed by the hub’s writer; nothing lost', () => {
    expect(json(preferencesFile)).toEqual({ notifications: true, notifyAfterMs: 120_000, startAtLogin: true });
    expect(json(settingsFile)).toEqual({ maxSessions: 7 });
    expectOnlyTheHubWroteSettings(1);
    expect(switchboard.hub.settings.maxSessions).toBe(7);
    expect(logger.info).toHaveBeenCalledWith(
      expect.stringContaining(`moved notifications, notifyAfterMs, startAtLogin from settings.json to ${preferencesFile}`),
    );
    expect(logger.warn).not.toHaveBeenCalled();
    // The app acts on the moved values: notifications on, "long" = 2 minutes (not the default 30 s).
    expect(commandFinished(60_000, 0)).toEqual([]);
    expect(commandFinished(150_000, 0)).toEqual(['Command finished']);
    expect(commandFinished(1_000, 2)).toEqual(['Command failed (exit 2)']);
  });

  it('Start at login from the tray: the login item and app-preferences.json; settings.json untouched', () => {
    const startAtLogin = (): unknown => switchboard.tray.model.find((i) => i.kind === 'item' && i.id === 'startAtLogin');
    switchboard.handleTrayAction({ type: 'toggleStartAtLogin' });
    expect(fake.app.setLoginItemSettings).toHaveBeenLastCalledWith({ openAtLogin: true, openAsHidden: true });
    expect(startAtLogin()).toMatchObject({ checked: true });
    switchboard.handleTrayAction({ type: 'toggleStartAtLogin' });
    expect(fake.app.setLoginItemSettings).toHaveBeenLastCalledWith({ openAtLogin: false, openAsHidden: true });
    expect(json(preferencesFile)).toEqual({ notifications: true, notifyAfterMs: 120_000, startAtLogin: false });
    expect(startAtLogin()).toMatchObject({ checked: false });
    expectOnlyTheHubWroteSettings(1);
  });

  describe('the window’s settings page', () => {
    let contents: FakeWebContents;
    const emit = (channel: string, payload?: unknown): boolean => fake.ipcMain.emit(channel, ipcEvent(contents), payload);

    beforeAll(() => {
      switchboard.showForPerson('settings', { type: 'settings' });
      contents = fake.BrowserWindow.instances.at(-1)!.webContents;
      emit(IPC_CHANNELS.connect);
    });

    it('notifications: changed in app-preferences.json, and applied at once; settings.json untouched', () => {
      expect(contents.sentOn(IPC_CHANNELS.appSettings)).toEqual([{ notifications: true, notifyAfterMs: 120_000 }]);
      emit(IPC_CHANNELS.setAppSettings, { notifications: false, notifyAfterMs: 300_000 });
      expect(contents.sentOn(IPC_CHANNELS.appSettings).at(-1)).toEqual({ notifications: false, notifyAfterMs: 300_000 });
      expect(json(preferencesFile)).toEqual({ notifications: false, notifyAfterMs: 300_000, startAtLogin: false });
      expect(commandFinished(1_000, 2)).toEqual([]);
      expectOnlyTheHubWroteSettings(1);
    });

    it('a hub setting goes through the hub: its writer saves settings.json, the running hub applies it', () => {
      emit(IPC_CHANNELS.send, { type: 'hello', protocol: UI_PROTOCOL_VERSION });
      emit(IPC_CHANNELS.send, { type: 'setSettings', changes: { executeTimeoutMs: 45_000 }, req: 2 });
      expect(contents.sentOn(IPC_CHANNELS.message)).toContainEqual({ type: 'done', for: 'setSettings', req: 2 });
      expect(json(settingsFile)).toEqual({ maxSessions: 7, executeTimeoutMs: 45_000 });
      expectOnlyTheHubWroteSettings(2);
      expect(switchboard.hub.settings.executeTimeoutMs).toBe(45_000);
      // The app's file did not take the hub's key, nor the hub's file the app's.
      expect(json(preferencesFile)).toEqual({ notifications: false, notifyAfterMs: 300_000, startAtLogin: false });
    });
  });
});
