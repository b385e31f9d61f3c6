import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { EventEmitter, type Event } from './event.js';
import { Inbox } from './inbox.js';
import { spawnReadingDirectly } from './ptyReads.js';

/**
 * Where PTYs are spawned and read. By default node-pty runs on this (the main) thread. With the
 * `ptyThread` setting it runs on a thread of its own (the "pty host", after VS Code's pty host
 * process), so a program's output is drained from the kernel while the main thread parses what
 * came before: on one thread the two take turns, and a `cat` ran at ~0.5–0.8× of node-pty alone
 * on two cores, ~0.75–0.95× with the thread. It is off by default because on two cores the
 * thread crossing on every output chunk cost the other agents' latency during a flood more than
 * the flood gained (docs/decisions.md). Where the worker cannot start, PTYs stay on this thread.
 * Keys and resizes do not come here: ptyInput.ts writes them to the master fd directly.
 */
export interface HostedPty {
  readonly pid: number;
  /** The slave's device path (e.g. /dev/pts/3). */
  readonly ptsName: string;
  /**
   * The master's fd, usable from this thread too (threads share a process's fds), where the
   * platform has one; node-pty closes it once every slave fd is closed (see ptyInput.ts).
   */
  readonly fd: number | undefined;
  /** Output as it is read, in order. Output read before the first listener is kept for it. */
  readonly onData: Event<Uint8Array>;
  /** After the last output was delivered (node-pty reports exit once its reads ended). */
  readonly onExit: Event<{ exitCode: number; signal?: number }>;
  /** Typed by node-pty on the thread that reads the PTY, in order with `resize`. */
  write(data: string): void;
  resize(cols: number, rows: number): void;
  /** Flow control: stop reading until `resume` (the program blocks on a full terminal). */
  pause(): void;
  resume(): void;
  kill(signal?: NodeJS.Signals): void;
}

export interface PtySpawnOptions {
  name: string;
  cols: number;
  rows: number;
  cwd: string;
  env: Record<string, string>;
}

/**
 * Output the pty host may read ahead of the main thread, in bytes posted and not yet taken:
 * past it, the host stops reading that PTY (the program then blocks, as with `pause`) until
 * the main thread has caught up to ACK_BYTES below it. The main thread acknowledges every
 * ACK_BYTES it takes, so small outputs cost no message back.
 *
 * A PTY that floods alone may read further ahead (READ_AHEAD_ALONE_BYTES): the main thread
 * takes a flood in bursts (a batch planned, its kept rows parsed), and 512 KiB is ~9 ms of a
 * `cat` here, so each burst longer than that stopped the program. `cat` with the thread, hubs
 * alternating (9 `cat`s each, median ratio to node-pty alone): 0.72× before, 0.86× after.
 * While other PTYs are active it stays at 512 KiB, as the yield policy below wants: the
 * quiet agents' `execute` during a `yes` flood (two reduced `agents` runs per build) was
 * p50 25.5 and 27.5, p99 102.5 and 138.1 ms before; p50 20.6 and 19.3, p99 106.0 and 68.2 after.
 */
const READ_AHEAD_BYTES = 512 * 1024;
export const READ_AHEAD_ALONE_BYTES = 4 * 1024 * 1024;
const ACK_BYTES = 128 * 1024;

/**
 * How the pty host posts what it read. Each read of a PTY is at most ~4 KB (the line
 * discipline's buffer), and a message costs ~10 µs on each side plus garbage: posted one by
 * one, a 64 MiB `cat` was ~16 000 messages and the main thread's largest cost after parsing.
 * So while a PTY floods (`floodBytes` within `floodWindowMs`) its reads gather for `gatherMs`
 * or up to `gatherBytes`; otherwise (a command's answer, a keystroke's echo) what one turn of
 * the loop read goes out at once.
 */
const POSTING = { floodBytes: 64 * 1024, floodWindowMs: 10, gatherMs: 4, gatherBytes: 256 * 1024 };

/**
 * A flood yields to the other sessions. Read on its own thread, a flood is drained as fast as the
 * main thread takes it and the flooding program (`yes`) runs flat out, taking the cores from the
 * other agents. So while some other PTY printed within `activeWithinMs`, a flooding PTY is not
 * read for `pauseMs` after each batch it posts (the program blocks on a full terminal
 * meanwhile); alone, it is read flat out. Bench `agents` with the thread: the quiet agents'
 * `execute` p50 18–21 → 11–17 ms, the flood 5.5–6.7 → 4.0–4.4 MiB/s; their p99 stays at
 * 59–105 ms (docs/decisions.md).
 */
