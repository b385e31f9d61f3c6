/**
 * The menu-bar app's own preferences (notifications, what a long command is, start at login)
 * in a file of their own, `<state>/app-preferences.json`, written by electron-store here and by
 * nothing else. The hub's settings are in `<state>/settings.json`, whose one writer is the hub's
 * SettingsEditor (src/hub/settings/settingsEditor.ts); main/ reads neither file's keys into the other and
 * never writes settings.json (the window's settings page changes hub settings through the hub).
 *
 * Why not in the hub's schema: only the app acts on them. A headless `serve` shows no
 * notifications and has no login item, so they would be settings on its page that do nothing,
 * with `SWITCHBOARD_*` overrides nobody reads; and start at login is the OS's login item.
 *
 * The file holds only what the person changed (no defaults written), so a later version's
 * better default reaches everyone who never touched that preference.
 */
import * as path from 'node:path';
import ElectronStore from 'electron-store';
import { z } from 'zod';
import { type Logger, describeSettingsIssues, SETTINGS_FILE, type SettingsEditor } from '../src/hub/index.js';
import { NotificationSettingsSchema, type NotificationSettings } from '../src/ui-protocol/index.js';

/** Beside settings.json in the state dir (never the same name: that file has one writer, the hub). */
export const APP_PREFERENCES_FILE = 'app-preferences.json';

/** Preferences only the menu-bar app acts on. Off by default: the app is quiet unless asked. */
export const AppPreferencesSchema = z.object({
  /** Notifications for long or failed agent commands and "needs you" (never focus anything). */
  notifications: NotificationSettingsSchema.shape.notifications.default(false),
  /** Agent commands running at least this long notify when they finish (with `notifications`). */
  notifyAfterMs: NotificationSettingsSchema.shape.notifyAfterMs.default(30_000),
  /** Open the app (hidden, in the menu bar) when the person logs in (macOS, Windows). */
  startAtLogin: z.boolean().default(false),
});
export type AppPreferences = z.infer<typeof AppPreferencesSchema>;

const PREFERENCE_KEYS = Object.keys(AppPreferencesSchema.shape) as (keyof AppPreferences)[];

export class AppPreferencesStore {
  private readonly store: ElectronStore<Record<string, unknown>>;

  constructor(readonly stateDir: string) {
    this.store = namingTheFile(path.join(stateDir, APP_PREFERENCES_FILE), () => {
      return new ElectronStore<Record<string, unknown>>({
        cwd: stateDir,
        name: APP_PREFERENCES_FILE.replace(/\.json$/, ''),
        fileExtension: 'json',
        // The state dir is private (0700); the file is too, like every other file in it.
        configFileMode: 0o600,
        accessPropertiesByDotNotation: false,
        clearInvalidConfig: false,
        serialize: (value) => `${JSON.stringify(value, null, 2)}\n`,
      });
    });
  }

  get path(): string {
    return this.store.path;
  }

  /**
   * The preferences, defaults applied. Read from disk each time (electron-store does not cache),
   * so a hand edit applies at the next notification. Throws, naming the file, when it is invalid.
   */
  read(): AppPreferences {
    return parseOrThrow(this.raw(), this.path);
  }

  /**
   * Writes the given keys (undefined removes a key, back to its default). The result is
   * validated before anything is written: an invalid value or a key that is no preference of
   * the app's (a hub setting, say) throws an error naming it, and the file is left as it was.
   */
  update(patch: Partial<Record<keyof AppPreferences, unknown>>): AppPreferences {
    const next = this.raw();
    for (const [key, value] of Object.entries(patch)) {
      if (!Object.hasOwn(AppPreferencesSchema.shape, key))
        throw new Error(`"${key}" is not a preference of the app's (${PREFERENCE_KEYS.join(', ')}); the hub's settings are changed through the hub.`);
      if (value === undefined) delete next[key];
      else next[key] = value;
    }
    const parsed = parseOrThrow(next, this.path);
    this.store.store = next;
    return parsed;
  }

  /**
   * Takes `values` for the keys the file does not hold yet; a key it holds keeps its value (the
   * same one moved before, or what the person chose since). One write, validated first; none
   * when every key is there. Returns the keys written.
   */
  adopt(values: Readonly<Record<string, unknown>>): string[] {
    const current = this.raw();
    const missing = Object.keys(values).filter((key) => !Object.hasOwn(current, key));
    if (missing.length === 0) return [];
    this.update(Object.fromEntries(missing.map((key) => [key, values[key]])));
    return missing;
  }

  private raw(): Record<string, unknown> {
    return namingTheFile(this.path, () => ({ ...this.store.store }));
  }
}

/**
 * Moves the preferences an earlier version kept in settings.json to the app's own file, once.
 * The order makes a crash anywhere harmless: first written here (a whole file renamed into
 * place), then removed from settings.json by the hub's writer (the same). Stopped in between,
 * they are in both files and the next start finishes the move; a value this file already holds
 * wins, since it is the one moved before or one the person set since. A value that would not
 * load stays in settings.json, named in the log, and the default applies until it is fixed.
 */
export function moveLegacyPreferences(
  preferences: Pick<AppPreferencesStore, 'adopt' | 'path'>,
  hubSettings: Pick<SettingsEditor, 'unknownKeys' | 'removeUnknownKeys'>,
  logger: Pick<Logger, 'info' | 'warn'>,
): void {
  const found = hubSettings.unknownKeys();
  const movable: Record<string, unknown> = {};
  for (const key of PREFERENCE_KEYS) {
    if (!Object.hasOwn(found, key)) continue;
    const parsed = AppPreferencesSchema.partial().safeParse({ [key]: found[key] });
    if (parsed.success) movable[key] = found[key];
    else
      logger.warn(
        `preferences: ${key} in ${SETTINGS_FILE} was not moved (${describeSettingsIssues(parsed.error.issues)}); the default applies until it is set on the settings page`,
      );
  }
  const keys = Object.keys(movable);
  if (keys.length === 0) return;
  preferences.adopt(movable);
  hubSettings.removeUnknownKeys(keys);
  logger.info(`preferences: moved ${keys.join(', ')} from ${SETTINGS_FILE} to ${preferences.path}`);
}

/** The notification preferences of `store`, as the window's settings page reads and changes them (ipc.ts). */
export function notificationSettingsOf(store: Pick<AppPreferencesStore, 'read' | 'update'>): NotificationSettingsAccess {
  const pick = (preferences: AppPreferences): NotificationSettings => ({ notifications: preferences.notifications, notifyAfterMs: preferences.notifyAfterMs });
  return { read: () => pick(store.read()), update: (patch) => pick(store.update(patch)) };
}

export interface NotificationSettingsAccess {
  read(): NotificationSettings;
  /** Throws, naming the setting, when the result would be invalid; nothing is written then. */
  update(patch: Partial<NotificationSettings>): NotificationSettings;
}

function parseOrThrow(raw: unknown, file: string): AppPreferences {
  const parsed = AppPreferencesSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw new Error(`Invalid preferences in ${file}: ${describeSettingsIssues(parsed.error.issues)}`);
}

/** electron-store's JSON errors do not say which file; the person needs to know which to fix. */
function namingTheFile<T>(file: string, run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof SyntaxError) throw new Error(`${file} is not valid JSON (${error.message}); fix or delete it.`);
    throw error;
  }
}
