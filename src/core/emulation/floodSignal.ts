import { EventEmitter, type Disposable, type Event } from '../event.js';

/**
 * Output faster than this many bytes, or this many line feeds, per `windowMs` is a flood
 * (~2.5 MB/s, or 20 000 lines/s). Parsing costs per row as much as per byte (each line feed
 * scrolls, compacts the row leaving the screen and updates the tracker), so short lines count
 * as a flood too: `yes` below the byte rate is over a million rows a second.
 */
export const FLOOD = { bytes: 256 * 1024, lineFeeds: 2048, windowMs: 100 } as const;

/**
 * Whether a session's output floods: the one place that says so, with one set of thresholds
 * (FLOOD), for whatever treats a flood differently (the feed scheduler's batches and
 * fast-forward, feedScheduler.ts).
 *
 * Output is measured in windows of `windowMs`, each starting with the first output after the
 * last one ended. A flood starts as soon as a window reaches either threshold, and ends with
 * the first output after a window that reached neither. Time in which nothing was read counts
 * for nothing: a process kept off the CPU (a busy machine, a long parse) reads no output, and
 * ending a flood then would have its rows parsed one by one the moment reading resumes.
 */
export class FloodSignal implements Disposable {
  private windowStart = -Infinity;
  private windowBytes = 0;
  private windowLineFeeds = 0;
  /** The current window reached a flood's rate. */
  private windowFlooded = false;
  private floodingValue = false;
  private readonly onDidChangeEmitter = new EventEmitter<boolean>();
  /** Fires `true` as a flood starts, `false` when output comes after a window under the rates. */
  readonly onDidChange: Event<boolean> = this.onDidChangeEmitter.event;

  /**
   * @param clock The time (ms) output is measured on; the feed scheduler times a flood's screen
   *   refreshes on it too, so one clock of a test's own drives both.
   */
  constructor(readonly clock: () => number = () => performance.now()) {}

  /** The output floods (the current window, or the one before it, reached a flood's rate). */
  get flooding(): boolean {
    return this.floodingValue;
  }

  /** Output arrived. */
  note(chunk: Uint8Array): void {
    const now = this.clock();
    if (now - this.windowStart > FLOOD.windowMs) this.nextWindow(now);
    // Once the window is a flood, its chunks need not be counted (nor scanned for line feeds).
    if (this.windowFlooded) return;
    this.windowBytes += chunk.length;
    this.windowLineFeeds += lineFeeds(chunk, FLOOD.lineFeeds - this.windowLineFeeds);
    if (this.windowBytes < FLOOD.bytes && this.windowLineFeeds < FLOOD.lineFeeds) return;
    this.windowFlooded = true;
    this.set(true);
  }

  dispose(): void {
    this.onDidChangeEmitter.dispose();
  }

  /** A new window from `now`; the flood goes on only if the one that ended was one. */
  private nextWindow(now: number): void {
    const flooded = this.windowFlooded;
    this.windowStart = now;
    this.windowBytes = 0;
    this.windowLineFeeds = 0;
    this.windowFlooded = false;
    this.set(flooded);
  }

  private set(flooding: boolean): void {
    if (flooding === this.floodingValue) return;
    this.floodingValue = flooding;
    this.onDidChangeEmitter.fire(flooding);
  }
}

/** Line feeds in `data`, counting no further than `limit`. */
function lineFeeds(data: Uint8Array, limit: number): number {
  let found = 0;
  for (let at = data.indexOf(0x0a); at >= 0 && found < limit; at = data.indexOf(0x0a, at + 1)) found++;
  return found;
}