const YIELDING = { activeWithinMs: 200, pauseMs: 8 };

/**
 * Output taken from the pty host per turn of this thread's event loop (inbox.ts). Node runs a
 * worker's messages back to back, up to 1 000 in one turn: a flood posted in ~4 KB messages
 * (before the host sees it as a flood and gathers) was parsed for 0.2–0.3 s at a time, and
 * meanwhile no socket was read and no timer ran: every other agent waited.
 */
const TAKE_BYTES = 64 * 1024;

type ToHost =
  | { type: 'spawn'; id: number; file: string; args: string[]; options: PtySpawnOptions }
  | { type: 'write'; id: number; data: string }
  | { type: 'resize'; id: number; cols: number; rows: number }
  | { type: 'pause' | 'resume'; id: number }
  | { type: 'ack'; id: number; bytes: number };

type FromHost =
  | { type: 'spawned'; id: number; pid: number; ptsName: string; fd: number }
  | { type: 'spawnFailed'; id: number; message: string }
  | { type: 'data'; id: number; data: Uint8Array }
  | { type: 'exit'; id: number; exitCode: number; signal?: number };

/**
 * The pty host's code. It runs in the worker as a script (`eval`), so it must not refer to
 * anything outside itself: node-pty's path and the read-ahead limits come in `workerData`.
 */
function ptyHostMain(): void {
  /* eslint-disable @typescript-eslint/no-require-imports -- the worker is a CommonJS script */
  const { parentPort, workerData } = require('node:worker_threads') as typeof import('node:worker_threads');
  const nodePty = require((workerData as { nodePty: string }).nodePty) as typeof import('node-pty');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const { readAhead, readAheadAlone, ackBytes, posting, yielding } = workerData as {
    readAhead: number;
    readAheadAlone: number;
    ackBytes: number;
    posting: typeof POSTING;
    yielding: typeof YIELDING;
  };
  const port = parentPort!;
  interface Entry {
    pty: import('node-pty').IPty;
    batch: Uint8Array[];
    batchBytes: number;
    /** Cancels the flush that is scheduled, if one is. */
    cancelFlush: (() => void) | null;
    /** Bytes read in the current rate window, since windowStart; whether the last window flooded. */
    windowStart: number;
    windowBytes: number;
    flooding: boolean;
    /** Bytes posted and not yet acknowledged by the main thread. */
    unacked: number;
    pausedByMain: boolean;
    pausedByUs: boolean;
    /** Not read for a moment after a batch, so other sessions get the machine (YIELDING). */
    yielding: boolean;
    /** When this PTY last printed while not flooding. */
    quietOutputAt: number;
  }
  const entries = new Map<number, Entry>();
  /** Whether a PTY other than `entry` printed, not flooding, within `yielding.activeWithinMs`. */
  const othersActive = (entry: Entry, now: number): boolean => {
    for (const other of entries.values()) if (other !== entry && now - other.quietOutputAt < yielding.activeWithinMs) return true;
    return false;
  };
  /** How far `entry` may be read ahead of the main thread now (READ_AHEAD_ALONE_BYTES). */
  const readAheadOf = (entry: Entry): number => (othersActive(entry, performance.now()) ? readAhead : readAheadAlone);

  // A batch goes out as one message, in a buffer of its own, transferred (not copied again).
  const flush = (id: number, entry: Entry): void => {
    entry.cancelFlush?.();
    entry.cancelFlush = null;
    if (entry.batch.length === 0) return;
    const length = entry.batchBytes;
    const data = new Uint8Array(length);
    let offset = 0;
    for (const chunk of entry.batch) {
      data.set(chunk, offset);
      offset += chunk.length;
    }
    entry.batch = [];
    entry.batchBytes = 0;
    entry.unacked += length;
    port.postMessage({ type: 'data', id, data }, [data.buffer]);
    if (entry.unacked > readAheadOf(entry) && !entry.pausedByUs) {
      entry.pausedByUs = true;
      setPaused(entry);
    }
    if (entry.flooding && !entry.yielding && othersActive(entry, performance.now())) {
      entry.yielding = true;
      setPaused(entry);
      setTimeout(() => {
        entry.yielding = false;
        if (entries.has(id)) setPaused(entry);
      }, yielding.pauseMs);
    }
  };
  const setPaused = (entry: Entry): void => {
    if (entry.pausedByMain || entry.pausedByUs || entry.yielding) entry.pty.pause();
    else entry.pty.resume();
  };

  port.on('message', (message: ToHost) => {
    if (message.type === 'spawn') {
      let spawned: import('node-pty').IPty;
      try {
        spawned = nodePty.spawn(message.file, message.args, { ...message.options, encoding: null });
      } catch (error) {
        port.postMessage({ type: 'spawnFailed', id: message.id, message: (error as Error).message });
        return;
      }
      const id = message.id;
      const entry: Entry = {
        pty: spawned,
        batch: [],
        batchBytes: 0,
        cancelFlush: null,
        windowStart: 0,
        windowBytes: 0,
        flooding: false,
        unacked: 0,
        pausedByMain: false,
        pausedByUs: false,
        yielding: false,
        quietOutputAt: -Infinity,
      };
      entries.set(id, entry);
      port.postMessage({ type: 'spawned', id, pid: spawned.pid, ptsName: (spawned as unknown as { _pty: string })._pty, fd: (spawned as unknown as { fd: number }).fd });
      spawned.onData((chunk) => {
        const now = performance.now();
        if (now - entry.windowStart > posting.floodWindowMs) {
          entry.flooding = entry.windowBytes >= posting.floodBytes;
          entry.windowStart = now;
          entry.windowBytes = 0;
        }
        entry.windowBytes += chunk.length;
        if (entry.windowBytes >= posting.floodBytes) entry.flooding = true;
        if (!entry.flooding) entry.quietOutputAt = now;
        entry.batch.push(chunk as unknown as Uint8Array);
        entry.batchBytes += chunk.length;
        if (entry.batchBytes >= posting.gatherBytes) return flush(id, entry);
        if (entry.cancelFlush) return;
        if (entry.flooding) {
          const timer = setTimeout(() => flush(id, entry), posting.gatherMs);
          entry.cancelFlush = () => clearTimeout(timer);
        } else {
          const immediate = setImmediate(() => flush(id, entry));
          entry.cancelFlush = () => clearImmediate(immediate);
        }
      });
      spawned.onExit(({ exitCode, signal }) => {
        flush(id, entry);
        entries.delete(id);
        port.postMessage({ type: 'exit', id, exitCode, signal });
      });
      return;
    }
    const entry = entries.get(message.id);
    if (!entry) return; // exited meanwhile
    switch (message.type) {
      case 'write':
        entry.pty.write(message.data);
        break;
      case 'resize':
        entry.pty.resize(message.cols, message.rows);
        break;
      case 'pause':
      case 'resume':
        entry.pausedByMain = message.type === 'pause';
        setPaused(entry);
        break;
      case 'ack':
        entry.unacked -= message.bytes;
        if (entry.pausedByUs && entry.unacked < readAheadOf(entry) - ackBytes) {
          entry.pausedByUs = false;
          setPaused(entry);
        }
        break;
    }
  });
}

