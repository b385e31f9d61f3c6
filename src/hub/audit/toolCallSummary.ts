/**
 * Tool calls audited as a count per minute rather than a line each (docs/design.md §4.6): the
 * terminal app's `screen_updates`, which each open view calls about twice a second — 7 200
 * lines an hour per view would bury every other line of audit.jsonl while saying nothing new.
 *
 * The first call of a client on a session (with one outcome) is written at once, so the log
 * shows when a view started watching; after it, one line per `windowMs` with `calls` (how
 * many) and `duration_ms` (their total), `time` being the first of them. A pair quiet for a
 * whole window is forgotten, so its next call is again written at once. `flush()` writes what
 * is counted (the hub calls it when it stops).
 */
import type { ToolAuditEvent } from '../../mcp/server.js';

interface Tally {
  /** The first call not yet written (its time starts the line). */
  first: ToolAuditEvent | null;
  calls: number;
  durationMs: number;
  timer: NodeJS.Timeout | null;
}

const SUMMARY_WINDOW_MS = 60_000;

export class ToolCallSummary {
  private readonly tallies = new Map<string, Tally>();

  constructor(
    private readonly write: (event: ToolAuditEvent) => void,
    private readonly windowMs = SUMMARY_WINDOW_MS,
  ) {}

  record(event: ToolAuditEvent): void {
    const key = [event.client, event.tool, event.session ?? '', event.outcome, event.code ?? ''].join('\0');
    const tally = this.tallies.get(key);
    if (!tally) {
      this.write({ ...event, calls: 1 });
      this.tallies.set(key, { first: null, calls: 0, durationMs: 0, timer: this.schedule(key, this.windowMs) });
      return;
    }
    tally.first ??= event;
    tally.calls++;
    tally.durationMs += event.duration_ms;
  }

  /** Writes every count now. */
  flush(): void {
    for (const key of [...this.tallies.keys()]) this.writeTally(key, false);
  }

  dispose(): void {
    this.flush();
    for (const tally of this.tallies.values()) if (tally.timer) clearTimeout(tally.timer);
    this.tallies.clear();
  }

  private schedule(key: string, ms: number): NodeJS.Timeout {
    const timer = setTimeout(() => this.writeTally(key, true), ms);
    timer.unref();
    return timer;
  }

  /** The window of `key` ended (or the hub stops): its count is written, or a quiet pair forgotten. */
  private writeTally(key: string, windowEnded: boolean): void {
    const tally = this.tallies.get(key);
    if (!tally) return;
    if (tally.calls === 0 || tally.first === null) {
      if (windowEnded) {
        this.tallies.delete(key);
      }
      return;
    }
    this.write({ ...tally.first, calls: tally.calls, duration_ms: tally.durationMs });
    tally.first = null;
    tally.calls = 0;
    tally.durationMs = 0;
    if (windowEnded) tally.timer = this.schedule(key, this.windowMs);
  }
}
