/**
 * A disk slower than the program, with a real shell and PTY: the session's output.log is a FIFO
 * that the test reads only once the program is held back (Linux: /proc). The PTY is
 * paused meanwhile (the queue stays bounded at every chunk), and once the disk catches up every
 * byte the PTY produced is in the file, in order: nothing was dropped.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SESSION_ENV } from '../../src/core/shell/marks.js';
import { TRANSCRIPT_HIGH_WATERMARK } from '../../src/core/session/outputPipe.js';
import { OUTPUT_LOG, Transcript } from '../../src/core/transcript/transcript.js';
import { agent, startBashSession } from './helpers/core.js';

const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Resolves when `check` holds, polling every `everyMs`; rejects at the deadline. */
async function until(check: () => boolean, deadlineMs: number, what: string, everyMs = 20): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out after ${deadlineMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** The write(2) system call's number (`/proc/<pid>/syscall`), on the machines this runs on. */
const WRITE_SYSCALL = process.arch === 'arm64' ? '64' : '1';

/** Whether a process `name` of session `id` sleeps inside write(2) (a full terminal). */
function blockedWriting(id: string, name: string): boolean {
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== name) continue;
      if (!fs.readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes(`${SESSION_ENV}=${id}`)) continue;
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2)[0];
      if (state === 'S' && fs.readFileSync(`/proc/${entry}/syscall`, 'utf8').split(' ')[0] === WRITE_SYSCALL) return true;
    } catch {
      // gone, or not ours to read
    }
  }
  return false;
}

describe('transcript backpressure', () => {
  it('pauses the program while output.log lags, then keeps every byte', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-slowdisk-'));
    cleanups.push(() => fs.rmSync(root, { recursive: true, force: true }));
    const home = path.join(root, 'home');
    const dir = path.join(root, 'sessions', 'slow01');
    fs.mkdirSync(home);
    fs.mkdirSync(dir, { recursive: true });
    const fifo = path.join(dir, OUTPUT_LOG);
    execFileSync('mkfifo', [fifo]);
    // Whatever happens, let a stream still waiting to open the FIFO go, so the session can close.
    cleanups.push(() => fs.closeSync(fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK)));

    const warnings: string[] = [];
    const transcript = new Transcript(dir, (message) => warnings.push(message));
    const session = await startBashSession({
      id: 'slow01',
      home,
      creator: agent,
      transcript,
      onWarning: (message) => warnings.push(message),
      scrollback: 200,
      headLines: 10,
    });
    cleanups.push(() => session.close());

    // The queue, sampled at every chunk the PTY delivers.
    let maxPending = 0;
    const frames = session.onDidFrame(() => (maxPending = Math.max(maxPending, transcript.pendingBytes)));
    cleanups.push(() => frames.dispose());

    const X = 12_000_000;
    let finished = false;
    const running = session.execute({ command: `head -c ${X} /dev/zero | tr '\\0' x; echo; echo done`, timeoutMs: 60_000, maxLines: 10 });
    void running.finally(() => (finished = true));
    // Wait for the stall: the queue past the watermark, no byte arriving between two polls, and
    // `tr` blocked writing to the terminal. Without the pause none of that lasts: the whole
    // output would be queued in memory and the command would end (then the bound below fails).
    let lastSize = -1;
    await until(
      () => {
        if (finished) return true;
        const stalled = transcript.pendingBytes > TRANSCRIPT_HIGH_WATERMARK && transcript.size === lastSize && blockedWriting('slow01', 'tr');
        lastSize = transcript.size;
        return stalled;
      },
      30_000,
      'the program to be held back',
      100,
    );

    // The disk catches up: read the FIFO to the end (the session's close ends the stream).
    const received: Buffer[] = [];
    const reader = fs.createReadStream(fifo);
    reader.on('data', (chunk) => received.push(chunk as Buffer));
    const ended = new Promise<void>((resolve, reject) => {
      reader.on('end', resolve);
      reader.on('error', reject);
    });

    const result = await running;
    expect(result).toMatchObject({ status: 'completed', exit_code: 0 });
    expect(result.output.endsWith('done')).toBe(true);
    frames.dispose();
    await session.close();
    await ended;

    // Bounded: the watermark plus what the PTY had already read when it was paused.
    expect(maxPending).toBeGreaterThan(TRANSCRIPT_HIGH_WATERMARK);
    expect(maxPending).toBeLessThan(TRANSCRIPT_HIGH_WATERMARK + 1024 * 1024);
    // Complete: every byte the PTY produced, the 12 MB run of x's whole and in one piece.
    const log = Buffer.concat(received);
    expect(log.length).toBe(transcript.size);
    const text = log.toString('latin1');
    expect(text.match(/x+/g)?.some((run) => run.length === X)).toBe(true);
    expect(text.includes('x'.repeat(X + 1))).toBe(false);
    expect(warnings).toEqual([]);
  });
});