/** A PTY read on the pty host's thread. */
class ThreadPty implements HostedPty {
  private readonly output = new PtyOutput();
  private readonly onExitEmitter = new EventEmitter<{ exitCode: number; signal?: number }>();
  private untakenAck = 0;

  constructor(
    private readonly host: PtyHost,
    private readonly id: number,
    readonly pid: number,
    readonly ptsName: string,
    readonly fd: number,
  ) {}

  readonly onData: Event<Uint8Array> = this.output.event;

  readonly onExit: Event<{ exitCode: number; signal?: number }> = this.onExitEmitter.event;

  /** From the host: output, in order. */
  deliver(data: Uint8Array): void {
    this.output.deliver(data);
    this.untakenAck += data.length;
    if (this.untakenAck >= ACK_BYTES) {
      this.host.send({ type: 'ack', id: this.id, bytes: this.untakenAck });
      this.untakenAck = 0;
    }
  }

  /** From the host, after the last output: the program ended. */
  exited(exitCode: number, signal?: number): void {
    this.onExitEmitter.fire({ exitCode, signal });
    this.output.dispose();
    this.onExitEmitter.dispose();
  }

  write(data: string): void {
    this.host.send({ type: 'write', id: this.id, data });
  }

  resize(cols: number, rows: number): void {
    this.host.send({ type: 'resize', id: this.id, cols, rows });
  }

  pause(): void {
    this.host.send({ type: 'pause', id: this.id });
  }

  resume(): void {
    this.host.send({ type: 'resume', id: this.id });
  }

  kill(signal: NodeJS.Signals = 'SIGHUP'): void {
    // What node-pty's kill does on Linux and macOS, without a message to the host.
    process.kill(this.pid, signal);
  }
}

