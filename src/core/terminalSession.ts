import * as pty from 'node-pty';
import type { TrackedCommand } from './commandTracker.js';
import { Emulator } from './emulator.js';
import { ErrorCode, SwitchboardError } from './errors.js';
import { DisposableStore, EventEmitter, type Event, nextEvent } from './event.js';
import { newNonce } from './ids.js';
import { NONCE_ENV } from './marks.js';
import { OutputPipe } from './outputPipe.js';
import { fitOutput } from './outputWindow.js';
import { escalateKill, processIdentity, terminateSession, type KillSignal, type KillTarget } from './processes.js';
import { planShellIntegration, wrapCommand } from './shellIntegration.js';
import type { Transcript } from './transcript.js';
import type {
  CommandRecord,
  Controller,
  Creator,
  Detection,
  ExecuteOptions,
  ExecuteResult,
  KillResult,
  SessionInfo,
  SessionState,
  ShellKind,
} from './types.js';

export interface TerminalSessionOptions {
  id: string;
  name: string | null;
  creator: Creator;
  /** A program to run instead of a shell; `shell` is used when absent. */
  program?: string;
  args?: string[];
  shell: string;
  /** Run the shell as a login shell (PATH from the person's profile). */
  login: boolean;
  cwd: string;
  env: Record<string, string>;
  cols: number;
  rows: number;
  scrollback: number;
  headLines: number;
  transcript: Transcript | null;
  /** How long a shell may take to draw its first prompt. */
  startupTimeoutMs: number;
  /** Waits between INT → TERM → KILL. */
  killWaitsMs: readonly number[];
  closeGraceMs: number;
  onWarning: (message: string) => void;
}

/** Lines of the screen an `awaiting_input`/`running` result shows when there is no output yet. */
const SCREEN_TAIL_LINES = 10;

/**
 * One PTY running a shell or a program, mirrored in a headless emulator, recorded in a
 * transcript, with its commands tracked through shell-integration marks (DESIGN §2).
 */
export class TerminalSession {
  readonly id: string;
  readonly name: string | null;
  readonly creator: Creator;
  readonly createdAt = new Date();
  readonly program: string;
  readonly shellKind: ShellKind | 'unknown' | null;
  readonly detection: Detection;
  controller: Controller;

  private readonly ptyProcess: pty.IPty;
  private readonly emulator: Emulator;
  private readonly pipe: OutputPipe;
  private readonly store = new DisposableStore();
  private readonly nonce: string;
  private queue: Promise<unknown> = Promise.resolve();
  /** A command written to the shell whose C mark has not arrived yet. */
  private launching: { command: string; since: number } | null = null;
  private exitCode: number | null = null;
  private exitSignal: number | null = null;
  private closedAt: Date | null = null;
  private title = '';
  private readonly exited: Promise<void>;

  private readonly onDidExitEmitter = new EventEmitter<number | null>();
  readonly onDidExit: Event<number | null> = this.onDidExitEmitter.event;
  private readonly onDidChangeEmitter = new EventEmitter<void>();
  /** State, cwd, command or title changed. */
  readonly onDidChange: Event<void> = this.onDidChangeEmitter.event;

