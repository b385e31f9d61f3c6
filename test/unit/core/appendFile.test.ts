/**
 * AppendFile: one `writev` in flight, what is appended meanwhile joins the next one, in order
 * (also what came before the file opened);
 * `whenWritten` and `close` wait for everything appended; a failing file (/dev/full) reports
 * its error once and keeps nothing. Floods go out with direct I/O (Linux), byte for byte
 * around unaligned starts and ends; the bytes after the last whole block are held back until
 * more comes, `HELD_BACK_MS` passes or someone waits; a direct write the file system refuses is
 * written through the page cache, which the file then keeps to.
 *
 * Direct I/O is Linux's (`O_DIRECT`; macOS has none): the flood tests say so in their names
 * and assert, where the file system takes `O_DIRECT` (the test's own probe, not AppendFile's),
 * the direct path, and elsewhere the documented fallback: every byte through the page cache,
 * nothing held back. Either way the file holds exactly the bytes appended.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AppendFile, DIRECT_MIN_BYTES } from '../../../src/core/appendFile.js';
import { packageRoot } from '../../../src/packageInfo.js';
import { within } from '../../integration/helpers/within.js';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
});

function tempFile(dir = os.tmpdir()): string {
  const root = fs.mkdtempSync(path.join(dir, 'sb-append-'));
  roots.push(root);
  return path.join(root, 'output.log');
}

/** tmpfs takes direct writes of any alignment; a refusal needs a disk's file system (ext4 here). */
const TMPFS_MAGIC = 0x01021994;
function onDisk(): string {
  if (fs.statfsSync(os.tmpdir()).type !== TMPFS_MAGIC) return os.tmpdir();
  const dir = path.join(packageRoot(), 'node_modules', '.cache');
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * Whether files in `dir` open with O_DIRECT: the test's own open(2), independent of AppendFile.
 * False where Node has no such flag (macOS) or the file system refuses it.
 */
function takesDirectIo(dir: string): boolean {
  const flag = fs.constants.O_DIRECT;
  if (flag === undefined) return false;
  const probe = path.join(dir, `.direct-probe-${process.pid}`);
  try {
    fs.closeSync(fs.openSync(probe, fs.constants.O_WRONLY | fs.constants.O_CREAT | flag, 0o600));
    return true;
  } catch {
    return false;
  } finally {
    fs.rmSync(probe, { force: true });
  }
}

/** Direct I/O where these tests' files live (os.tmpdir()): Linux, on a file system that takes it. */
const DIRECT = takesDirectIo(os.tmpdir());

/** `count` chunks of 1–8 191 bytes of varied content (a deterministic sequence). */
function floodChunks(count: number, seed: number): Buffer[] {
  const chunks: Buffer[] = [];
  let x = seed;
  for (let i = 0; i < count; i++) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    const chunk = Buffer.alloc(1 + (x % 8191));
    for (let j = 0; j < chunk.length; j++) chunk[j] = (x + i * 31 + j * 7) & 0xff;
    chunks.push(chunk);
  }
  return chunks;
}

/** An `onWritten` that also lets a test wait for the next write. */
function writes(): { onWritten: (error?: NodeJS.ErrnoException) => void; next: () => Promise<void>; count: () => number } {
  let count = 0;
  let waiting: (() => void)[] = [];
  return {
    onWritten: () => {
      count++;
      const resolve = waiting;
      waiting = [];
      for (const done of resolve) done();
    },
    next: () => new Promise((resolve) => waiting.push(resolve)),
    count: () => count,
  };
}

