import { EventEmitter, type Event } from '../event.js';
import { inputKind, probeTerminalInput, type InputProbe } from '../processes/inputProbe.js';
import { foregroundProcessGroup } from '../processes/processes.js';
import type { InputKind } from '../types.js';

/**
 * A full-screen program redraws on its own (htop's meters, a clock), so its output is seldom
 * quiet for long: in the alternate screen, this much quiet is enough to look.
 */
const SCREEN_QUIET_MS = 300;

/** The foreground job waits for the terminal: since when, and for what kind of input. */
interface Awaiting {
  since: number;
  /** Echo off in canonical mode: a password prompt. */
  secret: boolean;
  kind: InputKind;
}

/** What a job waiting on the terminal is told as: the kind, and whether it is a secret. */
export interface AwaitedInput {
  secret: boolean;
  kind: InputKind;
}

interface InputWatcherOptions {
  /** Output quiet this long + a wait on the terminal = awaiting input (setting awaitingInputQuietMs). */
  quietMs: number;
  /** When the PTY last produced output. */
  lastOutputAt: () => number;
  /** The session has exited. */
  closed: () => boolean;
  /** A job runs in the foreground: a command in a shell, or the program itself (false once closed). */
  jobRunning: () => boolean;
  /** The alternate screen is up: a full-screen program. */
  fullScreen: () => boolean;
  /**
   * Typed input is still on its way to the job (a long paste the terminal takes as the job
   * reads it): the job is busy taking it, whatever a probe finds between two of its reads.
   */
  typing: () => boolean;
  /** Does the foreground job wait on the terminal? undefined: there is nothing to ask. */
  probe: () => Promise<InputProbe | undefined>;
  /** The awaiting state changed (it shows in the session's state). */
  onDidChange: () => void;
}

/**
 * Watches a running job for the moment it waits for the terminal (docs/design.md §2.6): once
 * output has been quiet for `quietMs` (a full-screen program: a short pause), it probes whether
 * the foreground job waits on the terminal, and holds the answer (awaiting input, of which kind)
 * until output or typing moves things on. A full-screen program that redraws keeps waiting for
 * keys: its output does not end the wait, a probe after it does when the program no longer waits.
 */
export class InputWatcher {
  private current: Awaiting | null = null;
  private probeTimer: NodeJS.Timeout | null = null;
  /** The quiet period the armed probe timer counts. */
  private armedQuietMs = 0;
  /** When the last probe for a blocked terminal read finished (0: none yet). */
  private lastProbeAt = 0;
  /** When keys were last typed into the terminal (0: never). */
  private lastInputAt = 0;
  private probing = false;

  private readonly onDidAwaitInputEmitter = new EventEmitter<AwaitedInput>();
  /** The foreground job started waiting for terminal input (output quiet + a wait on the terminal). */
  readonly onDidAwaitInput: Event<AwaitedInput> = this.onDidAwaitInputEmitter.event;
  private readonly onDidProbeInputEmitter = new EventEmitter<void>();
  /** Fires after each probe for a blocked terminal read (for tests). */
  readonly onDidProbeInput: Event<void> = this.onDidProbeInputEmitter.event;

  constructor(private readonly options: InputWatcherOptions) {}

  /** The job is waiting for terminal input, since when, and for what; null: it is not. */
  get awaiting(): Awaiting | null {
    return this.current;
  }

  /** Sets the awaiting state (null: no longer waiting, e.g. its command finished or it was typed into). */
  set(value: { secret: boolean; kind?: InputKind } | null): void {
    const was = this.current;
    const kind = value ? (value.kind ?? (value.secret ? 'secret' : 'line')) : null;
    this.current = value && kind && { since: was && was.kind === kind ? was.since : Date.now(), secret: value.secret, kind };
    if (value && kind && !was) this.onDidAwaitInputEmitter.fire({ secret: value.secret, kind });
    if (Boolean(was) !== Boolean(value)) this.options.onDidChange();
  }

  /**
   * Keys are about to be typed: the job is not waiting any more, and it is looked at again once
   * it has been quiet as long after the typing as after output. A job still blocked in its read
   * right after the keys went in has not been scheduled to take them yet (on a loaded machine
   * that can outlast a probe): a probe then would call it waiting, and end a `send` that waits
   * for the exit with `awaiting_input` while vim is running its `:wq`.
   */
  noteInput(): void {
    this.lastInputAt = Date.now();
    this.set(null);
  }

