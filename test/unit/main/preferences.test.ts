/**
 * The app's own preferences (main/preferences.ts): electron-store in `<state>/app-preferences.json`,
 * never settings.json (whose one writer is the hub's SettingsEditor), and the move of the
 * preferences an earlier version kept in settings.json: once, by each file's own writer, safe
 * against a crash between the two writes. Real electron-store (it needs no Electron runtime
 * when given an absolute `cwd`), the real SettingsEditor and the hub's loadSettings.
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

const { AppPreferencesStore, AppPreferencesSchema, APP_PREFERENCES_FILE, moveLegacyPreferences } = await import('../../../main/preferences.js');
const { loadSettings, SettingsSchema, SETTINGS_FILE } = await import('../../../src/hub/settings/settings.js');
const { SettingsEditor } = await import('../../../src/hub/settings/settingsEditor.js');

let stateDir: string;
let settingsFile: string;
let preferencesFile: string;

beforeEach(() => {
  stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-preferences-'));
  settingsFile = path.join(stateDir, SETTINGS_FILE);
  preferencesFile = path.join(stateDir, APP_PREFERENCES_FILE);
});
afterEach(() => {
  fs.rmSync(stateDir, { recursive: true, force: true });
});

const json = (file: string): unknown => JSON.parse(fs.readFileSync(file, 'utf8'));
/** Changes with every write, in place or renamed over (inode, mtime to the nanosecond, size). */
const fingerprint = (file: string): string => {
  const stat = fs.statSync(file, { bigint: true });
  return `${stat.ino}:${stat.mtimeNs}:${stat.size}`;
};
const quiet = (): { info: ReturnType<typeof vi.fn>; warn: ReturnType<typeof vi.fn> } => ({ info: vi.fn(), warn: vi.fn() });
/** The hub's writer, as the running hub holds it (its settings in force are not what these tests look at). */
const hubEditor = (): InstanceType<typeof SettingsEditor> =>
  new SettingsEditor({ stateDir, env: {}, inForce: () => SettingsSchema.parse({}), apply: () => undefined });

