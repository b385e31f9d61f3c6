/**
 * The last `capacity` bytes of a stream, in a circular buffer allocated on the first append.
 * Appending copies, so the PTY's read buffers are not kept alive (holding a megabyte of them,
 * scattered over the heap, kept the hub's RSS high after a flood). Offsets are
 * absolute: the stream's byte count, the ring starting at `origin`.
 */
export class OutputRing {
  private buffer: Uint8Array | null = null;
  /** Absolute offset just past the last byte appended. */
  private total: number;

  constructor(
    private readonly capacity: number,
    private readonly origin = 0,
  ) {
    this.total = origin;
  }

  /** The absolute offset of the oldest byte still held. */
  get start(): number {
    return Math.max(this.origin, this.total - this.capacity);
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
  }

  /** A copy of bytes [from, to), which must lie within [start, end]. */
  copy(from: number, to: number): Uint8Array {
    if (from < this.start || to > this.total) throw new RangeError(`OutputRing: [${from}, ${to}) is not held ([${this.start}, ${this.total}))`);
    const out = new Uint8Array(Math.max(0, to - from));
    if (!this.buffer || out.length === 0) return out;
    const at = from % this.capacity;
    const first = Math.min(out.length, this.capacity - at);
    out.set(this.buffer.subarray(at, at + first));
    if (first < out.length) out.set(this.buffer.subarray(0, out.length - first), first);
    return out;
  }
}
