/**
 * The raw output behind `read` view `new` in `ansi` format (src/core/transcript/recentOutput.ts): read
 * back from a real output.log, from an in-memory ring only where output.log does not hold it
 * (no transcript; past its size cap), every byte accounted for: shown, or counted as left out
 * with the reason when it is not kept anywhere.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RecentOutput } from '../../../../src/core/transcript/recentOutput.js';
import { OUTPUT_LOG, Transcript } from '../../../../src/core/transcript/transcript.js';

const bytes = (text: string): Buffer => Buffer.from(text);

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function transcript(maxBytes?: number): { transcript: Transcript; warnings: string[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-recent-'));
  const warnings: string[] = [];
  const t = new Transcript(dir, (message) => warnings.push(message), { maxBytes });
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  cleanups.push(() => t.close());
  return { transcript: t, warnings };
}

/** What the session does with each chunk: the transcript first (OutputPipe), then the recent output. */
function feed(recent: RecentOutput, t: Transcript | null, ...chunks: Uint8Array[]): void {
  for (const chunk of chunks) {
    t?.append(chunk);
    recent.append(chunk);
  }
}

describe('RecentOutput without a transcript', () => {
  it('leaves a character cut by the latest chunk to the next read, and counts bytes it no longer holds exactly', async () => {
    const recent = new RecentOutput(null, 8);
    const all = bytes('abc界');
    feed(recent, null, all.subarray(0, 4)); // the second chunk holds the rest of 界
    expect(recent.end).toBe(3);
    expect(await recent.since(0)).toEqual({ text: 'abc', skipped: 0, notKept: null, end: 3 });
    feed(recent, null, all.subarray(4));
    expect(await recent.since(3)).toEqual({ text: '界', skipped: 0, notKept: null, end: 6 });
    // Past its 8 bytes the oldest go: a read from 0 is told how many it missed, and the rest of
    // a character whose start went with them is not shown as U+FFFD.
    feed(recent, null, bytes('defghijk'));
    const fromStart = await recent.since(0);
    expect(fromStart).toMatchObject({ text: 'defghijk', skipped: 6 });
    expect(fromStart.notKept).toMatch(/no transcript/);
    feed(recent, null, bytes('é').subarray(0, 1), bytes('é').subarray(1), bytes('0123456')); // the ring now starts with é's second byte
    expect(await recent.since(14)).toMatchObject({ text: '0123456', skipped: 2 });
  });
});

describe('RecentOutput with a transcript', () => {
  it('reads what output.log holds, whole characters, the last `capacity` bytes at most', async () => {
    const { transcript: t } = transcript();
    const recent = new RecentOutput(t, 16);
    const text = bytes('line one\r\n\x1b[31m界\x1b[0m two\r\n');
    // Cut inside 界: the first read stops before it, the next starts with it.
    const inside = text.indexOf(bytes('界')) + 1;
    feed(recent, t, text.subarray(0, inside));
    expect(await recent.since(0)).toEqual({ text: 'line one\r\n\x1b[31m', skipped: 0, notKept: null, end: inside - 1 });
    feed(recent, t, text.subarray(inside));
    const rest = await recent.since(inside - 1);
    expect(rest).toEqual({ text: '界\x1b[0m two\r\n', skipped: 0, notKept: null, end: text.length });
    // From the start: only the last 16 bytes, the rest left out but still on disk (no reason).
    const all = await recent.since(0);
    expect(all.skipped).toBe(text.length - Buffer.byteLength(all.text));
    expect(all.notKept).toBeNull();
    expect(Buffer.byteLength(all.text)).toBeLessThanOrEqual(16);
    expect(text.toString().endsWith(all.text)).toBe(true);
    // Every byte came from the file: it is the same stream.
    expect(fs.readFileSync(t.outputFile)).toEqual(text);
  });

  it('keeps what output.log no longer takes once it reaches its cap, and says where it stops', async () => {
    const { transcript: t, warnings } = transcript(10);
    const recent = new RecentOutput(t, 1024);
    feed(recent, t, bytes('0123456'), bytes('789abcdef'), bytes('ghij'));
    expect(warnings.join()).toMatch(/transcriptMaxBytes/);
    expect(t.cut?.at).toBe(10);
    // The first 10 bytes from output.log, the rest from the ring started with the chunk the cap fell in.
    expect(await recent.since(0)).toEqual({ text: '0123456789abcdefghij', skipped: 0, notKept: null, end: 20 });
    expect(await recent.since(12)).toEqual({ text: 'cdefghij', skipped: 0, notKept: null, end: 20 });
  });

  it('counts bytes neither output.log nor the ring holds, and says why (a failed write)', async () => {
    // output.log on /dev/full: its first write fails (ENOSPC), which the transcript learns
    // after the chunk went by, so the ring starts one chunk late.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-recent-full-'));
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    fs.symlinkSync('/dev/full', path.join(dir, OUTPUT_LOG));
    const t = new Transcript(dir, () => {});
    cleanups.push(() => t.close());
    const recent = new RecentOutput(t, 1024);
    feed(recent, t, bytes('abcd'));
    await t.flush();
    expect(t.cut).toMatchObject({ at: 0 });
    feed(recent, t, bytes('efgh'));
    const read = await recent.since(0);
    expect(read).toMatchObject({ text: 'efgh', skipped: 4 });
    expect(read.notKept).toBe('output.log stops at byte 0: writing it failed (ENOSPC)');
  });

  it('counts what it cannot read back from output.log, and says why (the file is gone)', async () => {
    const { transcript: t } = transcript();
    const recent = new RecentOutput(t, 1024);
    feed(recent, t, bytes('kept on disk\r\n'));
    await t.flush();
    fs.rmSync(t.outputFile);
    const read = await recent.since(0);
    expect(read).toMatchObject({ text: '', skipped: 14 });
    expect(read.notKept).toBe('output.log could not be read (ENOENT)');
  });
});
