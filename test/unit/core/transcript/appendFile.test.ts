/**
 * AppendFile: one `writev` in flight, what is appended meanwhile joins the next one, in order
 * (also what came before the file opened); a flood of chunks of every size arrives byte for
 * byte; `whenWritten` and `close` wait for everything appended; a failing file (/dev/full)
 * reports its error once and keeps nothing.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AppendFile } from '../../../../src/core/transcript/appendFile.js';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
});

function tempFile(dir = os.tmpdir()): string {
  const root = fs.mkdtempSync(path.join(dir, 'sb-append-'));
  roots.push(root);
  return path.join(root, 'output.log');
}

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

  it('writes a flood of chunks of every size byte for byte, in order', async () => {
    const file = tempFile();
    const out = new AppendFile(file, () => undefined);
    const expected: Buffer[] = [Buffer.from('x'.repeat(1234))];
    out.append(expected);
    await out.whenWritten();
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
    await out.close();
    expect(fs.readFileSync(file).equals(Buffer.concat(expected))).toBe(true);
  });
});
