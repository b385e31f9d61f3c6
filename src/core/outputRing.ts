import { Utf8Tail } from './utf8.js';

/**
 * The most recent output, kept as the PTY gave it (escape sequences included) for `read` view
 * `new` in `ansi` format, and decoded only when read. A circular buffer of `capacity` bytes,
 * allocated on the first output: appending copies, so the PTY's read buffers are not kept
 * alive (holding a megabyte of them, scattered over the heap, left the hub's RSS ~4 MB higher
 * after a flood). Offsets count bytes.
 */
export class OutputRing {
  private buffer: Uint8Array | null = null;
  /** Bytes ever appended: absolute offsets readers keep. */
  private total = 0;
  private readonly tail = new Utf8Tail();

  constructor(private readonly capacity = 1024 * 1024) {}

  /** Where a read that starts now would begin: the end, or the start of a character the last chunk cut in two. */
  get end(): number {
    return this.total - this.tail.open.length;
  }

  /** The start of a character the output so far leaves unfinished (0–3 bytes). */
  get unfinished(): Uint8Array {
    return this.tail.open;
  }

  append(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    const buffer = (this.buffer ??= new Uint8Array(this.capacity));
    const kept = bytes.length > this.capacity ? bytes.subarray(bytes.length - this.capacity) : bytes;
    const at = (this.total + bytes.length - kept.length) % this.capacity;
    const first = Math.min(kept.length, this.capacity - at);
    buffer.set(kept.subarray(0, first), at);
    if (first < kept.length) buffer.set(kept.subarray(first), 0);
    this.total += bytes.length;
    this.tail.push(bytes);
  }

  /**
   * Text from absolute offset `from` (a previous `end`) to `end`; `lost` counts bytes that fell
   * off. A character cut by the oldest byte still held is dropped with the bytes before it.
   */
  since(from: number): { text: string; lost: number } {
    const start = Math.max(0, this.total - this.capacity);
    const lost = Math.max(0, start - from);
    let bytes = this.copy(Math.max(from, start), this.end);
    if (lost > 0) {
      let cut = 0;
      while (cut < 3 && cut < bytes.length && (bytes[cut]! & 0xc0) === 0x80) cut++;
      bytes = bytes.subarray(cut);
    }
    return { text: new TextDecoder().decode(bytes), lost };
  }

  /** Bytes [from, to) of the stream, all still held. */
  private copy(from: number, to: number): Uint8Array {
    const out = new Uint8Array(Math.max(0, to - from));
    if (!this.buffer || out.length === 0) return out;
    const at = from % this.capacity;
    const first = Math.min(out.length, this.capacity - at);
    out.set(this.buffer.subarray(at, at + first));
    if (first < out.length) out.set(this.buffer.subarray(0, out.length - first), first);
    return out;
  }
}
