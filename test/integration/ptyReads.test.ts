/**
 * PTY output read without node-pty's stream (ptyReads.ts): every read lands in one reused
 * buffer and is copied out, so the chunks a session keeps must stay intact after later reads,
 * and nothing may be lost or reordered on the way to the exit.
 */
import { describe, expect, it } from 'vitest';
import { spawnReadingDirectly } from '../../src/core/ptyReads.js';

describe('PTY reads without the stream', () => {
  it('delivers every byte in order, each chunk in memory of its own, before the exit', async () => {
    // ~1.5 MB: hundreds of reads, so later reads would overwrite a chunk that was not copied.
    // The shell then waits for a line (not echoed): a session leader that exits while its output
    // is still in the terminal has the kernel drop that output (hangup), however it is read.
    const printed = Array.from({ length: 200_000 }, (_, i) => `${i + 1}\r\n`).join('');
    const chunks: Buffer[] = [];
    let bytes = 0;
    let printedAll: () => void = () => {};
    const allPrinted = new Promise<void>((resolve) => (printedAll = resolve));
    let viaEvents = 0;
    const options = { name: 'xterm-256color', cols: 80, rows: 24, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } };
    const { pty, direct } = spawnReadingDirectly('sh', ['-c', 'stty -echo; seq 1 200000; read line'], options, (chunk) => {
      chunks.push(chunk);
      bytes += chunk.length;
      if (bytes >= printed.length) printedAll();
    });
    // node-pty's own events carry nothing while the reads are direct.
    pty.onData(() => viaEvents++);
    const exited = new Promise<{ exitCode: number }>((resolve) => pty.onExit(resolve));
    await allPrinted;
    pty.write('\r');
    const exit = await exited;

    expect(exit.exitCode).toBe(0);
    expect(direct).toBe(true);
    expect(viaEvents).toBe(0);
    expect(chunks.length).toBeGreaterThan(100);
    // The chunks as they were kept. Where they first differ and what is there, rather than a
    // diff of two 1.5 MB strings.
    const expected = printed;
    const got = Buffer.concat(chunks).toString('latin1');
    let at = 0;
    while (at < expected.length && got[at] === expected[at]) at++;
    expect({ length: got.length, firstDifference: at < expected.length ? JSON.stringify(got.slice(at, at + 40)) : null }).toEqual({ length: expected.length, firstDifference: null });
  });
});
