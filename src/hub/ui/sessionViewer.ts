import { Utf8Pieces, wellFormedUtf8, type CommandRecord, type Disposable, type Event, type OutputFrame } from '../../core/index.js';
import { FLOW_HIGH_WATERMARK, FLOW_LOW_WATERMARK, FRAME_BATCH_MS, type HubMessage } from '../../ui-protocol/index.js';

/** What a viewer needs of a session (TerminalSession has it). */
interface ViewedSession {
  readonly id: string;
  readonly onDidFrame: Event<OutputFrame>;
  /** The start of a character the output before the next frame leaves unfinished (0–3 bytes). */
  readonly unfinishedOutput: Uint8Array;
  readonly onDidFinishCommand: Event<CommandRecord>;
  snapshot(): Promise<{ data: string; cols: number; rows: number; through: number }>;
  commands(): CommandRecord[];
}

/** The connection a viewer sends on; `bufferedAmount` is what the transport still holds (WebSocket). */
interface ViewerTransport {
  send(message: HubMessage): void;
  bufferedAmount(): number;
}

/** Flow-control limits of one viewer (the watermarks, in bytes of frames, are the protocol's). */
export interface ViewerLimits {
  highWatermark: number;
  lowWatermark: number;
  batchMs: number;
  /** A batch of this many bytes is sent at once instead of waiting for `batchMs`. */
  batchMaxBytes: number;
  /** Transport backlog (bytes) above which frames stop: the viewer is behind. */
  transportHighBytes: number;
  /** …and at or below which a behind viewer gets its fresh snapshot. */
  transportLowBytes: number;
  /**
   * A viewer that fell behind gets its fresh snapshot no sooner than this after falling behind
   * (serializing the scrollback blocks the hub's event loop for tens of ms, and a flood would
   * outrun it again at once), unless the session went quiet first: see `quietMs`.
   */
  catchUpIntervalMs: number;
  /** No frame for this long: the flood is over, a behind viewer catches up at once. */
  quietMs: number;
}

export const DEFAULT_VIEWER_LIMITS: ViewerLimits = {
  highWatermark: FLOW_HIGH_WATERMARK,
  lowWatermark: FLOW_LOW_WATERMARK,
  batchMs: FRAME_BATCH_MS,
  batchMaxBytes: 32 * 1024,
  transportHighBytes: 1024 * 1024,
  transportLowBytes: 256 * 1024,
  catchUpIntervalMs: 2_000,
  quietMs: 150,
};

type Mode = 'snapshotting' | 'live' | 'behind' | 'failed';

/**
 * One viewer of one session (docs/design.md §5.4, VS Code style but without ever pausing the
 * PTY): a snapshot, then numbered frames batched ≤ 16 ms. Frames carry the output's bytes
 * (whole characters, valid UTF-8: src/ui-protocol/), never decoded here. Unacknowledged bytes are
 * counted; past the high watermark (or when the transport backs up) frames stop and the
 * viewer is `behind`; once its acks bring it to the low watermark it gets a fresh snapshot
 * instead of the backlog. Memory per viewer is bounded by the high watermark: frames a
 * behind viewer misses are dropped, never queued, since the snapshot replaces them.
 *
 * Latency and the hub's share under a flood: the first frame after a quiet spell goes out at
 * once (a typed key's echo does not wait for a batch timer; a flood's frames are batched from
 * the second on), and a viewer that falls behind (a window that renders less than the flood)
 * gets its fresh snapshot once the flood stops, or `catchUpIntervalMs` after falling behind
 * while the flood lasts: each snapshot serializes the whole scrollback on the event loop
 * that every other session's keys and echoes wait on (tens of milliseconds for a full scrollback),
 * and one taken as a flood starts would only show its first moment.
 */
