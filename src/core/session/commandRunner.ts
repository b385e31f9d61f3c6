import type { Emulator } from '../emulation/emulator.js';
import { ErrorCode, SwitchboardError } from '../errors.js';
import { nextEvent, type Event } from '../event.js';
import { fitOutput } from '../output/outputWindow.js';
import type { TrackedCommand } from '../shell/commandTracker.js';
import { wrapCommand } from '../shell/shellIntegration.js';
import type { Detection, ExecuteOptions, ExecuteResult, InputKind, ShellKind } from '../types.js';
import { raceOutcome, type ExitWatch, type Outcome } from './raceOutcome.js';

/** Lines of the screen an `awaiting_input`/`running` result shows when there is no output yet. */
const SCREEN_TAIL_LINES = 10;
/** How long a command waits for the prompt after the last one's D mark (a slow PS1 included). */
const PROMPT_WAIT_MS = 2_000;
/** `background: true` returns after this start-up window at most, with the first output (docs/design.md §3.4). */
const BACKGROUND_WINDOW_MS = 2_000;

/** A command written to the shell whose C mark has not arrived yet. */
interface Launching {
  command: string;
  since: number;
}

interface CommandRunnerOptions {
  /** The session's id, named in errors and in the note on how to read the rest. */
  id: string;
  /** What runs on the terminal: a shell (of a kind), one without integration ('unknown'), or a program (null). */
  shellKind: ShellKind | 'unknown' | null;
  /** Why execute is refused in this program (null in a shell). */
  notShell: string | null;
  program: string;
  detection: Detection;
  /** The marks' nonce: the wrapper typed for sh and unknown shells prints them. */
  nonce: string;
  emulator: Pick<Emulator, 'tracker' | 'bracketedPasteMode' | 'commandOutput' | 'lastScreenLines'>;
  /** Types into the terminal. */
  write: (data: string) => void;
  /** Throws unless an agent may write now (the session is live and an agent controls it). */
  assertWritable: () => void;
  watchExit: () => ExitWatch;
  /** The foreground job started waiting for terminal input. */
  onDidAwaitInput: Event<unknown>;
  /** What the job awaiting input wants; null while it does not. */
  awaiting: () => { secret: boolean; kind: InputKind } | null;
  /** Is the running job waiting on the terminal right now (no quiet period)? Held as the session's state. */
  probeInput: () => Promise<{ secret: boolean; kind: InputKind } | null>;
  /** Once the session ended: the exit code a command that ended the shell gets (null when a signal ended it). */
  endingExitCode: () => number | null;
  /** A command was launched: the session's state changed. */
  onDidLaunch: () => void;
  onWarning: (message: string) => void;
}

/**
 * `execute` (docs/design.md §3.2): types one command line into the shell once its prompt is
 * drawn, and waits for that command's own D mark — or the exit, the timeout, the caller's
 * cancel, or the command waiting for input — then says what it printed. Knows the command it
 * launched until the shell's C mark takes over.
 */
export class CommandRunner {
  private launchingValue: Launching | null = null;
  /** False once a prompt failed to show its B mark in time: commands stop waiting for it. */
  private promptMarked = true;

  constructor(private readonly options: CommandRunnerOptions) {}

  /** A command written to the shell whose C mark has not arrived yet. */
  get launching(): Launching | null {
    return this.launchingValue;
  }

  /** A command runs, or was written and has not started yet. */
  get busy(): boolean {
    return this.options.emulator.tracker.runningCommand !== null || this.launchingValue !== null;
  }

  /** The shell's C mark arrived, or the session ended: nothing is being launched any more. */
  launched(): void {
    this.launchingValue = null;
  }

  /** The shell drew a prompt with its B mark: commands wait for the prompt again. */
  promptShown(): void {
    this.promptMarked = true;
  }

