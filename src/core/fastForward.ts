/**
 * Fast-forward through a flood (issue 6, sustained throughput): when the emulator has fallen
 * behind, the oldest queued output that would scroll out of the buffer anyway need not be
 * parsed line by line. Only output whose effect on the terminal is fully known may be skipped:
 *
 *  - text, `\t`, `\b`, `\r`, `\n` move the cursor and print; nothing else;
 *  - SGR sequences (`ESC [ … m`) change the current attributes: they are kept, in order, and
 *    replayed without the text, so the attributes after the skip are exactly what they were;
 *  - anything else (other controls, escape sequences, C1 codes, shell-integration marks) ends
 *    the run: it is parsed as usual.
 *
 * The caller keeps at least `keepLineFeeds` line feeds of the queue unskipped. With that many
 * at least `rows + scrollback` on a full-screen scroll region, every row the skipped text would
 * have touched has left the buffer by the end of the kept tail, whatever the cursor did; the
 * buffer then holds the same rows as after a full parse. See docs/decisions.md.
 *
 * The plan is made on the raw UTF-8 bytes, chunk by chunk as the PTY delivered them: skipped
 * output is never decoded, copied or joined, and the scan for controls reads four bytes at a
 * time (a flood is ~98 % printable ASCII).
 */

export interface SkipPlan {
  /** Bytes to skip from the start of the chunks (always just after a line feed). */
  bytes: number;
  /** Line feeds in the skipped bytes (the tracker counts them as if parsed). */
  lineFeeds: number;
  /** The SGR sequences of the skipped bytes, in order, to replay instead of them. */
  sgr: string;
}

const LF = 0x0a;
const CR = 0x0d;
const ESC = 0x1b;
/** The lead byte of U+0080–U+00BF; U+0080–U+009F are the C1 controls (CSI as 0x9b, …). */
const C1_LEAD = 0xc2;

/**
 * 1 for a byte a skipped run may hold as it is: printable ASCII, `\t \b \n \r`, and bytes of
 * UTF-8 sequences except 0xC2, whose second byte says whether it is a C1 control.
 */
const PASSES = new Uint8Array(256);
for (let byte = 0x20; byte < 0x7f; byte++) PASSES[byte] = 1;
for (const byte of [0x08, 0x09, LF, CR]) PASSES[byte] = 1;
for (let byte = 0x80; byte <= 0xff; byte++) PASSES[byte] = byte === C1_LEAD ? 0 : 1;

/**
 * What `planSkip` reads of one chunk: how many bytes at its start are plain output, the line
 * feeds in them, and their SGR sequences. It depends on the chunk's bytes alone, so a chunk can
 * be scanned as it arrives (`scanChunk`) and planned later without a second look.
 */
export interface ChunkScan {
  /** The bytes it was made of: a scan is used only for this very Buffer (a cut chunk is a new one). */
  readonly chunk: Buffer;
  readonly plain: number;
  readonly lineFeeds: number;
  readonly sgr: readonly { at: number; text: string }[];
}

const NO_SGR: readonly { at: number; text: string }[] = Object.freeze([]);

/** Scans `chunk` for `planSkip` (about 1 µs per KB of a flood). */
export function scanChunk(chunk: Buffer): ChunkScan {
  scannedLineFeeds = 0;
  const plain = plainLength(chunk);
  // Most chunks of a flood hold no SGR: they share one empty list.
  return { chunk, plain, lineFeeds: scannedLineFeeds, sgr: scannedSgr.length > 0 ? scannedSgr.splice(0) : NO_SGR };
}

/**
 * What may be skipped from the start of `chunks`, or null when nothing may. `stop.chunk` is
 * set to the chunk the plain output ends in, or -1 when it runs to the end: the output after
 * it may be planned again once it is parsed. The skip and the
 * `keepLineFeeds` line feeds after it lie in plain output; the first kept line holds a `\r`,
 * so the column is the same whether or not the skipped output was parsed. Chunks are Buffers
 * (node-pty's, or views made with `Buffer.from(arrayBuffer, offset, length)`). `scans[i]`, when
 * it is `chunks[i]`'s, is used instead of scanning that chunk here: during a flood the emulator
 * scans each chunk as it arrives, so planning a 100 ms batch is not one long task.
 */