  private constructor(private readonly options: TerminalSessionOptions) {
    this.id = options.id;
    this.name = options.name;
    this.creator = options.creator;
    this.controller = options.creator.kind === 'agent' ? 'agent' : 'user';
    this.nonce = newNonce();

    let file: string;
    let args: string[];
    let env = { ...options.env };
    if (options.program) {
      file = options.program;
      args = options.args ?? [];
      this.shellKind = null;
      this.detection = 'command_wrapper';
    } else {
      const plan = planShellIntegration(options.shell, { nonce: this.nonce, login: options.login, userEnv: options.env });
      file = options.shell;
      args = plan.args;
      env = { ...env, ...plan.env, [NONCE_ENV]: this.nonce };
      this.shellKind = plan.kind;
      this.detection = plan.detection;
    }
    this.program = file;

    this.emulator = new Emulator({
      cols: options.cols,
      rows: options.rows,
      scrollback: options.scrollback,
      nonce: this.nonce,
      headLines: options.headLines,
    });
    try {
      this.ptyProcess = pty.spawn(file, args, {
        name: 'xterm-256color',
        cols: options.cols,
        rows: options.rows,
        cwd: options.cwd,
        env,
        encoding: null,
      });
    } catch (error) {
      this.emulator.dispose();
      throw new SwitchboardError(ErrorCode.SpawnFailed, `Could not start ${file}: ${(error as Error).message}. Check that the program exists and is executable.`);
    }
    this.pipe = new OutputPipe(this.ptyProcess, this.emulator, options.transcript);

    const tracker = this.emulator.tracker;
    this.store.add(this.ptyProcess.onData((data) => this.pipe.push(data as unknown as Uint8Array)));
    this.store.add(tracker.onDidStartCommand(() => {
      this.launching = null;
      this.onDidChangeEmitter.fire();
    }));
    this.store.add(tracker.onDidFinishCommand((command) => this.recordCommand(command)));
    this.store.add(tracker.onDidPrompt(() => this.onDidChangeEmitter.fire()));
    this.store.add(tracker.onDidChangeCwd(() => this.onDidChangeEmitter.fire()));
    this.store.add(this.emulator.onDidChangeTitle((title) => {
      this.title = title;
      this.onDidChangeEmitter.fire();
    }));
    // node-pty reports exit after its socket closed, i.e. after the last output was read;
    // the emulator then parses what is still queued before anyone hears of the exit.
    this.exited = new Promise((resolve) => {
      this.store.add(this.ptyProcess.onExit(({ exitCode, signal }) => {
        this.pipe.end();
        void this.emulator.whenParsed().then(() => {
          this.exitCode = exitCode;
          this.exitSignal = signal ?? null;
          this.closedAt = new Date();
          this.launching = null;
          resolve();
          this.onDidExitEmitter.fire(exitCode);
          this.onDidChangeEmitter.fire();
        });
      }));
    });
  }

  /** Spawns the session; for shells, resolves once the first prompt is drawn. */
  static async start(options: TerminalSessionOptions): Promise<TerminalSession> {
    const session = new TerminalSession(options);
    if (session.shellKind !== null && session.shellKind !== 'unknown') await session.waitForFirstPrompt();
    return session;
  }

  get pid(): number {
    return this.ptyProcess.pid;
  }

  get state(): SessionState {
    if (this.closedAt) return 'exited';
    if (this.shellKind === null) return 'running';
    const tracker = this.emulator.tracker;
    if (tracker.runningCommand || this.launching) return 'running';
    return 'idle';
  }

  get cwd(): string | null {
    return this.emulator.tracker.cwd;
  }

  info(): SessionInfo {
    const tracker = this.emulator.tracker;
    const running = tracker.runningCommand;
    const last = tracker.lastCommand;
    const runningCommand = running?.commandLine ?? this.launching?.command ?? null;
    const runningSince = running?.startedAt ?? this.launching?.since ?? null;
    return {
      id: this.id,
      name: this.name,
      creator: this.creator,
      controller: this.controller,
      state: this.state,
      cwd: this.cwd,
      command: this.closedAt ? null : runningCommand,
      running_ms: this.closedAt || runningSince === null ? null : Date.now() - runningSince,
      last_exit_code: last?.exitCode ?? null,
      exit_code: this.closedAt ? this.exitCode : null,
      rows: this.emulator.rows,
      cols: this.emulator.cols,
      pid: this.pid,
      program: this.program,
      title: this.title,
      created_at: this.createdAt.toISOString(),
      ...(this.closedAt ? { closed_at: this.closedAt.toISOString() } : {}),
    };
  }

  /** Runs one command line and waits for its own D mark (DESIGN §3 `execute`). Calls queue in order. */
  execute(options: ExecuteOptions): Promise<ExecuteResult> {
    return this.enqueue(() => this.runCommand(options));
  }

  /**
   * Types into the terminal as is: the deliberate "type into the terminal" path that `send`
   * builds on. Refused when the session exited or the person controls it.
   */
  write(data: string): void {
    this.assertWritable();
    this.ptyProcess.write(data);
  }

