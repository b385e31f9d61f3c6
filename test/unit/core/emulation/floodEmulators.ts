/**
 * Emulators fed as a flood, for the fast-forward tests (fastForward.test.ts, floodBatches.test.ts):
 * every emulator here measures the output's rate on the test's clock (`clock.now`), which moves
 * only when a test moves it: writes in one burst arrive in one instant, so a flood is a flood
 * however fast this machine parses. (On the real clock, a loaded machine parsed the burst's first
 * chunks slower than the flood rate, saw the flood later or not at all, and skipped less.)
 */
import { expect } from 'vitest';
import { Emulator, type EmulatorOptions } from '../../../../src/core/emulation/emulator.js';
import { FloodSignal } from '../../../../src/core/emulation/floodSignal.js';

export const NONCE = 'ff-test';
export const C = `\x1b]133;C;nonce=${NONCE}\x07`;
export const D = (exit: number): string => `\x1b]133;D;${exit};nonce=${NONCE}\x07`;
export const PROMPT = `\x1b]133;A;nonce=${NONCE}\x07$ \x1b]133;B;nonce=${NONCE}\x07`;

/** The clock every emulator's flood signal reads (ms): set back to 0 before each test. */
export const clock = { now: 0 };

export function emulator(fastForward: boolean, options: Partial<EmulatorOptions> = {}): Emulator {
  return new Emulator({ cols: 40, rows: 10, scrollback: 100, nonce: NONCE, headLines: 20, fastForward, flood: new FloodSignal(() => clock.now), ...options });
}

/** Writes `text` (or raw bytes) in chunks of `size` (a burst: a flood to the emulator), then waits for the parse. */
export async function feed(target: Emulator, text: string | Buffer, size: number | (() => number) = 4096): Promise<void> {
  for (let offset = 0; offset < text.length;) {
    const chunk = text.slice(offset, offset + (typeof size === 'number' ? size : size()));
    target.write(chunk, offset, offset + chunk.length);
    offset += chunk.length;
  }
  await target.whenParsed();
}

/** Feeds both emulators and expects the same result; returns how much the fast one skipped. */
export async function compare(text: string | Buffer, size: number | (() => number) = 4096): Promise<number> {
  const fast = emulator(true);
  const full = emulator(false);
  await Promise.all([feed(fast, text, size), feed(full, text, size)]);
  expect(fast.serialize()).toBe(full.serialize());
  expect(fast.cursor).toEqual(full.cursor);
  const [a, b] = [fast.tracker.lastCommand, full.tracker.lastCommand];
  expect(a?.lineFeeds).toBe(b?.lineFeeds);
  if (a && b) expect(fast.commandOutput(a)).toEqual(full.commandOutput(b));
  expect(full.skippedBytes).toBe(0);
  const skipped = fast.skippedBytes;
  fast.dispose();
  full.dispose();
  return skipped;
}

export const lines = (count: number, line: (i: number) => string): string => Array.from({ length: count }, (_, i) => line(i)).join('');