  async run(options: ExecuteOptions): Promise<ExecuteResult> {
    const { id, emulator, write } = this.options;
    this.options.assertWritable();
    const tracker = emulator.tracker;
    if (this.options.shellKind === null) {
      throw new SwitchboardError(
        ErrorCode.InvalidArgument,
        `Session ${id} runs ${this.options.program}, ${this.options.notShell ?? 'not a shell'}; use send to type into it.`,
      );
    }
    const startedAt = Date.now();
    if (tracker.runningCommand || this.launchingValue) return this.refuse(startedAt, options.maxLines);
    // Before the command counts as launched: a shell waiting at its prompt reads the terminal,
    // which the input probe would otherwise report as the command awaiting input.
    await this.untilPromptDrawn();
    this.options.assertWritable();
    if (tracker.runningCommand || this.launchingValue) return this.refuse(startedAt, options.maxLines);
    const seq = tracker.nextSeq;
    const finished = nextEvent(tracker.onDidFinishCommand, (command) => command.seq === seq);
    const awaiting = nextEvent(this.options.onDidAwaitInput);
    try {
      tracker.expectCommandLine(options.command);
      this.launchingValue = { command: options.command, since: startedAt };
      this.options.onDidLaunch();
      write(this.commandKeystrokes(options.command));

      const windowMs = options.background ? Math.min(options.timeoutMs, BACKGROUND_WINDOW_MS) : options.timeoutMs;
      const outcome = await raceOutcome(finished.promise, this.options.watchExit(), windowMs, options.signal, awaiting.promise);
      const duration = Date.now() - startedAt;
      if (outcome === 'aborted') {
        // Cancelling the call interrupts the command (docs/design.md §3.4); a disconnect is not a cancel.
        // Wait (bounded) for its D mark, so the next call finds the shell free.
        write('\x03');
        await raceOutcome(finished.promise, this.options.watchExit(), 1_000);
      }
      if (outcome === 'awaiting') {
        const result = this.result('awaiting_input', tracker.runningCommand, null, duration, options.maxLines, seq);
        const awaiting = this.options.awaiting();
        return { ...result, input_kind: awaiting?.kind ?? 'line', secret: awaiting?.secret ?? false };
      }
      if (outcome === 'finished') {
        const command = tracker.lastCommand;
        if (command?.seq === seq) return this.result('completed', command, command.exitCode, duration, options.maxLines);
      }
      if (outcome === 'exited') {
        // The command ended the shell (e.g. `exit 3`): it completed with the shell's exit code
        // (none when a signal killed the shell).
        const command = tracker.runningCommand ?? tracker.lastCommand;
        return this.result('completed', command?.seq === seq ? command : null, this.options.endingExitCode(), duration, options.maxLines, seq);
      }
      return this.result('running', tracker.runningCommand, null, duration, options.maxLines, seq);
    } finally {
      finished.dispose();
      awaiting.dispose();
    }
  }

  /**
   * A new shell's first prompt (bounded by `timeoutMs`, setting shellStartupTimeoutMs). A shell
   * that shows none in time is warned about, and commands stop waiting for its prompt.
   */
  async firstPrompt(timeoutMs: number): Promise<Outcome> {
    const outcome = await this.nextPrompt(timeoutMs);
    if (outcome === 'timeout') {
      this.promptMarked = false;
      this.options.onWarning(`session ${this.options.id}: ${this.options.program} showed no prompt within ${timeoutMs} ms`);
    }
    return outcome;
  }

  /**
   * The session's earlier command still runs. When it is a program waiting at its own prompt (a
   * REPL, a nested shell, an editor), the command is not typed — into python3 it would be
   * Python — and the answer says so: awaiting_input, with what that program wants. Otherwise
   * SESSION_BUSY naming the command (docs/design.md §3.4).
   */
  private async refuse(startedAt: number, maxLines: number): Promise<ExecuteResult> {
    const running = this.options.emulator.tracker.runningCommand;
    const awaiting = running ? (this.options.awaiting() ?? (await this.options.probeInput())) : null;
    if (!running || !awaiting) throw this.busyError();
    const result = this.result('awaiting_input', null, null, Date.now() - startedAt, maxLines, running.seq);
    return { ...result, input_kind: awaiting.kind, secret: awaiting.secret, not_run: true };
  }

