import { spawnPty, type HostedPty } from '../pty/spawnPty.js';
import { Emulator, loadEmulator } from '../emulation/emulator.js';
import { ErrorCode, SwitchboardError } from '../errors.js';
import { RecentOutput } from '../transcript/recentOutput.js';
import { sessionWaitSources, type WaitableSession } from './waitFor.js';
import { CallQueue } from './callQueue.js';
import { SessionExit } from './sessionExit.js';
import { TerminalHold } from './terminalHold.js';
import { InputWatcher, probeForegroundInput, type AwaitedInput } from './inputWatcher.js';
import { PromptFallback } from './promptFallback.js';
import { CommandRecords } from './commandRecords.js';
import { SessionReader, type SessionStatus } from './sessionReader.js';
import { CommandRunner } from './commandRunner.js';
import { JobKiller } from './jobKiller.js';
import { InputSender, inputBytes } from './inputSender.js';
import { TerminalInput } from './terminalInput.js';
import { DisposableStore, EventEmitter, type Event } from '../event.js';
import { newNonce } from '../ids.js';
import { OutputPipe, type OutputFrame } from './outputPipe.js';
import { ViewCatchUp } from './viewCatchUp.js';
import { foregroundProgram } from '../processes/foregroundProgram.js';
import { foregroundProcessGroup, terminateSession, untilOnItsTerminal, type KillSignal } from '../processes/processes.js';
import { unsandboxed, type SessionSandboxPlan } from './sessionSandbox.js';
import { planLaunch, type LaunchPlan } from '../shell/shellIntegration.js';
import type { Transcript } from '../transcript/transcript.js';
import type {
  AgentResize,
  CommandRecord,
  Controller,
  Creator,
  Detection,
  ExecuteOptions,
  ExecuteResult,
  ForegroundProgram,
  KillResult,
  ReadRequest,
  ReadResult,
  ScreenUpdate,
  SendRequest,
  SendResult,
  SessionInfo,
  SessionSandbox,
  StyledScreen,
  SessionState,
  ShellKind,
} from '../types.js';

interface TerminalSessionOptions {
  id: string;
  name: string | null;
  creator: Creator;
  /**
   * A program to run instead of the configured shell, which is used when absent. A shell named
   * here (`bash`, `/bin/zsh -l`) is started as a shell (planLaunch in shellIntegration.ts).
   */
  program?: string;
  /** Where `program` was found; a shell is spawned from this path. */
  programPath?: string;
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
  /** Output quiet this long + a blocked terminal read = awaiting input. */
  quietMs: number;
  /** Let agents type into an echo-off (password) prompt. */
  allowSecretInput: boolean;
  onWarning: (message: string) => void;
  /** Its sandbox as the hub decided it (docs/design.md §2.10); default: none. */
  sandbox?: SessionSandboxPlan;
  /** What was asked for it: false when the person let it run outside the sandbox (default true). */
  sandboxAsked?: boolean;
}

/**
 * One PTY running a shell or a program, mirrored in a headless emulator, recorded in a
 * transcript, with its commands tracked through shell-integration marks (docs/design.md §2.1).
 */
export class TerminalSession {
  readonly id: string;
  readonly name: string | null;
  readonly creator: Creator;
  readonly createdAt = new Date();
  readonly program: string;
  /** null: a program, not a shell. */
  readonly shellKind: ShellKind | 'unknown' | null;
  readonly detection: Detection;
  /** Why execute is refused in this program (null in a shell). */
  private readonly notShell: string | null;
  /**
   * Runs the configured shell (opened without `program`). Only these are picked by execute
   * without session: a shell opened by name (fish, sh) was chosen for itself, and its syntax
   * may not be what a command written for "your shell" expects.
   */
  readonly configuredShell: boolean;
  /** Opened with `sandbox: false` (the person allowed it): every line into it counts as run outside the sandbox. */
  readonly unsandboxed: boolean;
  private controllerValue: Controller;
  /** Its sandbox (docs/design.md §2.10), as `list` shows it. */
  readonly sandbox: SessionSandbox;
  /** It was opened asking for the sandbox (execute without session picks only such sessions for such calls). */
  readonly sandboxAsked: boolean;
  /** Started through a launch wrapper: the PTY's child is the wrapper, the shell or program runs below it. */
  private readonly wrapped: boolean;
  /** The shell's own pid: the PTY's child, or in a sandbox the shell found in front of the terminal at its first prompt. */
  private shellPidValue: number;
  /** The latest resize an agent made (docs/design.md §5.2); null once anyone else resizes. */
  agentResize: AgentResize | null = null;

