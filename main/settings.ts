/**
 * The app's settings through electron-store, in the very file the headless hub reads:
 * `<state>/settings.json`, validated with the hub's own zod `SettingsSchema` (DESIGN §5).
 * What the app writes, `loadSettings()` in src/hub/settings.ts reads back unchanged.
 *
 * The file holds only what the person changed (no defaults written), so a later version's
 * better default reaches everyone who never touched that setting. Keys the app alone uses
 * (`notifications`, `startAtLogin`) sit in the same file; the hub's schema ignores keys it
 * does not know (zod strips them), so both read the one file without conflict.
 */
import ElectronStore from 'electron-store';
import { z } from 'zod';
import { SETTINGS_FILE, SettingsSchema, describeSettingsIssues, loadSettings, type Settings } from '../src/hub/settings.js';
import { NotificationSettingsSchema, type NotificationSettings } from '../src/ui-protocol.js';

/** Settings only the menu-bar app acts on. Off by default: the app is quiet unless asked. */
export const AppOnlySettingsSchema = z.object({
  /** Notifications for long or failed agent commands and "needs you" (never focus anything). */
  notifications: NotificationSettingsSchema.shape.notifications.default(false),
  /** Agent commands running at least this long notify when they finish (with `notifications`). */
  notifyAfterMs: NotificationSettingsSchema.shape.notifyAfterMs.default(30_000),
  /** Open the app (hidden, in the menu bar) when the person logs in (macOS, Windows). */
  startAtLogin: z.boolean().default(false),
});

/** Everything the app reads from settings.json: the hub's schema plus the app's own keys. */
export const AppSettingsSchema = SettingsSchema.extend(AppOnlySettingsSchema.shape);
export type AppSettings = z.infer<typeof AppSettingsSchema>;

/** The file name electron-store gets (`settings` + `.json` = the hub's SETTINGS_FILE). */
const STORE_NAME = SETTINGS_FILE.replace(/\.json$/, '');

export class SettingsStore {
  private readonly store: ElectronStore<Record<string, unknown>>;

  constructor(readonly stateDir: string) {
    this.store = new ElectronStore<Record<string, unknown>>({
      cwd: stateDir,
      name: STORE_NAME,
      fileExtension: 'json',
      // The state dir is private (0700); the file is too, like every other file in it.
      configFileMode: 0o600,
      // Keys are setting names, never paths (`secretPatterns` values may contain dots).
      accessPropertiesByDotNotation: false,
      clearInvalidConfig: false,
      serialize: (value) => `${JSON.stringify(value, null, 2)}\n`,
    });
  }

  /** The file both the app and the hub read. */
  get path(): string {
    return this.store.path;
  }

  /** The settings as the app sees them (defaults applied; env overrides are the hub's). */
  read(): AppSettings {
    return parseOrThrow(this.store.store, this.path);
  }

  /**
   * Writes the given keys (undefined removes a key, back to its default). The result is
   * validated with the hub's schema before anything is written: an invalid value throws an
   * error naming the setting, and the file is left as it was.
   */
  update(patch: Partial<Record<keyof AppSettings, unknown>>): AppSettings {
    const next: Record<string, unknown> = { ...this.store.store };
    for (const [key, value] of Object.entries(patch)) {
      if (!(key in AppSettingsSchema.shape)) throw new Error(`Unknown setting "${key}".`);
      if (value === undefined) delete next[key];
      else next[key] = value;
    }
    const parsed = parseOrThrow(next, this.path);
    this.store.store = next;
    return parsed;
  }

  /** The hub's view of the same file (what `Hub.start` loads, env overrides included). */
  hubSettings(env: NodeJS.ProcessEnv = process.env): Settings {
    return loadSettings(this.stateDir, env);
  }
}

/** The notification settings of `store`, as the window's settings page reads and changes them (ipc.ts). */
export function notificationSettingsOf(store: Pick<SettingsStore, 'read' | 'update'>): NotificationSettingsAccess {
  const pick = (settings: AppSettings): NotificationSettings => ({ notifications: settings.notifications, notifyAfterMs: settings.notifyAfterMs });
  return { read: () => pick(store.read()), update: (patch) => pick(store.update(patch)) };
}

export interface NotificationSettingsAccess {
  read(): NotificationSettings;
  /** Throws, naming the setting, when the result would be invalid; nothing is written then. */
  update(patch: Partial<NotificationSettings>): NotificationSettings;
}

function parseOrThrow(raw: unknown, file: string): AppSettings {
  const parsed = AppSettingsSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw new Error(`Invalid settings in ${file}: ${describeSettingsIssues(parsed.error.issues)}`);
}
