/**
 * The settings page's side of settings.json (settingsEditor.ts): what it shows for every
 * setting, and that a change is saved only when the whole file would load at the next start,
 * keeps the keys the hub does not know, and reaches the running hub; and that it removes, for
 * the app, keys that are not the hub's (the app's preferences of an earlier version), so that it
 * stays settings.json's one writer.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSettings, SettingsSchema, type Settings } from '../../../../src/hub/settings/settings.js';
import { SettingsEditor } from '../../../../src/hub/settings/settingsEditor.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function editorIn(env: NodeJS.ProcessEnv = {}, file?: string): { editor: SettingsEditor; file: string; applied: Settings[]; inForce: Settings } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-settings-editor-'));
  dirs.push(dir);
  const settingsFile = path.join(dir, 'settings.json');
  if (file !== undefined) fs.writeFileSync(settingsFile, file);
  let inForce: Settings;
  try {
    inForce = loadSettings(dir, env);
  } catch {
    inForce = SettingsSchema.parse({});
  }
  const applied: Settings[] = [];
  const editor = new SettingsEditor({ stateDir: dir, env, inForce: () => inForce, apply: (settings) => applied.push(settings) });
  return { editor, file: settingsFile, applied, inForce };
}

function errorOf(run: () => void): { code?: string; message: string } {
  try {
    run();
  } catch (error) {
    return error as { code?: string; message: string };
  }
  throw new Error('expected an error');
}

describe('SettingsEditor', () => {
  it('shows every setting once, with its kind, bounds, default and what holds it', () => {
    const { editor } = editorIn({ SWITCHBOARD_MAX_SESSIONS: '8' }, JSON.stringify({ maxLines: 50, notifications: true }));
    const { settings, problem } = editor.describe();
    expect(problem).toBeUndefined();
    expect(settings.map((s) => s.key).sort()).toEqual(Object.keys(SettingsSchema.shape).sort());
    const byKey = new Map(settings.map((s) => [s.key, s]));
    expect(byKey.get('maxLines')).toMatchObject({ kind: 'number', min: 1, max: 10_000, default: 200, value: 50, saved: 50, inFile: true, applies: 'calls' });
    expect(byKey.get('maxSessions')).toMatchObject({ value: 8, env: 'SWITCHBOARD_MAX_SESSIONS', inFile: false });
    expect(byKey.get('shell')).toMatchObject({ kind: 'string', value: null, default: null, applies: 'sessions' });
    expect(byKey.get('loginShell')).toMatchObject({ kind: 'boolean', default: true });
    expect(byKey.get('secretPatterns')).toMatchObject({ kind: 'list', applies: 'sessions' });
    expect(byKey.get('port')).toMatchObject({ kind: 'number', applies: 'restart' });
    expect(byKey.get('retentionDays')).toMatchObject({ applies: 'hourly' });
    expect(byKey.get('tokenRotationDays')).toMatchObject({ kind: 'number', min: 0, default: 0, applies: 'hourly' });
  });

  it('saves a change with mode 0600, keeping the keys it does not know; null puts a setting back to its default', () => {
    const { editor, file, applied } = editorIn({}, JSON.stringify({ notifications: true, startAtLogin: false, maxLines: 50 }));
    editor.save({ executeTimeoutMs: 5_000, maxLines: null, secretPatterns: ['*_TOKEN'], shell: '/bin/sh' });
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({
      notifications: true,
      startAtLogin: false,
      executeTimeoutMs: 5_000,
      secretPatterns: ['*_TOKEN'],
      shell: '/bin/sh',
    });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(applied.at(-1)).toMatchObject({ executeTimeoutMs: 5_000, maxLines: 200, secretPatterns: ['*_TOKEN'] });
    // What was saved is what the next start loads.
    expect(loadSettings(path.dirname(file), {})).toMatchObject({ executeTimeoutMs: 5_000, maxLines: 200 });
    expect(fs.readdirSync(path.dirname(file))).toEqual(['settings.json']);
  });

  it('lists the keys that are no setting of the hub’s, and removes those asked for, keeping the rest', () => {
    const { editor, file, applied } = editorIn({}, JSON.stringify({ maxLines: 50, notifications: true, startAtLogin: false, typo: 1 }));
    expect(editor.unknownKeys()).toEqual({ notifications: true, startAtLogin: false, typo: 1 });
    expect(editor.removeUnknownKeys(['notifications', 'startAtLogin', 'absent'])).toEqual(['notifications', 'startAtLogin']);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ maxLines: 50, typo: 1 });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(path.dirname(file))).toEqual(['settings.json']);
    // Its own write, not an edit to apply; the hub's settings did not change.
    expect(editor.reloadFromDisk()).toBeUndefined();
    expect(applied).toEqual([]);

    // Nothing of those left: nothing written.
    const before = fs.statSync(file, { bigint: true });
    expect(editor.removeUnknownKeys(['notifications'])).toEqual([]);
    const after = fs.statSync(file, { bigint: true });
    expect([after.ino, after.mtimeNs]).toEqual([before.ino, before.mtimeNs]);
  });

  it('does not remove a setting of the hub’s (save changes those), and writes nothing then', () => {
    const original = JSON.stringify({ maxLines: 50, notifications: true });
    const { editor, file } = editorIn({}, original);
    const error = errorOf(() => editor.removeUnknownKeys(['notifications', 'maxLines']));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toMatch(/^maxLines: settings of the hub are changed with save\(\)/);
    expect(fs.readFileSync(file, 'utf8')).toBe(original);
    expect(editorIn().editor.unknownKeys()).toEqual({}); // no file: nothing unknown
    expect(() => editorIn({}, '[1]').editor.unknownKeys()).toThrow(/does not hold a JSON object/);
  });

  it('a setting the endpoints take at start shows the saved value next to the one in force', () => {
    const { editor } = editorIn();
    editor.save({ bodyLimitBytes: 8 * 1024 * 1024 });
    const body = editor.describe().settings.find((s) => s.key === 'bodyLimitBytes');
    expect(body).toMatchObject({ value: 4 * 1024 * 1024, saved: 8 * 1024 * 1024, inFile: true, applies: 'restart' });
  });

  it('refuses invalid values, unknown names and settings the environment holds, naming them, and writes nothing', () => {
    const original = JSON.stringify({ notifications: true });
    const { editor, file, applied } = editorIn({ SWITCHBOARD_PORT: '0' }, original);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ maxLines: 99_999 }, /maxLines must be at most 10000/],
      [{ maxLines: 0 }, /maxLines must be at least 1/],
      [{ maxLines: 'ten' }, /maxLines must be a number/],
      [{ loginShell: 'yes' }, /loginShell must be a boolean/],
      [{ secretAllow: 'HOME' }, /secretAllow must be a list/],
      [{ secretPatterns: Array.from({ length: 1_001 }, (_, i) => `V${i}`) }, /secretPatterns must hold at most 1000 entries/],
      [{ secretPatterns: ['*_TOKEN', ''] }, /secretPatterns\.1 must not be empty/],
      [{ shell: '' }, /shell must not be empty/],
      [{ shell: '/bin/no-such-shell' }, /shell: "\/bin\/no-such-shell" was not found or is not executable/],
      [{ shell: 'no-such-shell' }, /shell: "no-such-shell" was not found on PATH/],
      [{ shell: 'bin/sh' }, /shell: give an absolute path/],
      [{ port: 8000 }, /port is set by SWITCHBOARD_PORT/],
      [{ nope: 1 }, /There is no setting "nope"/],
      [JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>, /There is no setting "__proto__"/],
    ];
    for (const [changes, says] of cases) {
      const error = errorOf(() => editor.save(changes));
      expect(error.code, JSON.stringify(changes)).toBe('INVALID_ARGUMENT');
      expect(error.message).toMatch(says);
    }
    expect(fs.readFileSync(file, 'utf8')).toBe(original);
    expect(applied).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('a settings.json broken by hand since the start is reported, and nothing is saved over it', () => {
    const { editor, file } = editorIn({}, '{"maxLines": 5,');
    expect(editor.describe().problem).toMatch(/not valid JSON.*fix or delete it/);
    expect(errorOf(() => editor.save({ maxLines: 10 })).message).toMatch(/not valid JSON/);
    expect(fs.readFileSync(file, 'utf8')).toBe('{"maxLines": 5,');
  });

  it('reloads the file edited by hand: applies what loads, says why not otherwise, and does not take its own save for an edit', () => {
    const { editor, file, applied } = editorIn({ SWITCHBOARD_MAX_SESSIONS: '8' }, JSON.stringify({ maxLines: 50 }));
    expect(editor.reloadFromDisk()).toBeUndefined(); // as it was when the editor read it
    editor.save({ maxLines: 60 });
    expect(applied).toHaveLength(1);
    expect(editor.reloadFromDisk()).toBeUndefined(); // our own save
    fs.writeFileSync(file, JSON.stringify({ maxLines: 70 }));
    expect(editor.reloadFromDisk()).toEqual({ applied: true, held: null });
    expect(applied.at(-1)).toMatchObject({ maxLines: 70, maxSessions: 8 }); // the environment still wins
    expect(editor.reloadFromDisk()).toBeUndefined();
    fs.writeFileSync(file, JSON.stringify({ maxLines: 0 }));
    const refused = editor.reloadFromDisk();
    expect(refused).toMatchObject({ applied: false, problem: expect.stringMatching(/maxLines must be at least 1.*keeps the settings in force/) });
    fs.writeFileSync(file, '[1]');
    expect(editor.reloadFromDisk()).toMatchObject({ applied: false, problem: expect.stringContaining('does not hold a JSON object') });
    expect(applied).toHaveLength(2);
    fs.rmSync(file);
    expect(editor.reloadFromDisk()).toEqual({ applied: true, held: null });
    expect(applied.at(-1)).toMatchObject({ maxLines: 200 });
  });
});
