/**
 * A session's call queue (src/core/session/callQueue.ts): `execute` and `send` run one at a time
 * in the order they came (docs/design.md §2.8), a call that fails fails for its caller only, and
 * the session knows while any call is queued or running (execute without session skips it).
 */
import { describe, expect, it } from 'vitest';
import { CallQueue } from '../../../../src/core/session/callQueue.js';

/** A promise the test settles by hand. */
function deferred<T = void>(): { promise: Promise<T>; resolve(value: T): void; reject(error: unknown): void } {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets every promise callback that is ready run. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('CallQueue', () => {
  it('starts a call only once the one before it has settled, in the order they came', async () => {
    const queue = new CallQueue();
    const events: string[] = [];
    const gates = [deferred(), deferred(), deferred()];
    const calls = gates.map((gate, i) =>
      queue.run(async () => {
        events.push(`start ${i}`);
        await gate.promise;
        events.push(`end ${i}`);
        return i;
      }),
    );
    await settle();
    expect(events).toEqual(['start 0']);
    // The last one finishing first changes nothing: it has not started.
    gates[2]!.resolve();
    gates[1]!.resolve();
    await settle();
    expect(events).toEqual(['start 0']);
    gates[0]!.resolve();
    expect(await Promise.all(calls)).toEqual([0, 1, 2]);
    expect(events).toEqual(['start 0', 'end 0', 'start 1', 'end 1', 'start 2', 'end 2']);
  });

  it('gives a failure to its own caller only: the next call runs and gets its own result', async () => {
    const queue = new CallQueue();
    const failing = queue.run(async () => {
      throw new Error('busy');
    });
    const throwingAtOnce = queue.run((): Promise<string> => {
      throw new Error('not even a promise');
    });
    const next = queue.run(async () => 'ran');
    await expect(failing).rejects.toThrow('busy');
    await expect(throwingAtOnce).rejects.toThrow('not even a promise');
    expect(await next).toBe('ran');
  });

  it('has pending calls while one is queued or running, and none once all have settled', async () => {
    const queue = new CallQueue();
    expect(queue.hasPending).toBe(false);
    const first = deferred();
    const second = deferred();
    const a = queue.run(() => first.promise);
    const b = queue.run(() => second.promise);
    expect(queue.hasPending).toBe(true);
    first.resolve();
    await a;
    await settle();
    expect(queue.hasPending).toBe(true); // the second still runs
    second.reject(new Error('failed'));
    await expect(b).rejects.toThrow('failed');
    await settle();
    expect(queue.hasPending).toBe(false);
  });

  it('whenIdle waits for every call queued so far, and resolves even when one failed', async () => {
    const queue = new CallQueue();
    const gate = deferred();
    let done = false;
    void queue.run(() => gate.promise).catch(() => undefined);
    const idle = queue.whenIdle().then(() => (done = true));
    await settle();
    expect(done).toBe(false);
    gate.reject(new Error('failed'));
    await idle;
    expect(done).toBe(true);
  });

  it('a claim counts as pending until released, once, so a session picked for a call is not picked again meanwhile', () => {
    const queue = new CallQueue();
    expect(queue.hasPending).toBe(false);
    const release = queue.claim();
    expect(queue.hasPending).toBe(true);
    release();
    release(); // twice is once
    expect(queue.hasPending).toBe(false);
  });
});
