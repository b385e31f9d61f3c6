/**
 * The one flood signal per session (src/core/emulation/floodSignal.ts), on a clock of the test's own:
 * a flood starts as soon as a window reaches FLOOD.bytes or FLOOD.lineFeeds, goes on while
 * windows do, and ends with the first output after a window under both; time without output
 * (a process kept off the CPU reads none) does not end it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FLOOD, FloodSignal } from '../../../../src/core/emulation/floodSignal.js';

let now = 0;
let signal: FloodSignal;
let changes: boolean[];
beforeEach(() => {
  now = 1_000;
  signal = new FloodSignal(() => now);
  changes = [];
  signal.onDidChange((flooding) => changes.push(flooding));
});
afterEach(() => {
  signal.dispose();
});

/** `count` chunks of `bytes` bytes (line feeds every `lineEvery` bytes), `stepMs` apart on the clock. */
function output(count: number, bytes: number, stepMs: number, lineEvery = 0): void {
  const chunk = Buffer.alloc(bytes, 0x61);
  if (lineEvery > 0) for (let at = lineEvery - 1; at < bytes; at += lineEvery) chunk[at] = 0x0a;
  for (let i = 0; i < count; i++) {
    signal.note(chunk);
    now += stepMs;
  }
}

describe('FloodSignal', () => {
  it('starts at once when a window reaches the byte rate', () => {
    output(FLOOD.bytes / 4096 - 1, 4096, 1);
    expect(signal.flooding).toBe(false);
    output(1, 4096, 1);
    expect(signal.flooding).toBe(true);
    expect(changes).toEqual([true]);
  });

  it('starts when a window reaches the line rate, short lines under the byte rate', () => {
    output(FLOOD.lineFeeds / 2, 4, 0, 2);
    expect(signal.flooding).toBe(true);
    expect(changes).toEqual([true]);
  });

  it('does not start for output under both rates', () => {
    // 64 KiB every 100 ms, a line feed every 100 bytes: 655 lines a window.
    for (let window = 0; window < 20; window++) output(16, 4096, FLOOD.windowMs / 16, 100);
    expect(signal.flooding).toBe(false);
    expect(changes).toEqual([]);
  });

  it('goes on while windows flood, and ends after a window under the rates', () => {
    for (let window = 0; window < 5; window++) output(100, 4096, FLOOD.windowMs / 100);
    expect(signal.flooding).toBe(true);
    // Slower: the window after the last flooded one still counts as the flood, the next ends it.
    for (let window = 0; window < 3; window++) output(4, 4096, FLOOD.windowMs / 4);
    expect(signal.flooding).toBe(false);
    expect(changes).toEqual([true, false]);
  });

  it('is not ended by time without output: a stalled reader reads nothing', () => {
    output(100, 4096, 0);
    expect(signal.flooding).toBe(true);
    // Half a second in which nothing was read, then the flood's output again.
    now += 500;
    output(100, 4096, 0);
    expect(signal.flooding).toBe(true);
    expect(changes).toEqual([true]);
  });

  it('ends with the first output after a window under the rates, and a later flood is a new one', () => {
    output(100, 4096, 0);
    now += 3 * FLOOD.windowMs;
    output(1, 100, 0); // a window with a prompt's worth in it
    expect(signal.flooding).toBe(true);
    now += 3 * FLOOD.windowMs;
    output(1, 100, 0);
    expect(signal.flooding).toBe(false);
    output(100, 4096, 0);
    expect(changes).toEqual([true, false, true]);
  });
});