describe('AppendFile', () => {
  it('writes appends made while a write is in flight together, in order, and counts them until written', async () => {
    const file = tempFile();
    const results: (NodeJS.ErrnoException | undefined)[] = [];
    const out = new AppendFile(file, (error) => results.push(error));
    const expected: Buffer[] = [Buffer.from('opened\n')];
    out.append(expected);
    await out.whenWritten();
    // One append starts a write; the 199 made before it completes wait and go out as one.
    for (let i = 0; i < 200; i++) {
      const chunk = Buffer.from(`line ${i}\n`);
      expected.push(chunk);
      out.append([chunk]);
    }
    const total = Buffer.concat(expected).length;
    expect(out.pendingBytes).toBe(total - expected[0]!.length);
    await out.whenWritten();
    expect(out.pendingBytes).toBe(0);
    expect(out.written).toBe(total);
    expect(results).toEqual([undefined, undefined, undefined]);
    await out.close();
    expect(fs.readFileSync(file).equals(Buffer.concat(expected))).toBe(true);
  });

  it('writes what was appended before the file opened in one write', async () => {
    const file = tempFile();
    let writes = 0;
    const out = new AppendFile(file, () => writes++);
    for (let i = 0; i < 50; i++) out.append([Buffer.from(`${i},`)]);
    await out.close();
    expect(writes).toBe(1);
    expect(fs.readFileSync(file, 'utf8')).toBe(Array.from({ length: 50 }, (_, i) => `${i},`).join(''));
  });

  it('close() writes what is queued first, and every caller gets the same promise', async () => {
    const file = tempFile();
    const out = new AppendFile(file, () => undefined);
    out.append([Buffer.from('a'), Buffer.alloc(0), Buffer.from('bc')]);
    const closing = out.close();
    expect(out.close()).toBe(closing);
    await closing;
    out.append([Buffer.from('after close')]);
    expect(fs.readFileSync(file, 'utf8')).toBe('abc');
  });

  it('reports a failing file once, with nothing written, and drops what is queued', async () => {
    const file = tempFile();
    fs.symlinkSync('/dev/full', file);
    const errors: string[] = [];
    const out = new AppendFile(file, (error) => errors.push(error?.code ?? 'ok'));
    out.append([Buffer.alloc(10)]);
    await out.whenWritten();
    out.append([Buffer.alloc(10)]);
    await out.whenWritten();
    await out.close();
    expect(errors).toEqual(['ENOSPC']);
    expect(out.failure?.code).toBe('ENOSPC');
    expect(out.written).toBe(0);
    expect(out.pendingBytes).toBe(0);
  });

  it('writes a flood with direct I/O on Linux (through the page cache where there is none), byte for byte, when the file ends mid-block', async () => {
    const file = tempFile();
    const out = new AppendFile(file, () => undefined);
    const expected: Buffer[] = [Buffer.from('x'.repeat(1234))];
    out.append(expected);
    await out.whenWritten();
    // One append of ~1.2 MB: the 2 862 bytes that finish the first block through the page
    // cache, then whole blocks direct, the last partial block when asked for.
    const flood = floodChunks(300, 7);
    expected.push(...flood);
    out.append(flood);
    const second = floodChunks(120, 11);
    expected.push(...second);
    out.append(second);
    await out.whenWritten();
    const total = Buffer.concat(expected).length;
    expect(out.written).toBe(total);
    expect(out.pendingBytes).toBe(0);
    if (DIRECT) expect(out.directWritten).toBeGreaterThan(total - 1234 - 2 * 4096 - 2 * DIRECT_MIN_BYTES);
    else expect(out.directWritten).toBe(0);
    expect(out.directWritten % 4096).toBe(0);
    await out.close();
    expect(fs.readFileSync(file).equals(Buffer.concat(expected))).toBe(true);
  });

  it('on Linux holds back the bytes after the last whole block until more comes or its timer passes (elsewhere writes them at once)', async () => {
    const file = tempFile();
    const written = writes();
    const out = new AppendFile(file, written.onWritten);
    const first = Buffer.alloc(DIRECT_MIN_BYTES + 100, 1);
    let wrote = written.next();
    out.append([first]);
    if (!DIRECT) {
      // Through the page cache, one write of everything: nothing waits for a block to fill.
      await within(wrote, 5_000, 'the write');
      expect(out.written).toBe(first.length);
      expect(out.pendingBytes).toBe(0);
      expect(out.directWritten).toBe(0);
      await out.close();
      return;
    }
    await within(wrote, 5_000, 'the direct write');
    expect(out.written).toBe(DIRECT_MIN_BYTES);
    expect(out.pendingBytes).toBe(100);
    expect(fs.statSync(file).size).toBe(DIRECT_MIN_BYTES);
    // Nothing more comes: the 100 bytes go through the page cache after HELD_BACK_MS.
    wrote = written.next();
    await within(wrote, 5_000, 'the held-back bytes written on their timer');
    expect(fs.statSync(file).size).toBe(DIRECT_MIN_BYTES + 100);
    expect(out.pendingBytes).toBe(0);
    await out.close();
  });

  it('on Linux starts the next direct write with the held-back bytes when more comes before the timer (elsewhere: the page cache)', async () => {
    const file = tempFile();
    const out = new AppendFile(file, () => undefined);
    // The first direct write takes `first` and holds back its last 100 bytes; `second`, queued
    // meanwhile, follows them in the next one: 100 + 262 049 bytes, 64 whole blocks and 5 bytes.
    const first = Buffer.alloc(DIRECT_MIN_BYTES + 100, 1);
    const second = Buffer.alloc(DIRECT_MIN_BYTES - 95, 2);
    out.append([first]);
    out.append([second]);
    await out.close();
    expect(fs.readFileSync(file).equals(Buffer.concat([first, second]))).toBe(true);
    expect(out.directWritten).toBe(DIRECT ? 2 * DIRECT_MIN_BYTES : 0);
  });

  it('whenWritten writes held-back bytes (Linux) at once, without waiting for their timer', async () => {
    const file = tempFile();
    const written = writes();
    // The timer would wait a minute: only whenWritten itself can get the last bytes written.
    const out = new AppendFile(file, written.onWritten, { heldBackMs: 60_000 });
    // Asked while the direct write is in flight…
    const first = Buffer.alloc(DIRECT_MIN_BYTES + 5_000, 9);
    out.append([first]);
    await within(out.whenWritten(), 5_000, 'the held-back bytes written for a wait begun during the direct write');
    expect(fs.statSync(file).size).toBe(first.length);
    // …and asked after it, while the bytes wait for their timer (the file is aligned again
    // once the 3 192 bytes that finish its block went through the page cache).
    const second = Buffer.alloc(DIRECT_MIN_BYTES + 3_192 + 700, 8);
    let wrote = written.next();
    out.append([second]);
    if (!DIRECT) {
      // Through the page cache: one write of all of it, nothing held back for whenWritten.
      await within(wrote, 5_000, 'the write');
      expect(out.pendingBytes).toBe(0);
      expect(fs.readFileSync(file).equals(Buffer.concat([first, second]))).toBe(true);
      expect(out.directWritten).toBe(0);
      await out.close();
      return;
    }
    await within(wrote, 5_000, 'the bytes that finish the block');
    wrote = written.next();
    await within(wrote, 5_000, 'the direct write');
    expect(out.pendingBytes).toBe(700);
    await within(out.whenWritten(), 5_000, 'the held-back bytes written for a wait begun after the direct write');
    expect(fs.readFileSync(file).equals(Buffer.concat([first, second]))).toBe(true);
    expect(out.pendingBytes).toBe(0);
    await out.close();
  });

  it('on Linux writes through the page cache for good once the file system refuses a direct write (elsewhere it always does)', async () => {
    // 1 000-byte alignment: offsets and lengths a disk's file system refuses (EINVAL).
    const file = tempFile(onDisk());
    const out = new AppendFile(file, () => undefined, { directAlignment: 1000 });
    const expected = floodChunks(100, 3);
    out.append(expected);
    await out.whenWritten();
    const more = floodChunks(100, 5);
    expected.push(...more);
    out.append(more);
    await out.close();
    expect(fs.readFileSync(file).equals(Buffer.concat(expected))).toBe(true);
    expect(out.written).toBe(Buffer.concat(expected).length);
    expect(out.directWritten).toBe(0);
  });
});
