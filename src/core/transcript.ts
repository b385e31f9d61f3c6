import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CommandRecord } from './types.js';

export const OUTPUT_LOG = 'output.log';
export const COMMANDS_LOG = 'commands.jsonl';

/**
 * A session's append-only record on disk: the raw PTY bytes (`output.log`) and one JSON
 * line per finished command (`commands.jsonl`). A write failure (disk full) never stops the
 * session: it is reported once through `onWarning` and later bytes are still counted.
 */
export class Transcript {
  private readonly output: fs.WriteStream;
  private readonly commands: fs.WriteStream;
  private bytes = 0;
  private failed = false;
  private closed = false;

  constructor(
    readonly dir: string,
    private readonly onWarning: (message: string) => void,
  ) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.output = this.open(OUTPUT_LOG);
    this.commands = this.open(COMMANDS_LOG);
  }

  /** Bytes appended so far: the offset the next chunk starts at. */
  get size(): number {
    return this.bytes;
  }

  append(chunk: Uint8Array): void {
    this.bytes += chunk.length;
    if (!this.failed && !this.closed) this.output.write(chunk);
  }

  appendCommand(record: CommandRecord): void {
    if (!this.failed && !this.closed) this.commands.write(`${JSON.stringify(record)}\n`);
  }

  /** Flushes and closes both files. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([endStream(this.output), endStream(this.commands)]);
  }

  private open(name: string): fs.WriteStream {
    const stream = fs.createWriteStream(path.join(this.dir, name), { flags: 'a', mode: 0o600 });
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (this.failed) return;
      this.failed = true;
      this.onWarning(`transcript writing stopped (${error.code ?? 'error'}); the session goes on`);
    });
    return stream;
  }
}

function endStream(stream: fs.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed || stream.writableFinished) return resolve();
    stream.end(() => resolve());
    stream.once('error', () => resolve());
  });
}
