/**
 * UTF-8 decoding for consumers that see every chunk of a byte stream but decode only some of
 * it (a viewer that is behind, a ring read now and then): where a skipped stretch ends inside a
 * character, the decode resumes with that character whole, as one streaming decode would.
 */

const EMPTY = new Uint8Array(0);

/** How many bytes at the end of `bytes` start a character they do not finish (0–3). */
export function openUtf8Length(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back]!;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: its lead is further back
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return length > back ? back : 0;
  }
  return 0;
}

/** The last bytes of a stream: where a character the last chunk cut in two starts. */
export class Utf8Tail {
  private last: Uint8Array = EMPTY;

  push(chunk: Uint8Array): void {
    // A chunk of three bytes or more holds the start of any character it leaves open.
    if (chunk.length >= 3) this.last = chunk;
    else if (chunk.length > 0) this.last = concatTail(this.last, chunk);
  }

  /** The bytes of the character the stream so far leaves unfinished (none when it ends on a boundary). */
  get open(): Uint8Array {
    return this.last.subarray(this.last.length - openUtf8Length(this.last));
  }
}

/**
 * A streaming decode that may let chunks pass undecoded: `decode` after `pass` starts with the
 * character the passed chunks left open. Invalid bytes become U+FFFD.
 */
export class ResumableUtf8Decoder {
  private decoder: TextDecoder | null = null;
  private readonly tail = new Utf8Tail();

  /** `unfinished`: the start of a character the stream before this decoder left open (see `Utf8Tail.open`). */
  constructor(unfinished: Uint8Array = EMPTY) {
    this.tail.push(unfinished);
  }

  decode(chunk: Uint8Array): string {
    if (!this.decoder) {
      this.decoder = new TextDecoder('utf-8', { fatal: false });
      this.decoder.decode(this.tail.open, { stream: true }); // an unfinished character: no text yet
    }
    this.tail.push(chunk);
    return this.decoder.decode(chunk, { stream: true });
  }

  /** A chunk of the stream that is not decoded (a viewer that is behind drops it). */
  pass(chunk: Uint8Array): void {
    this.decoder = null;
    this.tail.push(chunk);
  }

  /** The stream ended: a character left unfinished, as U+FFFD. */
  end(): string {
    const rest = this.decoder?.decode() ?? '';
    this.decoder = null;
    return rest;
  }
}

function concatTail(before: Uint8Array, chunk: Uint8Array): Uint8Array {
  const keep = Math.min(before.length, 3 - chunk.length);
  const joined = new Uint8Array(keep + chunk.length);
  joined.set(before.subarray(before.length - keep));
  joined.set(chunk, keep);
  return joined;
}