  private readonly ptyProcess: HostedPty;
  /** What is typed into the terminal (keys, commands, Ctrl-C), in order. */
  private readonly input: TerminalInput;
  private readonly emulator: Emulator;
  private readonly pipe: OutputPipe;
  private readonly store = new DisposableStore();
  private readonly nonce: string;
  /** `execute` and `send`, one at a time in order. */
  private readonly calls = new CallQueue();
  /** Finished commands by seq, for the timeline and `read` view `command` beyond the last one. */
  private readonly commandRecords: CommandRecords;
  /** `execute`, and the command it launched until the shell's C mark takes over. */
  private readonly runner: CommandRunner;
  /** How and when the program ended. */
  private readonly exit = new SessionExit();
  private title = '';
  /** Whether the foreground job waits for terminal input (docs/design.md §2.6). */
  private readonly inputWatcher: InputWatcher;
  /** A command whose marks were lost, with the shell back at its prompt (docs/design.md §2.5). */
  private readonly fallback: PromptFallback;
  /** Raw output for `read` view `new` in `ansi` format (from output.log). */
  private readonly recent: RecentOutput;
  /** What a read-only view (the terminal app) needs to catch up. */
  private readonly updates: ViewCatchUp;
  /** `read`: its views and each client's cursor. */
  private readonly reader: SessionReader;
  /** `send`: types text and keys, then says what appeared. */
  private readonly sender: InputSender;
  /** `kill`: stops the foreground job. */
  private readonly killer: JobKiller;
  /** The terminal's slave side, held open until the program's last output is read. */
  private readonly hold: TerminalHold;

  readonly onDidExit: Event<number | null> = this.exit.onDidExit;
  private readonly onDidChangeEmitter = new EventEmitter<void>();
  /** State, cwd, command or title changed. */
  readonly onDidChange: Event<void> = this.onDidChangeEmitter.event;
  private readonly onDidFinishCommandEmitter = new EventEmitter<CommandRecord>();
  /** A command finished (its record, as written to commands.jsonl). */
  readonly onDidFinishCommand: Event<CommandRecord> = this.onDidFinishCommandEmitter.event;
  /**
   * What the screen shows may have changed: output was parsed, or the state, size or title
   * changed (MCP resource subscriptions, docs/design.md §3.7). Subscribed straight to the
   * emulator and to onDidChange, so a session nobody watches pays nothing for it.
   */
  readonly onDidChangeScreen: Event<void> = (listener) => {
    const parsed = this.emulator.onDidParse(() => listener());
    const changed = this.onDidChange(() => listener());
    return {
      dispose: () => {
        parsed.dispose();
        changed.dispose();
      },
    };
  };

