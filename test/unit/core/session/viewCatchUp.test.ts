/**
 * What the terminal app is told (src/core/session/viewCatchUp.ts, docs/design.md §3.8), on a
 * real emulator and the session's real RecentOutput: the screen first, nothing when nothing
 * changed, the output since while it is small, the screen after a resize or a lot of output, and
 * during a flood at most one screen per interval however the views ask. The flood's clock is
 * the test's own.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Emulator } from '../../../../src/core/emulation/emulator.js';
import { FloodSignal } from '../../../../src/core/emulation/floodSignal.js';
import { FLOOD_SCREEN_INTERVAL_MS, ViewCatchUp, VIEW_OUTPUT_MAX_BYTES } from '../../../../src/core/session/viewCatchUp.js';
import { RecentOutput } from '../../../../src/core/transcript/recentOutput.js';
import type { ScreenUpdate } from '../../../../src/core/types.js';

let clock = 0;
let emulator: Emulator;
let recent: RecentOutput;
let updates: ViewCatchUp;
let offset = 0;
let serializations: { mock: { calls: unknown[][] } };

function print(text: string): void {
  const bytes = Buffer.from(text);
  emulator.write(bytes, offset, offset + bytes.length);
  recent.append(bytes);
  offset += bytes.length;
}

function after(update: ScreenUpdate): [number, number] {
  return [update.through, update.resizes];
}

beforeEach(async () => {
  clock = 0;
  offset = 0;
  emulator = await Emulator.create({ cols: 40, rows: 5, scrollback: 200, nonce: '', headLines: 0, flood: new FloodSignal(() => clock) });
  recent = new RecentOutput(null);
  updates = new ViewCatchUp(emulator, recent);
  serializations = vi.spyOn(emulator, 'serializeWhenParsed');
});

afterEach(() => {
  emulator.dispose();
});

describe('ViewCatchUp', () => {
  it('the screen first; nothing while nothing is printed; then what was printed, as printed', async () => {
    print('hello\r\n');
    const first = await updates.since(undefined, undefined);
    expect(first).toMatchObject({ kind: 'screen', through: offset, resizes: 0, cols: 40, rows: 5 });
    expect(first.kind === 'screen' && first.data).toContain('hello');
    expect(await updates.since(...after(first))).toEqual({ kind: 'unchanged', through: offset, resizes: 0 });
    print('\x1b[31mred\x1b[0m\r\n');
    const more = await updates.since(...after(first));
    expect(more).toEqual({ kind: 'output', through: offset, resizes: 0, data: '\x1b[31mred\x1b[0m\r\n' });
    expect(serializations).toHaveBeenCalledTimes(1);
  });

  it('the screen again after more than the output limit, after a resize, or for a cursor it cannot follow', async () => {
    const first = await updates.since(undefined, undefined);
    print(`${'x'.repeat(79)}\r\n`.repeat(Math.ceil(VIEW_OUTPUT_MAX_BYTES / 81) + 1));
    expect((await updates.since(...after(first))).kind).toBe('screen');

    const now = await updates.since(undefined, undefined);
    emulator.resize(30, 4);
    updates.resized();
    const resized = await updates.since(...after(now));
    expect(resized).toMatchObject({ kind: 'screen', resizes: 1, cols: 30, rows: 4 });
    // Once drawn at the new size, nothing new.
    expect((await updates.since(...after(resized))).kind).toBe('unchanged');
    // A cursor from before the resize, or past the end: the screen.
    expect((await updates.since(resized.through, 0)).kind).toBe('screen');
    expect((await updates.since(resized.through + 10, 1)).kind).toBe('screen');
  });

  it('during a flood: one screen per interval for every view, nothing new for a view that has it', async () => {
    const before = await updates.since(undefined, undefined);
    // Over a flood's rate within one window of the flood's clock.
    print('line of a flood\r\n'.repeat(20_000));
    expect(emulator.flood.flooding).toBe(true);
    const taken = serializations.mock.calls.length;

    const flooded = await updates.since(...after(before));
    expect(flooded.kind).toBe('screen');
    expect(serializations).toHaveBeenCalledTimes(taken + 1);
    print('more of it\r\n'.repeat(20_000));
    // Another view, behind: the same screen, not a new one.
    expect(await updates.since(...after(before))).toBe(flooded);
    expect(await updates.since(undefined, undefined)).toBe(flooded);
    // The view that has it: nothing new until the next one.
    expect(await updates.since(...after(flooded))).toEqual({ kind: 'unchanged', through: flooded.through, resizes: 0 });
    expect(serializations).toHaveBeenCalledTimes(taken + 1);

    clock += FLOOD_SCREEN_INTERVAL_MS;
    const next = await updates.since(...after(flooded));
    expect(next.kind).toBe('screen');
    expect(next.through).toBe(offset);
    expect(serializations).toHaveBeenCalledTimes(taken + 2);
  });

  it('without a flood, every call that needs the screen takes it', async () => {
    const first = await updates.since(undefined, undefined);
    print(`${'y'.repeat(79)}\r\n`.repeat(Math.ceil(VIEW_OUTPUT_MAX_BYTES / 81) + 1));
    clock += 1_000; // the next window: no flood
    print('z\r\n');
    expect(emulator.flood.flooding).toBe(false);
    await updates.since(...after(first));
    await updates.since(...after(first));
    expect(serializations).toHaveBeenCalledTimes(3);
  });
});
