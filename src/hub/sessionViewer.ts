import type { Disposable, Event } from '../core/event.js';
import type { OutputFrame } from '../core/outputPipe.js';
import type { CommandRecord } from '../core/types.js';
import { FLOW_HIGH_WATERMARK, FLOW_LOW_WATERMARK, FRAME_BATCH_MS, type HubMessage } from '../ui-protocol.js';

/** What a viewer needs of a session (TerminalSession has it). */
export interface ViewedSession {
  readonly id: string;
  readonly onDidFrame: Event<OutputFrame>;
  readonly onDidFinishCommand: Event<CommandRecord>;
  snapshot(): Promise<{ data: string; cols: number; rows: number; through: number }>;
  commands(): CommandRecord[];
}

/** The connection a viewer sends on; `bufferedAmount` is what the transport still holds (WebSocket). */
export interface ViewerTransport {
  send(message: HubMessage): void;
  bufferedAmount(): number;
}

/** Flow-control limits of one viewer (the character watermarks are the protocol's). */
export interface ViewerLimits {
  highWatermark: number;
  lowWatermark: number;
  batchMs: number;
  /** A batch this large is sent at once instead of waiting for `batchMs`. */
  batchMaxChars: number;
  /** Transport backlog (bytes) above which frames stop: the viewer is behind. */
  transportHighBytes: number;
  /** …and at or below which a behind viewer gets its fresh snapshot. */
  transportLowBytes: number;
}

export const DEFAULT_VIEWER_LIMITS: ViewerLimits = {
  highWatermark: FLOW_HIGH_WATERMARK,
  lowWatermark: FLOW_LOW_WATERMARK,
  batchMs: FRAME_BATCH_MS,
  batchMaxChars: 32 * 1024,
  transportHighBytes: 1024 * 1024,
  transportLowBytes: 256 * 1024,
};

/** Snapshots retried at once when a flood overflowed the frames held while one was taken. */
const MAX_SNAPSHOT_RETRIES = 3;

type Mode = 'snapshotting' | 'live' | 'behind' | 'failed';

/**
 * One viewer of one session (DESIGN §5 flow control, VS Code style but without ever pausing the
 * PTY): a snapshot, then numbered frames batched ≤ 16 ms. Unacknowledged characters are
 * counted; past the high watermark (or when the transport backs up) frames stop and the
 * viewer is `behind`; once its acks bring it to the low watermark it gets a fresh snapshot
 * instead of the backlog. Memory per viewer is bounded by the high watermark: frames a
 * behind viewer misses are dropped, never queued, since the snapshot replaces them.
 */
export class SessionViewer implements Disposable {
  private seq = 0;
  private unacked = 0;
  private mode: Mode = 'snapshotting';
  private pending: string[] = [];
  private pendingChars = 0;
  private pendingEnd = 0;
  /** Frames that arrived while a snapshot was being taken (bounded; overflow → retake). */
  private held: OutputFrame[] = [];
  private heldChars = 0;
  private heldOverflow = false;
  private timer: NodeJS.Timeout | null = null;
  private sentCommands = false;
  private disposed = false;
  private readonly subscriptions: Disposable[];

  constructor(
    private readonly session: ViewedSession,
    private readonly transport: ViewerTransport,
    private readonly limits: ViewerLimits = DEFAULT_VIEWER_LIMITS,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {
    this.subscriptions = [
      session.onDidFrame((frame) => this.handleFrame(frame)),
      session.onDidFinishCommand((record) => {
        if (this.sentCommands) this.transport.send({ type: 'command', session: session.id, record });
      }),
    ];
    void this.takeSnapshot();
  }

  /** The viewer wrote `chars` characters of frames. */
  ack(chars: number): void {
    this.unacked = Math.max(0, this.unacked - chars);
    this.catchUpIfDrained();
  }

  /** Called periodically: a behind viewer whose transport drained gets its snapshot. */
  tick(): void {
    this.catchUpIfDrained();
  }

  /** For tests and diagnostics. */
  get status(): { mode: Mode; unacked: number; pendingChars: number; seq: number } {
    return { mode: this.mode, unacked: this.unacked, pendingChars: this.pendingChars + this.heldChars, seq: this.seq };
  }

  /** The session ended: send what is pending, then let go. */
  finish(): void {
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
    this.pending = [];
    this.held = [];
  }

  private async takeSnapshot(attempt = 0): Promise<void> {
    this.mode = 'snapshotting';
    this.held = [];
    this.heldChars = 0;
    this.heldOverflow = false;
    let snapshot: Awaited<ReturnType<ViewedSession['snapshot']>>;
    try {
      snapshot = await this.session.snapshot();
    } catch (error) {
      if (this.disposed) return;
      this.mode = 'failed';
      this.onError(error);
      return;
    }
    if (this.disposed) return;
    if (this.heldOverflow) {
      // A flood outran the snapshot: take another rather than queue without bound.
      if (attempt < MAX_SNAPSHOT_RETRIES) return this.takeSnapshot(attempt + 1);
      this.mode = 'behind';
      this.held = [];
      this.heldChars = 0;
      return;
    }
    this.seq++;
    this.unacked = 0;
    this.transport.send({ type: 'snapshot', session: this.session.id, seq: this.seq, ...snapshot });
    if (!this.sentCommands) {
      this.sentCommands = true;
      this.transport.send({ type: 'commands', session: this.session.id, records: this.session.commands() });
    }
    this.mode = 'live';
    const held = this.held;
    this.held = [];
    this.heldChars = 0;
    for (const frame of held) if (frame.end > snapshot.through) this.handleFrame(frame);
  }

  private handleFrame(frame: OutputFrame): void {
    if (this.disposed) return;
    if (this.mode === 'snapshotting') {
      if (this.heldOverflow) return;
      this.heldChars += frame.data.length;
      if (this.heldChars > this.limits.highWatermark) {
        this.heldOverflow = true;
        this.held = [];
        this.heldChars = 0;
      } else {
        this.held.push(frame);
      }
      return;
    }
    if (this.mode === 'behind') return;
    this.pending.push(frame.data);
    this.pendingChars += frame.data.length;
    this.pendingEnd = frame.end;
    if (this.unacked + this.pendingChars > this.limits.highWatermark || this.transport.bufferedAmount() > this.limits.transportHighBytes) {
      this.fallBehind();
      return;
    }
    if (this.pendingChars >= this.limits.batchMaxChars) {
      if (this.timer) clearTimeout(this.timer);
      this.flush();
      return;
    }
    this.timer ??= setTimeout(() => this.flush(), this.limits.batchMs);
  }

  private flush(): void {
    this.timer = null;
    if (this.disposed || this.mode !== 'live' || this.pendingChars === 0) return;
    const data = this.pending.length === 1 ? this.pending[0]! : this.pending.join('');
    this.pending = [];
    this.pendingChars = 0;
    this.seq++;
    this.unacked += data.length;
    this.transport.send({ type: 'frame', session: this.session.id, seq: this.seq, data, end: this.pendingEnd });
  }

  private fallBehind(): void {
    this.mode = 'behind';
    this.pending = [];
    this.pendingChars = 0;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.transport.send({ type: 'behind', session: this.session.id });
  }

  private catchUpIfDrained(): void {
    if (this.disposed || this.mode !== 'behind') return;
    if (this.unacked > this.limits.lowWatermark || this.transport.bufferedAmount() > this.limits.transportLowBytes) return;
    void this.takeSnapshot();
  }
}
