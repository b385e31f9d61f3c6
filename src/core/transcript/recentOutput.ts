import * as fs from 'node:fs/promises';
import { OutputRing } from './outputRing.js';
import type { Transcript } from './transcript.js';
import { Utf8Tail } from '../output/utf8.js';

/** A read of new output returns at most its last this many bytes. */
export const RECENT_OUTPUT_BYTES = 1024 * 1024;

export interface RecentText {
  text: string;
  /** Bytes after `from` left out of `text`: older than its last RECENT_OUTPUT_BYTES, or not kept. */
  skipped: number;
  /** Why some of them were not kept anywhere; null when every byte left out is still on disk. */
  notKept: string | null;
  /** Where the text ends: the offset to read from next. */
  end: number;
}

/**
 * A session's output for `read` view `new` in `ansi` format: the bytes as the PTY gave them
 * (escape sequences included), decoded only when read.
 *
 * They are read back from the session's output.log, which holds every byte anyway, so a
 * session keeps none of them in memory (a 1 MiB ring each did, a large part of an agent
 * session's memory). Only output the transcript does not hold is kept, in a ring of the last
 * RECENT_OUTPUT_BYTES: all of it when there is no transcript (no state dir), and from the
 * moment output.log stops short (its size cap, a failed write) on.
 *
 * Offsets count the session's bytes; readers keep `end`, a character boundary.
 */
export class RecentOutput {
  private ring: OutputRing | null;
  private total = 0;
  private readonly tail = new Utf8Tail();

  constructor(
    private readonly transcript: Transcript | null,
    private readonly capacity = RECENT_OUTPUT_BYTES,
  ) {
    this.ring = transcript ? null : new OutputRing(capacity);
  }

  /** Where a read that starts now would begin: the end, or the start of a character the last chunk cut in two. */
  get end(): number {
    return this.total - this.tail.open.length;
  }

  /** The start of a character the output so far leaves unfinished (0–3 bytes). */
  get unfinished(): Uint8Array {
    return this.tail.open;
  }

  /** Every chunk of the session's output, in order, after the transcript has seen it (OutputPipe). */
  append(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    // A cut inside this chunk is known by now: the ring starts with the chunk.
    if (!this.ring && this.transcript?.isCut) this.ring = new OutputRing(this.capacity, this.total);
    this.ring?.append(bytes);
    this.total += bytes.length;
    this.tail.push(bytes);
  }

  /**
   * The text from `from` (a previous `end`) to `end`, at most its last `capacity` bytes. A
   * character cut where a left-out stretch ends goes with the stretch (no U+FFFD for it).
   */
  async since(from: number): Promise<RecentText> {
    const end = this.end;
    const start = Math.min(end, Math.max(from, end - this.capacity, this.transcript ? 0 : this.ring!.start));
    const cut = this.transcript?.cut ?? null;
    const parts: Uint8Array[] = [];
    let notKept: string | null = null;
    let at = start;
    // output.log holds [0, cut) of the stream.
    const onDisk = this.transcript ? Math.min(end, cut?.at ?? end) : 0;
    if (at < onDisk) {
      const read = await readOutputLog(this.transcript!, at, onDisk - at);
      parts.push(read.bytes);
      at += read.bytes.length;
      notKept = read.error;
    }
    // The ring holds [ring.start, end) of what output.log does not.
    if (this.ring && at < end) {
      const ringFrom = Math.max(at, this.ring.start);
      parts.push(dropContinuation(this.ring.copy(ringFrom, end), ringFrom > at));
      if (ringFrom > at) notKept ??= this.notKeptReason(cut);
      at = end;
    }
    if (at < end) notKept ??= this.notKeptReason(cut);
    let bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
    if (start > from) bytes = dropContinuation(bytes, true);
    if (start > from && !this.transcript) notKept = this.notKeptReason(cut);
    return { text: new TextDecoder().decode(bytes), skipped: end - from - bytes.length, notKept, end };
  }

  private notKeptReason(cut: { at: number; reason: string } | null): string {
    if (!this.transcript) return `this session keeps no transcript, only its last ${this.capacity} bytes`;
    return cut ? `output.log stops at byte ${cut.at}: ${cut.reason}` : 'they are missing from output.log';
  }
}

/** Without a character's first byte, its other bytes would show as U+FFFD: they go too. */
function dropContinuation(bytes: Uint8Array, afterGap: boolean): Uint8Array {
  if (!afterGap) return bytes;
  let cut = 0;
  while (cut < 3 && cut < bytes.length && (bytes[cut]! & 0xc0) === 0x80) cut++;
  return bytes.subarray(cut);
}

/** `length` bytes of output.log from `start`, once what was appended is on disk; fewer, and why, when it cannot give them. */
async function readOutputLog(transcript: Transcript, start: number, length: number): Promise<{ bytes: Uint8Array; error: string | null }> {
  await transcript.flush();
  const bytes = new Uint8Array(length);
  let got = 0;
  try {
    const handle = await fs.open(transcript.outputFile, 'r');
    try {
      while (got < length) {
        const { bytesRead } = await handle.read(bytes, got, length - got, start + got);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
    } finally {
      await handle.close();
    }
  } catch (error) {
    return { bytes: bytes.subarray(0, got), error: `output.log could not be read (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
  }
  return { bytes: bytes.subarray(0, got), error: got < length ? `output.log ends at byte ${start + got}` : null };
}
