/** Between the Electron app's main process and its window's page only (never over `/ws`). */
import { z } from 'zod';
import { sessionRef } from './fields.js';

/**
 * What the person asked for outside the page (a tray item, a notification, a second launch),
 * handed to the Electron window's page by main: watch a session (its tab opens in front, or as
 * soon as the session is listed), or show the settings.
 */
export const AppCommandSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('watch'), session: sessionRef }),
  z.object({ type: z.literal('settings') }),
]);
export type AppCommand = z.infer<typeof AppCommandSchema>;

/**
 * The app's notification settings, which the Electron window's settings page shows and changes
 * (main keeps them in app-preferences.json beside the hub's settings.json; docs/design.md §5.3: off
 * by default).
 */
export const NotificationSettingsSchema = z.object({
  /** Notify when an agent's command fails, finishes after running long, or a session needs the person. */
  notifications: z.boolean(),
  /** "Long": agent commands running at least this long notify when they finish. */
  notifyAfterMs: z.number().int().min(1_000).max(86_400_000),
});
export type NotificationSettings = z.infer<typeof NotificationSettingsSchema>;
/** What the page may ask main to change: any of the above, nothing else. */
export const NotificationSettingsPatchSchema = NotificationSettingsSchema.partial().strict();