export class SessionViewer implements Disposable {
  private seq = 0;
  private unacked = 0;
  private mode: Mode = 'snapshotting';
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private pendingEnd = 0;
  /** Frames that arrived while a snapshot was being taken (bounded; overflow → retake). */
  private held: { data: Uint8Array; end: number }[] = [];
  private heldBytes = 0;
  private heldOverflow = false;
  private timer: NodeJS.Timeout | null = null;
  /** When a batch last went out (leading-edge batching). */
  private lastFlushAt = 0;
  /** When the last frame of the session arrived (quiet detection). */
  private lastFrameAt = 0;
  /** When the viewer last fell behind (the catch-up interval runs from there). */
  private behindSince = 0;
  private catchUpTimer: NodeJS.Timeout | null = null;
  /** Bytes of frames sent since the last snapshot (see `finish`). */
  private sentSinceSnapshot = 0;
  private sentCommands = false;
  private disposed = false;
  /** The session ended: the viewer lets go once its last screen is sent. */
  private finishing = false;
  private readonly subscriptions: Disposable[];
  /** Cuts the output at character boundaries, across the frames a behind viewer drops. */
  private readonly pieces: Utf8Pieces;

  constructor(
    private readonly session: ViewedSession,
    private readonly transport: ViewerTransport,
    private readonly limits: ViewerLimits = DEFAULT_VIEWER_LIMITS,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {
    this.pieces = new Utf8Pieces(session.unfinishedOutput);
    this.subscriptions = [
      session.onDidFrame((frame) => this.handleFrame(frame)),
      session.onDidFinishCommand((record) => {
        if (this.sentCommands) this.transport.send({ type: 'command', session: session.id, record });
      }),
    ];
    void this.takeSnapshot();
  }

  /** The viewer wrote `bytes` bytes of frames. */
  ack(bytes: number): void {
    this.unacked = Math.max(0, this.unacked - bytes);
    this.catchUpIfDrained();
  }

  /** Called periodically: a behind viewer whose transport drained gets its snapshot. */
  tick(): void {
    this.catchUpIfDrained();
  }

  /** For tests and diagnostics. */
  get status(): { mode: Mode; unacked: number; pendingBytes: number; seq: number } {
    return { mode: this.mode, unacked: this.unacked, pendingBytes: this.pendingBytes + this.heldBytes, seq: this.seq };
  }

  /**
   * The session ended: send what is pending, then let go. A viewer that is behind (or waiting
   * for its snapshot) gets one more snapshot first, so it ends on the session's last screen;
   * so does one sent more than the high watermark of frames since its last snapshot, which a
   * client may have acked without drawing (a hidden tab, src/ui-protocol/): it can no longer
   * subscribe for a fresh one once the session has ended.
   */
  finish(): void {
    if (this.disposed || this.finishing) return;
    this.finishing = true;
    if (this.catchUpTimer) clearTimeout(this.catchUpTimer);
    this.catchUpTimer = null;
    if (this.mode === 'snapshotting') return; // ends once it is sent
    if (this.mode === 'live') {
      if (this.timer) clearTimeout(this.timer);
      // A character the output left unfinished shows as U+FFFD, as in the emulator.
      const rest = this.pieces.end();
      if (rest.length > 0) this.take(rest, this.pendingEnd);
      this.flush();
      if (this.sentSinceSnapshot <= this.limits.highWatermark) return this.end();
    }
    if (this.mode === 'live' || this.mode === 'behind') void this.takeSnapshot();
    else this.end();
  }

  private end(): void {
    if (this.timer) clearTimeout(this.timer);
    this.flush();
    this.dispose();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const subscription of this.subscriptions) subscription.dispose();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.catchUpTimer) clearTimeout(this.catchUpTimer);
    this.catchUpTimer = null;
    this.pending = [];
    this.held = [];
  }

  private async takeSnapshot(): Promise<void> {
    this.mode = 'snapshotting';
    this.held = [];
    this.heldBytes = 0;
    this.heldOverflow = false;
    let snapshot: Awaited<ReturnType<ViewedSession['snapshot']>>;
    try {
      snapshot = await this.session.snapshot();
    } catch (error) {
      if (this.disposed) return;
      this.mode = 'failed';
      this.onError(error);
      if (this.finishing) this.dispose();
      return;
    }
    if (this.disposed) return;
    this.seq++;
    this.unacked = 0;
    this.sentSinceSnapshot = 0;
    this.transport.send({ type: 'snapshot', session: this.session.id, seq: this.seq, ...snapshot });
    if (!this.sentCommands) {
      this.sentCommands = true;
      this.transport.send({ type: 'commands', session: this.session.id, records: this.session.commands() });
    }
    this.mode = 'live';
    if (this.heldOverflow) {
      // A flood outran the snapshot: the frames since were dropped, not queued. The viewer shows
      // the snapshot and is behind at once; its next one comes like any catch-up (taking
      // another at once would block the event loop as long again, and could lose the race again).
      this.held = [];
      this.heldBytes = 0;
      if (this.finishing) return void this.takeSnapshot(); // the output has ended: the last screen
      this.fallBehind();
      this.catchUpIfDrained(); // nothing to ack: schedules the next snapshot
      return;
    }
    const held = this.held;
    this.held = [];
    this.heldBytes = 0;
    for (const frame of held) if (frame.end > snapshot.through) this.take(frame.data, frame.end);
    if (this.finishing) this.end();
  }

  private handleFrame(frame: OutputFrame): void {
    if (this.disposed) return;
    this.lastFrameAt = Date.now();
    if (this.mode === 'behind' || (this.mode === 'snapshotting' && this.heldOverflow)) return this.pieces.pass(frame.data);
    const data = this.pieces.take(frame.data);
    if (this.mode === 'snapshotting') {
      this.heldBytes += data.length;
      if (this.heldBytes > this.limits.highWatermark) {
        this.heldOverflow = true;
        this.held = [];
        this.heldBytes = 0;
      } else {
        this.held.push({ data, end: frame.end });
      }
      return;
    }
    this.take(data, frame.end);
  }

  /** Output for a live viewer: batched into frames. */
  private take(data: Uint8Array, end: number): void {
    if (data.length === 0) return;
    this.pending.push(data);
    this.pendingBytes += data.length;
    this.pendingEnd = end;
    if (this.unacked + this.pendingBytes > this.limits.highWatermark || this.transport.bufferedAmount() > this.limits.transportHighBytes) {
      this.fallBehind();
      return;
    }
    // A batch this large, or the first output after a quiet spell (an echo): at once.
    if (this.pendingBytes >= this.limits.batchMaxBytes || (this.timer === null && this.lastFrameAt - this.lastFlushAt >= this.limits.batchMs)) {
      if (this.timer) clearTimeout(this.timer);
      this.flush();
      return;
    }
    this.timer ??= setTimeout(() => this.flush(), Math.max(1, this.lastFlushAt + this.limits.batchMs - Date.now()));
  }

  private flush(): void {
    this.timer = null;
    if (this.disposed || this.mode !== 'live' || this.pendingBytes === 0) return;
    this.lastFlushAt = Date.now();
    const data = wellFormedUtf8(this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingBytes));
    this.pending = [];
    this.pendingBytes = 0;
    this.seq++;
    this.unacked += data.length;
    this.sentSinceSnapshot += data.length;
    this.transport.send({ type: 'frame', session: this.session.id, seq: this.seq, data, end: this.pendingEnd });
  }

  private fallBehind(): void {
    this.mode = 'behind';
    this.behindSince = Date.now();
    this.pending = [];
    this.pendingBytes = 0;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.transport.send({ type: 'behind', session: this.session.id });
  }

  private catchUpIfDrained(): void {
    if (this.disposed || this.mode !== 'behind' || this.catchUpTimer) return;
    if (this.unacked > this.limits.lowWatermark || this.transport.bufferedAmount() > this.limits.transportLowBytes) return;
    // Drained. While the output goes on, wait for the interval since falling behind, or for
    // the session to go quiet, whichever comes first.
    const now = Date.now();
    const intervalLeft = this.behindSince + this.limits.catchUpIntervalMs - now;
    const quietLeft = this.lastFrameAt + this.limits.quietMs - now;
    const wait = Math.min(intervalLeft, quietLeft);
    if (wait > 0) {
      this.catchUpTimer = setTimeout(() => {
        this.catchUpTimer = null;
        this.catchUpIfDrained();
      }, wait);
      return;
    }
    void this.takeSnapshot();
  }
}
