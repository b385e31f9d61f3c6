import { createRequire } from 'node:module';
import type { OnReadOpts, SocketConstructorOpts } from 'node:net';
import type * as Tty from 'node:tty';
import * as pty from 'node-pty';

/**
 * node-pty's output without its stream. node-pty reads the master through a `tty.ReadStream`,
 * which gives every read a buffer of its own (64 KiB allocated, then cut to the read, ~4 KB from
 * a PTY) and passes it through the stream's machinery to a 'data' event. Here the same socket
 * reads into one buffer that is used again for every read (net.Socket's `onread` option), and
 * each read is copied to a slab it shares with the reads after it, so what the session keeps
 * (transcript queue, emulator batch) is memory of its own. A `cat` of 64 MiB read this way
 * by node-pty alone: 5–50 ms of JavaScript instead of 130–280 ms (docs/decisions.md).
 *
 * node-pty creates that socket inside `spawn` and offers no option for it, so `tty.ReadStream`
 * is swapped for the duration of the call (synchronous: nothing else runs meanwhile). node-pty's
 * 'data' events are listened to as well: they come only where reads are not direct (a node-pty
 * that no longer creates the socket there, a Node that ignores `onread`), and then the output
 * comes from them as before. A test checks that the reads are direct.
 */
const tty = createRequire(import.meta.url)('node:tty') as typeof Tty;

/** The most one read takes: a PTY gives ~4 KB (its line discipline's buffer), up to ~20 KB seen; more waits for the next read. */
const READ_BUFFER_BYTES = 64 * 1024;
/** Reads share a slab: one allocation per ~16 reads, and a chunk kept long keeps 64 KiB at most. */
const SLAB_BYTES = 64 * 1024;

/** One per thread: a read is copied out before the next can land in it. */
const readBuffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
let slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
let slabUsed = 0;

/** The first `length` bytes of `readBuffer`, copied to memory no later read overwrites. */
function copyRead(length: number): Buffer {
  if (slabUsed + length > slab.length) {
    slab = Buffer.allocUnsafeSlow(Math.max(SLAB_BYTES, length));
    slabUsed = 0;
  }
  const chunk = slab.subarray(slabUsed, slabUsed + length);
  readBuffer.copy(chunk, 0, 0, length);
  slabUsed += length;
  return chunk;
}

export interface DirectlyReadPty {
  pty: pty.IPty;
  /** Whether node-pty's socket was created with `onread` (false: its 'data' events carry the output). */
  direct: boolean;
}

/**
 * `pty.spawn` with its output passed to `onData`, in order, each chunk in memory of its own.
 * node-pty's `pause`/`resume` and its exit (after the last read) work as with its own events.
 */
export function spawnReadingDirectly(file: string, args: string[], options: pty.IPtyForkOptions, onData: (chunk: Buffer) => void): DirectlyReadPty {
  const NodeReadStream = tty.ReadStream;
  let direct = false;
  const ReadStream = function (fd: number, socketOptions?: SocketConstructorOpts): Tty.ReadStream {
    direct = true;
    // net.Socket's constructor takes `onread` as `socket.connect` does (Node's net.js).
    const onread: OnReadOpts = {
      buffer: readBuffer,
      callback: (length: number): boolean => {
        onData(copyRead(length));
        return true;
      },
    };
    return new NodeReadStream(fd, { ...socketOptions, onread } as SocketConstructorOpts);
  };
  tty.ReadStream = ReadStream as unknown as typeof tty.ReadStream;
  let spawned: pty.IPty;
  try {
    spawned = pty.spawn(file, args, { ...options, encoding: null });
  } finally {
    tty.ReadStream = NodeReadStream;
  }
  spawned.onData((data) => onData(data as unknown as Buffer));
  return { pty: spawned, direct };
}
