import type { Emulator } from '../emulation/emulator.js';
import type { ReadFormat, ReadResult } from '../types.js';

/**
 * `read` view `screen` from an emulator, in the format asked for: the one rendering for a live
 * session (its own emulator) and a closed one (a replay of its transcript's end), so the two
 * cannot drift apart.
 */
export function screenView(
  emulator: Pick<Emulator, 'styledScreen' | 'screenLines' | 'serializeScreen' | 'cursor'>,
  format: ReadFormat,
): Pick<ReadResult, 'content' | 'lines' | 'total_lines' | 'truncated' | 'cursor'> {
  if (format === 'styled') {
    const screen = emulator.styledScreen();
    return { content: { rows: screen.rows }, lines: screen.height, total_lines: screen.height, truncated: false, cursor: emulator.cursor };
  }
  const lines = emulator.screenLines();
  const content = format === 'ansi' ? emulator.serializeScreen() : lines.join('\n').trimEnd();
  return { content, lines: lines.length, total_lines: lines.length, truncated: false, cursor: emulator.cursor };
}
