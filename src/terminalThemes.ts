/**
 * The terminal's colours, dark and light: plain data shared by the page (renderer/, which hands
 * them to xterm.js) and the hub (src/hub/screenshot/, which paints PNGs with them), so a
 * screenshot shows the colours the person sees. It imports nothing: the renderer may import it
 * without pulling in Node, and the hub without pulling in the browser.
 */

export type TerminalThemeName = 'dark' | 'light';

/** The keys of xterm.js's ITheme that both sides use (a structural subset, so no xterm import). */
export interface TerminalColors {
  background: string;
  foreground: string;
  cursor: string;
  cursorAccent: string;
  selectionBackground: string;
  black: string;
  red: string;
  green: string;
  yellow: string;
  blue: string;
  magenta: string;
  cyan: string;
  white: string;
  brightBlack: string;
  brightRed: string;
  brightGreen: string;
  brightYellow: string;
  brightBlue: string;
  brightMagenta: string;
  brightCyan: string;
  brightWhite: string;
  scrollbarSliderBackground: string;
  scrollbarSliderHoverBackground: string;
  scrollbarSliderActiveBackground: string;
}

export const DARK_TERMINAL: Readonly<TerminalColors> = {
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

export const LIGHT_TERMINAL: Readonly<TerminalColors> = {
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

export function terminalColors(name: TerminalThemeName): Readonly<TerminalColors> {
  return name === 'dark' ? DARK_TERMINAL : LIGHT_TERMINAL;
}

const ANSI_KEYS = [
  'black',
  'red',
  'green',
  'yellow',
  'blue',
  'magenta',
  'cyan',
  'white',
  'brightBlack',
  'brightRed',
  'brightGreen',
  'brightYellow',
  'brightBlue',
  'brightMagenta',
  'brightCyan',
  'brightWhite',
] as const;

/**
 * The 256-colour palette as xterm.js builds it: the theme's 16, then the 6×6×6 cube (levels 0,
 * 95, 135, 175, 215, 255) and 24 greys (8 + 10 i), each `#rrggbb`.
 */
export function palette256(colors: Readonly<TerminalColors>): string[] {
  const hex = (r: number, g: number, b: number): string => `#${[r, g, b].map((v) => v.toString(16).padStart(2, '0')).join('')}`;
  const out: string[] = ANSI_KEYS.map((key) => colors[key]);
  const levels = [0, 0x5f, 0x87, 0xaf, 0xd7, 0xff];
  for (let i = 0; i < 216; i++) out.push(hex(levels[Math.floor(i / 36) % 6]!, levels[Math.floor(i / 6) % 6]!, levels[i % 6]!));
  for (let i = 0; i < 24; i++) {
    const v = 8 + i * 10;
    out.push(hex(v, v, v));
  }
  return out;
}
