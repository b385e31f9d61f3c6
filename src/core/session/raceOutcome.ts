/**
 * The session's exit, for one wait: resolves at once when it has exited, and is let go with
 * `dispose`. Waits must not each chain onto one session-long promise: every such `.then` (and
 * the wait's timer and abort signal it holds) would live until the session ends.
 */
export interface ExitWatch {
  promise: Promise<void>;
  dispose(): void;
}

/** How a race ended: its event, the session's exit, the timeout, the caller's abort, or input awaited. */
export type Outcome = 'finished' | 'exited' | 'timeout' | 'aborted' | 'awaiting';

/**
 * Every wait is a race (docs/conventions.md rule 6): the event, the session's exit, a timeout
 * and the caller's abort (and, for `execute`, the command starting to wait for input).
 */
export function raceOutcome(
  event: Promise<unknown>,
  exited: ExitWatch,
  timeoutMs: number,
  signal?: AbortSignal,
  awaiting?: Promise<unknown>,
): Promise<Outcome> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    const onAbort = (): void => finish('aborted');
    function finish(outcome: Outcome): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      exited.dispose();
      resolve(outcome);
    }
    if (signal?.aborted) return finish('aborted');
    signal?.addEventListener('abort', onAbort, { once: true });
    void event.then(() => finish('finished'));
    void exited.promise.then(() => finish('exited'));
    void awaiting?.then(() => finish('awaiting'));
  });
}