/** The worker and the PTYs it reads; one per process, started with the first PTY. */
class PtyHost {
  private readonly worker: Worker;
  private nextId = 1;
  private readonly spawning = new Map<number, { resolve: (pty: ThreadPty) => void; reject: (error: Error) => void }>();
  private readonly ptys = new Map<number, ThreadPty>();
  private failure: Error | null = null;
  /** What the host posted, taken TAKE_BYTES of output per turn of this thread's event loop. */
  private readonly inbox = new Inbox<FromHost>((message) => this.receive(message), (message) => (message.type === 'data' ? message.data.length : 0), TAKE_BYTES);

  constructor() {
    const nodePty = createRequire(import.meta.url).resolve('node-pty');
    // `__name`: a helper esbuild (vitest) adds inside functions it compiles; tsc adds none.
    this.worker = new Worker(`var __name = (target) => target; (${ptyHostMain.toString()})()`, {
      eval: true,
      workerData: { nodePty, readAhead: READ_AHEAD_BYTES, readAheadAlone: READ_AHEAD_ALONE_BYTES, ackBytes: ACK_BYTES, posting: POSTING, yielding: YIELDING },
      name: 'switchboard pty host',
    });
    this.worker.unref(); // referenced only while it has PTYs (see track)
    this.worker.on('message', (message: FromHost) => this.inbox.push(message));
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', (code) => this.fail(new Error(`the pty host thread exited (${code})`)));
  }

  get broken(): Error | null {
    return this.failure;
  }

  spawn(file: string, args: string[], options: PtySpawnOptions): Promise<ThreadPty> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.spawning.set(id, { resolve, reject });
      this.track();
      this.send({ type: 'spawn', id, file, args, options });
    });
  }

  send(message: ToHost): void {
    this.worker.postMessage(message);
  }

  private receive(message: FromHost): void {
    switch (message.type) {
      case 'spawned': {
        const pending = this.spawning.get(message.id);
        this.spawning.delete(message.id);
        const hosted = new ThreadPty(this, message.id, message.pid, message.ptsName, message.fd);
        this.ptys.set(message.id, hosted);
        pending?.resolve(hosted);
        break;
      }
      case 'spawnFailed':
        this.spawning.get(message.id)?.reject(new Error(message.message));
        this.spawning.delete(message.id);
        this.track();
        break;
      case 'data':
        this.ptys.get(message.id)?.deliver(message.data);
        break;
      case 'exit': {
        const hosted = this.ptys.get(message.id);
        this.ptys.delete(message.id);
        this.track();
        hosted?.exited(message.exitCode, message.signal);
        break;
      }
    }
  }

  /** Keeps the process alive while a PTY is being read, as node-pty's own handles would. */
  private track(): void {
    if (this.ptys.size + this.spawning.size > 0) this.worker.ref();
    else this.worker.unref();
  }

  private fail(error: Error): void {
    if (this.failure) return;
    // What the host posted before it ended comes first.
    this.inbox.drain();
    this.failure = error;
    for (const pending of this.spawning.values()) pending.reject(error);
    this.spawning.clear();
    // PTYs it was reading cannot be read any more: report them ended.
    for (const hosted of this.ptys.values()) hosted.exited(-1);
    this.ptys.clear();
  }
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

/** node-pty on this thread, behind the same interface, read without its stream (ptyReads.ts). */
function inlinePty(file: string, args: string[], options: PtySpawnOptions): HostedPty {
  const output = new PtyOutput();
  const { pty: spawned } = spawnReadingDirectly(file, args, options, (chunk) => output.deliver(chunk));
  // As ThreadPty's: a session whose setup failed after the spawn never listens.
  spawned.onExit(() => output.dispose());
  return {
    pid: spawned.pid,
    ptsName: (spawned as unknown as { _pty: string })._pty,
    fd: (spawned as unknown as { fd?: number }).fd,
    onData: output.event,
    onExit: (listener) => spawned.onExit(listener),
    write: (data) => spawned.write(data),
    resize: (cols, rows) => spawned.resize(cols, rows),
    pause: () => spawned.pause(),
    resume: () => spawned.resume(),
    kill: (signal) => spawned.kill(signal),
  };
}

let host: PtyHost | undefined;

/**
 * Starts `file` on a new PTY. Throws node-pty's error when it cannot (the caller words it).
 * On the pty host thread if `thread` (the ptyThread setting) and the thread could start.
 */
export async function spawnPty(file: string, args: string[], options: PtySpawnOptions, thread: boolean): Promise<HostedPty> {
  if (!thread || host?.broken) return inlinePty(file, args, options);
  host ??= new PtyHost();
  try {
    return await host.spawn(file, args, options);
  } catch (error) {
    // The thread itself failed (not the program): fall back to this thread for good.
    if (host.broken) return inlinePty(file, args, options);
    throw error;
  }
}