describe('AppPreferencesStore', () => {
  it('writes <state>/app-preferences.json (0600, only what was set) and never settings.json', () => {
    const store = new AppPreferencesStore(stateDir);
    expect(store.path).toBe(preferencesFile);
    expect(store.update({ notifications: true, notifyAfterMs: 120_000 })).toEqual({ notifications: true, notifyAfterMs: 120_000, startAtLogin: false });
    store.update({ startAtLogin: true });

    expect(json(preferencesFile)).toEqual({ notifications: true, notifyAfterMs: 120_000, startAtLogin: true });
    expect(fs.statSync(preferencesFile).mode & 0o777).toBe(0o600);
    expect(fs.existsSync(settingsFile)).toBe(false);
    expect(new AppPreferencesStore(stateDir).read()).toEqual({ notifications: true, notifyAfterMs: 120_000, startAtLogin: true });
  });

  it('reads the defaults when there is no file (quiet: no notifications, no login item)', () => {
    expect(new AppPreferencesStore(stateDir).read()).toEqual({ notifications: false, notifyAfterMs: 30_000, startAtLogin: false });
    expect(fs.existsSync(preferencesFile)).toBe(false);
  });

  it('refuses an invalid value or a hub setting, naming it, and leaves the file as it was', () => {
    const store = new AppPreferencesStore(stateDir);
    store.update({ notifyAfterMs: 60_000 });
    const before = fs.readFileSync(preferencesFile, 'utf8');
    expect(() => store.update({ notifyAfterMs: 5 })).toThrow(/notifyAfterMs must be at least 1000/);
    expect(() => store.update({ notifications: 'yes' })).toThrow(/notifications must be a boolean/);
    expect(() => store.update({ maxSessions: 3 } as never)).toThrow(/"maxSessions" is not a preference of the app's.*through the hub/);
    expect(fs.readFileSync(preferencesFile, 'utf8')).toBe(before);
    expect(fs.existsSync(settingsFile)).toBe(false);
  });

  it('undefined removes a key: back to its default', () => {
    const store = new AppPreferencesStore(stateDir);
    store.update({ notifications: true, notifyAfterMs: 60_000 });
    store.update({ notifyAfterMs: undefined });
    expect(json(preferencesFile)).toEqual({ notifications: true });
    expect(store.read().notifyAfterMs).toBe(30_000);
  });

  it('reads a hand edit at once, and names the file when one does not load', () => {
    const store = new AppPreferencesStore(stateDir);
    fs.writeFileSync(preferencesFile, JSON.stringify({ notifications: true }));
    expect(store.read().notifications).toBe(true);
    fs.writeFileSync(preferencesFile, JSON.stringify({ notifyAfterMs: -1 }));
    expect(() => store.read()).toThrow(`Invalid preferences in ${preferencesFile}: notifyAfterMs must be at least 1000`);
    fs.writeFileSync(preferencesFile, '{ not json');
    expect(() => store.read()).toThrow(`${preferencesFile} is not valid JSON`);
    expect(() => new AppPreferencesStore(stateDir)).toThrow(`${preferencesFile} is not valid JSON`);
  });

  it('adopt takes only the keys the file does not hold yet, in one write', () => {
    const store = new AppPreferencesStore(stateDir);
    store.update({ notifications: false });
    expect(store.adopt({ notifications: true, notifyAfterMs: 120_000 })).toEqual(['notifyAfterMs']);
    expect(json(preferencesFile)).toEqual({ notifications: false, notifyAfterMs: 120_000 });
    const before = fingerprint(preferencesFile);
    expect(store.adopt({ notifications: true })).toEqual([]);
    expect(fingerprint(preferencesFile)).toBe(before);
  });

  it('no preference has a hub setting’s name (the hub’s writer removes only keys that are not its own)', () => {
    const hubKeys = new Set(Object.keys(SettingsSchema.shape));
    expect(Object.keys(AppPreferencesSchema.shape).filter((key) => hubKeys.has(key))).toEqual([]);
  });
});

describe('moving the preferences an earlier version kept in settings.json', () => {
  const earlier = { maxSessions: 7, executeTimeoutMs: 45_000, notifications: true, notifyAfterMs: 120_000, startAtLogin: true, someoneElses: { kept: 1 } };

  it('moves them to app-preferences.json; settings.json keeps everything else and still loads', () => {
    fs.writeFileSync(settingsFile, JSON.stringify(earlier));
    const store = new AppPreferencesStore(stateDir);
    const log = quiet();
    moveLegacyPreferences(store, hubEditor(), log);

    expect(json(preferencesFile)).toEqual({ notifications: true, notifyAfterMs: 120_000, startAtLogin: true });
    expect(json(settingsFile)).toEqual({ maxSessions: 7, executeTimeoutMs: 45_000, someoneElses: { kept: 1 } });
    expect(fs.statSync(settingsFile).mode & 0o777).toBe(0o600);
    expect(loadSettings(stateDir, {})).toMatchObject({ maxSessions: 7, executeTimeoutMs: 45_000 });
    expect(store.read()).toEqual({ notifications: true, notifyAfterMs: 120_000, startAtLogin: true });
    expect(log.info).toHaveBeenCalledWith(expect.stringContaining('moved notifications, notifyAfterMs, startAtLogin'));
    expect(log.warn).not.toHaveBeenCalled();

    // Once: the next start finds nothing to move and writes neither file.
    const before = [fingerprint(settingsFile), fingerprint(preferencesFile)];
    moveLegacyPreferences(store, hubEditor(), log);
    expect([fingerprint(settingsFile), fingerprint(preferencesFile)]).toEqual(before);
  });

  it('settings.json is written by the hub’s writer only: the app asks it to remove the keys it moved', () => {
    fs.writeFileSync(settingsFile, JSON.stringify(earlier));
    const editor = hubEditor();
    const remove = vi.spyOn(editor, 'removeUnknownKeys');
    moveLegacyPreferences(new AppPreferencesStore(stateDir), editor, quiet());
    expect(remove).toHaveBeenCalledTimes(1);
    expect(remove).toHaveBeenCalledWith(['notifications', 'notifyAfterMs', 'startAtLogin']);
    // Its own write: the hub's watcher does not take it for a hand edit.
    expect(editor.reloadFromDisk()).toBeUndefined();
  });

  it('the copy comes first: when app-preferences.json cannot be written, settings.json is left as it was', () => {
    fs.writeFileSync(settingsFile, JSON.stringify(earlier));
    const before = fingerprint(settingsFile);
    const failing = {
      path: preferencesFile,
      adopt: (): string[] => {
        throw new Error('disk full');
      },
    };
    const editor = hubEditor();
    const remove = vi.spyOn(editor, 'removeUnknownKeys');
    expect(() => moveLegacyPreferences(failing, editor, quiet())).toThrow('disk full');
    expect(remove).not.toHaveBeenCalled();
    expect(fingerprint(settingsFile)).toBe(before);
    expect(json(settingsFile)).toEqual(earlier);
  });

  it('a crash between the two writes: the next start finishes the move, and a value set since wins', () => {
    fs.writeFileSync(settingsFile, JSON.stringify(earlier));
    const store = new AppPreferencesStore(stateDir);
    // The process dies after the copy, before settings.json is rewritten.
    const crashing = {
      unknownKeys: () => hubEditor().unknownKeys(),
      removeUnknownKeys: (): string[] => {
        throw new Error('killed');
      },
    };
    expect(() => moveLegacyPreferences(store, crashing, quiet())).toThrow('killed');
    expect(json(preferencesFile)).toEqual({ notifications: true, notifyAfterMs: 120_000, startAtLogin: true });
    expect(json(settingsFile)).toEqual(earlier);
    // Both files load meanwhile: the hub ignores keys it does not know.
    expect(loadSettings(stateDir, {}).maxSessions).toBe(7);

    // Before the next start the person turns notifications off (the app file is the one read).
    store.update({ notifications: false });
    moveLegacyPreferences(store, hubEditor(), quiet());
    expect(json(preferencesFile)).toEqual({ notifications: false, notifyAfterMs: 120_000, startAtLogin: true });
    expect(json(settingsFile)).toEqual({ maxSessions: 7, executeTimeoutMs: 45_000, someoneElses: { kept: 1 } });
  });

  it('a value that would not load stays in settings.json, named in the log; the others move', () => {
    fs.writeFileSync(settingsFile, JSON.stringify({ maxLines: 50, notifications: true, notifyAfterMs: 5 }));
    const log = quiet();
    moveLegacyPreferences(new AppPreferencesStore(stateDir), hubEditor(), log);
    expect(json(preferencesFile)).toEqual({ notifications: true });
    expect(json(settingsFile)).toEqual({ maxLines: 50, notifyAfterMs: 5 });
    expect(log.warn).toHaveBeenCalledWith(expect.stringMatching(/notifyAfterMs in settings\.json was not moved \(notifyAfterMs must be at least 1000\)/));
  });

  it('a settings.json without the app’s keys (headless, or moved already) is not written', () => {
    fs.writeFileSync(settingsFile, JSON.stringify({ port: 0 }));
    const before = fingerprint(settingsFile);
    moveLegacyPreferences(new AppPreferencesStore(stateDir), hubEditor(), quiet());
    expect(fingerprint(settingsFile)).toBe(before);
    expect(fs.existsSync(preferencesFile)).toBe(false);
    // And none at all.
    fs.rmSync(settingsFile);
    moveLegacyPreferences(new AppPreferencesStore(stateDir), hubEditor(), quiet());
    expect(fs.existsSync(settingsFile)).toBe(false);
  });
});
