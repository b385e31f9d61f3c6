import { describe, expect, it } from 'vitest';
import { LineReader, OVERFLOW_EDGE_BYTES, type OverflowedLine } from '../../../src/shim/lineReader.js';

function collect(maxBytes: number): { reader: LineReader; lines: string[]; overflows: OverflowedLine[] } {
  const lines: string[] = [];
  const overflows: OverflowedLine[] = [];
  const reader = new LineReader(maxBytes, { line: (l) => lines.push(l), overflow: (o) => overflows.push(o) });
  return { reader, lines, overflows };
}

describe('LineReader', () => {
  it('splits on newlines across chunks, drops a trailing CR, keeps multibyte characters whole', () => {
    const { reader, lines } = collect(1024);
    const euro = Buffer.from('€');
    reader.push(Buffer.concat([Buffer.from('a\r\nb'), euro.subarray(0, 1)]));
    reader.push(Buffer.concat([euro.subarray(1), Buffer.from('c\n\nd')]));
    reader.end();
    expect(lines).toEqual(['a', 'b€c', '', 'd']);
  });

  it('discards an over-long line up to its newline, reports it once with its edges, and goes on', () => {
    const { reader, lines, overflows } = collect(100);
    reader.push(Buffer.from(`{"head":1,${'x'.repeat(60)}`));
    for (let i = 0; i < 1000; i++) reader.push(Buffer.from('y'.repeat(1000)));
    reader.push(Buffer.from(`,"id":7}\nnext\n`));
    expect(overflows).toHaveLength(1);
    const [overflow] = overflows;
    expect(overflow?.bytes).toBe(70 + 1_000_000 + 8);
    expect(overflow?.head.startsWith('{"head":1,')).toBe(true);
    expect(overflow?.head.length).toBe(OVERFLOW_EDGE_BYTES);
    expect(overflow?.tail.endsWith(',"id":7}')).toBe(true);
    expect(overflow?.tail.length).toBe(OVERFLOW_EDGE_BYTES);
    expect(lines).toEqual(['next']);
  });

  it('accepts a line of exactly the cap, and reports an over-long last line at the end of the stream', () => {
    const { reader, lines, overflows } = collect(10);
    reader.push(Buffer.from('0123456789\n01234567890'));
    reader.end();
    expect(lines).toEqual(['0123456789']);
    expect(overflows.map((o) => o.bytes)).toEqual([11]);
  });
});
