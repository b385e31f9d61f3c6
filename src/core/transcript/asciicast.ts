import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { Readable } from 'node:stream';
import { META_FILE, OUTPUT_LOG, TIMING_INTERVAL_BYTES, TIMING_LOG, type SessionMeta, type TimingHeader } from './transcript.js';

/** The terminal type sessions run under (`pty.spawn` name), named in the cast header. */
const CAST_TERM = 'xterm-256color';

/** asciicast v2 header: https://docs.asciinema.org/manual/asciicast/v2/ */
interface AsciicastHeader {
  version: 2;
  width: number;
  height: number;
  timestamp: number;
  title?: string;
  env: { TERM: string; SHELL: string };
}

/**
 * A session directory as an asciicast v2 recording: a readable stream of newline-terminated
 * JSON lines (header, then `[seconds, "o", text]` and `[seconds, "r", "COLSxROWS"]` events).
 * Memory stays bounded whatever the transcript's size: output.log is read in 64 KB slices and
 * decoded with one streaming UTF-8 decoder, so a character split across slices stays whole.
 */
export function exportAsciicast(sessionDir: string): Readable {
  return Readable.from(asciicastLines(sessionDir), { objectMode: false, encoding: 'utf8' });
}

/** The lines of `exportAsciicast`, each ending with `\n`. */
export async function* asciicastLines(sessionDir: string): AsyncGenerator<string> {
  const meta = readJson<SessionMeta>(path.join(sessionDir, META_FILE));
  const output = await openIfExists(path.join(sessionDir, OUTPUT_LOG));
  const timingFile = path.join(sessionDir, TIMING_LOG);
  const timing = fs.existsSync(timingFile) ? readline.createInterface({ input: fs.createReadStream(timingFile), crlfDelay: Infinity }) : null;
  // The iterator must exist before the next await: readline drops lines nobody listens for.
  const lines = timing?.[Symbol.asyncIterator]();
  try {
    const first = lines ? await lines.next() : undefined;
    const timingHeader = first && !first.done ? parseJson<TimingHeader>(first.value) : null;
    const started = timingHeader?.started_at ?? (meta ? Date.parse(meta.created_at) : Date.now());
    const header: AsciicastHeader = {
      version: 2,
      width: timingHeader?.cols ?? meta?.cols ?? 80,
      height: timingHeader?.rows ?? meta?.rows ?? 24,
      timestamp: Math.floor(started / 1000),
      ...(meta?.name ? { title: meta.name } : meta?.title ? { title: meta.title } : {}),
      env: { TERM: CAST_TERM, SHELL: meta?.program ?? '' },
    };
    yield `${JSON.stringify(header)}\n`;
    if (!output) return;

    const reader = new SliceReader(output.handle, output.size);
    // The open segment: bytes from `segmentStart` on arrived at `segmentTime` (ms).
    let segmentTime = 0;
    let segmentStart = 0;
    let lastTime = 0;
    let resizes: { time: number; cols: number; rows: number }[] = [];
    const flushResizes = function* (): Generator<string> {
      for (const r of resizes) {
        lastTime = Math.max(lastTime, r.time);
        yield event(lastTime, 'r', `${r.cols}x${r.rows}`);
      }
      resizes = [];
    };

    if (lines) {
      for (let next = await lines.next(); !next.done; next = await lines.next()) {
        const entry = parseJson<unknown[]>(next.value);
        if (!Array.isArray(entry) || typeof entry[0] !== 'number') continue;
        if (entry[1] === 'r') {
          resizes.push({ time: entry[0], cols: Number(entry[2]), rows: Number(entry[3]) });
          continue;
        }
        const offset = Number(entry[1]);
        if (!Number.isFinite(offset) || offset < segmentStart) continue;
        lastTime = Math.max(lastTime, segmentTime);
        for await (const text of reader.decode(segmentStart, offset)) yield event(lastTime, 'o', text);
        yield* flushResizes();
        segmentTime = entry[0];
        segmentStart = offset;
      }
    }
    lastTime = Math.max(lastTime, segmentTime);
    for await (const text of reader.decode(segmentStart, output.size)) yield event(lastTime, 'o', text);
    const tail = reader.finish();
    if (tail) yield event(lastTime, 'o', tail);
    yield* flushResizes();
  } finally {
    timing?.close();
    await output?.handle.close();
  }
}

/** Reads output.log forward in bounded slices through one streaming decoder. */
class SliceReader {
  private readonly decoder = new TextDecoder('utf-8', { fatal: false });
  private readonly buffer = Buffer.allocUnsafe(TIMING_INTERVAL_BYTES);

  constructor(
    private readonly handle: fsp.FileHandle,
    private readonly size: number,
  ) {}

  /** Text of bytes `[start, end)` (clamped to the file), in pieces of at most 64 KB. */
  async *decode(start: number, end: number): AsyncGenerator<string> {
    let position = Math.min(start, this.size);
    const stop = Math.min(end, this.size);
    while (position < stop) {
      const { bytesRead } = await this.handle.read(this.buffer, 0, Math.min(this.buffer.length, stop - position), position);
      if (bytesRead === 0) return;
      position += bytesRead;
      const text = this.decoder.decode(this.buffer.subarray(0, bytesRead), { stream: true });
      if (text.length > 0) yield text;
    }
  }

  /** A trailing partial character, as U+FFFD. */
  finish(): string {
    return this.decoder.decode();
  }
}

function event(ms: number, code: 'o' | 'r', data: string): string {
  return `[${(ms / 1000).toFixed(3)},"${code}",${JSON.stringify(data)}]\n`;
}

async function openIfExists(file: string): Promise<{ handle: fsp.FileHandle; size: number } | null> {
  try {
    const handle = await fsp.open(file, 'r');
    // A live session's log keeps growing: export what it held when the export started.
    return { handle, size: (await handle.stat()).size };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

function readJson<T>(file: string): T | null {
  try {
    return parseJson<T>(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

function parseJson<T>(text: string): T | null {
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}
