import * as pty from 'node-pty';
import { EventEmitter, type Event } from '../event.js';
import { queuedInputBytes, slavePath } from './nodePtyInternals.js';

/** Where PTYs are spawned and read: node-pty, on the main thread, behind the few calls a session makes of it. */
export interface HostedPty {
  readonly pid: number;
  /** The slave's device path (e.g. /dev/pts/3), where the platform has one. */
  readonly ptsName: string | undefined;
  /** Output as it is read, in order. Output read before the first listener is kept for it. */
  readonly onData: Event<Uint8Array>;
  /** After the last output was delivered (node-pty reports exit once its reads ended). */
  readonly onExit: Event<{ exitCode: number; signal?: number }>;
  /** Typed by node-pty, in order with `resize`: a string as UTF-8, bytes as they are. */
  write(data: string | Uint8Array): void;
  /** Bytes written that the terminal has not taken yet (the program has not read that far). */
  queuedInput(): number;
  resize(cols: number, rows: number): void;
  /** Flow control: stop reading until `resume` (the program blocks on a full terminal). */
  pause(): void;
  resume(): void;
  kill(signal?: NodeJS.Signals): void;
}

interface PtySpawnOptions {
  name: string;
  cols: number;
  rows: number;
  cwd: string;
  env: Record<string, string>;
}

/** A PTY's output for the session; what was read before anyone listened is kept for the first listener. */
class PtyOutput {
  private readonly emitter = new EventEmitter<Uint8Array>();
  /** Output that arrived before anyone listened (between spawn and the session's setup). */
  private early: Uint8Array[] | null = [];

  readonly event: Event<Uint8Array> = (listener) => {
    const subscription = this.emitter.event(listener);
    const early = this.early;
    this.early = null;
    for (const chunk of early ?? []) listener(chunk);
    return subscription;
  };

  deliver(data: Uint8Array): void {
    if (this.early) this.early.push(data);
    else this.emitter.fire(data);
  }

  /** After the exit (the last output came before it): listeners and unclaimed output let go. */
  dispose(): void {
    this.emitter.dispose();
    this.early = null;
  }
}

/** Starts `file` on a new PTY. Throws node-pty's error when it cannot (the caller words it). */
export function spawnPty(file: string, args: string[], options: PtySpawnOptions): HostedPty {
  const output = new PtyOutput();
  // Bytes, not strings: each consumer decodes what it uses (outputPipe.ts).
  const spawned = pty.spawn(file, args, { ...options, encoding: null });
  spawned.onData((data) => output.deliver(data as unknown as Uint8Array));
  // A session whose setup failed after the spawn never listens: nothing is kept for it.
  spawned.onExit(() => output.dispose());
  return {
    pid: spawned.pid,
    ptsName: slavePath(spawned),
    onData: output.event,
    onExit: (listener) => spawned.onExit(listener),
    write: (data) => spawned.write(typeof data === 'string' ? data : Buffer.from(data)),
    queuedInput: () => queuedInputBytes(spawned),
    resize: (cols, rows) => spawned.resize(cols, rows),
    pause: () => spawned.pause(),
    resume: () => spawned.resume(),
    kill: (signal) => spawned.kill(signal),
  };
}
