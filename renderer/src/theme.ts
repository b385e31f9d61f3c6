/**
 * Dark and light themes: the page's colours live in styles.css (`:root[data-theme=…]`), the
 * terminal's in src/terminalThemes.ts (xterm.js takes them as options; the hub paints screenshots
 * with the same). The choice follows prefers-color-scheme
 * until the person picks one with the toggle; that pick is kept in localStorage.
 */
import type { ITheme } from '@xterm/xterm';
import { terminalColors } from '../../src/terminalThemes.js';

export type ThemeName = 'dark' | 'light';
export type ThemePreference = ThemeName | 'system';

const STORAGE_KEY = 'switchboard.theme';

/** Monospace stack for terminals: the platform's own first, then common developer fonts. */
export const TERMINAL_FONT_FAMILY =
  'ui-monospace, "SF Mono", SFMono-Regular, Menlo, "Cascadia Mono", "JetBrains Mono", Consolas, "DejaVu Sans Mono", "Liberation Mono", monospace';

/** The terminal's colours (src/terminalThemes.ts, shared with the hub's screenshots). */
export function terminalTheme(name: ThemeName): ITheme {
  return { ...terminalColors(name) };
}

export function storedPreference(): ThemePreference {
  try {
    const value = localStorage.getItem(STORAGE_KEY);
    return value === 'dark' || value === 'light' ? value : 'system';
  } catch {
    return 'system';
  }
}

function storePreference(preference: ThemePreference): void {
  try {
    if (preference === 'system') localStorage.removeItem(STORAGE_KEY);
    else localStorage.setItem(STORAGE_KEY, preference);
  } catch {
    // Storage refused (private mode): the choice lasts for this page only.
  }
}

const systemQuery = (): MediaQueryList => window.matchMedia('(prefers-color-scheme: light)');

export function resolveTheme(preference: ThemePreference): ThemeName {
  if (preference !== 'system') return preference;
  return systemQuery().matches ? 'light' : 'dark';
}

/** Applies the theme to the page and calls `onChange` whenever the effective theme changes. */
export class ThemeController {
  private preferenceValue: ThemePreference = storedPreference();
  private current: ThemeName;

  constructor(private readonly onChange: (theme: ThemeName) => void) {
    this.current = resolveTheme(this.preferenceValue);
    document.documentElement.dataset.theme = this.current;
    systemQuery().addEventListener('change', () => this.refresh());
  }

  get theme(): ThemeName {
    return this.current;
  }

  get preference(): ThemePreference {
    return this.preferenceValue;
  }

  /** The toggle: flips between dark and light (an explicit choice from then on). */
  toggle(): void {
    this.setPreference(this.current === 'dark' ? 'light' : 'dark');
  }

  setPreference(preference: ThemePreference): void {
    this.preferenceValue = preference;
    storePreference(preference);
    this.refresh();
  }

  private refresh(): void {
    const next = resolveTheme(this.preferenceValue);
    if (next === this.current) return;
    this.current = next;
    document.documentElement.dataset.theme = next;
    this.onChange(next);
  }
}
