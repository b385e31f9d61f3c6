/**
 * The page's own preferences (terminal font size, how the sidebar groups, whether typing into
 * an agent's tab asks first, the timeline's toggle), kept in this browser's localStorage. The
 * theme keeps its own key (theme.ts); the hub's settings are the hub's (settings page).
 */
import type { GroupMode } from './sessionGroups.js';

export interface Prefs {
  fontSize: number;
  groupMode: GroupMode;
  confirmTakeOver: boolean;
  timelineOpen: boolean;
}

export const PREFS_KEY = 'switchboard.prefs';
/** The terminal font sizes offered (px). */
export const FONT_SIZES = [11, 12, 13, 14, 15, 16];
export const DEFAULT_PREFS: Prefs = { fontSize: 13, groupMode: 'agent', confirmTakeOver: true, timelineOpen: true };

/** What a stored value (JSON, maybe absent, old or hand-edited) means: anything unknown is the default. */
export function parsePrefs(stored: string | null): Prefs {
  try {
    const value: unknown = JSON.parse(stored ?? '{}');
    const prefs = (value && typeof value === 'object' ? value : {}) as Partial<Record<keyof Prefs, unknown>>;
    return {
      fontSize: FONT_SIZES.includes(Number(prefs.fontSize)) ? Number(prefs.fontSize) : DEFAULT_PREFS.fontSize,
      groupMode: prefs.groupMode === 'folder' ? 'folder' : 'agent',
      confirmTakeOver: prefs.confirmTakeOver !== false,
      timelineOpen: prefs.timelineOpen !== false,
    };
  } catch {
    return { ...DEFAULT_PREFS };
  }
}

/** The part of the Web Storage API used here (localStorage in the page). */
export interface PrefsStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/** The page's localStorage; null where the page has none (reading it throws in some sandboxes). */
export function pageStorage(): PrefsStorage | null {
  try {
    return (globalThis as { localStorage?: PrefsStorage }).localStorage ?? null;
  } catch {
    return null;
  }
}

export function loadPrefs(storage: PrefsStorage | null): Prefs {
  try {
    return parsePrefs(storage?.getItem(PREFS_KEY) ?? null);
  } catch {
    return { ...DEFAULT_PREFS }; // storage refused (private mode)
  }
}

export function savePrefs(storage: PrefsStorage | null, prefs: Prefs): void {
  try {
    storage?.setItem(PREFS_KEY, JSON.stringify(prefs));
  } catch {
    // Not persisted (storage refused); the choice lasts for this page.
  }
}
