/**
 * One session's stream into its terminal, with flow control: the hub's snapshot, then the
 * numbered frames, written to xterm.js and acknowledged (bytes) once parsed.
 *
 * - A gap in the frame numbers: the stream cannot be trusted; the owner re-subscribes.
 * - Per animation frame at most a budget of bytes is handed to xterm, and only once the
 *   previous batch was parsed; the rest waits here unacknowledged, so a flood the window
 *   cannot parse at 60 fps turns into the hub's `behind` and a fresh snapshot instead of a
 *   backlog that takes the window's frames (docs/design.md §5.4: a flood never freezes the
 *   UI). A typed key's echo is a few bytes: it always fits. The budget adapts so that a full
 *   batch parses in about PARSE_TARGET_MS (a screen of short lines scrolls far more per byte
 *   than one of long lines), within MIN and MAX.
 * - Acks go out at the hub's `ackEvery`, or ACK_FLUSH_MS after the last output; at once while
 *   behind (each brings the fresh snapshot sooner). Frames a snapshot supersedes are dropped
 *   and acknowledged, never written.
 * - Not shown (a tab behind another, or the page hidden): nothing is parsed. Frames are
 *   acknowledged at once and kept, up to MAX_HIDDEN_BACKLOG_BYTES, to be written when shown,
 *   with the latest snapshot; past that they are dropped and, when shown, the feed asks for a
 *   fresh snapshot (showing "catching up" over the old screen until it arrives).
 */
import { FLOW_HIGH_WATERMARK, type ClientMessage, type HubMessage } from '../../src/ui-protocol/index.js';

export type Snapshot = Extract<HubMessage, { type: 'snapshot' }>;
export type Frame = Extract<HubMessage, { type: 'frame' }>;

/** Acks go out at the hub's `ackEvery`, or after this long without more output. */
const ACK_FLUSH_MS = 50;
export const WRITE_BUDGET_START = 16 * 1024;
export const WRITE_BUDGET_MIN = 4 * 1024;
export const WRITE_BUDGET_MAX = 64 * 1024;
const PARSE_TARGET_MS = 8;
/**
 * What a hidden feed keeps: the protocol's high watermark. Past it the hub sends a last
 * snapshot when the session ends (src/ui-protocol/), so a hidden tab of an ended session still
 * shows its last screen.
 */
export const MAX_HIDDEN_BACKLOG_BYTES = FLOW_HIGH_WATERMARK;

/** Where the stream is written: the view's xterm.js terminal. */
interface FeedWriter {
  /** Reset the terminal to the snapshot's size and write it; `parsed` once xterm has parsed it. */
  writeSnapshot(snapshot: Snapshot, parsed: () => void): void;
  /** Write a frame's bytes (UTF-8, whole characters: xterm decodes them); `parsed` once it has. */
  writeFrame(data: Uint8Array, parsed: () => void): void;
}

/** The page's clock and animation frames (performance.now, requestAnimationFrame; a test's own in unit tests). */
interface FeedClock {
  now(): number;
  requestFrame(callback: () => void): number;
  cancelFrame(id: number): void;
}

interface FrameFeedOptions {
  sessionId: string;
  /** The hub's `ackEvery` (bytes). */
  ackEvery: number;
  send(message: ClientMessage): void;
  writer: FeedWriter;
  /** The stream has a gap, or a hidden feed dropped frames: the owner re-subscribes for a fresh snapshot. */
  onNeedsResync(): void;
  /** Behind (waiting for a fresh snapshot) or not any more. */
  onBehind(behind: boolean): void;
  /** A snapshot was written and parsed, and is still the latest. */
  onHydrated(snapshot: Snapshot): void;
  /** A frame was written and parsed: the output up to transcript byte `end` is on screen. */
  onFrameWritten(end: number): void;
  clock: FeedClock;
}

/** A frame waiting to be written; `acked` when its bytes were acknowledged already (hidden). */
interface QueuedFrame {
  data: Uint8Array;
  end: number;
  acked: boolean;
}

export class FrameFeed {
  private readonly clock: FeedClock;
  private shown = false;

