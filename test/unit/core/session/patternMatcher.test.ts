/**
 * A wait pattern's time budget is wall-clock (vm's timeout). A match cut off while the process
 * barely ran (a machine busy with other work) must be retried, not reported as catastrophic
 * backtracking; a match that really burns its budget must still be cut off.
 */
import { describe, expect, it } from 'vitest';
import { PatternMatcher } from '../../../../src/core/session/patternMatcher.js';

/** Blocks the thread without using CPU, as being descheduled does. */
function sleepWithoutCpu(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

describe('PatternMatcher', () => {
  it('retries a match that timed out while the process was starved of CPU', () => {
    const matcher = new PatternMatcher('ready');
    let calls = 0;
    // Stand in for the compiled regex: the first attempt stalls past the budget without CPU.
    (matcher as unknown as { context: { regex: { test: () => boolean } } }).context.regex = {
      test: () => {
        calls++;
        if (calls === 1) sleepWithoutCpu(250);
        return true;
      },
    };
    expect(matcher.test('ready')).toBe(true);
    expect(calls).toBe(2);
  });

  it('cuts off a pattern that burns its budget in CPU (catastrophic backtracking)', () => {
    const matcher = new PatternMatcher('^(a+)+$');
    expect(() => matcher.test(`${'a'.repeat(40)}!`)).toThrow(/INVALID_ARGUMENT|catastrophic backtracking/);
  });
});