  private constructor(
    private readonly options: TerminalSessionOptions,
    launch: LaunchPlan,
    nonce: string,
    ptyProcess: HostedPty,
  ) {
    this.id = options.id;
    this.name = options.name;
    this.creator = options.creator;
    this.controllerValue = options.creator.kind === 'agent' ? 'agent' : 'user';
    this.nonce = nonce;
    this.shellKind = launch.shellKind;
    this.detection = launch.detection;
    this.notShell = launch.notShell ?? null;
    this.configuredShell = !options.program;
    this.unsandboxed = options.sandboxAsked === false;
    this.program = launch.file;
    this.ptyProcess = ptyProcess;
    const sandbox = options.sandbox ?? unsandboxed({ creator: options.creator, cwd: options.cwd, sandbox: options.sandboxAsked ?? true });
    this.sandbox = sandbox.info;
    this.sandboxAsked = options.sandboxAsked ?? true;
    this.wrapped = sandbox.wrapper !== undefined;
    this.shellPidValue = ptyProcess.pid;
    this.emulator = new Emulator({
      cols: options.cols,
      rows: options.rows,
      scrollback: options.scrollback,
      nonce: this.nonce,
      headLines: options.headLines,
    });
    this.pipe = new OutputPipe(this.ptyProcess, this.emulator, options.transcript);
    this.recent = new RecentOutput(options.transcript);
    this.updates = new ViewCatchUp(this.emulator, this.recent);
    this.commandRecords = new CommandRecords(options.transcript);
    this.input = new TerminalInput(ptyProcess);
    this.hold = new TerminalHold({ ttyPath: this.ttyPath, pid: this.pid, output: this.pipe, stopTyping: () => this.input.dispose() });
    this.fallback = new PromptFallback({
      shellKind: this.shellKind,
      pid: () => this.shellPidValue,
      launched: launch,
      ttyPath: this.ttyPath,
      nonce,
      emulator: this.emulator,
      byteCount: () => this.pipe.byteCount,
      quiet: () => Date.now() - this.pipe.lastOutputAt >= options.quietMs,
      mayType: () => this.exit.at === null && this.controller === 'agent',
      write: (data) => this.input.write(data),
      watchExit: () => this.exit.watch(),
    });
    this.inputWatcher = new InputWatcher({
      quietMs: options.quietMs,
      lastOutputAt: () => this.pipe.lastOutputAt,
      closed: () => this.exit.at !== null,
      jobRunning: () => this.jobRunning,
      fullScreen: () => this.emulator.isAlternateScreen,
      typing: () => this.input.inFlight,
      // The shell itself back at its prompt is no command awaiting input: the fallback ends the command.
      // A sandboxed program is not the PTY's child: its group is the one in front of the terminal.
      probe: async () => ((await this.fallback.check()) ? undefined : probeForegroundInput(this.pid, this.ttyPath, this.shellKind === null && !this.wrapped)),
      onDidChange: () => this.onDidChangeEmitter.fire(),
    });
    this.runner = new CommandRunner({
      id: this.id,
      shellKind: this.shellKind,
      notShell: this.notShell,
      program: this.program,
      detection: this.detection,
      nonce,
      emulator: this.emulator,
      write: (data) => this.input.write(data),
      assertWritable: () => this.assertWritable(),
      watchExit: () => this.exit.watch(),
      onDidAwaitInput: this.inputWatcher.onDidAwaitInput,
      awaiting: () => this.inputWatcher.awaiting,
      probeInput: () => this.inputWatcher.probeNow(),
      endingExitCode: () => this.exit.commandExitCode,
      onDidLaunch: () => this.onDidChangeEmitter.fire(),
      onWarning: options.onWarning,
    });
    const waitable: WaitableSession = {
      emulator: this.emulator,
      watchExit: () => this.exit.watch(),
      onDidAwaitInput: this.inputWatcher.onDidAwaitInput,
      lastOutputAt: () => this.pipe.lastOutputAt,
    };
    this.reader = new SessionReader({
      id: this.id,
      nonce,
      emulator: this.emulator,
      transcript: options.transcript,
      recent: this.recent,
      records: this.commandRecords,
      status: () => this.status(),
      ended: () => this.exit.end,
      waitSources: (since) => sessionWaitSources(waitable, since, true),
    });
    this.sender = new InputSender({
      id: this.id,
      allowSecretInput: options.allowSecretInput,
      emulator: this.emulator,
      assertWritable: () => this.assertWritable(),
      atSecretPrompt: () => this.inputWatcher.awaiting?.secret ?? false,
      type: (data) => this.type(data),
      resize: (size, client) => this.resize(size.cols, size.rows, client),
      waitSources: (since) => sessionWaitSources(waitable, since, false),
      status: () => this.status(),
    });
    this.killer = new JobKiller({
      pid: () => this.shellPidValue,
      programInFront: this.wrapped,
      isShell: this.shellKind !== null,
      killWaitsMs: options.killWaitsMs,
      tracker: this.emulator.tracker,
      busy: () => this.runner.busy,
      closed: () => this.exit.at !== null,
      state: () => this.state,
      write: (data) => this.input.write(data),
      watchExit: () => this.exit.watch(),
      onDidExit: this.onDidExit,
    });

    const tracker = this.emulator.tracker;
    this.store.add(this.ptyProcess.onData((data) => this.pipe.push(data)));
    this.store.add(this.pipe.onDidOutput((bytes) => this.handleOutput(bytes)));
    this.store.add(
      tracker.onDidStartCommand(() => {
        this.runner.launched();
        this.inputWatcher.schedule();
        this.onDidChangeEmitter.fire();
      }),
    );
    this.store.add(
      tracker.onDidFinishCommand((command) => {
        this.inputWatcher.set(null);
        this.onDidFinishCommandEmitter.fire(this.commandRecords.add(command));
        this.onDidChangeEmitter.fire();
      }),
    );
    this.store.add(
      tracker.onDidPrompt(() => {
        this.runner.promptShown();
        this.onDidChangeEmitter.fire();
      }),
    );
    this.store.add(tracker.onDidChangeCwd(() => this.onDidChangeEmitter.fire()));
    this.store.add(
      this.emulator.onDidChangeTitle((title) => {
        this.title = title;
        this.onDidChangeEmitter.fire();
      }),
    );
    // node-pty reports exit after its socket closed, i.e. after the last output was read;
    // the emulator then parses what is still queued before anyone hears of the exit.
    this.store.add(
      this.ptyProcess.onExit(({ exitCode, signal }) => {
        this.hold.masterDidClose();
        this.input.dispose();
        this.pipe.end();
        void this.emulator.whenParsed().then(() => {
          this.hold.release();
          this.runner.launched();
          this.inputWatcher.stop();
          this.exit.record(exitCode, signal);
          this.onDidChangeEmitter.fire();
        });
      }),
    );
  }

