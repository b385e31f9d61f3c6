import { EventEmitter, type Event } from '../event.js';
import { probeTerminalInput, type InputProbe } from '../processes/inputProbe.js';
import { foregroundProcessGroup } from '../processes/processes.js';

/** The foreground job is blocked reading the terminal (with echo off: a secret). */
export interface Awaiting {
  since: number;
  secret: boolean;
}

export interface InputWatcherOptions {
  /** Output quiet this long + a blocked terminal read = awaiting input (setting awaitingInputQuietMs). */
  quietMs: number;
  /** When the PTY last produced output. */
  lastOutputAt: () => number;
  /** The session has exited. */
  closed: () => boolean;
  /** A job runs in the foreground: a command in a shell, or the program itself (false once closed). */
  jobRunning: () => boolean;
  /** Is the foreground job blocked reading the terminal? undefined: there is nothing to ask. */
  probe: () => Promise<InputProbe | undefined>;
  /** The awaiting state changed (it shows in the session's state). */
  onDidChange: () => void;
}

/**
 * Watches a running job for the moment it waits for the terminal (docs/design.md §2.6): once
 * output has been quiet for `quietMs`, it probes whether the foreground job is blocked reading
 * the terminal, and holds the answer (awaiting input, a secret when echo is off) until output
 * or typing moves things on.
 */
export class InputWatcher {
  private current: Awaiting | null = null;
  private probeTimer: NodeJS.Timeout | null = null;
  /** When the last probe for a blocked terminal read finished (0: none yet). */
  private lastProbeAt = 0;
  private probing = false;

  private readonly onDidAwaitInputEmitter = new EventEmitter<{ secret: boolean }>();
  /** The foreground job started waiting for terminal input (output quiet + blocked read). */
  readonly onDidAwaitInput: Event<{ secret: boolean }> = this.onDidAwaitInputEmitter.event;
  private readonly onDidProbeInputEmitter = new EventEmitter<void>();
  /** Fires after each probe for a blocked terminal read (for tests). */
  readonly onDidProbeInput: Event<void> = this.onDidProbeInputEmitter.event;

  constructor(private readonly options: InputWatcherOptions) {}

  /** The job is waiting for terminal input, since when, and whether echo is off; null: it is not. */
  get awaiting(): Awaiting | null {
    return this.current;
  }

  /** Sets the awaiting state (null: no longer waiting, e.g. its command finished or it was typed into). */
  set(value: { secret: boolean } | null): void {
    const was = this.current;
    this.current = value && { since: Date.now(), secret: value.secret };
    if (value && !was) this.onDidAwaitInputEmitter.fire(value);
    if (Boolean(was) !== Boolean(value)) this.options.onDidChange();
  }

  /** Output arrived: the job is not waiting (any more), and a running job is watched again. */
  noteOutput(): void {
    if (this.current) this.set(null);
    if (!this.probeTimer && this.running) this.schedule();
  }

  /**
   * Checks for a blocked terminal read once output has been quiet for `quietMs`, then again
   * every `quietMs` while the job stays quiet and is not reading (a probe reads /proc).
   * Re-probing at once, as it did, kept a quiet job (`sleep 30`, a silent build) probed back to
   * back, busy on a core for as long as it ran.
   */
  schedule(): void {
    if (this.probeTimer || this.options.closed()) return;
    const due = Math.max(this.options.lastOutputAt(), this.lastProbeAt) + this.options.quietMs - Date.now();
    this.probeTimer = setTimeout(() => {
      this.probeTimer = null;
      void this.probeInput();
    }, Math.max(0, due));
  }

  /** The session exited: nothing is awaited any more, and nothing more is probed. */
  stop(): void {
    this.current = null;
    if (this.probeTimer) clearTimeout(this.probeTimer);
    this.probeTimer = null;
  }

  dispose(): void {
    this.stop();
    this.onDidAwaitInputEmitter.dispose();
    this.onDidProbeInputEmitter.dispose();
  }

  /** The session's state is `running`: a job runs and is not (known to be) waiting for input. */
  private get running(): boolean {
    return !this.current && this.options.jobRunning();
  }

  private async probeInput(): Promise<void> {
    if (this.options.closed() || this.current || this.probing || !this.running) return;
    if (Date.now() - this.options.lastOutputAt() < this.options.quietMs) return this.schedule();
    this.probing = true;
    try {
      const probe = await this.options.probe();
      if (!probe) return;
      const stillQuiet = Date.now() - this.options.lastOutputAt() >= this.options.quietMs;
      if (probe.reading && stillQuiet && !this.options.closed() && this.running) this.set({ secret: probe.secret });
    } finally {
      this.probing = false;
      this.lastProbeAt = Date.now();
      this.onDidProbeInputEmitter.fire();
      // Keep watching a quiet running job: it may block on input later.
      if (!this.current && this.running) this.schedule();
    }
  }
}

/**
 * The probe of a real terminal: is the foreground process group blocked reading it? In a shell
 * that is the job in front (or the shell's own group: a builtin like `read` runs in the shell
 * itself); a program runs alone, its own group. undefined when there is no group or no terminal path.
 */
export async function probeForegroundInput(pid: number, ttyPath: string | undefined, isProgram: boolean): Promise<InputProbe | undefined> {
  const group = isProgram ? pid : await foregroundProcessGroup(pid);
  if (group === undefined || !ttyPath) return undefined;
  return probeTerminalInput(group, ttyPath);
}
