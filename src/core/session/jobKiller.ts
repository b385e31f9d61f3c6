import { DisposableStore, nextEvent, type Event } from '../event.js';
import { escalateKill, foregroundProcessGroup, processIdentity, type KillSignal, type KillTarget } from '../processes/processes.js';
import type { CommandTracker } from '../shell/commandTracker.js';
import type { KillResult, SessionState } from '../types.js';
import { raceOutcome, type ExitWatch } from './raceOutcome.js';

interface JobKillerOptions {
  /** The program on the terminal: a shell, or the program itself (in a sandbox: the one found inside it). */
  pid: () => number;
  /**
   * A program's job is the terminal's foreground group, not the group `pid` leads: in a sandbox
   * the PTY's own child is the sandbox's launcher, and the program runs in a group of its own.
   */
  programInFront?: boolean;
  /** A shell runs on the terminal (its foreground job is killed), not a program (its whole group is). */
  isShell: boolean;
  /** Waits between INT → TERM → KILL (setting killWaitMs). */
  killWaitsMs: readonly number[];
  tracker: Pick<CommandTracker, 'onDidFinishCommand'>;
  /** A command runs in the shell, or was written and has not started yet. */
  busy: () => boolean;
  /** The session has exited. */
  closed: () => boolean;
  /** The session's state, as the result reports it. */
  state: () => SessionState;
  /** Types into the terminal (Ctrl-C). */
  write: (data: string) => void;
  watchExit: () => ExitWatch;
  onDidExit: Event<unknown>;
}

/**
 * `kill` (docs/design.md §2.8, §3.2): stops what runs in the foreground — SIGINT, then SIGTERM,
 * then SIGKILL with killWaitMs between (or the one signal asked for), on the shell's foreground
 * job or a program's whole group — and says what ended it. A command that runs in the shell
 * itself gets Ctrl-C instead.
 */
export class JobKiller {
  constructor(private readonly options: JobKillerOptions) {}

  async kill(signal: KillSignal | undefined): Promise<KillResult> {
    const { isShell, tracker, busy, closed, state } = this.options;
    const pid = this.options.pid();
    if (closed()) return { ended_by: null, state: 'exited' };
    let target: KillTarget;
    if (isShell) {
      if (busy() && (await foregroundProcessGroup(pid)) === pid) return this.interruptShell();
      target = { kind: 'foreground', shellPid: pid };
    } else {
      // node-pty makes the program a session and group leader: its group is the job. In a
      // sandbox, the group in front of the terminal is the program's (until the launcher has
      // the terminal, none is in front: then the launcher's group, which holds it all).
      const group = this.options.programInFront ? ((await foregroundProcessGroup(pid)) ?? pid) : pid;
      const leader = await processIdentity(group);
      if (!leader) return { ended_by: null, state: state() };
      target = { kind: 'group', leader };
    }
    const endedBy = await escalateKill(target, {
      waitsMs: this.options.killWaitsMs,
      signals: signal ? [signal] : undefined,
      isDone: () => closed() || (isShell && !busy()),
      onDone: (listener) => {
        const store = new DisposableStore();
        store.add(tracker.onDidFinishCommand(() => listener()));
        store.add(this.options.onDidExit(() => listener()));
        return store;
      },
    });
    // The job has ended once the shell has the terminal back; its D mark follows a moment
    // later. Wait for it (bounded) so the state we report, and the next execute, see idle.
    if (endedBy && isShell && busy()) {
      const finished = nextEvent(tracker.onDidFinishCommand);
      await raceOutcome(finished.promise, this.options.watchExit(), 2_000);
      finished.dispose();
    }
    return { ended_by: endedBy, state: state() };
  }

  /**
   * The command runs in the shell itself (a builtin such as `read`, a loop, a function): there
   * is no job to signal, and signalling the shell would end the session. Ctrl-C is what a
   * person would press: the terminal sends SIGINT to the shell, which abandons the command
   * and draws its prompt. Whatever signal was asked for, only that is done, and said.
   */
  private async interruptShell(): Promise<KillResult> {
    const finished = nextEvent(this.options.tracker.onDidFinishCommand);
    this.options.write('\x03');
    const outcome = await raceOutcome(finished.promise, this.options.watchExit(), this.options.killWaitsMs[0] ?? 2_000);
    finished.dispose();
    return { ended_by: outcome === 'finished' ? 'SIGINT' : null, state: this.options.state() };
  }
}
