import type { IPty } from 'node-pty';

/**
 * Everything Switchboard reads of node-pty beyond its typed API, in one place. node-pty's
 * Unix terminal has two getters its typings do not declare: `ptsName` (the slave's device path,
 * which the session needs to find the processes on its terminal and to hold the terminal open)
 * and `fd` (the master's file descriptor, for typing without a thread-pool round trip).
 * Windows' terminal has neither.
 *
 * package.json pins node-pty to the version this was checked against;
 * test/unit/core/nodePtyInternals.test.ts fails, naming what changed, when an upgrade changes
 * what is read here. Nothing else in src/ reaches past node-pty's typings.
 */

/** The version these getters were checked against (package.json pins it). */
export const NODE_PTY_VERSION = '1.1.0';

interface UnixTerminal {
  readonly ptsName?: unknown;
  readonly fd?: unknown;
}

/** The slave's device path (e.g. /dev/pts/3), or undefined where node-pty has none (Windows). */
export function slavePath(pty: IPty): string | undefined {
  const name = (pty as unknown as UnixTerminal).ptsName;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

/** The master's fd, or undefined where node-pty has none (Windows). node-pty closes it once every slave fd is closed. */
export function masterFd(pty: IPty): number | undefined {
  const fd = (pty as unknown as UnixTerminal).fd;
  return typeof fd === 'number' && Number.isInteger(fd) && fd >= 0 ? fd : undefined;
}

/**
 * What does not look as this module expects of a live PTY on a Unix (empty when all is as
 * expected), each problem naming the getter: for the test that guards an upgrade.
 */
export function shapeProblems(pty: IPty): string[] {
  const terminal = pty as unknown as UnixTerminal;
  const problems: string[] = [];
  if (typeof terminal.ptsName !== 'string' || !/^\/dev\/(pts\/\d+|ttys\d+)$/.test(terminal.ptsName)) {
    problems.push(`node-pty's ptsName getter is ${JSON.stringify(terminal.ptsName)}, not a /dev/pts/N or /dev/ttysN path`);
  }
  if (typeof terminal.fd !== 'number' || !Number.isInteger(terminal.fd) || terminal.fd < 0) problems.push(`node-pty's fd getter is ${JSON.stringify(terminal.fd)}, not a file descriptor`);
  return problems;
}
