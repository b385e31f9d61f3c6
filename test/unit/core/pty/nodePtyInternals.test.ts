/**
 * What Switchboard reads of node-pty beyond its typings (src/core/pty/nodePtyInternals.ts), on a
 * real PTY: the installed version is the one it was checked against, and `ptsName` is that
 * PTY's slave device (bytes written to it come out of the master). A failure names what
 * changed, so an upgrade of node-pty stops here rather than in a session.
 */
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as pty from 'node-pty';
import { afterEach, describe, expect, it } from 'vitest';
import { NODE_PTY_VERSION, shapeProblems, slavePath } from '../../../../src/core/pty/nodePtyInternals.js';

const spawned: pty.IPty[] = [];
afterEach(() => {
  for (const p of spawned.splice(0)) p.kill('SIGKILL');
});

function cat(): pty.IPty {
  const p = pty.spawn('cat', [], { name: 'xterm-256color', cols: 80, rows: 24, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
  spawned.push(p);
  return p;
}

describe('node-pty internals', () => {
  it('are read from the node-pty version they were checked against', () => {
    const installed = (createRequire(import.meta.url)('node-pty/package.json') as { version: string }).version;
    expect(
      installed,
      `node-pty ${installed} is installed; nodePtyInternals.ts was checked against ${NODE_PTY_VERSION}: check its getters, then update NODE_PTY_VERSION and the exact version in package.json`,
    ).toBe(NODE_PTY_VERSION);
  });

  it('have the shape they are read with on a live PTY', () => {
    expect(shapeProblems(cat())).toEqual([]);
  });

  it("give that PTY's slave device", async () => {
    const p = cat();
    const slave = slavePath(p);
    expect(slave !== undefined && fs.statSync(slave).isCharacterDevice(), `ptsName ${String(slave)} is not a character device`).toBe(true);
    // Written to the slave as a program would: it comes out of this PTY's master.
    const read = new Promise<void>((resolve) => {
      let output = '';
      p.onData((data) => {
        output += data;
        if (output.includes('pong-through-slave')) resolve();
      });
    });
    const fd = fs.openSync(slave!, 'w');
    try {
      fs.writeSync(fd, 'pong-through-slave\n');
    } finally {
      fs.closeSync(fd);
    }
    await read;
  });
});
