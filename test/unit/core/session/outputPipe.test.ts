/**
 * OutputPipe's flow control: the PTY is paused when the session's emulator or its transcript
 * falls behind and resumed once both caught up; no byte is dropped meanwhile. The emulator and
 * the transcript are the real ones; the slow disk is a FIFO read only when the test says so.
 * The PTY is a spy recording pause()/resume(): what is tested is the decision, and bytes are
 * pushed by hand so the test controls exactly how much arrives before and after the pause.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { IPty } from 'node-pty';
import { afterEach, describe, expect, it } from 'vitest';
import { Emulator } from '../../../../src/core/emulation/emulator.js';
import { EMULATOR_HIGH_WATERMARK, OutputPipe, TRANSCRIPT_HIGH_WATERMARK, TRANSCRIPT_LOW_WATERMARK } from '../../../../src/core/session/outputPipe.js';
import { OUTPUT_LOG, Transcript } from '../../../../src/core/transcript/transcript.js';

class PtySpy {
  pauses = 0;
  resumes = 0;
  private onResume: (() => void) | null = null;

  pause(): void {
    this.pauses++;
  }

  resume(): void {
    this.resumes++;
    this.onResume?.();
  }

  /** Resolves with what `probe` says at the moment resume() is called. */
  nextResume<T>(probe: () => T): Promise<T> {
    return new Promise((resolve) => {
      this.onResume = () => {
        this.onResume = null;
        resolve(probe());
      };
    });
  }

  get asPty(): IPty {
    return this as unknown as IPty;
  }
}

const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** 64 KiB of 100-column lines. */
const CHUNK = new TextEncoder().encode(`${'x'.repeat(99)}\n`.repeat(655) + 'y'.repeat(36));

async function setup(): Promise<{ dir: string; pty: PtySpy; emulator: Emulator; transcript: Transcript; pipe: OutputPipe; warnings: string[] }> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-pipe-'));
  const dir = path.join(root, 'sessions', 'pipe01');
  fs.mkdirSync(dir, { recursive: true });
  execFileSync('mkfifo', [path.join(dir, OUTPUT_LOG)]);
  const warnings: string[] = [];
  const transcript = new Transcript(dir, (message) => warnings.push(message));
  const emulator = await Emulator.create({ cols: 100, rows: 30, scrollback: 100, nonce: 'n', headLines: 0 });
  const pty = new PtySpy();
  const pipe = new OutputPipe(pty.asPty, emulator, transcript);
  cleanups.push(() => fs.rmSync(root, { recursive: true, force: true }));
  cleanups.push(async () => {
    pipe.dispose();
    emulator.dispose();
    // A FIFO nobody opened for reading holds the stream's open(): open it once to let it go.
    fs.closeSync(fs.openSync(path.join(dir, OUTPUT_LOG), fs.constants.O_RDONLY | fs.constants.O_NONBLOCK));
    await transcript.close();
  });
  return { dir, pty, emulator, transcript, pipe, warnings };
}

/** Reads `total` bytes from the FIFO and checks each one is the byte pushed at that offset. */
function readFifo(file: string, total: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let offset = 0;
    const reader = fs.createReadStream(file);
    reader.on('data', (data) => {
      const chunk = data as Buffer;
      for (let i = 0; i < chunk.length; i++) {
        if (chunk[i] !== CHUNK[(offset + i) % CHUNK.length]) {
          reader.destroy();
          reject(new Error(`byte ${offset + i} differs`));
          return;
        }
      }
      offset += chunk.length;
      if (offset >= total) {
        reader.destroy();
        if (offset === total) resolve();
        else reject(new Error(`read ${offset} bytes, ${total} pushed`));
      }
    });
    reader.on('error', reject);
  });
}

describe('OutputPipe flow control', () => {
  it('pauses the PTY when output.log falls more than the high watermark behind, resumes under the low one, loses nothing', async () => {
    const { dir, pty, emulator, transcript, pipe } = await setup();
    let pushed = 0;
    // The emulator keeps up (each chunk parsed before the next): only the transcript is behind.
    while (transcript.pendingBytes <= TRANSCRIPT_HIGH_WATERMARK) {
      expect(pty.pauses).toBe(0);
      pipe.push(CHUNK);
      pushed += CHUNK.length;
      await emulator.whenParsed();
      expect(emulator.backlog).toBeLessThan(EMULATOR_HIGH_WATERMARK);
    }
    expect(pty.pauses).toBe(1);
    expect(transcript.pendingBytes).toBe(pushed);
    expect(pushed).toBeLessThanOrEqual(TRANSCRIPT_HIGH_WATERMARK + CHUNK.length);
    // What the PTY had already read when it was paused still arrives, and is kept.
    for (let i = 0; i < 3; i++) pipe.push(CHUNK);
    pushed += 3 * CHUNK.length;
    await emulator.whenParsed();
    expect(pty.pauses).toBe(1);
    expect(pty.resumes).toBe(0);

    // The disk catches up: resumed once the queue is under the low watermark, every byte on it.
    const resumedAt = pty.nextResume(() => transcript.pendingBytes);
    await Promise.all([readFifo(path.join(dir, OUTPUT_LOG), pushed), resumedAt]);
    expect(await resumedAt).toBeLessThan(TRANSCRIPT_LOW_WATERMARK);
    expect(pty.resumes).toBe(1);
    expect(transcript.size).toBe(pushed);
    expect(pipe.byteCount).toBe(pushed);
  });

  it('resumes a PTY paused for the disk when writing output.log fails (no queue left to wait for)', async () => {
    const { dir, pty, emulator, transcript, pipe, warnings } = await setup();
    while (pty.pauses === 0) {
      pipe.push(CHUNK);
      await emulator.whenParsed();
    }
    const resumed = pty.nextResume(() => transcript.pendingBytes);
    // A reader that takes a little and goes away: the next write gets EPIPE, far above the low watermark.
    await new Promise<void>((resolve, reject) => {
      const reader = fs.createReadStream(path.join(dir, OUTPUT_LOG), { highWaterMark: 4096 });
      reader.once('data', () => {
        reader.destroy();
        resolve();
      });
      reader.on('error', reject);
    });
    expect(await resumed).toBe(0);
    expect(warnings).toEqual([expect.stringMatching(/writing output\.log failed \(EPIPE\)/)]);
    // The session goes on: later output is counted, never queued.
    pipe.push(CHUNK);
    expect(transcript.pendingBytes).toBe(0);
    expect(pty.pauses).toBe(1);
  });
});
