import type { IPty } from 'node-pty';

/**
 * Everything Switchboard reads of node-pty beyond its typed API, in one place: the slave's
 * device path (`ptsName`, a getter of node-pty's Unix terminal that its typings do not
 * declare), which a session needs to find the processes on its terminal and to hold the
 * terminal open; and the input node-pty still queues (`_writeStream._writeQueue`: a write the
 * terminal could not take yet waits there for the program to read), without which a program
 * reading a long paste looks, between two of its reads, like a program waiting for input.
 * Windows' terminal has neither.
 *
 * package.json pins node-pty to the version this was checked against;
 * test/unit/core/nodePtyInternals.test.ts fails, naming what changed, when an upgrade changes
 * what is read here. Nothing else in src/ reaches past node-pty's typings.
 */

/** The version this was checked against (package.json pins it). */
export const NODE_PTY_VERSION = '1.1.0';

interface UnixTerminal {
  readonly ptsName?: unknown;
  readonly _writeStream?: { readonly _writeQueue?: unknown };
}

interface QueuedWrite {
  buffer: Uint8Array;
  offset: number;
}

/** The slave's device path (e.g. /dev/pts/3), or undefined where node-pty has none (Windows). */
export function slavePath(pty: IPty): string | undefined {
  const name = (pty as unknown as UnixTerminal).ptsName;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

/** Bytes typed into the PTY that node-pty still holds because the terminal was full; 0 where it keeps no queue. */
export function queuedInputBytes(pty: IPty): number {
  const queue = (pty as unknown as UnixTerminal)._writeStream?._writeQueue;
  if (!Array.isArray(queue)) return 0;
  let bytes = 0;
  for (const write of queue as QueuedWrite[]) bytes += write.buffer.byteLength - write.offset;
  return bytes;
}

/**
 * What does not look as this module expects of a live PTY on a Unix (empty when all is as
 * expected), each problem naming the getter: for the test that guards an upgrade.
 */
export function shapeProblems(pty: IPty): string[] {
  const name = (pty as unknown as UnixTerminal).ptsName;
  const problems: string[] = [];
  if (typeof name !== 'string' || !/^\/dev\/(pts\/\d+|ttys\d+)$/.test(name))
    problems.push(`node-pty's ptsName getter is ${JSON.stringify(name)}, not a /dev/pts/N or /dev/ttysN path`);
  const queue = (pty as unknown as UnixTerminal)._writeStream?._writeQueue;
  if (!Array.isArray(queue)) problems.push(`node-pty's _writeStream._writeQueue is ${typeof queue}, not the array of queued writes`);
  return problems;
}