  /** Spawns the session; for shells, resolves once the first prompt is drawn. */
  static async start(options: TerminalSessionOptions): Promise<TerminalSession> {
    await loadEmulator(); // the first session of a hub loads xterm (emulator.ts)
    const nonce = newNonce();
    const launch = planLaunch(options, nonce);
    // In a sandbox the PTY runs its launcher, which starts the planned program inside it.
    const spawned =
      (await options.sandbox?.wrapper?.wrap({ file: launch.file, args: launch.args, env: launch.env, shell: launch.shellKind !== null })) ?? launch;
    let ptyProcess: HostedPty;
    try {
      const spawnOptions = { name: 'xterm-256color', cols: options.cols, rows: options.rows, cwd: options.cwd, env: spawned.env };
      ptyProcess = spawnPty(spawned.file, spawned.args, spawnOptions);
    } catch (error) {
      throw new SwitchboardError(
        ErrorCode.SpawnFailed,
        `Could not start ${launch.file}: ${(error as Error).message}. Check that the program exists and is executable.`,
      );
    }
    const session = new TerminalSession(options, launch, nonce, ptyProcess);
    if (session.shellKind !== null && session.shellKind !== 'unknown') {
      await session.waitForFirstPrompt();
      await session.findShellInside();
    } else {
      // A program: `open` answers once it is on its terminal, so what reads it and its group are known.
      await untilOnItsTerminal(session.pid);
      session.inputWatcher.schedule();
    }
    return session;
  }

