/**
 * Settings through the app's electron-store path are read back by the hub with the same zod
 * schema (DESIGN §5): one file, `<state>/settings.json`. Real electron-store (it needs no
 * Electron runtime when given an absolute `cwd`); the real hub's loadSettings and Hub.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// electron-store imports the `electron` package, whose index throws without a downloaded
// binary; this override makes it export a path instead (electron-store then uses our cwd).
vi.hoisted(() => {
  process.env.ELECTRON_OVERRIDE_DIST_PATH ??= '/nonexistent-electron';
});

const { SettingsStore, AppSettingsSchema } = await import('../../../main/settings.js');
const { loadSettings, SettingsSchema, SETTINGS_FILE } = await import('../../../src/hub/settings.js');
const { Hub } = await import('../../../src/hub/hub.js');

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
let stateDir: string;

beforeEach(() => {
  stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-settings-'));
});
afterEach(() => {
  fs.rmSync(stateDir, { recursive: true, force: true });
});

describe('SettingsStore (electron-store) ↔ the hub', () => {
  it('writes <state>/settings.json, the file the hub reads', () => {
    const store = new SettingsStore(stateDir);
    expect(store.path).toBe(path.join(stateDir, SETTINGS_FILE));
    store.update({ maxSessions: 8, port: 0, secretPatterns: ['*.TOKEN', 'MY_SECRET'], awaitingInputQuietMs: 750, notifications: true });

    const hub = loadSettings(stateDir, {});
    expect(hub.maxSessions).toBe(8);
    expect(hub.port).toBe(0);
    expect(hub.secretPatterns).toEqual(['*.TOKEN', 'MY_SECRET']);
    expect(hub.awaitingInputQuietMs).toBe(750);
    // Unset keys keep the schema's defaults on both sides.
    expect(hub.scrollback).toBe(SettingsSchema.parse({}).scrollback);
    // The app-only key rides in the same file and does not disturb the hub's schema.
    expect(hub).not.toHaveProperty('notifications');
    expect(store.read().notifications).toBe(true);
    // Only what was set is on disk (later defaults reach everyone who never changed them).
    expect(JSON.parse(fs.readFileSync(store.path, 'utf8'))).toEqual({
      maxSessions: 8,
      port: 0,
      secretPatterns: ['*.TOKEN', 'MY_SECRET'],
      awaitingInputQuietMs: 750,
      notifications: true,
    });
    expect(fs.statSync(store.path).mode & 0o777).toBe(0o600);
  });

  it('every value the app accepts, the hub accepts (same schema)', () => {
    const store = new SettingsStore(stateDir);
    const written = store.update({ shell: '/bin/zsh', loginShell: false, killWaitMs: 500, retentionDays: 7, allowAgentSecretInput: true });
    const { notifications: _n, notifyAfterMs: _a, startAtLogin: _s, ...hubPart } = written;
    expect(loadSettings(stateDir, {})).toEqual(hubPart);
    expect(SettingsSchema.parse(JSON.parse(fs.readFileSync(store.path, 'utf8')))).toEqual(hubPart);
  });

  it('the hub started on that state dir runs with those settings', async () => {
    new SettingsStore(stateDir).update({ maxSessions: 3, defaultCols: 100 });
    const hub = new Hub({ stateDir, logger: quiet, env: {} });
    try {
      expect(hub.settings.maxSessions).toBe(3);
      expect(hub.settings.defaultCols).toBe(100);
    } finally {
      await hub.dispose();
    }
  });

  it('reads a file the headless hub’s person wrote by hand', () => {
    fs.writeFileSync(path.join(stateDir, SETTINGS_FILE), JSON.stringify({ port: 9000, maxLines: 50 }));
    const settings = new SettingsStore(stateDir).read();
    expect(settings.port).toBe(9000);
    expect(settings.maxLines).toBe(50);
    expect(settings.notifications).toBe(false); // off by default
    expect(settings.startAtLogin).toBe(false);
  });

  it('refuses an invalid value, naming the setting, and leaves the file as it was', () => {
    const store = new SettingsStore(stateDir);
    store.update({ maxSessions: 4 });
    const before = fs.readFileSync(store.path, 'utf8');
    expect(() => store.update({ maxSessions: 0 })).toThrow(/maxSessions/);
    expect(() => store.update({ port: 'seventy' })).toThrow(/port/);
    expect(() => store.update({ nonsense: 1 } as never)).toThrow(/Unknown setting "nonsense"/);
    expect(fs.readFileSync(store.path, 'utf8')).toBe(before);
    expect(loadSettings(stateDir, {}).maxSessions).toBe(4);
  });

  it('undefined removes a key: back to the default', () => {
    const store = new SettingsStore(stateDir);
    store.update({ maxSessions: 4, port: 0 });
    store.update({ maxSessions: undefined });
    expect(loadSettings(stateDir, {}).maxSessions).toBe(SettingsSchema.parse({}).maxSessions);
    expect(loadSettings(stateDir, {}).port).toBe(0);
  });

  it('keys with dots stay literal (no dot-path nesting)', () => {
    const store = new SettingsStore(stateDir);
    store.update({ secretAllow: ['A.B'] });
    expect(JSON.parse(fs.readFileSync(store.path, 'utf8'))).toEqual({ secretAllow: ['A.B'] });
  });

  it('the app schema is the hub schema plus the app-only keys', () => {
    const hubKeys = Object.keys(SettingsSchema.shape).sort();
    const appKeys = Object.keys(AppSettingsSchema.shape).sort();
    expect(appKeys).toEqual([...hubKeys, 'notifications', 'notifyAfterMs', 'startAtLogin'].sort());
  });
});
