/**
 * `read` format `styled` (docs/design.md §3.2) from the emulator's cells: runs not cells, only
 * the attributes set, palette and true colours, wide characters, the text form.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Emulator } from '../../../../src/core/emulation/emulator.js';
import { styledText } from '../../../../src/core/emulation/styledScreen.js';

const emulators: Emulator[] = [];
afterEach(() => {
  for (const e of emulators.splice(0)) e.dispose();
});

async function emulator(output: string, cols = 40, rows = 6): Promise<Emulator> {
  const e = await Emulator.create({ cols, rows, scrollback: 100, nonce: 'n', headLines: 10 });
  emulators.push(e);
  e.write(output, 0, Buffer.byteLength(output));
  await e.whenParsed();
  return e;
}

describe('styled screen', () => {
  it('gives runs of one style with only the attributes that are set', async () => {
    const e = await emulator('plain \x1b[31;1mred bold\x1b[0m \x1b[38;5;208;48;2;1;2;3mx\x1b[0m\x1b[2;3;4;7mall\x1b[0m   \r\n');
    const screen = e.styledScreen();
    expect(screen.rows[0]).toEqual([
      { text: 'plain ' },
      { text: 'red bold', fg: 1, bold: true },
      { text: ' ' },
      { text: 'x', fg: 208, bg: '#010203' },
      { text: 'all', dim: true, italic: true, underline: true, inverse: true },
    ]);
    // Blank rows are empty, trailing default blanks left out.
    expect(screen.rows[2]).toEqual([]);
    expect(screen.rows).toHaveLength(6);
    expect(screen.cursor).toEqual({ row: 1, col: 0, visible: true });
  });

  it('keeps blanks that show a background, and says when the cursor is hidden', async () => {
    const e = await emulator('\x1b[44m    \x1b[0m\x1b[?25l');
    const screen = e.styledScreen();
    expect(screen.rows[0]).toEqual([{ text: '    ', bg: 4 }]);
    expect(screen.cursor.visible).toBe(false);
  });

  it('marks wide characters as taking two cells, once each', async () => {
    // Emoji are as wide as xterm's Unicode 6 tables say (one cell), in the UI's xterm.js too.
    const e = await emulator('a中文b한c');
    expect(e.styledScreen().rows[0]).toEqual([{ text: 'a' }, { text: '中文', wide: true }, { text: 'b' }, { text: '한', wide: true }, { text: 'c' }]);
    // The text form reads as one piece when only the width differs.
    expect(styledText(e.styledScreen().rows.slice(0, 1))).toBe('a中文b한c');
  });

  it('has a compact text form that marks styled runs, and escapes its bracket', async () => {
    const e = await emulator('ok \x1b[32mpass\x1b[0m \x1b[1;38;2;255;0;0mFAIL\x1b[0m ⟦x⟧');
    expect(styledText(e.styledScreen().rows.slice(0, 1))).toBe('ok ⟦fg=2⟧pass⟦/⟧ ⟦fg=#ff0000,bold⟧FAIL⟦/⟧ ⟦⟦x⟧');
  });

  it('joins soft-wrapped rows into history lines that match the plain ones', async () => {
    const e = await emulator(`\x1b[35m${'m'.repeat(15)}\x1b[0mtail\r\nsecond\r\nthird`, 10, 3);
    const plain = e.historyLines();
    expect(plain).toEqual(['m'.repeat(15) + 'tail', 'second', 'third']);
    expect(e.styledHistory(0, 3)).toEqual([[{ text: 'm'.repeat(15), fg: 5 }, { text: 'tail' }], [{ text: 'second' }], [{ text: 'third' }]]);
    expect(e.styledHistory(1, 2)).toEqual([[{ text: 'second' }]]);
  });
});