  /**
   * In a sandbox the PTY's child is the sandbox's launcher; at its first prompt the shell holds the
   * terminal in front with a process group it leads, so the group in front is the shell.
   */
  private async findShellInside(): Promise<void> {
    if (!this.wrapped) return;
    const inFront = await foregroundProcessGroup(this.pid);
    if (inFront !== undefined) this.shellPidValue = inFront;
  }

  get pid(): number {
    return this.ptyProcess.pid;
  }

  /** The marks' nonce, kept in the 0600 meta.json so the transcript can be replayed exactly. */
  get integrationNonce(): string {
    return this.nonce;
  }

  /** Who may type: agents, or the person (docs/design.md §2.1). */
  get controller(): Controller {
    return this.controllerValue;
  }

  /** The terminal's device path (e.g. /dev/pts/3). */
  get ttyPath(): string | undefined {
    return this.ptyProcess.ptsName;
  }

  get state(): SessionState {
    if (this.exit.at) return 'exited';
    if (this.inputWatcher.awaiting) return 'awaiting_input';
    return this.jobRunning ? 'running' : 'idle';
  }

  /** A job runs in the foreground: the program itself, or a command in the shell (launched or started). */
  private get jobRunning(): boolean {
    if (this.exit.at) return false;
    if (this.shellKind === null) return true;
    return this.runner.busy;
  }

  /**
   * What reads the terminal next: a shell (command lines), another program, or unknown
   * (docs/design.md §2.9). `reading`: also probe whether a program waits on the terminal now.
   */
  foreground(reading = false): Promise<ForegroundProgram> {
    return foregroundProgram(this.pid, reading ? this.ttyPath : undefined, this.shellKind !== null ? this.program : undefined);
  }

  /** The bytes `send` would type for this text and these keys now (bracketed paste and cursor keys as the program asked). */
  typedBytes(request: Pick<SendRequest, 'text' | 'keys' | 'paste'>): { bytes: string; bracketedPaste: boolean } {
    const modes = this.emulator.modes;
    return { bytes: inputBytes(request, modes), bracketedPaste: modes.bracketedPaste };
  }

  /** The foreground job started waiting for terminal input (output quiet + a wait on the terminal). */
  get onDidAwaitInput(): Event<AwaitedInput> {
    return this.inputWatcher.onDidAwaitInput;
  }

  /** Fires after each probe for a blocked terminal read (for tests). */
  get onDidProbeInput(): Event<void> {
    return this.inputWatcher.onDidProbeInput;
  }

  get cwd(): string | null {
    return this.emulator.tracker.cwd;
  }

  /** The folder it was opened in: its project folder for the person's policy (docs/design.md §2.9). */
  get openedIn(): string {
    return this.options.cwd;
  }

  info(): SessionInfo {
    const tracker = this.emulator.tracker;
    const running = tracker.runningCommand;
    const last = tracker.lastCommand;
    const runningCommand = running?.commandLine ?? this.runner.launching?.command ?? null;
    const runningSince = running?.startedAt ?? this.runner.launching?.since ?? null;
    return {
      id: this.id,
      name: this.name,
      creator: this.creator,
      controller: this.controller,
      state: this.state,
      cwd: this.cwd,
      command: this.exit.at ? null : runningCommand,
      running_ms: this.exit.at || runningSince === null ? null : Date.now() - runningSince,
      last_exit_code: last?.exitCode ?? null,
      exit_code: this.exit.at ? this.exit.exitCode : null,
      rows: this.emulator.rows,
      cols: this.emulator.cols,
      // The shell's own pid (in a sandbox, found inside once its first prompt is up).
      pid: this.shellPidValue,
      program: this.program,
      title: this.title,
      created_at: this.createdAt.toISOString(),
      ...(this.exit.at ? { closed_at: this.exit.at.toISOString() } : {}),
      ...(this.inputWatcher.awaiting ? { input_kind: this.inputWatcher.awaiting.kind } : {}),
      sandbox: this.sandbox,
    };
  }

