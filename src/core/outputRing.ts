import { Utf8Tail } from './utf8.js';

/**
 * The most recent output, kept as the PTY gave it (escape sequences included) for `read` view
 * `new` in `ansi` format, and decoded only when read. Appending is O(1) per chunk; the oldest
 * chunks fall off past the cap. Offsets count bytes.
 */
export class OutputRing {
  private chunks: Uint8Array[] = [];
  private head = 0;
  private held = 0;
  /** Bytes ever appended: absolute offsets readers keep. */
  private total = 0;
  private readonly tail = new Utf8Tail();

  constructor(private readonly capacity = 1024 * 1024) {}

  /** Where a read that starts now would begin: the end, or the start of a character the last chunk cut in two. */
  get end(): number {
    return this.total - this.tail.open.length;
  }

  append(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.chunks.push(bytes);
    this.held += bytes.length;
    this.total += bytes.length;
    this.tail.push(bytes);
    while (this.held - this.chunks[this.head]!.length >= this.capacity) {
      this.held -= this.chunks[this.head]!.length;
      this.head++;
    }
    if (this.head > 1024) {
      this.chunks = this.chunks.slice(this.head);
      this.head = 0;
    }
  }

  /**
   * Text from absolute offset `from` (a previous `end`) to `end`; `lost` counts bytes that fell
   * off. A character cut by the oldest chunk still held is dropped with the bytes before it.
   */
  since(from: number): { text: string; lost: number } {
    const start = this.total - this.held;
    const lost = Math.max(0, start - from);
    let skip = Math.max(0, from - start);
    const parts: Uint8Array[] = [];
    for (let i = this.head; i < this.chunks.length; i++) {
      const chunk = this.chunks[i]!;
      if (skip >= chunk.length) {
        skip -= chunk.length;
        continue;
      }
      parts.push(skip > 0 ? chunk.subarray(skip) : chunk);
      skip = 0;
    }
    let bytes = Buffer.concat(parts);
    bytes = bytes.subarray(0, Math.max(0, bytes.length - this.tail.open.length));
    if (lost > 0) {
      let cut = 0;
      while (cut < 3 && cut < bytes.length && (bytes[cut]! & 0xc0) === 0x80) cut++;
      bytes = bytes.subarray(cut);
    }
    return { text: new TextDecoder().decode(bytes), lost };
  }
}
