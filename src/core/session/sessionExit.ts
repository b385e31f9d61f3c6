import { EventEmitter, nextEvent, type Event } from '../event.js';
import type { ExitWatch } from './raceOutcome.js';
import type { SessionEnd } from './sessionReader.js';

/**
 * How and when the session's program ended: recorded once node-pty reported the exit and the
 * emulator parsed the last output (docs/design.md §2.3), and then told — `exited` resolves and
 * onDidExit fires. Waits watch it one at a time (`watch`).
 */
export class SessionExit {
  private code: number | null = null;
  /** The signal that ended the program, if one did (node-pty then reports exit code 0). */
  private signal: number | null = null;
  private closedAt: Date | null = null;
  private resolveExited!: () => void;
  /** Resolves once the exit is recorded. */
  readonly exited: Promise<void> = new Promise((resolve) => (this.resolveExited = resolve));

  private readonly onDidExitEmitter = new EventEmitter<number | null>();
  readonly onDidExit: Event<number | null> = this.onDidExitEmitter.event;

  /** When the program ended; null while it runs. */
  get at(): Date | null {
    return this.closedAt;
  }

  /**
   * The program's exit code as a shell's `$?` reports it: 128 + the signal's number when a
   * signal ended it (node-pty says 0 then, which must not read as success); null while it runs.
   */
  get exitCode(): number | null {
    return this.code;
  }

  /**
   * The exit code of a command the shell ended with: the shell's, when it exited by itself
   * (`exit 3`, `exec false`). A shell killed by a signal (kill -9, the session closed) says
   * nothing about the command, and node-pty's 0 for it must not read as success.
   */
  get commandExitCode(): number | null {
    return this.signal === null ? this.code : null;
  }

  /** The end as a command that ended with it sees it; null while the program runs. */
  get end(): SessionEnd | null {
    return this.closedAt ? { at: this.closedAt, commandExitCode: this.commandExitCode } : null;
  }

  /** Records the exit as node-pty reported it, then tells everyone waiting. */
  record(exitCode: number, signal: number | undefined): void {
    this.signal = signal || null;
    this.code = this.signal === null ? exitCode : 128 + this.signal;
    this.closedAt = new Date();
    this.resolveExited();
    this.onDidExitEmitter.fire(this.code);
  }

  /**
   * The exit for one wait: resolves at once when the program has ended, and is let go with
   * `dispose` (see ExitWatch).
   */
  watch(): ExitWatch {
    if (this.closedAt) return { promise: Promise.resolve(), dispose: () => undefined };
    const next = nextEvent(this.onDidExitEmitter.event);
    return { promise: next.promise.then(() => undefined), dispose: () => next.dispose() };
  }

  dispose(): void {
    this.onDidExitEmitter.dispose();
  }
}
