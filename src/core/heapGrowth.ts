import * as v8 from 'node:v8';
import { EventEmitter, type Event } from './event.js';

/**
 * While any session floods, V8's old generation may grow to 3× what survived the last full GC
 * (`--heap-growing-percent=200`); V8 itself picks 1.1–4× from its GC and allocation speeds.
 *
 * Why: V8 11 (Node 20) counts memory allocated outside its heap since the last full GC against
 * the old generation's room, and a flood allocates such memory at the PTY's speed (every read's
 * buffer; output.log's queue and viewer frames add theirs). It is dead
 * within milliseconds but freed only by the next young-generation GC. In about half of the hubs
 * a 64 MiB `cat` brought 3–15 full GCs, marked on V8's helper threads, whose CPU the program and
 * the kernel then lacked on two cores. Raised from the hub's start, the limit cost ~10 MiB of
 * RSS after a full GC (the churn test, docs/decisions.md), so it is raised only while output
 * floods.
 *
 * V8 reads the flag each time it sets the limit (after every full GC), so raising it takes
 * effect at the flood's first full GC, and putting it back at the first full GC after the
 * flood. A `--heap-growing-percent` given to node by hand is overridden from the first flood on.
 */
export class FloodHeapGrowth {
  private lastFlood = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly onDidChangeEmitter = new EventEmitter<boolean>();
  /** Fires `true` when the limit is raised, `false` when it is put back. */
  readonly onDidChange: Event<boolean> = this.onDidChangeEmitter.event;

  /**
   * @param setFlags V8's flag setter (a test's recorder in unit tests).
   * @param holdMs how long after the last flood note the limit stays raised: floods are noted
   *   once per 100 ms window (emulator.ts), so a flood that goes on keeps it raised.
   */
  constructor(
    private readonly setFlags: (flags: string) => void = v8.setFlagsFromString,
    private readonly holdMs = 1000,
  ) {}

  get raised(): boolean {
    return this.timer !== undefined;
  }

  /** Some session's output is flooding (called at most once per flood window per session). */
  noteFlood(): void {
    this.lastFlood = performance.now();
    if (this.timer) return;
    this.setFlags('--heap-growing-percent=200');
    this.arm(this.holdMs);
    this.onDidChangeEmitter.fire(true);
  }

  private arm(ms: number): void {
    // A timer per flood, not per note: a note only moves `lastFlood`.
    this.timer = setTimeout(() => {
      const quietFor = performance.now() - this.lastFlood;
      if (quietFor < this.holdMs) return this.arm(this.holdMs - quietFor);
      this.lower();
    }, ms);
    this.timer.unref(); // a hub shutting down does not wait for it
  }

  private lower(): void {
    this.timer = undefined;
    this.setFlags('--heap-growing-percent=0'); // 0: V8's own choice, its default
    this.onDidChangeEmitter.fire(false);
  }
}

/** The process's one policy: V8's flags are the whole process's. */
export const floodHeapGrowth = new FloodHeapGrowth();