  /**
   * The last line with text of the running command's output (a program's: of its screen), cut
   * to `maxChars`; empty when a shell runs nothing (its prompt is no output). For progress
   * messages (docs/design.md §3.4): reads a few rows of the emulator, whatever the output's size.
   */
  lastOutputLine(maxChars: number): string {
    const running = this.emulator.tracker.runningCommand;
    if (running) return this.emulator.lastTextLine(maxChars, running.start);
    return this.shellKind === null ? this.emulator.lastTextLine(maxChars) : '';
  }

  /** Runs one command line and waits for its own D mark (docs/design.md §3.2 `execute`). Calls queue in order. */
  execute(options: ExecuteOptions): Promise<ExecuteResult> {
    return this.calls.run(() => this.runner.run(options));
  }

  // ---- the person's side (docs/design.md §2.8): enforced here, not in a UI -----------------

  /** Finished commands, oldest first (the timeline). */
  commands(): CommandRecord[] {
    return this.commandRecords.all();
  }

  /** Live output with transcript offsets; pair with `snapshot()` to hydrate a viewer. */
  get onDidFrame(): Event<OutputFrame> {
    return this.pipe.onDidFrame;
  }

  /** The start of a character the output so far leaves unfinished: a new viewer's first frame completes it. */
  get unfinishedOutput(): Uint8Array {
    return this.recent.unfinished;
  }

  /**
   * The screen and scrollback as escape sequences, once the emulator has parsed everything
   * received so far: frames with `end` ≤ `through` are already in it.
   */
  async snapshot(): Promise<{ data: string; cols: number; rows: number; through: number }> {
    const through = this.pipe.byteCount;
    const data = await this.emulator.serializeWhenParsed();
    return { data, cols: this.emulator.cols, rows: this.emulator.rows, through };
  }

  /**
   * What a read-only view needs to catch up from an earlier answer's `through` and `resizes`
   * (docs/design.md §3.8): nothing, the output since, or the screen. Reads only.
   */
  screenUpdate(since?: number, resizes?: number): Promise<ScreenUpdate> {
    return this.updates.since(since, resizes);
  }

  /** The person takes the keyboard: agent writes now get SESSION_CONTROLLED_BY_USER. */
  takeOver(): void {
    this.setController('user');
  }

  /** The person hands the session (theirs or an agent's) to agents. */
  handBack(): void {
    this.setController('agent');
  }

  /** Keystrokes from the person; they must control the session (take over first). */
  userInput(data: string): void {
    if (this.exit.at) return;
    if (this.controller !== 'user') {
      throw new SwitchboardError(ErrorCode.InvalidArgument, `Take over session ${this.id} before typing into it; an agent controls it.`);
    }
    this.type(data);
  }

  /** Types into the terminal: the job no longer awaits input, and is watched for it again. */
  private type(data: string | Uint8Array): void {
    this.inputWatcher.noteInput();
    this.input.write(data);
    this.inputWatcher.schedule();
  }

  /** Ctrl-C into the terminal, whoever controls it (a person's Interrupt button). */
  interrupt(): void {
    if (!this.exit.at) this.input.write('\x03');
  }

  /**
   * Resizes the PTY and the emulator (the person's tab size wins while they control it);
   * `agent` names the client of an agent's resize, kept for the person until the next resize.
   */
  resize(cols: number, rows: number, agent?: string): void {
    if (this.exit.at || (cols === this.emulator.cols && rows === this.emulator.rows)) return;
    this.agentResize = agent ? { client: agent, cols, rows, at: new Date().toISOString() } : null;
    this.input.resize(cols, rows);
    this.emulator.resize(cols, rows);
    this.updates.resized();
    this.options.transcript?.resize(cols, rows);
    this.onDidChangeEmitter.fire();
  }

  private setController(controller: Controller): void {
    if (this.controllerValue === controller) return;
    this.controllerValue = controller;
    this.onDidChangeEmitter.fire();
  }