  private busyError(): SwitchboardError {
    const running = this.options.emulator.tracker.runningCommand;
    const command = running?.commandLine ?? this.launchingValue?.command ?? '(unknown)';
    const since = running?.startedAt ?? this.launchingValue?.since ?? Date.now();
    const ageSeconds = Math.round((Date.now() - since) / 1000);
    return new SwitchboardError(
      ErrorCode.SessionBusy,
      `Session ${this.options.id} is still running \`${command}\` (started ${ageSeconds}s ago). Wait for it with read (wait.exit), stop it with kill, or run this in another session.`,
      { command, running_ms: Date.now() - since },
    );
  }

  /**
   * Keys typed before the prompt is drawn are echoed by the kernel above it: in sh (no line
   * editor) the command's output would then start beside the prompt, and in bash and zsh the
   * person would see the command line twice. The prompt follows the D mark within moments (a
   * slow PS1 takes longer): wait for its B mark, bounded; a shell whose prompt lost its marks
   * is not waited for again until one shows.
   */
  private async untilPromptDrawn(): Promise<void> {
    const kind = this.options.shellKind;
    if (kind === null || kind === 'unknown' || !this.promptMarked) return;
    if ((await this.nextPrompt(PROMPT_WAIT_MS)) !== 'timeout') return;
    this.promptMarked = false;
    this.options.onWarning(
      `session ${this.options.id}: no prompt mark within ${PROMPT_WAIT_MS} ms after a command; typing without waiting for the prompt from now on`,
    );
  }

  /** Waits (bounded) for the prompt's B mark; at once when the shell is at its prompt. */
  private async nextPrompt(timeoutMs: number): Promise<Outcome> {
    const tracker = this.options.emulator.tracker;
    if (tracker.isAtPrompt) return 'finished';
    const prompt = nextEvent(tracker.onDidPrompt);
    try {
      return await raceOutcome(prompt.promise, this.options.watchExit(), timeoutMs);
    } finally {
      prompt.dispose();
    }
  }

  private commandKeystrokes(command: string): string {
    const kind = this.options.shellKind ?? 'unknown';
    const multiLine = command.includes('\n');
    if (kind === 'sh' || kind === 'unknown') return `${wrapCommand(kind, command, this.options.nonce)}\r`;
    // A multi-line command must run whole: bracketed paste puts every line into one edit
    // buffer, so the shell runs it as one command line with one C and one D.
    if (multiLine && this.options.emulator.bracketedPasteMode) return `\x1b[200~${command}\x1b[201~\r`;
    if (multiLine) return `eval ${shellQuote(command)}\r`;
    return `${command}\r`;
  }

  private result(
    status: ExecuteResult['status'],
    command: TrackedCommand | null,
    exitCode: number | null,
    durationMs: number,
    maxLines: number,
    seq = command?.seq ?? 0,
  ): ExecuteResult {
    const { emulator, id } = this.options;
    const lines = command ? emulator.commandOutput(command) : { head: emulator.lastScreenLines(SCREEN_TAIL_LINES), tail: [], total: 0, complete: true };
    const window = fitOutput(
      lines,
      maxLines,
      (first, last) =>
        `… lines ${first}–${last} of ${lines.total} omitted; read them with read {"session":"${id}","view":"command","seq":${seq},"offset":${first - 1}}`,
    );
    return {
      status,
      exit_code: status === 'completed' ? exitCode : null,
      output: window.output,
      truncated: window.truncated,
      total_lines: command ? window.total_lines : 0,
      duration_ms: durationMs,
      cwd: emulator.tracker.cwd,
      session: id,
      command_seq: seq,
      detection: command?.byFallback ? 'prompt_fallback' : this.options.detection,
    };
  }
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
