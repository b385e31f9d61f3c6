/**
 * The race behind every wait of a session's own (src/core/session/raceOutcome.ts): whichever of
 * the event, the exit, the timeout, the abort or the awaited input comes first decides, and the
 * exit watch is let go however it ends (a wait must not hold onto the session's exit).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { raceOutcome, type ExitWatch } from '../../../../src/core/session/raceOutcome.js';

const never = new Promise<void>(() => {});

/** An exit watch that counts how often it was let go. */
function exitWatch(promise: Promise<void> = never): ExitWatch & { disposed: number } {
  const watch = { promise, disposed: 0, dispose: () => void watch.disposed++ };
  return watch;
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('raceOutcome', () => {
  it('ends with the event, and lets the exit watch go', async () => {
    const exit = exitWatch();
    const outcome = raceOutcome(Promise.resolve(), exit, 1_000);
    expect(await outcome).toBe('finished');
    expect(exit.disposed).toBe(1);
  });

  it('ends with the exit when the session ends first', async () => {
    const exit = exitWatch(Promise.resolve());
    expect(await raceOutcome(never, exit, 1_000)).toBe('exited');
  });

  it('ends at the timeout, not before, and lets the exit watch go', async () => {
    const exit = exitWatch();
    let outcome: string | undefined;
    void raceOutcome(never, exit, 1_000).then((value) => (outcome = value));
    await vi.advanceTimersByTimeAsync(999);
    expect(outcome).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(outcome).toBe('timeout');
    expect(exit.disposed).toBe(1);
  });

  it('ends when the caller aborts, also when the signal was aborted before, and stops listening to it', async () => {
    const controller = new AbortController();
    const outcome = raceOutcome(never, exitWatch(), 1_000, controller.signal);
    controller.abort();
    expect(await outcome).toBe('aborted');
    expect(await raceOutcome(Promise.resolve(), exitWatch(), 1_000, AbortSignal.abort())).toBe('aborted');

    const signal = new AbortController().signal;
    const remove = vi.spyOn(signal, 'removeEventListener');
    await raceOutcome(Promise.resolve(), exitWatch(), 1_000, signal);
    expect(remove).toHaveBeenCalledWith('abort', expect.any(Function));
  });

  it('ends when the command starts waiting for input', async () => {
    expect(await raceOutcome(never, exitWatch(), 1_000, undefined, Promise.resolve())).toBe('awaiting');
  });

  it('clears its timer once decided', async () => {
    await raceOutcome(Promise.resolve(), exitWatch(), 1_000);
    expect(vi.getTimerCount()).toBe(0);
  });
});