export function planSkip(chunks: readonly Buffer[], keepLineFeeds: number, stop?: { chunk: number }, scans?: readonly (ChunkScan | undefined)[]): SkipPlan | null {
  if (stop) stop.chunk = -1;
  if (chunks.length === 0 || startsInsideCharacter(chunks[0]!)) return null;
  const sgr: { chunk: number; at: number; text: string }[] = [];
  // Where the plain output ends: chunk `last`, byte `lastEnd`; and the line feeds before it.
  let lineFeeds = 0;
  let last = chunks.length - 1;
  let lastEnd = chunks[last]!.length;
  for (let index = 0; index < chunks.length; index++) {
    const chunk = chunks[index]!;
    const cached = scans?.[index];
    const scan = cached?.chunk === chunk ? cached : scanChunk(chunk);
    lineFeeds += scan.lineFeeds;
    for (const entry of scan.sgr) sgr.push({ chunk: index, at: entry.at, text: entry.text });
    if (scan.plain < chunk.length) {
      last = index;
      lastEnd = scan.plain;
      if (stop) stop.chunk = index;
      break;
    }
  }
  // Back keepLineFeeds + 1 line feeds from there: the last one found ends the skip.
  let chunk = last;
  let at = lastEnd;
  for (let kept = 0; kept <= keepLineFeeds; kept++) {
    for (;;) {
      const found = at > 0 ? chunks[chunk]!.lastIndexOf(LF, at - 1) : -1;
      if (found >= 0) {
        at = found;
        break;
      }
      if (chunk === 0) return null;
      chunk--;
      at = chunks[chunk]!.length;
    }
  }
  if (!firstKeptLineHasCr(chunks, chunk, at + 1)) return null;
  let bytes = at + 1;
  for (let index = 0; index < chunk; index++) bytes += chunks[index]!.length;
  let replay = '';
  for (const entry of sgr) if (entry.chunk < chunk || (entry.chunk === chunk && entry.at < at)) replay += entry.text;
  // Every line feed of the plain output is skipped but the `keepLineFeeds` after the skip's end.
  return { bytes, lineFeeds: lineFeeds - keepLineFeeds, sgr: replay };
}

/** Whether `data` starts with a UTF-8 continuation byte: the rest of a character begun (and parsed) before it. */
export function startsInsideCharacter(data: Buffer): boolean {
  return ((data[0] ?? 0) & 0xc0) === 0x80;
}

/** SGR sequences `plainLength` found (a second result, taken by `scanChunk`). */
const scannedSgr: { at: number; text: string }[] = [];

/** How many bytes at the start of `chunk` are plain output; its SGR sequences go to `scannedSgr`. */
function plainLength(chunk: Buffer): number {
  let at = 0;
  for (;;) {
    at = firstStop(chunk, at);
    if (at === chunk.length) return at;
    const byte = chunk[at]!;
    if (byte === C1_LEAD) {
      // U+00A0–U+00BF pass; U+0080–U+009F are C1 controls; a lead at the end is not known yet.
      if (at + 1 < chunk.length && chunk[at + 1]! >= 0xa0) {
        at += 2;
        continue;
      }
      return at;
    }
    if (byte !== ESC) return at;
    const end = sgrEnd(chunk, at);
    if (end < 0) return at;
    scannedSgr.push({ at, text: chunk.toString('latin1', at, end) });
    at = end;
  }
}

/** Just past the SGR sequence (`ESC [ 0-9 ; : … m`) at `at`, or -1 when it is not one (or not whole here). */
function sgrEnd(chunk: Buffer, at: number): number {
  if (chunk[at + 1] !== 0x5b) return -1;
  for (let i = at + 2; i < chunk.length; i++) {
    const byte = chunk[i]!;
    if (byte === 0x6d) return i + 1;
    if (!((byte >= 0x30 && byte <= 0x39) || byte === 0x3b || byte === 0x3a)) return -1;
  }
  return -1;
}

