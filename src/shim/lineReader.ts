/**
 * Splits a byte stream into newline-terminated lines with bounded memory (docs/design.md §4.4;
 * docs/conventions.md rule 4): a line longer than `maxBytes` is not buffered; its bytes are
 * discarded up to the next newline and reported once as an overflow, keeping only a short head
 * and tail so the caller can try to name the request it belonged to. Lines are decoded as UTF-8
 * whole, so a multibyte character split across chunks is never mangled. A trailing `\r` is
 * dropped (CRLF senders).
 */

/** Bytes of an over-long line kept from its start and its end. */
export const OVERFLOW_EDGE_BYTES = 512;

export interface OverflowedLine {
  /** Total bytes of the line, newline excluded. */
  bytes: number;
  /** Its first and last OVERFLOW_EDGE_BYTES bytes, decoded. */
  head: string;
  tail: string;
}

interface LineSink {
  line(text: string): void;
  overflow(line: OverflowedLine): void;
}

const NEWLINE = 0x0a;

export class LineReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Set while discarding an over-long line. */
  private discarding: { bytes: number; head: Buffer; tail: Buffer } | null = null;

  constructor(
    private readonly maxBytes: number,
    private readonly sink: LineSink,
  ) {}

  push(data: Buffer): void {
    let start = 0;
    while (start < data.length) {
      const newline = data.indexOf(NEWLINE, start);
      const end = newline === -1 ? data.length : newline;
      if (end > start) this.take(data.subarray(start, end));
      if (newline === -1) return;
      this.finishLine();
      start = newline + 1;
    }
  }

  /** The stream ended: a last line without a newline still counts. */
  end(): void {
    if (this.buffered > 0 || this.discarding) this.finishLine();
  }

  private take(part: Buffer): void {
    if (this.discarding) {
      this.discard(part);
      return;
    }
    if (this.buffered + part.length <= this.maxBytes) {
      this.chunks.push(Buffer.from(part));
      this.buffered += part.length;
      return;
    }
    const soFar = Buffer.concat(this.chunks, this.buffered);
    this.chunks = [];
    this.buffered = 0;
    this.discarding = { bytes: 0, head: Buffer.alloc(0), tail: Buffer.alloc(0) };
    this.discard(soFar);
    this.discard(part);
  }

  private discard(part: Buffer): void {
    const state = this.discarding;
    if (!state) return;
    state.bytes += part.length;
    if (state.head.length < OVERFLOW_EDGE_BYTES) {
      state.head = Buffer.concat([state.head, part.subarray(0, OVERFLOW_EDGE_BYTES - state.head.length)]);
    }
    const tail = part.length >= OVERFLOW_EDGE_BYTES ? part : Buffer.concat([state.tail, part]);
    state.tail = Buffer.from(tail.subarray(Math.max(0, tail.length - OVERFLOW_EDGE_BYTES)));
  }

  private finishLine(): void {
    const state = this.discarding;
    if (state) {
      this.discarding = null;
      this.sink.overflow({ bytes: state.bytes, head: state.head.toString('utf8'), tail: state.tail.toString('utf8') });
      return;
    }
    let line = Buffer.concat(this.chunks, this.buffered).toString('utf8');
    this.chunks = [];
    this.buffered = 0;
    if (line.endsWith('\r')) line = line.slice(0, -1);
    this.sink.line(line);
  }
}
