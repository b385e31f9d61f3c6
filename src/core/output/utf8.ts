/**
 * UTF-8 for consumers that see every chunk of a byte stream but use only some of it (a viewer
 * that is behind, a ring read now and then): where a skipped stretch ends inside a character,
 * what is used next starts with that character whole, as one streaming decode would read it.
 */
import { isUtf8 } from 'node:buffer';

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
 * Cuts a byte stream into pieces of whole characters, for a consumer that decodes each piece
 * on its own (xterm.js behind a viewer's frames): a character a chunk leaves open is held back
 * and leads the next piece. Chunks may also be passed over (a viewer that is behind drops
 * them); the next piece then starts with the character they left open.
 */
export class Utf8Pieces {
  private tail = new Utf8Tail();

  /** `unfinished`: the start of a character the stream before this one left open (see `Utf8Tail.open`). */
  constructor(unfinished: Uint8Array = EMPTY) {
    this.tail.push(unfinished);
  }

  /** `chunk` with the character left open before it, without the one it leaves open. */
  take(chunk: Uint8Array): Uint8Array {
    const before = this.tail.open;
    this.tail.push(chunk);
    const after = this.tail.open.length;
    if (before.length === 0) return chunk.subarray(0, chunk.length - after);
    const joined = new Uint8Array(before.length + chunk.length);
    joined.set(before);
    joined.set(chunk, before.length);
    return joined.subarray(0, joined.length - after);
  }

  /** A chunk of the stream that is not taken. */
  pass(chunk: Uint8Array): void {
    this.tail.push(chunk);
  }

  /** The stream ended: the bytes of a character it left unfinished (not UTF-8 on their own). */
  end(): Uint8Array {
    const open = this.tail.open;
    this.tail = new Utf8Tail();
    return open;
  }
}

/**
 * `bytes` as valid UTF-8: itself when it is, else decoded and encoded again, so what is not
 * UTF-8 becomes U+FFFD exactly as a streaming decode of the whole stream shows it (`bytes`
 * must start and end on a character boundary of that stream, as `Utf8Pieces` cuts them).
 */
export function wellFormedUtf8(bytes: Uint8Array): Uint8Array {
  return isUtf8(bytes) ? bytes : encoder.encode(decoder.decode(bytes));
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: false });

function concatTail(before: Uint8Array, chunk: Uint8Array): Uint8Array {
  const keep = Math.min(before.length, 3 - chunk.length);
  const joined = new Uint8Array(keep + chunk.length);
  joined.set(before.subarray(before.length - keep));
  joined.set(chunk, keep);
  return joined;
}
