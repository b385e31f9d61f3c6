/**
 * A session's writing calls (`execute`, `send`) run one at a time, in the order they came
 * (docs/design.md §2.8, §3.4): one writer at a time per session. A call that fails fails for its
 * caller only; the next one runs as if it had succeeded. `read` never joins the queue.
 */
export class CallQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private pending = 0;

  /** A call is queued or running: `execute` without `session` must not pick this session. */
  get hasPending(): boolean {
    return this.pending > 0;
  }

  /** Runs `task` once every call queued before it has settled; its result or error is its caller's. */
  run<T>(task: () => Promise<T>): Promise<T> {
    this.pending++;
    const run = this.tail.then(task, task).finally(() => this.pending--);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /**
   * Counts as a pending call until released: a caller that picked this session and must check
   * something (the person's policy) before it queues keeps other callers from picking it too.
   */
  claim(): () => void {
    this.pending++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.pending--;
    };
  }

  /** Settles (never rejects) once every call queued so far has settled. */
  whenIdle(): Promise<unknown> {
    return this.tail;
  }
}
