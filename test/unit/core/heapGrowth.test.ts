import { afterEach, describe, expect, it, vi } from 'vitest';
import { FloodHeapGrowth } from '../../../src/core/heapGrowth.js';

function policy(holdMs = 1000): { growth: FloodHeapGrowth; flags: string[]; changes: boolean[] } {
  const flags: string[] = [];
  const changes: boolean[] = [];
  const growth = new FloodHeapGrowth((flag) => flags.push(flag), holdMs);
  growth.onDidChange((raised) => changes.push(raised));
  return { growth, flags, changes };
}

describe('FloodHeapGrowth', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('raises the limit on the first flood note and puts it back once floods stop for the hold', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const { growth, flags, changes } = policy(1000);
    expect(growth.raised).toBe(false);

    growth.noteFlood();
    expect(flags).toEqual(['--heap-growing-percent=200']);
    expect(growth.raised).toBe(true);

    vi.advanceTimersByTime(999);
    expect(growth.raised).toBe(true);
    vi.advanceTimersByTime(1);
    expect(flags).toEqual(['--heap-growing-percent=200', '--heap-growing-percent=0']);
    expect(changes).toEqual([true, false]);
    expect(growth.raised).toBe(false);
  });

  it('keeps the limit raised while notes go on, setting the flag once per flood', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const { growth, flags, changes } = policy(1000);
    growth.noteFlood();
    // A flood notes once per 100 ms window for 5 s.
    for (let at = 100; at <= 5000; at += 100) {
      vi.advanceTimersByTime(100);
      growth.noteFlood();
    }
    expect(growth.raised).toBe(true);
    expect(flags).toEqual(['--heap-growing-percent=200']);

    vi.advanceTimersByTime(999);
    expect(growth.raised).toBe(true);
    vi.advanceTimersByTime(1);
    expect(growth.raised).toBe(false);
    expect(changes).toEqual([true, false]);

    // The next flood raises it again.
    growth.noteFlood();
    expect(flags).toEqual(['--heap-growing-percent=200', '--heap-growing-percent=0', '--heap-growing-percent=200']);
  });

  it('does not keep the process alive for the hold', () => {
    const timers = (): number => process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length;
    const { growth } = policy(60_000);
    const before = timers();
    growth.noteFlood();
    // The hold's timer is unref'd: a hub exiting mid-flood does not wait a minute for it.
    expect(growth.raised).toBe(true);
    expect(timers()).toBe(before);
  });
});