  // The current subscription.
  private seqValue = -1;
  private through = 0;
  private hydratedValue = false;

  // Flow control.
  private queued: QueuedFrame[] = [];
  private writesInFlight = 0;
  /** Bytes per animation frame (adaptive), what this frame may still hand to xterm. */
  private budget = WRITE_BUDGET_START;
  private budgetLeft = WRITE_BUDGET_START;
  private budgetFrame = 0;
  private isBehind = false;
  private unacked = 0;
  private ackTimer: ReturnType<typeof setTimeout> | undefined;
  private renderedFrames = 0;

  // Not shown: the latest snapshot waits here, frames after it in `queued` (acknowledged
  // already) up to MAX_HIDDEN_BACKLOG_BYTES; past that the feed is `stale`.
  private deferredSnapshot: Snapshot | null = null;
  private hiddenBytes = 0;
  private stale = false;
  private skippedFrames = 0;

  constructor(private readonly options: FrameFeedOptions) {
    this.clock = options.clock;
  }

  /** What the feed holds (test and status hook). */
  get state(): { seq: number; hydrated: boolean; renderedFrames: number; skippedFrames: number; stale: boolean; behind: boolean; budget: number } {
    return {
      seq: this.seqValue,
      hydrated: this.hydratedValue,
      renderedFrames: this.renderedFrames,
      skippedFrames: this.skippedFrames,
      stale: this.stale,
      behind: this.isBehind,
      budget: this.budget,
    };
  }

  /** A fresh snapshot: written now (frames follow), or kept for when the feed is shown. */
  applySnapshot(snapshot: Snapshot): void {
    this.seqValue = snapshot.seq;
    this.through = snapshot.through;
    this.hydratedValue = false;
    this.setBehind(false);
    this.dropQueued();
    this.stale = false;
    if (!this.shown) {
      this.deferredSnapshot = snapshot;
      return;
    }
    this.writeSnapshot(snapshot);
  }

  applyFrame(frame: Frame): void {
    if (this.seqValue < 0) return; // waiting for a snapshot
    if (frame.seq <= this.seqValue) return; // stale: from before the latest snapshot
    if (frame.seq !== this.seqValue + 1) {
      // A gap: the stream cannot be trusted any more; start over from a fresh snapshot.
      this.seqValue = -1;
      this.options.onNeedsResync();
      return;
    }
    this.seqValue = frame.seq;
    if (frame.end <= this.through) return; // already in the snapshot
    if (!this.shown) {
      this.keepHidden({ data: frame.data, end: frame.end, acked: false });
      return;
    }
    this.queued.push({ data: frame.data, end: frame.end, acked: false });
    this.pump();
  }

  /** The hub paused this viewer's frames (it fell behind): a fresh snapshot follows. */
  behind(): void {
    this.setBehind(true);
    this.dropQueued();
  }

  /** Shown (the tab in front on a visible page) or not. */
  setShown(shown: boolean): void {
    if (shown === this.shown) return;
    this.shown = shown;
    if (!shown) {
      if (this.budgetFrame) this.clock.cancelFrame(this.budgetFrame);
      this.budgetFrame = 0;
      this.budgetLeft = this.budget;
      const queued = this.queued;
      this.queued = [];
      this.hiddenBytes = 0;
      for (const frame of queued) this.keepHidden(frame);
      return;
    }
    this.hiddenBytes = 0;
    if (this.stale) {
      // Frames were skipped: what the terminal holds is out of date. Show it as catching up and
      // ask for a fresh snapshot (re-subscribing), acknowledging everything first.
      this.stale = false;
      this.seqValue = -1;
      this.setBehind(true);
      this.flushAck();
      this.options.onNeedsResync();
      return;
    }
    if (this.deferredSnapshot) this.writeSnapshot(this.deferredSnapshot);
    this.pump();
  }

  dispose(): void {
    this.queued = [];
    this.deferredSnapshot = null;
    if (this.budgetFrame) this.clock.cancelFrame(this.budgetFrame);
    this.budgetFrame = 0;
    this.flushAck();
  }

