/**
 * `Emulator.lastTextLine` (bufferText.ts `lastTextLine`): the line a progress message quotes
 * (docs/design.md §3.4), as the screen shows it, read from a few rows only.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Emulator } from '../../../../src/core/emulation/emulator.js';

const emulators: Emulator[] = [];

async function emulator(cols = 40, rows = 10): Promise<Emulator> {
  const made = await Emulator.create({ cols, rows, scrollback: 1_000, nonce: 'n', headLines: 10 });
  emulators.push(made);
  return made;
}

async function write(target: Emulator, text: string): Promise<void> {
  target.write(text, 0, Buffer.byteLength(text));
  await target.whenParsed();
}

afterEach(() => {
  for (const made of emulators.splice(0)) made.dispose();
});

describe('Emulator.lastTextLine', () => {
  it('is the last line with text, past the empty row a newline leaves and blank lines', async () => {
    const screen = await emulator();
    await write(screen, 'first\r\nPASS src/a.test.ts\r\n\r\n\r\n');
    expect(screen.lastTextLine(100)).toBe('PASS src/a.test.ts');
  });

  it('shows a progress bar as the screen does, the last state only', async () => {
    const screen = await emulator();
    await write(screen, 'downloading  10%\rdownloading  55%\rdownloading 100%');
    expect(screen.lastTextLine(100)).toBe('downloading 100%');
  });

  it('starts at a position: what was on its row before (a prompt) is not output', async () => {
    const screen = await emulator();
    await write(screen, '$ npm test');
    const start = screen.position();
    expect(screen.lastTextLine(100, start)).toBe('');
    await write(screen, '\r\n> build\r\n');
    expect(screen.lastTextLine(100, start)).toBe('> build');
    await write(screen, '\r\n\r\n');
    // Nothing of the output above the start: the prompt's row stops the scan.
    const later = screen.position();
    expect(screen.lastTextLine(100, later)).toBe('');
    start.marker?.dispose();
    later.marker?.dispose();
  });

  it('cuts a long line to maxChars with an ellipsis, and joins what it wrapped over', async () => {
    const screen = await emulator(40);
    const line = Array.from({ length: 12 }, (_, i) => `word${i}`).join(' '); // 70 characters: two rows
    await write(screen, `${line}\r\n`);
    expect(screen.lastTextLine(100)).toBe(line);
    const cut = screen.lastTextLine(20);
    expect(cut).toHaveLength(20);
    expect(cut).toBe(`${line.slice(0, 19)}…`);
  });

  it('reads only the end of a line wrapped over many rows, marked with a leading ellipsis', async () => {
    const screen = await emulator(40, 10);
    await write(screen, `${'x'.repeat(5_000)}END\r\n`);
    const text = screen.lastTextLine(100);
    expect(text.startsWith('…')).toBe(true);
    expect(text.length).toBeLessThanOrEqual(100);
    expect(text).toMatch(/^…x+/);
  });

  it('is empty for an empty screen and bounded by the screen when blank rows are many', async () => {
    const screen = await emulator(40, 10);
    expect(screen.lastTextLine(100)).toBe('');
    await write(screen, `far above${'\r\n'.repeat(30)}`);
    // The text scrolled past a whole screen of blank rows: not looked for.
    expect(screen.lastTextLine(100)).toBe('');
  });

  it("in the alternate screen, the lowest row with text (a full-screen program's status line)", async () => {
    const screen = await emulator(40, 10);
    await write(screen, 'before\r\n\x1b[?1049h\x1b[H top line\x1b[8;1H-- INSERT --\x1b[2;1H');
    expect(screen.lastTextLine(100)).toBe('-- INSERT --');
  });
});