/** Line feeds `firstStop` passed over since the caller reset it (a second result, without an allocation). */
let scannedLineFeeds = 0;

/**
 * The first byte at or after `from` that PASSES does not let through (or the length); adds the
 * line feeds before it to `scannedLineFeeds`. Aligned stretches are read as 32-bit words: a
 * word of printable ASCII needs no look at its bytes, nor does one of printable ASCII, `\r` and
 * `\n` (a flood of short lines, like `yes` or `seq`, has one in almost every word).
 */
function firstStop(chunk: Buffer, from: number): number {
  const length = chunk.length;
  // Module bindings are re-read (and checked) on every use in a loop; locals are not (~1.6× here).
  const passes = PASSES;
  const lineFeed = LF;
  let lineFeeds = 0;
  let at = from;
  for (; at < length && ((chunk.byteOffset + at) & 3) !== 0; at++) {
    const byte = chunk[at]!;
    if (passes[byte] === 0) return stopAt(at, lineFeeds);
    if (byte === lineFeed) lineFeeds++;
  }
  const words = (length - at) >> 2;
  if (words > 0) {
    const view = new Int32Array(chunk.buffer, chunk.byteOffset + at, words);
    for (let word = 0; word < words; word++) {
      const x = view[word]!;
      const special = notPrintable(x);
      if (special === 0) continue;
      const lineFeedBytes = bytesEqual(x, 0x0a0a0a0a);
      if ((special & ~(lineFeedBytes | bytesEqual(x, 0x0d0d0d0d))) === 0) {
        lineFeeds += countHighBits(lineFeedBytes);
        continue;
      }
      // A tab, a backspace, UTF-8, or a stop: byte by byte.
      const start = at + word * 4;
      for (let i = start; i < start + 4; i++) {
        const byte = chunk[i]!;
        if (passes[byte] === 0) return stopAt(i, lineFeeds);
        if (byte === lineFeed) lineFeeds++;
      }
    }
    at += words * 4;
  }
  for (; at < length; at++) {
    const byte = chunk[at]!;
    if (passes[byte] === 0) return stopAt(at, lineFeeds);
    if (byte === lineFeed) lineFeeds++;
  }
  return stopAt(length, lineFeeds);
}

/** `at`, once the line feeds scanned before it are added to `scannedLineFeeds`. */
function stopAt(at: number, lineFeeds: number): number {
  scannedLineFeeds += lineFeeds;
  return at;
}

/**
 * The high bit of each byte of `x` that is not printable ASCII (below 0x20, 0x7f, or 0x80 and
 * above). Exact when every byte is ASCII (no addition carries into the next byte); a byte of
 * 0x80 or above always sets its own bit, whatever it carries into the next.
 */
function notPrintable(x: number): number {
  return (((x + 0x60606060) & 0x80808080) ^ 0x80808080) | ((x + 0x01010101) & 0x80808080) | (x & 0x80808080);
}

/** The high bit of each byte of `x` that equals the byte repeated in `pattern` (exact: no carries). */
function bytesEqual(x: number, pattern: number): number {
  const t = x ^ pattern;
  return ~(((t & 0x7f7f7f7f) + 0x7f7f7f7f) | t | 0x7f7f7f7f);
}

/** How many bytes of a `bytesEqual` result have their high bit set. */
function countHighBits(mask: number): number {
  return Math.imul((mask >>> 7) & 0x01010101, 0x01010101) >>> 24;
}

/** Whether the line that starts at `chunks[chunk]`, byte `at` holds a `\r` before its line feed. */
function firstKeptLineHasCr(chunks: readonly Buffer[], chunk: number, at: number): boolean {
  for (let index = chunk; index < chunks.length; index++) {
    const bytes = chunks[index]!;
    const from = index === chunk ? at : 0;
    const lineFeed = bytes.indexOf(LF, from);
    const cr = bytes.indexOf(CR, from);
    if (cr >= 0 && (lineFeed < 0 || cr < lineFeed)) return true;
    if (lineFeed >= 0) return false;
  }
  return false;
}
