/**
 * Transcript's write path: chunks are batched into few writes while `size`, `pendingBytes`,
 * `flush()`, the timing index and the `maxBytes` cut stay exact; a slow disk (a FIFO nobody
 * reads yet) shows up in `pendingBytes`; a failing one (/dev/full) is reported once.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { nextEvent } from '../../../../src/core/event.js';
import {
  COMMANDS_LOG,
  META_FILE,
  OUTPUT_LOG,
  TIMING_LOG,
  Transcript,
  WRITE_BATCH_BYTES,
  WRITE_BATCH_MS,
  type SessionMeta,
} from '../../../../src/core/transcript/transcript.js';
import type { CommandRecord } from '../../../../src/core/types.js';

const roots: string[] = [];
const open: Transcript[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()));
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
});

function tempDir(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-transcript-'));
  roots.push(root);
  return path.join(root, 'sessions', 'abc123');
}

function transcript(dir: string, warnings: string[] = [], maxBytes?: number): Transcript {
  const t = new Transcript(dir, (message) => warnings.push(message), { cols: 80, rows: 24, ...(maxBytes === undefined ? {} : { maxBytes }) });
  open.push(t);
  return t;
}

/** Deterministic bytes: chunk `i` of `size` bytes, each byte a function of its offset. */
function chunkAt(offset: number, size: number): Uint8Array {
  const chunk = new Uint8Array(size);
  for (let i = 0; i < size; i++) chunk[i] = (offset + i) % 251;
  return chunk;
}

function expectedBytes(length: number): Buffer {
  return Buffer.from(chunkAt(0, length));
}

/** output.log's size (0 until the stream has opened it). */
function sizeOnDisk(file: string): number {
  return fs.existsSync(file) ? fs.statSync(file).size : 0;
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const meta: SessionMeta = {
  version: 1,
  id: 'abc123',
  name: null,
  creator: { kind: 'agent', client: 'unit 1.0' },
  program: '/bin/bash',
  cwd: '/',
  pid: 1,
  title: '',
  created_at: new Date(0).toISOString(),
  closed_at: null,
  exit_code: null,
  last_exit_code: null,
  rows: 24,
  cols: 80,
};

describe('Transcript batching', () => {
  it('writes PTY-sized chunks (one per event-loop turn, as node-pty delivers them) in far fewer writes, byte-exact', async () => {
    // The batch timer runs on a fake clock that moves 1 ms per chunk (a chunk a millisecond, a
    // brisk PTY), so the count of timer-driven writes is the clock's, not the machine's. The
    // writes themselves, and the event-loop turns between chunks, are real.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      const dir = tempDir();
      const t = transcript(dir);
      let writes = 0;
      t.onDidWrite(() => writes++);
      const sizes = [4095, 4096, 1, 2000, 17, 4095, 300];
      const turns = 400;
      const msPerChunk = 1;
      const file = path.join(dir, OUTPUT_LOG);
      let offset = 0;
      for (let turn = 0; turn < turns; turn++) {
        const size = sizes[turn % sizes.length] ?? 1;
        t.append(chunkAt(offset, size));
        offset += size;
        // Exact at every point: the next chunk's offset; pending is what is not on disk yet.
        expect(t.size).toBe(offset);
        expect(t.pendingBytes).toBeLessThanOrEqual(offset);
        expect(t.pendingBytes).toBeGreaterThanOrEqual(offset - sizeOnDisk(file));
        await vi.advanceTimersByTimeAsync(msPerChunk);
        await nextTurn();
      }
      await t.flush();
      expect(t.pendingBytes).toBe(0);
      expect(fs.readFileSync(file).equals(expectedBytes(offset))).toBe(true);
      // A write per WRITE_BATCH_BYTES, plus at most one per WRITE_BATCH_MS of the clock for
      // what waited for the timer, plus the flush: not one per chunk.
      expect(writes).toBeGreaterThan(0);
      expect(writes).toBeLessThanOrEqual(Math.ceil(offset / WRITE_BATCH_BYTES) + Math.floor((turns * msPerChunk) / WRITE_BATCH_MS) + 2);
      expect(writes).toBeLessThan(turns);
    } finally {
      vi.useRealTimers();
    }
  });

  it('puts a small output on disk by itself, without a flush or more output', async () => {
    const dir = tempDir();
    const t = transcript(dir);
    const written = nextEvent(t.onDidWrite);
    t.append(new TextEncoder().encode('hi\r\n'));
    expect(t.pendingBytes).toBe(4);
    expect(await written.promise).toBe(0);
    expect(fs.readFileSync(path.join(dir, OUTPUT_LOG), 'utf8')).toBe('hi\r\n');
  });

  it('keeps the timing index on chunk boundaries and the output.log cut at maxBytes exact', async () => {
    const dir = tempDir();
    const warnings: string[] = [];
    const t = transcript(dir, warnings, 100_000);
    t.writeMeta(meta);
    const starts = new Set<number>();
    let offset = 0;
    for (const size of [30_000, 30_000, 30_000, 30_000, 30_000]) {
      starts.add(offset);
      t.append(chunkAt(offset, size));
      offset += size;
    }
    expect(t.size).toBe(150_000);
    expect(t.cut).toEqual({ at: 100_000, reason: 'it reached the transcriptMaxBytes setting' });
    await t.close();
    expect(fs.readFileSync(path.join(dir, OUTPUT_LOG)).equals(expectedBytes(100_000))).toBe(true);
    expect(JSON.parse(fs.readFileSync(path.join(dir, META_FILE), 'utf8'))).toMatchObject({ transcript_truncated_at: 100_000 });
    expect(warnings).toEqual([expect.stringContaining('transcriptMaxBytes')]);
    const entries = fs
      .readFileSync(path.join(dir, TIMING_LOG), 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => JSON.parse(line) as [number, number]);
    // 64 KB apart at most; each at a chunk's start, within what output.log holds.
    expect(entries.map(([, at]) => at)).toEqual([0, 90_000]);
    for (const [, at] of entries) expect(starts.has(at) && at < 100_000).toBe(true);
  });

  it('close() resolves for every caller only once its files are closed', async () => {
    const dir = tempDir();
    const t = transcript(dir);
    t.append(chunkAt(0, 100));
    await t.flush();
    const openFiles = (): string[] =>
      fs.readdirSync('/proc/self/fd').flatMap((fd) => {
        try {
          const target = fs.readlinkSync(`/proc/self/fd/${fd}`);
          return target.startsWith(dir) ? [target] : [];
        } catch {
          return []; // closed meanwhile
        }
      });
    expect(openFiles()).toContain(path.join(dir, OUTPUT_LOG));
    // A session's close and its exit both dispose it: the second caller must not return early.
    const first = t.close();
    await t.close();
    expect(openFiles()).toEqual([]);
    await first;
  });

  it('close() writes what is still gathered', async () => {
    const dir = tempDir();
    const t = transcript(dir);
    t.append(chunkAt(0, 100));
    t.append(chunkAt(100, 200));
    await t.close();
    expect(fs.readFileSync(path.join(dir, OUTPUT_LOG)).equals(expectedBytes(300))).toBe(true);
  });
});

