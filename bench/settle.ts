/** How the memory cases wait for V8 to give back what it grew (bench/memory.ts). */

/**
 * Samples `sample()` once a second until it is at or below `target` and steady (moved less
 * than 1 MiB in the last second), at most `maxSeconds`: V8 keeps the heap it grew until
 * its memory reducer runs, ~15–20 s after the allocations stop (measured: flat, then down at
 * once). The last sample and the seconds it took.
 */
export async function settle(sample: () => number, target: number, maxSeconds: number): Promise<{ value: number; seconds: number }> {
  let value = sample();
  for (let seconds = 1; seconds <= maxSeconds; seconds++) {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const next = sample();
    const steady = Math.abs(next - value) < 1024 * 1024;
    value = next;
    if (steady && next <= target) return { value, seconds };
  }
  return { value, seconds: maxSeconds };
}
