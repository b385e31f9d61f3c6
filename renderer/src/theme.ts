/**
 * Dark and light themes: the page's colours live in styles.css (`:root[data-theme=…]`), the
 * terminal's here (xterm.js takes them as options). The choice follows prefers-color-scheme
 * until the person picks one with the toggle; that pick is kept in localStorage.
 */
import type { ITheme } from '@xterm/xterm';

export type ThemeName = 'dark' | 'light';
export type ThemePreference = ThemeName | 'system';

const STORAGE_KEY = 'switchboard.theme';

/** Monospace stack for terminals: the platform's own first, then common developer fonts. */
export const TERMINAL_FONT_FAMILY =
  'ui-monospace, "SF Mono", SFMono-Regular, Menlo, "Cascadia Mono", "JetBrains Mono", Consolas, "DejaVu Sans Mono", "Liberation Mono", monospace';

const DARK: ITheme = {
  background: '#0f1115',
  foreground: '#d7dae0',
  cursor: '#e6e6e6',
  cursorAccent: '#0f1115',
  selectionBackground: '#3a4a6b',
  black: '#1c1f26',
  red: '#f07178',
  green: '#9ece6a',
  yellow: '#e5c07b',
  blue: '#6fa8ff',
  magenta: '#c792ea',
  cyan: '#5fd0d6',
  white: '#c8ccd4',
  brightBlack: '#5c6370',
  brightRed: '#ff8a8f',
  brightGreen: '#b5e38a',
  brightYellow: '#f2d58f',
  brightBlue: '#8cbcff',
  brightMagenta: '#d8aef5',
  brightCyan: '#84e3e8',
  brightWhite: '#f2f4f8',
  scrollbarSliderBackground: 'rgba(140, 150, 170, 0.25)',
  scrollbarSliderHoverBackground: 'rgba(140, 150, 170, 0.4)',
  scrollbarSliderActiveBackground: 'rgba(140, 150, 170, 0.55)',
};

const LIGHT: ITheme = {
  background: '#fbfbfc',
  foreground: '#24292f',
  cursor: '#24292f',
  cursorAccent: '#fbfbfc',
  selectionBackground: '#b8d4fb',
  black: '#24292f',
  red: '#c5303a',
  green: '#1f7a35',
  yellow: '#8a6300',
  blue: '#0a5bd3',
  magenta: '#8639c0',
  cyan: '#0b7285',
  white: '#6e7781',
  brightBlack: '#57606a',
  brightRed: '#e0464f',
  brightGreen: '#2b9a47',
  brightYellow: '#a87a00',
  brightBlue: '#2b78e4',
  brightMagenta: '#a357d6',
  brightCyan: '#1098ad',
  brightWhite: '#8c959f',
  scrollbarSliderBackground: 'rgba(80, 90, 110, 0.22)',
  scrollbarSliderHoverBackground: 'rgba(80, 90, 110, 0.35)',
  scrollbarSliderActiveBackground: 'rgba(80, 90, 110, 0.5)',
};

export function terminalTheme(name: ThemeName): ITheme {
  return name === 'dark' ? DARK : LIGHT;
}

export function storedPreference(): ThemePreference {
  try {
    const value = localStorage.getItem(STORAGE_KEY);
    return value === 'dark' || value === 'light' ? value : 'system';
  } catch {
    return 'system';
  }
}

export function storePreference(preference: ThemePreference): void {
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
