/**
 * The most recent decoded output, kept verbatim (escape sequences included) for `read` view
 * `new` in `ansi` format. Appending is O(1) per chunk; the oldest chunks fall off past the cap.
 */
export class OutputRing {
  private chunks: string[] = [];
  private head = 0;
  private held = 0;
  /** Characters ever appended: absolute offsets readers keep. */
  private total = 0;

  constructor(private readonly capacity = 1024 * 1024) {}

  get end(): number {
    return this.total;
  }

  append(text: string): void {
    this.chunks.push(text);
    this.held += text.length;
    this.total += text.length;
    while (this.held - this.chunks[this.head]!.length >= this.capacity) {
      this.held -= this.chunks[this.head]!.length;
      this.head++;
    }
    if (this.head > 1024) {
      this.chunks = this.chunks.slice(this.head);
      this.head = 0;
    }
  }

  /** Text from absolute offset `from` to the end; `lost` counts characters that fell off. */
  since(from: number): { text: string; lost: number } {
    const start = this.total - this.held;
    const lost = Math.max(0, start - from);
    let skip = Math.max(0, from - start);
    let text = '';
    for (let i = this.head; i < this.chunks.length; i++) {
      const chunk = this.chunks[i]!;
      if (skip >= chunk.length) {
        skip -= chunk.length;
        continue;
      }
      text += skip > 0 ? chunk.slice(skip) : chunk;
      skip = 0;
    }
    return { text, lost };
  }
}
