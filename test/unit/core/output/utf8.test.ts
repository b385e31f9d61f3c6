/**
 * Decoding output that arrives in PTY-sized chunks, of which some consumers decode only a part
 * (src/core/output/utf8.ts, recentOutput.ts, the emulator): a character cut between two chunks is read
 * whole wherever the decode starts again, and bytes that are not UTF-8 read as U+FFFD.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Emulator, loadEmulator } from '../../../../src/core/emulation/emulator.js';
import { Utf8Pieces, openUtf8Length, wellFormedUtf8 } from '../../../../src/core/output/utf8.js';

const bytes = (text: string): Buffer => Buffer.from(text);
/** `text` as chunks cut at the given byte offsets. */
function cut(text: string, ...at: number[]): Buffer[] {
  const all = bytes(text);
  const edges = [0, ...at, all.length];
  return edges.slice(1).map((end, i) => all.subarray(edges[i], end));
}

describe('openUtf8Length', () => {
  it('counts the bytes of a character the end leaves unfinished', () => {
    expect(openUtf8Length(bytes('ab'))).toBe(0);
    expect(openUtf8Length(bytes('a界'))).toBe(0);
    expect(openUtf8Length(bytes('a界').subarray(0, 2))).toBe(1); // the lead of 界 (E7 95 8C)
    expect(openUtf8Length(bytes('a界').subarray(0, 3))).toBe(2);
    expect(openUtf8Length(bytes('😀').subarray(0, 3))).toBe(3);
    expect(openUtf8Length(Buffer.from([0x61, 0x80]))).toBe(0); // a stray continuation byte opens nothing
  });
});

describe('Utf8Pieces', () => {
  it('cuts chunks at character boundaries, even a stream that comes one byte at a time', () => {
    const pieces = new Utf8Pieces();
    const taken = cut('a界b😀c', 2, 3, 5, 6, 7).map((chunk) => Buffer.from(pieces.take(chunk)).toString());
    expect(taken).toEqual(['a', '', '界b', '', '', '😀c']);
  });

  it('after passed chunks, starts with the character they left open', () => {
    const pieces = new Utf8Pieces();
    const [first, second, third] = cut('xx界yy😀zz', 3, 8);
    pieces.pass(first!); // ends inside 界
    pieces.pass(second!); // finishes 界, ends inside 😀
    expect(Buffer.from(pieces.take(third!)).toString()).toBe('😀zz');
    expect(pieces.end()).toHaveLength(0);
  });

  it('at the end, gives the bytes of the character the stream ends inside', () => {
    const pieces = new Utf8Pieces(bytes('界').subarray(0, 1));
    expect(pieces.take(bytes('界').subarray(1, 2))).toHaveLength(0);
    expect([...pieces.end()]).toEqual([...bytes('界').subarray(0, 2)]);
  });

  it('pieces made well-formed are valid UTF-8 each, and read exactly as one streaming decode of the whole stream, invalid bytes included', () => {
    // Random streams of characters, stray continuation bytes, cut and invalid sequences, split at random.
    let seed = 7;
    const random = (n: number): number => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % n;
    const atoms = [
      bytes('a'),
      bytes('é'),
      bytes('界'),
      bytes('😀'),
      Buffer.from([0x80]),
      Buffer.from([0xff]),
      Buffer.from([0xe0, 0x80]),
      Buffer.from([0xf0, 0x9f]),
      Buffer.from([0xed, 0xa0, 0x80]),
      bytes('\n'),
    ];
    /** A random stream and its pieces, each chunk passed over with probability `passOdds`. */
    const piecesOfRandomStream = (passOdds: number): { stream: Buffer; out: Uint8Array[] } => {
      const stream = Buffer.concat(Array.from({ length: 1 + random(40) }, () => atoms[random(atoms.length)]!));
      const pieces = new Utf8Pieces();
      const out: Uint8Array[] = [];
      for (let at = 0; at < stream.length;) {
        const step = 1 + random(6);
        const chunk = stream.subarray(at, at + step);
        at += step;
        if (random(100) < passOdds) pieces.pass(chunk);
        else out.push(wellFormedUtf8(pieces.take(chunk)));
      }
      out.push(wellFormedUtf8(pieces.end()));
      return { stream, out };
    };
    for (let round = 0; round < 200; round++) {
      for (const piece of piecesOfRandomStream(25).out) expect(() => new TextDecoder('utf-8', { fatal: true }).decode(piece)).not.toThrow();
    }
    // Every chunk taken: the pieces add up to what the emulator's streaming decode reads.
    for (let round = 0; round < 200; round++) {
      const { stream, out } = piecesOfRandomStream(0);
      expect(Buffer.concat(out).toString('utf8')).toBe(new TextDecoder().decode(stream));
    }
  });

  it('leaves valid UTF-8 as it is (no copy)', () => {
    const valid = bytes('a界😀');
    expect(wellFormedUtf8(valid)).toBe(valid);
    expect(Buffer.from(wellFormedUtf8(Buffer.from([0x61, 0xc3]))).toString()).toBe('a\ufffd');
  });
});

describe('the emulator reads bytes', () => {
  beforeAll(() => loadEmulator());

  it('shows a character cut between writes whole, invalid bytes as U+FFFD, and an unfinished one at the end as U+FFFD', async () => {
    const emulator = new Emulator({ cols: 40, rows: 5, scrollback: 10, nonce: 'n', headLines: 10 });
    let offset = 0;
    for (const chunk of [...cut('a界b', 2, 3), Buffer.from([0x63, 0xff]), bytes('d😀').subarray(0, 3)]) {
      emulator.write(chunk, offset, (offset += chunk.length));
    }
    emulator.end(offset);
    await emulator.whenParsed();
    expect(emulator.screenLines()[0]).toBe('a界bc\ufffdd\ufffd');
    emulator.dispose();
  });
});