  /** Interrupts then escalates on the foreground process group, or sends one signal. */
  kill(signal?: KillSignal): Promise<KillResult> {
    return this.killNow(signal);
  }

  /** Ends the session with nothing left running on its terminal. */
  async close(): Promise<void> {
    if (!this.closedAt) {
      await terminateSession(this.id, this.pid, { graceMs: this.options.closeGraceMs });
      await this.exited;
    }
    await this.dispose();
  }

  /** Releases everything the session holds (call after it exited, or via close). */
  async dispose(): Promise<void> {
    // Calls still finishing (an execute that just saw the exit) read the emulator first.
    await this.queue;
    if (!this.closedAt) {
      try {
        this.ptyProcess.kill('SIGKILL');
      } catch {
        // Already gone.
      }
    }
    this.store.dispose();
    this.pipe.dispose();
    this.emulator.dispose();
    await this.options.transcript?.close();
    this.onDidExitEmitter.dispose();
    this.onDidChangeEmitter.dispose();
  }

  private enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private assertWritable(): void {
    if (this.closedAt) {
      throw new SwitchboardError(
        ErrorCode.SessionExited,
        `Session ${this.id} has exited (code ${this.exitCode ?? 'unknown'}); open a new one or call execute without session.`,
      );
    }
    if (this.controller === 'user') {
      throw new SwitchboardError(
        ErrorCode.SessionControlledByUser,
        `The person has taken over session ${this.id}; reading still works. Wait for them to hand it back, or use another session.`,
      );
    }
  }

  private busyError(): SwitchboardError {
    const running = this.emulator.tracker.runningCommand;
    const command = running?.commandLine ?? this.launching?.command ?? '(unknown)';
    const since = running?.startedAt ?? this.launching?.since ?? Date.now();
    const ageSeconds = Math.round((Date.now() - since) / 1000);
    return new SwitchboardError(
      ErrorCode.SessionBusy,
      `Session ${this.id} is still running \`${command}\` (started ${ageSeconds}s ago). Wait for it with read (wait.exit), stop it with kill, or run this in another session.`,
      { command, running_ms: Date.now() - since },
    );
  }

  private async runCommand(options: ExecuteOptions): Promise<ExecuteResult> {
    this.assertWritable();
    const tracker = this.emulator.tracker;
    if (this.shellKind === null) {
      throw new SwitchboardError(ErrorCode.InvalidArgument, `Session ${this.id} runs ${this.program}, not a shell; use send to type into it.`);
    }
    if (tracker.runningCommand || this.launching) throw this.busyError();
    const startedAt = Date.now();
    const seq = tracker.nextSeq;
    const finished = nextEvent(tracker.onDidFinishCommand, (command) => command.seq === seq);
    try {
      tracker.expectCommandLine(options.command);
      this.launching = { command: options.command, since: startedAt };
      this.onDidChangeEmitter.fire();
      this.ptyProcess.write(this.commandKeystrokes(options.command));

      const windowMs = options.background ? Math.min(options.timeoutMs, 2_000) : options.timeoutMs;
      const outcome = await raceOutcome(finished.promise, this.exited, windowMs, options.signal);
      const duration = Date.now() - startedAt;
      if (outcome === 'finished') {
        const command = tracker.lastCommand;
        if (command?.seq === seq) return this.result('completed', command, command.exitCode, duration, options.maxLines);
      }
      if (outcome === 'exited') {
        // The command ended the shell (e.g. `exit 3`): it completed with the shell's exit code.
        const command = tracker.runningCommand ?? tracker.lastCommand;
        return this.result('completed', command?.seq === seq ? command : null, this.exitCode, duration, options.maxLines, seq);
      }
      return this.result('running', tracker.runningCommand, null, duration, options.maxLines, seq);
    } finally {
      finished.dispose();
    }
  }

