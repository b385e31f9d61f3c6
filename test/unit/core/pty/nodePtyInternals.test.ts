/**
 * What Switchboard reads of node-pty beyond its typings (src/core/pty/nodePtyInternals.ts), on a
 * real PTY: the installed version is the one it was checked against, `ptsName` is that PTY's
 * slave device (bytes written to it come out of the master), and the queued input is counted. A failure names what
 * changed, so an upgrade of node-pty stops here rather than in a session.
 */
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as pty from 'node-pty';
import { afterEach, describe, expect, it } from 'vitest';
import { NODE_PTY_VERSION, queuedInputBytes, shapeProblems, slavePath } from '../../../../src/core/pty/nodePtyInternals.js';
import { pollUntil } from '../../../integration/helpers/poll.js';

const spawned: pty.IPty[] = [];
afterEach(() => {
  for (const p of spawned.splice(0)) p.kill('SIGKILL');
});

function spawn(file: string, args: string[] = []): pty.IPty {
  const p = pty.spawn(file, args, { name: 'xterm-256color', cols: 80, rows: 24, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
  spawned.push(p);
  return p;
}

/** The one-letter state of a process (T: stopped). */
function processState(pid: number): string {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
}

function cat(): pty.IPty {
  return spawn('cat');
}

/** 256 KiB of lines: far more than a terminal's input buffer takes before its program reads. */
const PASTE = 'x'.repeat(1023).concat('\n').repeat(256);

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

  it('count the typed bytes the terminal has not taken: held while the program reads nothing, none once it read them', async () => {
    // Reads nothing until continued, then reads everything (cbreak: no line to wait for).
    const p = spawn('sh', ['-c', 'stty -icanon -echo; kill -STOP $$; exec cat >/dev/null']);
    await pollUntil(() => processState(p.pid) === 'T', 'the program stopping itself');
    p.write(PASTE);
    // The terminal takes what fits (a few KiB); the rest waits in node-pty.
    await pollUntil(() => queuedInputBytes(p) < PASTE.length, 'the terminal taking the first bytes');
    expect(queuedInputBytes(p)).toBeGreaterThan(PASTE.length / 2);
    process.kill(p.pid, 'SIGCONT');
    await pollUntil(() => queuedInputBytes(p) === 0, 'cat reading every byte', { detail: () => `${queuedInputBytes(p)} bytes still queued` });
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