  /** Interrupts then escalates on the foreground process group, or sends one signal. */
  kill(signal?: KillSignal): Promise<KillResult> {
    return this.killer.kill(signal);
  }

  /** Ends the session with nothing left running on its terminal. */
  async close(): Promise<void> {
    if (!this.exit.at) {
      await this.hold.whileTerminating(() => terminateSession(this.id, this.pid, { graceMs: this.options.closeGraceMs, ttyOpen: () => this.hold.ttyOpen }));
      await this.exit.exited;
    }
    await this.dispose();
  }

  /** Releases everything the session holds (call after it exited, or via close). */
  async dispose(): Promise<void> {
    // Calls still finishing (an execute or a read that just saw the exit) read the emulator first.
    await this.calls.whenIdle();
    await Promise.race([this.reader.whenReadsDone(), new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
    if (!this.exit.at) {
      try {
        this.ptyProcess.kill('SIGKILL');
      } catch {
        // Already gone.
      }
    }
    this.hold.release();
    this.input.dispose();
    this.store.dispose();
    this.pipe.dispose();
    this.emulator.dispose();
    await this.options.transcript?.close();
    this.exit.dispose();
    this.onDidChangeEmitter.dispose();
    this.onDidFinishCommandEmitter.dispose();
    this.inputWatcher.dispose();
  }

  /**
   * Types text and/or keys (docs/design.md §3.2 `send`), then waits as asked (default: until
   * output settles) and says what appeared since. Refused with SECRET_PROMPT at an echo-off prompt.
   */
  send(request: SendRequest): Promise<SendResult> {
    return this.calls.run(() => this.sender.send(request));
  }

  /** Reads the session (docs/design.md §3.2 `read`); never queued behind writers, never refused for control. */
  read(request: ReadRequest): Promise<ReadResult> {
    return this.reader.read(request);
  }

  /** The visible screen as style runs, with the cursor (the screenshot). */
  styledScreen(): StyledScreen {
    return this.emulator.styledScreen();
  }

  /** What every send and read result says of the session: its state, the program's exit code, the input it awaits. */
  private status(): SessionStatus {
    const awaiting = this.inputWatcher.awaiting;
    return {
      state: this.state,
      exit_code: this.exit.at ? this.exit.exitCode : null,
      ...(awaiting ? { secret: awaiting.secret, input_kind: awaiting.kind } : {}),
    };
  }

  private handleOutput(bytes: Uint8Array): void {
    this.recent.append(bytes);
    this.hold.noteOutput();
    this.inputWatcher.noteOutput();
  }

  /** A call is queued or running: `execute` without `session` must not pick this one. */
  get hasPendingCalls(): boolean {
    return this.calls.hasPending;
  }

  /** Keeps `execute` without `session` from picking this session until released (CallQueue.claim). */
  claim(): () => void {
    return this.calls.claim();
  }

  private assertWritable(): void {
    if (this.exit.at) {
      throw new SwitchboardError(
        ErrorCode.SessionExited,
        `Session ${this.id} has exited (code ${this.exit.exitCode ?? 'unknown'}); open a new one or call execute without session.`,
      );
    }
    if (this.controller === 'user') {
      throw new SwitchboardError(
        ErrorCode.SessionControlledByUser,
        `The person has taken over session ${this.id}; reading still works. Wait for them to hand it back, or use another session.`,
      );
    }
  }

  private async waitForFirstPrompt(): Promise<void> {
    const outcome = await this.runner.firstPrompt(this.options.startupTimeoutMs);
    if (outcome === 'exited') {
      const screen = this.emulator.lastScreenLines(5).join(' | ');
      await this.dispose();
      throw new SwitchboardError(
        ErrorCode.SpawnFailed,
        `${this.program} exited (code ${this.exit.exitCode ?? 'unknown'}) before showing a prompt${screen ? `: ${screen}` : ''}. Check the shell and its startup files.`,
      );
    }
  }
}
