import type { Emulator } from '../emulation/emulator.js';
import { EventEmitter, type Event, DisposableStore } from '../event.js';
import type { Transcript } from '../transcript/transcript.js';
import type { HostedPty } from '../pty/spawnPty.js';

/** Output for viewers: the PTY's bytes and the transcript offset just after them. */
export interface OutputFrame {
  data: Uint8Array;
  end: number;
}

/**
 * Flow-control watermarks, in bytes of emulator backlog (VS Code's pty host uses the
 * same shape). The PTY is paused only when the session's own emulator falls behind,
 * never because a viewer is slow (docs/design.md §5.4).
 */
export const EMULATOR_HIGH_WATERMARK = 8_000_000;
const EMULATOR_LOW_WATERMARK = 2_000_000;
/**
 * The same for the transcript, in bytes queued for `output.log` and not yet on disk: a disk
 * slower than the program pauses the PTY instead of growing the queue (no byte is dropped).
 */
export const TRANSCRIPT_HIGH_WATERMARK = 8 * 1024 * 1024;
export const TRANSCRIPT_LOW_WATERMARK = 1024 * 1024;

/**
 * The one place PTY bytes flow through (docs/conventions.md rule 4): raw bytes to the transcript,
 * the emulator and live listeners. Nothing here decodes: each consumer decodes only what it uses
 * (the emulator what it parses, not a flood it fast-forwards; a viewer what it sends), keeping
 * characters split across chunks whole (utf8.ts) and turning invalid bytes into U+FFFD.
 */
export class OutputPipe {
  private readonly store = new DisposableStore();
  private bytes = 0;
  private paused = false;
  private lastDataAt = Date.now();

  private readonly onDidOutputEmitter = new EventEmitter<Uint8Array>();
  /** Output as it arrives (for `new` reads). */
  readonly onDidOutput: Event<Uint8Array> = this.onDidOutputEmitter.event;
  private readonly onDidFrameEmitter = new EventEmitter<OutputFrame>();
  /** The same output with its transcript end offset, for viewers that hydrate from a snapshot. */
  readonly onDidFrame: Event<OutputFrame> = this.onDidFrameEmitter.event;

  constructor(
    private readonly pty: Pick<HostedPty, 'pause' | 'resume'>,
    private readonly emulator: Emulator,
    private readonly transcript: Transcript | null,
  ) {
    this.store.add(emulator.onDidParse(() => this.relieve()));
    if (transcript) this.store.add(transcript.onDidWrite(() => this.relieve()));
  }

  /** Bytes the PTY has produced so far. */
  get byteCount(): number {
    return this.bytes;
  }

  /** When the PTY last produced output (for quiet detection). */
  get lastOutputAt(): number {
    return this.lastDataAt;
  }

  push(chunk: Uint8Array): void {
    const start = this.bytes;
    this.bytes += chunk.length;
    this.lastDataAt = Date.now();
    this.transcript?.append(chunk);
    this.emulator.write(chunk, start, this.bytes);
    this.onDidOutputEmitter.fire(chunk);
    if (this.onDidFrameEmitter.hasListeners) this.onDidFrameEmitter.fire({ data: chunk, end: this.bytes });
    if (!this.paused && (this.emulator.backlog > EMULATOR_HIGH_WATERMARK || (this.transcript?.pendingBytes ?? 0) > TRANSCRIPT_HIGH_WATERMARK)) {
      this.paused = true;
      this.pty.pause();
    }
  }

  /** The PTY is done: the emulator shows a character left unfinished as U+FFFD. */
  end(): void {
    this.emulator.end(this.bytes);
    this.resumeIfPaused();
  }

  dispose(): void {
    this.store.dispose();
    this.onDidOutputEmitter.dispose();
    this.onDidFrameEmitter.dispose();
  }

  /** Resumes once both have caught up (each below its low watermark). */
  private relieve(): void {
    if (this.paused && this.emulator.backlog < EMULATOR_LOW_WATERMARK && (this.transcript?.pendingBytes ?? 0) < TRANSCRIPT_LOW_WATERMARK) this.resumeIfPaused();
  }

  private resumeIfPaused(): void {
    if (!this.paused) return;
    this.paused = false;
    try {
      this.pty.resume();
    } catch {
      // The PTY already closed: nothing left to resume.
    }
  }
}
