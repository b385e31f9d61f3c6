/**
 * The pty host's read-ahead (ptyHost.ts, setting ptyThread): the worker reads a PTY at most
 * READ_AHEAD_ALONE_BYTES past what this thread has taken, so a stalled main thread (a long
 * parse, a GC) holds the program instead of piling its output up in memory. A writer that
 * never stops records how much it got written; this thread stalls for a second, taking and
 * acknowledging nothing.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { READ_AHEAD_ALONE_BYTES, spawnPty, type HostedPty } from '../../src/core/ptyHost.js';

const MiB = 1024 * 1024;
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

describe('the pty host thread', () => {
  it('reads no further ahead than its read-ahead while this thread takes nothing', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-ptyhost-'));
    const counter = path.join(dir, 'written');
    // Writes 64 KiB at a time for ever; after each write, the total so far.
    const writer = `import os\nn = 0\nb = b'y' * 65535 + b'\\n'\nwhile True:\n    n += os.write(1, b)\n    with open(${JSON.stringify(counter)}, 'w') as f:\n        f.write(str(n))\n`;
    const env = Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
    const pty: HostedPty = await spawnPty('python3', ['-c', writer], { name: 'xterm-256color', cols: 80, rows: 24, cwd: dir, env }, true);
    cleanups.push(() => {
      pty.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    });
    let taken = 0;
    await new Promise<void>((resolve) =>
      pty.onData((data) => {
        taken += data.length;
        if (taken >= MiB) resolve();
      }),
    );
    const before = taken;
    // This thread stalls: no message is taken, none acknowledged, for a second.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1_000);
    const written = Number(fs.readFileSync(counter, 'utf8'));
    // Read ahead (4 MiB), one gathered batch, the terminal's buffer and one write of slack.
    expect(written - before).toBeLessThan(READ_AHEAD_ALONE_BYTES + MiB);
    expect(written - before).toBeGreaterThan(0);
  });
});