  private commandKeystrokes(command: string): string {
    const kind = this.shellKind ?? 'unknown';
    const multiLine = command.includes('\n');
    if (kind === 'sh' || kind === 'unknown') return `${wrapCommand(kind, command, this.nonce)}\r`;
    // A multi-line command must run whole: bracketed paste puts every line into one edit
    // buffer, so the shell runs it as one command line with one C and one D.
    if (multiLine && this.emulator.bracketedPasteMode) return `\x1b[200~${command}\x1b[201~\r`;
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
    const lines = command
      ? this.emulator.commandOutput(command)
      : { head: this.emulator.lastScreenLines(SCREEN_TAIL_LINES), tail: [], total: 0, complete: true };
    const window = fitOutput(lines, maxLines, (first, last) =>
      `… lines ${first}–${last} of ${lines.total} omitted; read them with read {"session":"${this.id}","view":"command","seq":${seq},"offset":${first - 1}}`,
    );
    return {
      status,
      exit_code: status === 'completed' ? exitCode : null,
      output: window.output,
      truncated: window.truncated,
      total_lines: command ? window.total_lines : 0,
      duration_ms: durationMs,
      cwd: this.cwd,
      session: this.id,
      command_seq: seq,
      detection: this.detection,
    };
  }

  private recordCommand(command: TrackedCommand): void {
    const record: CommandRecord = {
      seq: command.seq,
      command: command.commandLine,
      cwd: command.cwd,
      started_at: command.startedAt,
      ended_at: command.endedAt,
      exit_code: command.exitCode,
      output_start_byte: command.startByte,
      output_end_byte: command.endByte,
      total_lines: command.lineFeeds + (command.endRowText ? 1 : 0),
    };
    this.options.transcript?.appendCommand(record);
    this.onDidChangeEmitter.fire();
  }

  private async waitForFirstPrompt(): Promise<void> {
    const tracker = this.emulator.tracker;
    if (tracker.isAtPrompt) return;
    const prompt = nextEvent(tracker.onDidPrompt);
    try {
      const outcome = await raceOutcome(prompt.promise.then(() => undefined), this.exited, this.options.startupTimeoutMs);
      if (outcome === 'exited') {
        const screen = this.emulator.lastScreenLines(5).join(' | ');
        await this.dispose();
        throw new SwitchboardError(
          ErrorCode.SpawnFailed,
          `${this.program} exited (code ${this.exitCode ?? 'unknown'}) before showing a prompt${screen ? `: ${screen}` : ''}. Check the shell and its startup files.`,
        );
      }
      if (outcome === 'timeout') {
        this.options.onWarning(`session ${this.id}: ${this.program} showed no prompt within ${this.options.startupTimeoutMs} ms`);
      }
    } finally {
      prompt.dispose();
    }
  }

  private async killNow(signal: KillSignal | undefined): Promise<KillResult> {
    if (this.closedAt) return { ended_by: null, state: 'exited' };
    const tracker = this.emulator.tracker;
    let target: KillTarget;
    if (this.shellKind !== null) {
      target = { kind: 'foreground', shellPid: this.pid };
    } else {
      // node-pty makes the program a session and group leader: its group is the job.
      const leader = await processIdentity(this.pid);
      if (!leader) return { ended_by: null, state: this.state };
      target = { kind: 'group', leader };
    }
    const endedBy = await escalateKill(target, {
      waitsMs: this.options.killWaitsMs,
      signals: signal ? [signal] : undefined,
      isDone: () => this.closedAt !== null || (this.shellKind !== null && tracker.runningCommand === null && this.launching === null),
      onDone: (listener) => {
        const store = new DisposableStore();
        store.add(tracker.onDidFinishCommand(() => listener()));
        store.add(this.onDidExit(() => listener()));
        return store;
      },
    });
    // The shell redraws its prompt after the job ends; the state follows the D mark.
    return { ended_by: endedBy, state: this.state };
  }
}

type Outcome = 'finished' | 'exited' | 'timeout' | 'aborted';

/** Every wait is a race: the event, the session's exit, a timeout and the caller's abort. */
function raceOutcome(event: Promise<unknown>, exited: Promise<void>, timeoutMs: number, signal?: AbortSignal): Promise<Outcome> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    const onAbort = (): void => finish('aborted');
    function finish(outcome: Outcome): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(outcome);
    }
    if (signal?.aborted) return finish('aborted');
    signal?.addEventListener('abort', onAbort, { once: true });
    void event.then(() => finish('finished'));
    void exited.then(() => finish('exited'));
  });
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
