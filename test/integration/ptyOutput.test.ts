/**
 * A PTY's output as spawnPty (src/core/pty/spawnPty.ts) delivers it: every byte, in order, each chunk intact
 * after later reads, all of it before the exit is reported.
 */
import { describe, expect, it } from 'vitest';
import { spawnPty } from '../../src/core/pty/spawnPty.js';

describe('PTY output', () => {
  it('delivers every byte in order, each chunk intact, before the exit', async () => {
    // ~1.5 MB: hundreds of reads, so a chunk that shared memory with later reads would be overwritten.
    // The shell then waits for a line (not echoed): a session leader that exits while its output
    // is still in the terminal has the kernel drop that output (hangup), however it is read.
    const printed = Array.from({ length: 200_000 }, (_, i) => `${i + 1}\r\n`).join('');
    const chunks: Buffer[] = [];
    let bytes = 0;
    let printedAll: () => void = () => {};
    const allPrinted = new Promise<void>((resolve) => (printedAll = resolve));
    const options = { name: 'xterm-256color', cols: 80, rows: 24, cwd: process.cwd(), env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } };
    const pty = spawnPty('sh', ['-c', 'stty -echo; seq 1 200000; read line'], options);
    pty.onData((chunk) => {
      chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      bytes += chunk.length;
      if (bytes >= printed.length) printedAll();
    });
    const exited = new Promise<{ exitCode: number }>((resolve) => pty.onExit(resolve));
    await allPrinted;
    pty.write('\r');
    const exit = await exited;

    expect(exit.exitCode).toBe(0);
    expect(chunks.length).toBeGreaterThan(100);
    // The chunks as they were kept. Where they first differ and what is there, rather than a
    // diff of two 1.5 MB strings.
    const expected = printed;
    const got = Buffer.concat(chunks).toString('latin1');
    let at = 0;
    while (at < expected.length && got[at] === expected[at]) at++;
    expect({ length: got.length, firstDifference: at < expected.length ? JSON.stringify(got.slice(at, at + 40)) : null }).toEqual({
      length: expected.length,
      firstDifference: null,
    });
  });
});