describe('Transcript on a slow disk', () => {
  it('counts everything queued in pendingBytes until the reader takes it, then reports the drain', async () => {
    const dir = tempDir();
    fs.mkdirSync(dir, { recursive: true });
    const fifo = path.join(dir, OUTPUT_LOG);
    execFileSync('mkfifo', [fifo]);
    const t = transcript(dir);
    // Nobody reads the FIFO yet: its open does not even complete, so nothing can be written.
    const total = 3 * 1024 * 1024 + 123;
    for (let offset = 0; offset < total; offset += 4096) t.append(chunkAt(offset, Math.min(4096, total - offset)));
    expect(t.pendingBytes).toBe(total);
    await nextTurn();
    expect(t.pendingBytes).toBe(total);

    const drained = nextEvent(t.onDidWrite, (pending) => pending === 0);
    const received: Buffer[] = [];
    let bytes = 0;
    const reader = fs.createReadStream(fifo);
    const all = new Promise<void>((resolve, reject) => {
      reader.on('data', (chunk) => {
        received.push(chunk as Buffer);
        bytes += chunk.length;
        if (bytes >= total) resolve();
      });
      reader.on('error', reject);
    });
    await Promise.all([drained.promise, all]);
    reader.destroy();
    expect(t.pendingBytes).toBe(0);
    expect(Buffer.concat(received).equals(expectedBytes(total))).toBe(true);
  });
});

describe('Transcript on a full disk', () => {
  it('reports the first failure once, stops queueing, keeps commands.jsonl and records the failure in meta.json', async () => {
    const dir = tempDir();
    fs.mkdirSync(dir, { recursive: true });
    fs.symlinkSync('/dev/full', path.join(dir, OUTPUT_LOG));
    const warnings: string[] = [];
    const t = transcript(dir, warnings);
    t.writeMeta(meta);
    const failed = nextEvent(t.onDidWrite, (pending) => pending === 0);
    t.append(chunkAt(0, 10));
    await failed.promise;
    for (let i = 0; i < 100; i++) t.append(chunkAt(0, 70_000));
    expect(t.pendingBytes).toBe(0);
    expect(t.size).toBe(10 + 100 * 70_000);
    await t.flush();
    const record = { seq: 1, command: 'true', exit_code: 0 } as unknown as CommandRecord;
    t.appendCommand(record);
    t.resize(100, 40);
    await t.close();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/abc123: writing output\.log failed \(ENOSPC\)/);
    expect(JSON.parse(fs.readFileSync(path.join(dir, META_FILE), 'utf8'))).toMatchObject({ transcript_failed_at: 0, transcript_error: 'ENOSPC' });
    expect(fs.readFileSync(path.join(dir, COMMANDS_LOG), 'utf8')).toBe(`${JSON.stringify(record)}\n`);
  });
});
