import type { IPty } from 'node-pty';
import type { Emulator } from './emulator.js';
import { EventEmitter, type Event, DisposableStore } from './event.js';
import type { Transcript } from './transcript.js';

/** Output for viewers: decoded text and the transcript offset just after it. */
export interface OutputFrame {
  data: string;
  end: number;
}

/**
 * Flow-control watermarks, in bytes of emulator backlog (VS Code's pty host uses the
 * same shape). The PTY is paused only when the session's own emulator falls behind,
 * never because a viewer is slow (DESIGN §5).
 */
export const EMULATOR_HIGH_WATERMARK = 8_000_000;
export const EMULATOR_LOW_WATERMARK = 2_000_000;
/**
 * The same for the transcript, in bytes queued for `output.log` and not yet on disk: a disk
 * slower than the program pauses the PTY instead of growing the queue (no byte is dropped).
 */
export const TRANSCRIPT_HIGH_WATERMARK = 8 * 1024 * 1024;
export const TRANSCRIPT_LOW_WATERMARK = 1024 * 1024;

/**
 * The one place PTY bytes flow through (CONVENTIONS rule 4): raw bytes to the transcript and
 * to the emulator (which decodes only what it parses: a flood it fast-forwards is never
 * decoded), one streaming UTF-8 decode for live listeners. Both decodes keep multibyte
 * characters split across chunks whole and turn invalid bytes into U+FFFD.
 */
export class OutputPipe {
  private readonly decoder = new TextDecoder('utf-8', { fatal: false });
  private readonly store = new DisposableStore();
  private bytes = 0;
  private paused = false;
  private lastDataAt = Date.now();

  private readonly onDidOutputEmitter = new EventEmitter<string>();
  /** Decoded output as it arrives (for `new` reads). */
  readonly onDidOutput: Event<string> = this.onDidOutputEmitter.event;
  private readonly onDidFrameEmitter = new EventEmitter<OutputFrame>();
  /** The same output with its transcript end offset, for viewers that hydrate from a snapshot. */
  readonly onDidFrame: Event<OutputFrame> = this.onDidFrameEmitter.event;

  constructor(
    private readonly pty: IPty,
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
    this.deliver(this.decoder.decode(chunk, { stream: true }));
    if (!this.paused && (this.emulator.backlog > EMULATOR_HIGH_WATERMARK || (this.transcript?.pendingBytes ?? 0) > TRANSCRIPT_HIGH_WATERMARK)) {
      this.paused = true;
      this.pty.pause();
    }
  }

  /** The PTY is done: flush a trailing partial character as U+FFFD. */
  end(): void {
    this.emulator.end(this.bytes);
    this.deliver(this.decoder.decode());
    this.resumeIfPaused();
  }

  dispose(): void {
    this.store.dispose();
    this.onDidOutputEmitter.dispose();
    this.onDidFrameEmitter.dispose();
  }

  private deliver(text: string): void {
    if (text.length === 0) return;
    this.onDidOutputEmitter.fire(text);
    if (this.onDidFrameEmitter.hasListeners) this.onDidFrameEmitter.fire({ data: text, end: this.bytes });
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
