/**
 * Decoding output that arrives in PTY-sized chunks, of which some consumers decode only a part
 * (src/core/utf8.ts, outputRing.ts, the emulator): a character cut between two chunks is read
 * whole wherever the decode starts again, and bytes that are not UTF-8 read as U+FFFD.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Emulator, loadEmulator } from '../../../src/core/emulator.js';
import { OutputRing } from '../../../src/core/outputRing.js';
import { ResumableUtf8Decoder, openUtf8Length } from '../../../src/core/utf8.js';

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

describe('ResumableUtf8Decoder', () => {
  it('decodes a character cut between chunks whole, even one byte at a time', () => {
    const decoder = new ResumableUtf8Decoder();
    expect(cut('a界b😀c', 2, 3, 5, 6, 7).map((chunk) => decoder.decode(chunk)).join('')).toBe('a界b😀c');
  });

  it('after skipped chunks, starts with the character they left open', () => {
    const decoder = new ResumableUtf8Decoder();
    const [first, second, third] = cut('xx界yy😀zz', 3, 8);
    decoder.pass(first!); // ends inside 界
    decoder.pass(second!); // finishes 界, ends inside 😀
    expect(decoder.decode(third!)).toBe('😀zz');
    expect(decoder.end()).toBe('');
  });

  it('turns bytes that are not UTF-8, and a character the stream ends inside, into U+FFFD', () => {
    const decoder = new ResumableUtf8Decoder();
    expect(decoder.decode(Buffer.from([0x61, 0xff, 0x62]))).toBe('a\ufffdb');
    expect(decoder.decode(bytes('界').subarray(0, 2))).toBe('');
    expect(decoder.end()).toBe('\ufffd');
  });
});

describe('OutputRing', () => {
  it('leaves a character cut by the latest chunk to the next read, and counts lost bytes exactly', () => {
    const ring = new OutputRing(8);
    const [a, b] = cut('abc界', 4); // the second chunk holds the rest of 界
    ring.append(a!);
    expect(ring.end).toBe(3);
    expect(ring.since(0)).toEqual({ text: 'abc', lost: 0 });
    ring.append(b!);
    expect(ring.since(3)).toEqual({ text: '界', lost: 0 });
    // Past the cap, the oldest chunks go: a read from 0 is told how many bytes it missed, and
    // the rest of a character whose start went with them is not shown as U+FFFD.
    ring.append(bytes('defghijk'));
    expect(ring.since(0)).toEqual({ text: 'defghijk', lost: 6 });
    ring.append(bytes('é').subarray(0, 1));
    ring.append(bytes('é').subarray(1));
    ring.append(bytes('0123456')); // the ring now starts with é's second byte
    expect(ring.since(14)).toEqual({ text: '0123456', lost: 1 });
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