  private writeSnapshot(snapshot: Snapshot): void {
    this.deferredSnapshot = null;
    this.options.writer.writeSnapshot(snapshot, () => {
      if (this.seqValue !== snapshot.seq) return;
      this.hydratedValue = true;
      this.options.onHydrated(snapshot);
    });
  }

  /** Not shown: acknowledge at once (the hub never holds frames back for a tab nobody sees), keep a little. */
  private keepHidden(frame: QueuedFrame): void {
    this.skippedFrames += 1;
    if (!frame.acked) {
      frame.acked = true;
      this.acknowledge(frame.data.length);
    }
    if (this.stale) return;
    this.queued.push(frame);
    this.hiddenBytes += frame.data.length;
    if (this.hiddenBytes > MAX_HIDDEN_BACKLOG_BYTES) {
      // Too much to replay: a fresh snapshot when shown is cheaper than parsing this.
      this.queued = [];
      this.hiddenBytes = 0;
      this.deferredSnapshot = null;
      this.stale = true;
    }
  }

  /**
   * Hands queued frames to xterm while this animation frame's budget lasts, once xterm has
   * parsed what it was given before; the next animation frame refills the budget and goes on.
   * A frame that fits is written at once (an echo never waits for an animation frame).
   */
  private pump(): void {
    if (!this.shown || this.writesInFlight > 0) return;
    const started = this.clock.now();
    let bytes = 0;
    while (this.budgetLeft > 0 && this.queued.length > 0) {
      const frame = this.queued.shift() as QueuedFrame;
      this.budgetLeft -= frame.data.length;
      bytes += frame.data.length;
      this.writesInFlight += 1;
      this.options.writer.writeFrame(frame.data, () => {
        this.writesInFlight -= 1;
        this.renderedFrames += 1;
        this.options.onFrameWritten(frame.end);
        if (!frame.acked) this.acknowledge(frame.data.length);
        if (this.writesInFlight > 0) return;
        if (bytes >= this.budget) this.adaptBudget(this.clock.now() - started);
        this.pump();
      });
    }
    if (this.budgetFrame === 0 && bytes > 0) {
      this.budgetFrame = this.clock.requestFrame(() => {
        this.budgetFrame = 0;
        this.budgetLeft = this.budget;
        this.pump();
      });
    }
  }

  /** A full batch took `ms` to parse: aim the next ones at PARSE_TARGET_MS (at most ×2 or ÷2 a step). */
  private adaptBudget(ms: number): void {
    const factor = Math.min(2, Math.max(0.5, PARSE_TARGET_MS / Math.max(ms, 0.1)));
    this.budget = Math.round(Math.min(WRITE_BUDGET_MAX, Math.max(WRITE_BUDGET_MIN, this.budget * factor)));
  }

  /** Frames a snapshot supersedes are never written; they count as consumed for flow control. */
  private dropQueued(): void {
    this.hiddenBytes = 0;
    if (this.queued.length === 0) return;
    const bytes = this.queued.reduce((sum, frame) => sum + (frame.acked ? 0 : frame.data.length), 0);
    this.queued = [];
    if (bytes > 0) this.acknowledge(bytes);
    this.flushAck();
  }

  private setBehind(behind: boolean): void {
    this.isBehind = behind;
    this.options.onBehind(behind);
  }

  private acknowledge(bytes: number): void {
    this.unacked += bytes;
    // Behind: every ack brings the fresh snapshot sooner, so none waits for a batch.
    if (this.unacked >= this.options.ackEvery || this.isBehind) {
      this.flushAck();
      return;
    }
    if (this.ackTimer === undefined) this.ackTimer = setTimeout(() => this.flushAck(), ACK_FLUSH_MS);
  }

  private flushAck(): void {
    if (this.ackTimer !== undefined) clearTimeout(this.ackTimer);
    this.ackTimer = undefined;
    if (this.unacked === 0) return;
    this.options.send({ type: 'ack', session: this.options.sessionId, bytes: this.unacked });
    this.unacked = 0;
  }
}
