import * as fs from 'node:fs';

/** Output quiet this long, then check whether the program is gone (see releaseIfProgramGone). */
const EXIT_CHECK_QUIET_MS = 25;

/** What the hold needs to know of the session's output (OutputPipe). */
export interface HeldOutput {
  /** When the PTY last produced output. */
  readonly lastOutputAt: number;
  /** Bytes the PTY has produced so far. */
  readonly byteCount: number;
}

interface TerminalHoldOptions {
  /** The terminal's slave side (e.g. /dev/pts/3); none: nothing is held. */
  ttyPath: string | undefined;
  /** The program on the terminal: once it is gone and output has paused, the hold lets go. */
  pid: number;
  output: HeldOutput;
  /**
   * Called just before the slave closes: node-pty may then close the master and its fd number
   * be reused, so typing ends first.
   */
  stopTyping: () => void;
}

/**
 * Our own handle on the terminal's slave side (docs/design.md §2.3). With it open the master
 * never reads EIO, so a program's last output is read in full before node-pty reports the exit
 * (without it, non-blocking reads lost the last kilobytes in about half the runs of
 * `seq 1 100000`). It is let go once output has paused and the program is gone, at the exit,
 * or when the session is disposed; never while `close` kills what is left on the terminal.
 */
export class TerminalHold {
  private slaveFd: number | null;
  /** node-pty closed the master (it reported the exit). */
  private masterClosed = false;
  /** `close` is killing what is left: the slave stays held (see whileTerminating). */
  private terminating = false;
  private exitCheckTimer: NodeJS.Timeout | null = null;

  constructor(private readonly options: TerminalHoldOptions) {
    this.slaveFd = holdTerminalOpen(options.ttyPath);
  }

  /** The slave side is held open. */
  get held(): boolean {
    return this.slaveFd !== null;
  }

  /** The terminal may still be open: node-pty's master, or our slave. */
  get ttyOpen(): boolean {
    return !this.masterClosed || this.slaveFd !== null;
  }

  /** node-pty has just closed the master (it reported the exit): its fd number may be reused by the next open. */
  masterDidClose(): void {
    this.masterClosed = true;
  }

  /** The PTY produced output: once it pauses, check whether the program is gone. */
  noteOutput(): void {
    this.exitCheckTimer ??= setTimeout(() => this.releaseIfProgramGone(), EXIT_CHECK_QUIET_MS);
  }

  /**
   * The slave is held until `work` (the kill rounds of `close`) is over, so the terminal's number
   * cannot be anyone else's meanwhile; if it was let go before, it is free once the master closes.
   */
  async whileTerminating<T>(work: () => Promise<T>): Promise<T> {
    this.terminating = true;
    try {
      return await work();
    } finally {
      this.terminating = false;
    }
  }

  /** Lets go of the slave side (not while terminating), typing ended first. */
  release(): void {
    if (this.exitCheckTimer) clearTimeout(this.exitCheckTimer);
    if (this.slaveFd === null || this.terminating) return;
    // Once the slave closes, node-pty may close the master and its fd number be reused:
    // typing ends first.
    this.options.stopTyping();
    fs.close(this.slaveFd, () => {});
    this.slaveFd = null;
  }

  /**
   * Once output has paused and the program is gone, let go of the slave side: everything it
   * wrote has reached the master by then, and node-pty sees the end at once instead of after
   * its 200 ms close timeout.
   */
  private releaseIfProgramGone(): void {
    this.exitCheckTimer = null;
    if (this.slaveFd === null) return;
    const output = this.options.output;
    const quietFor = Date.now() - output.lastOutputAt;
    if (quietFor < EXIT_CHECK_QUIET_MS) {
      this.exitCheckTimer = setTimeout(() => this.releaseIfProgramGone(), EXIT_CHECK_QUIET_MS - quietFor);
      return;
    }
    try {
      process.kill(this.options.pid, 0);
    } catch {
      // The timer may have fired before this turn's poll phase read what is already waiting (a
      // busy machine can keep us off the CPU longer than the quiet time): let one poll phase
      // read it first, and release only if nothing came. Output that does come re-arms the check.
      const bytes = output.byteCount;
      setImmediate(() => {
        if (output.byteCount === bytes) this.release();
      });
    }
  }
}

function holdTerminalOpen(ttyPath: string | undefined): number | null {
  if (!ttyPath) return null;
  try {
    return fs.openSync(ttyPath, fs.constants.O_RDWR | fs.constants.O_NOCTTY);
  } catch {
    return null; // the program may already be gone; its output is still read as before
  }
}
