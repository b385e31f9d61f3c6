/**
 * Fast-forward through a flood (sustained throughput): when the emulator has fallen
 * behind, the oldest queued output that would scroll out of the buffer anyway need not be
 * parsed line by line. Only output whose effect on the terminal is fully known may be skipped:
 *
 *  - text, `\t`, `\b`, `\r`, `\n` move the cursor and print; nothing else;
 *  - SGR sequences (`ESC [ … m`) change the current attributes: they are kept, in order, from
 *    the last that resets every attribute on, and replayed without the text, so the attributes
 *    after the skip are exactly what they were;
 *  - erase in line (`ESC [ K`, `ESC [ 1 K`, …: grep's and gcc's colours put one after every
 *    coloured span) changes only the cursor's row, which leaves the buffer like every row the
 *    text touched, and the column (a wrap pending at the last column is cancelled), which the
 *    kept line's `\r` sets again: it is skipped with the text;
 *  - `ESC ( B` (G0 is ASCII; `tput sgr0` prints it before `ESC [ m`) is replayed once after
 *    the SGRs when the skipped bytes hold one (no other designation passes, so it is the last);
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
 * time (a flood is almost all printable ASCII).
 */

interface SkipPlan {
  /** Bytes to skip from the start of the chunks (always just after a line feed). */
  bytes: number;
  /** Line feeds in the skipped bytes (the tracker counts them as if parsed). */
  lineFeeds: number;
  /** The SGR sequences of the skipped bytes, in order from the last that resets every attribute, to replay instead of them. */
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
 * feeds in them, and what their SGR sequences do to the attributes. It depends on the chunk's
 * bytes alone, so a chunk can be scanned as it arrives (`scanChunk`) and planned later without
 * a second look.
 */
export interface ChunkScan {
  /** The bytes it was made of: a scan is used only for this very Buffer (a cut chunk is a new one). */
  readonly chunk: Buffer;
  readonly plain: number;
  readonly lineFeeds: number;
  /** Whether an SGR in the plain output resets every attribute (`ESC [ m`, `ESC [ 0 ; … m`). */
  readonly resets: boolean;
  /** The SGRs of the plain output from the last that resets on (all of them if none does), joined. */
  readonly sgr: string;
  /** Whether the plain output holds `ESC ( B`. */
  readonly ascii: boolean;
}

/** Scans `chunk` for `planSkip`: one pass, a word at a time where it can (firstStop). */
export function scanChunk(chunk: Buffer): ChunkScan {
  scannedLineFeeds = 0;
  sgrCount = 0;
  sgrResets = false;
  scannedAscii = false;
  const plain = plainLength(chunk);
  // Only the SGRs after the last reset become a string: a coloured flood (grep's) has a few
  // per line, and all but the last line's are overridden.
  let sgr = '';
  for (let index = 0; index < sgrCount; index++) sgr += chunk.toString('latin1', sgrStarts[index]!, sgrEnds[index]!);
  return { chunk, plain, lineFeeds: scannedLineFeeds, resets: sgrResets, sgr, ascii: scannedAscii };
}

/** `replay` followed by `sgr`: `sgr` alone when it resets every attribute first. */
function thenSgr(replay: string, sgr: string, resets: boolean): string {
  return resets ? sgr : replay + sgr;
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
export function planSkip(
  chunks: readonly Buffer[],
  keepLineFeeds: number,
  stop?: { chunk: number },
  scans?: readonly (ChunkScan | undefined)[],
): SkipPlan | null {
  if (stop) stop.chunk = -1;
  if (chunks.length === 0 || startsInsideCharacter(chunks[0]!)) return null;
  const runScans: ChunkScan[] = [];
  /** By chunk: an SGR or `ESC ( B` a read cut at its end, to replay after the chunk's own. */
  const cuts = new Map<number, CutSequence>();
  // Where the plain output ends: chunk `last`, byte `lastEnd`; and the line feeds before it.
  let lineFeeds = 0;
  let last = chunks.length - 1;
  let lastEnd = chunks[last]!.length;
  for (let index = 0; index < chunks.length; index++) {
    const chunk = chunks[index]!;
    const cached = scans?.[index];
    const scan = cached?.chunk === chunk ? cached : scanChunk(chunk);
    runScans.push(scan);
    lineFeeds += scan.lineFeeds;
    if (scan.plain < chunk.length) {
      // A read cut an SGR, an erase in line or a C2 lead in two: the next chunk's scan (from its
      // first byte) read the rest as text, which passes, so the plain output goes on there.
      const next = chunks[index + 1];
      const across = next ? sequenceAcross(chunk, scan.plain, next) : undefined;
      if (across) {
        cuts.set(index, across);
        continue;
      }
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
  // The attributes at the skip's end: its SGRs in order, from the last that resets them all.
  let replay = '';
  let ascii = false;
  for (let index = 0; index < chunk; index++) {
    const scan = runScans[index]!;
    replay = thenSgr(replay, scan.sgr, scan.resets);
    ascii ||= scan.ascii;
    const cut = cuts.get(index);
    if (cut?.sgr) replay = thenSgr(replay, cut.sgr.text, cut.sgr.resets);
    ascii ||= cut?.ascii === true;
  }
  const head = scanChunk(chunks[chunk]!.subarray(0, at)); // the end chunk up to the skip's end
  replay = thenSgr(replay, head.sgr, head.resets);
  if (ascii || head.ascii) replay += DESIGNATE_ASCII;
  // Every line feed of the plain output is skipped but the `keepLineFeeds` after the skip's end.
  return { bytes, lineFeeds: lineFeeds - keepLineFeeds, sgr: replay };
}

/**
 * The sequence that starts at `chunk[from]` and ends in `next`, when it is one a skipped run may
 * hold: an SGR (its text, to replay), an erase in line, or a C2 lead whose next byte makes it
 * text (U+00A0–U+00BF). Undefined otherwise, or when it does not end within `next`'s first bytes.
 */
function sequenceAcross(chunk: Buffer, from: number, next: Buffer): CutSequence | undefined {
  const rest = chunk.length - from;
  if (chunk[from] === C1_LEAD) return rest === 1 && (next[0] ?? 0) >= 0xa0 ? {} : undefined;
  if (chunk[from] !== ESC || rest > MAX_CUT_SEQUENCE) return undefined;
  const joined = Buffer.concat([chunk.subarray(from), next.subarray(0, MAX_CUT_SEQUENCE)]);
  const sgr = sgrEnd(joined, 0);
  if (sgr > rest) return { sgr: { text: joined.toString('latin1', 0, sgr), resets: resetsAll(joined, 2, sgr - 1) } };
  if (eraseInLineEnd(joined, 0) > rest) return {};
  return designatesAscii(joined, 0) && rest < 3 ? { ascii: true } : undefined;
}

/** What a sequence cut by a read does: an SGR to replay, G0 set to ASCII, or nothing (erase in line, a C2 lead). */
interface CutSequence {
  sgr?: { text: string; resets: boolean };
  ascii?: boolean;
}

const DESIGNATE_ASCII = '\x1b(B';

/** Whether `ESC ( B` starts at `at`. */
function designatesAscii(chunk: Buffer, at: number): boolean {
  return chunk[at + 1] === 0x28 && chunk[at + 2] === 0x42;
}

/** Longer SGRs cut by a read end the skip there (a flood's are a few bytes). */
const MAX_CUT_SEQUENCE = 64;

/** Whether `data` starts with a UTF-8 continuation byte: the rest of a character begun (and parsed) before it. */
export function startsInsideCharacter(data: Buffer): boolean {
  return ((data[0] ?? 0) & 0xc0) === 0x80;
}

/**
 * The SGRs `plainLength` found since the last that resets every attribute (start and end
 * offsets, the count, and whether one reset): more results, without an allocation per SGR.
 */
let sgrStarts = new Int32Array(64);
let sgrEnds = new Int32Array(64);
let sgrCount = 0;
let sgrResets = false;
/** Whether `plainLength` passed an `ESC ( B`. */
let scannedAscii = false;

function noteSgr(chunk: Buffer, at: number, end: number): void {
  if (resetsAll(chunk, at + 2, end - 1)) {
    sgrCount = 0;
    sgrResets = true;
  }
  if (sgrCount === sgrStarts.length) {
    const [starts, ends] = [new Int32Array(sgrCount * 2), new Int32Array(sgrCount * 2)];
    starts.set(sgrStarts);
    ends.set(sgrEnds);
    [sgrStarts, sgrEnds] = [starts, ends];
  }
  sgrStarts[sgrCount] = at;
  sgrEnds[sgrCount++] = end;
}

/**
 * Whether SGR parameters (`bytes[from, to)`, between `ESC [` and `m`) reset every attribute
 * first: none, or a first parameter of 0 (`0;31` is reset then red; `01;31` is bold, red).
 */
function resetsAll(bytes: Buffer, from: number, to: number): boolean {
  let at = from;
  while (at < to && bytes[at] === 0x30) at++;
  return at === to || bytes[at] === 0x3b;
}

/** How many bytes at the start of `chunk` are plain output; its SGRs are noted (`noteSgr`). */
function plainLength(chunk: Buffer): number {
  // The chunk's aligned 32-bit words, made once: coloured output stops the scan every few
  // bytes, and a view made per stop was most of the garbage of a `grep --color` flood.
  const wordsAt = (4 - (chunk.byteOffset & 3)) & 3;
  const words = chunk.length > wordsAt + 3 ? new Int32Array(chunk.buffer, chunk.byteOffset + wordsAt, (chunk.length - wordsAt) >> 2) : NO_WORDS;
  let at = 0;
  for (;;) {
    at = firstStop(chunk, at, words, wordsAt);
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
    if (end >= 0) {
      noteSgr(chunk, at, end);
      at = end;
      continue;
    }
    const erased = eraseInLineEnd(chunk, at);
    if (erased >= 0) {
      at = erased;
      continue;
    }
    if (!designatesAscii(chunk, at)) return at;
    scannedAscii = true;
    at += 3;
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

/** Just past the erase in line (`ESC [ 0-9 ; … K`) at `at`, or -1 when it is not one (or not whole here). */
function eraseInLineEnd(chunk: Buffer, at: number): number {
  if (chunk[at + 1] !== 0x5b) return -1;
  for (let i = at + 2; i < chunk.length; i++) {
    const byte = chunk[i]!;
    if (byte === 0x4b) return i + 1;
    if (!((byte >= 0x30 && byte <= 0x39) || byte === 0x3b)) return -1;
  }
  return -1;
}

const NO_WORDS = new Int32Array(0);

/** Line feeds `firstStop` passed over since the caller reset it (a second result, without an allocation). */
let scannedLineFeeds = 0;

/**
 * The first byte at or after `from` that PASSES does not let through (or the length); adds the
 * line feeds before it to `scannedLineFeeds`. `words` are the chunk's bytes from `wordsAt` on
 * (4-byte aligned in memory) as 32-bit words. Aligned stretches are read as words: a
 * word of printable ASCII needs no look at its bytes, nor does one of printable ASCII, `\r` and
 * `\n` (a flood of short lines, like `yes` or `seq`, has one in almost every word).
 */
function firstStop(chunk: Buffer, from: number, words: Int32Array, wordsAt: number): number {
  const length = chunk.length;
  // Module bindings are re-read (and checked) on every use in a loop, locals are not: this loop
  // is most of the scan's cost.
  const passes = PASSES;
  const lineFeed = LF;
  let lineFeeds = 0;
  let at = from;
  for (; at < length && (at < wordsAt || ((at - wordsAt) & 3) !== 0); at++) {
    const byte = chunk[at]!;
    if (passes[byte] === 0) return stopAt(at, lineFeeds);
    if (byte === lineFeed) lineFeeds++;
  }
  const first = (at - wordsAt) >> 2;
  if (at < length && first < words.length) {
    for (let word = first; word < words.length; word++) {
      // Two printable words a turn: the loop's own cost was a large share of the scan.
      if (word + 1 < words.length && (notPrintable(words[word]!) | notPrintable(words[word + 1]!)) === 0) {
        word++;
        continue;
      }
      const x = words[word]!;
      const special = notPrintable(x);
      if (special === 0) continue;
      const lineFeedBytes = bytesEqual(x, 0x0a0a0a0a);
      if ((special & ~(lineFeedBytes | bytesEqual(x, 0x0d0d0d0d))) === 0) {
        lineFeeds += countHighBits(lineFeedBytes);
        continue;
      }
      // A tab, a backspace, UTF-8, or a stop: byte by byte.
      const start = wordsAt + word * 4;
      for (let i = start; i < start + 4; i++) {
        const byte = chunk[i]!;
        if (passes[byte] === 0) return stopAt(i, lineFeeds);
        if (byte === lineFeed) lineFeeds++;
      }
    }
    at = wordsAt + words.length * 4;
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
 * above). Adding 0x60 leaves the high bit of a byte below 0x20 clear, and carries a byte of
 * 0xa0 and above out; adding 1 sets it for 0x7f–0x9f. Exact when every byte is ASCII (no
 * addition carries into the next byte); a byte of 0x80 or above always sets its own bit,
 * whatever a byte before it carries in, so a word with one never passes as printable.
 */
function notPrintable(x: number): number {
  return (~(x + 0x60606060) | (x + 0x01010101)) & 0x80808080;
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