  /** Output arrived: the job is not waiting (any more), and a running job is watched again. */
  noteOutput(): void {
    if (this.current && !this.redrawing) this.set(null);
    // A program that just entered the alternate screen needs less quiet than the timer was armed for.
    if (this.probeTimer && this.armedQuietMs > this.quietMs) {
      clearTimeout(this.probeTimer);
      this.probeTimer = null;
    }
    if (!this.probeTimer && this.watching) this.schedule();
  }

  /**
   * Checks for a wait on the terminal once output and typing have been quiet for `quietMs`, then again every
   * `quietMs` while the job stays quiet and is not waiting (a probe reads /proc).
   * Re-probing at once, as it did, kept a quiet job (`sleep 30`, a silent build) probed back to
   * back, busy on a core for as long as it ran.
   */
  schedule(): void {
    if (this.probeTimer || this.options.closed()) return;
    const due = Math.max(this.lastActivityAt, this.lastProbeAt) + this.quietMs - Date.now();
    this.armedQuietMs = this.quietMs;
    this.probeTimer = setTimeout(
      () => {
        this.probeTimer = null;
        void this.probeInput();
      },
      Math.max(0, due),
    );
  }

  /**
   * Asks at once, without waiting for quiet output: is the running job waiting on the terminal
   * now? (`execute` into a session whose program sits at its own prompt.) The answer is held as
   * a probe's would be.
   */
  async probeNow(): Promise<Awaiting | null> {
    if (this.current || this.options.closed() || !this.options.jobRunning()) return this.current;
    const probe = await this.options.probe();
    if (probe?.reading && !this.options.closed() && this.options.jobRunning() && !this.current) {
      this.set({ secret: probe.secret, kind: inputKind(probe, this.options.fullScreen()) });
    }
    return this.current;
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

  /** The last output or typing: what a probe waits to have been quiet for `quietMs`. */
  private get lastActivityAt(): number {
    return Math.max(this.options.lastOutputAt(), this.lastInputAt);
  }

  /** How long output and typing must have been quiet before a probe. */
  private get quietMs(): number {
    return this.options.fullScreen() ? Math.min(this.options.quietMs, SCREEN_QUIET_MS) : this.options.quietMs;
  }

  /** A full-screen program waiting for keys redraws: its wait stands until a probe says otherwise. */
  private get redrawing(): boolean {
    return this.current?.kind === 'screen' && this.options.fullScreen();
  }

  /** A job runs and is not (known to be) waiting for input, or is a full-screen program to check on. */
  private get watching(): boolean {
    return this.options.jobRunning() && (!this.current || this.redrawing);
  }

  private async probeInput(): Promise<void> {
    if (this.options.closed() || this.probing || !this.watching) return;
    if (this.options.typing()) this.lastInputAt = Date.now();
    if (Date.now() - this.lastActivityAt < this.quietMs) return this.schedule();
    const confirming = this.current !== null;
    const startedAt = Date.now();
    const activityAt = this.lastActivityAt;
    this.probing = true;
    try {
      const probe = await this.options.probe();
      if (!probe) return;
      // An answer stands only if nothing was printed or typed while it was asked. "Quiet for
      // quietMs at the end" is not enough: a probe slowed by load can outlast quietMs after the
      // output that made the prompt fallback decline (a repaint), and then call the shell's own
      // prompt awaiting input. The probe scheduled by that output asks again.
      const quietThroughout = this.lastActivityAt === activityAt && !this.options.typing();
      if (this.options.closed() || !this.watching || !quietThroughout) return;
      if (probe.reading) this.set({ secret: probe.secret, kind: inputKind(probe, this.options.fullScreen()) });
      else if (confirming) this.set(null);
    } finally {
      this.probing = false;
      this.lastProbeAt = Date.now();
      this.onDidProbeInputEmitter.fire();
      // Keep watching a quiet running job: it may block on input later; and a full-screen
      // program that drew meanwhile is checked on again.
      if (this.watching && (!this.current || this.lastActivityAt >= startedAt)) this.schedule();
    }
  }
}

/**
 * The probe of a real terminal: does the foreground process group wait on it? In a shell that
 * is the job in front (or the shell's own group: a builtin like `read` runs in the shell
 * itself); a program runs alone, its own group. undefined when there is no group or no terminal path.
 */
export async function probeForegroundInput(pid: number, ttyPath: string | undefined, isProgram: boolean): Promise<InputProbe | undefined> {
  const group = isProgram ? pid : await foregroundProcessGroup(pid);
  if (group === undefined || !ttyPath) return undefined;
  return probeTerminalInput(group, ttyPath);
}
