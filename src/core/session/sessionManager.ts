import * as fs from 'node:fs';
import * as path from 'node:path';
import { ErrorCode, SwitchboardError } from '../errors.js';
import { EventEmitter, type Event } from '../event.js';
import { newSessionId } from '../ids.js';
import { closedStyledScreen, readClosedSession } from './closedSessionReader.js';
import { loadEmulator } from '../emulation/emulator.js';
import { buildSessionEnv } from './sessionEnv.js';
import { DEFAULT_RETENTION_BYTES, DEFAULT_RETENTION_DAYS, SessionStore } from '../transcript/sessionStore.js';
import { TerminalSession } from './terminalSession.js';
import { unsandboxed, type SandboxDecider, type SessionSandboxPlan } from './sessionSandbox.js';
import { DEFAULT_TRANSCRIPT_MAX_BYTES, Transcript, sessionMeta } from '../transcript/transcript.js';
import type { CommandRecord, Creator, ReadRequest, ReadResult, SessionInfo, StyledScreen } from '../types.js';

/** The limits and defaults the core needs; the hub fills them from settings. */
export interface CoreSettings {
  maxSessions: number;
  /** In-memory scrollback lines of the person's sessions. */
  scrollback: number;
  /** …and of sessions an agent opens (default: `scrollback`); older lines are read from the transcript. */
  agentScrollback?: number;
  headLines: number;
  shell: string;
  login: boolean;
  startupTimeoutMs: number;
  killWaitsMs: number[];
  closeGraceMs: number;
  /** Quiet output + a blocked terminal read for this long = awaiting input. */
  quietMs: number;
  /** Let agents type into echo-off (password) prompts. */
  allowSecretInput: boolean;
  secretPatterns: string[];
  secretAllow: string[];
  /** `NAME=value` / `NAME` entries over the agent sessions' defaults (agentEnvironment.ts); optional, so callers that predate it get the defaults. */
  agentEnv?: string[];
  cols: number;
  rows: number;
  // Transcripts and history (docs/design.md §2.7); optional, so callers that predate them get
  // the defaults.
  /** Closed sessions' transcripts are removed this many days after they ended. */
  retentionDays?: number;
  /** …then the oldest closed ones until all transcripts take less than this. */
  retentionBytes?: number;
  /** Per session: output.log stops growing past this. */
  transcriptMaxBytes?: number;
}

/** A command some live session finished, with whose session it is (for the history index). */
export interface FinishedCommand {
  session: string;
  name: string | null;
  creator: Creator;
  record: CommandRecord;
}

/** How often retention runs after the one at startup. */
const RETENTION_INTERVAL_MS = 60 * 60 * 1000;

interface OpenRequest {
  creator: Creator;
  name?: string;
  cwd?: string;
  program?: string;
  args?: string[];
  env?: Record<string, string>;
  rows?: number;
  cols?: number;
  /**
   * false: the session runs outside the agent sandbox, because the person allowed it (docs/design.md
   * §2.10); default true. The hub's decider says what either means for this session.
   */
  sandbox?: boolean;
}

interface SessionManagerOptions {
  settings: CoreSettings;
  /** Transcripts go to `<stateDir>/sessions/<id>/`; null keeps none (benchmarks). */
  stateDir: string | null;
  baseEnv: NodeJS.ProcessEnv;
  onWarning: (message: string) => void;
  /** Whether and how each session is sandboxed (the hub's settings); default: none is. */
  sandbox?: SandboxDecider;
}

/** Owns every session: creation with limits, lookup by id or name, and disposal of all. */
export class SessionManager {
  private readonly live = new Map<string, TerminalSession>();
  private readonly closed = new Map<string, SessionInfo>();
  private opening = 0;
  private disposed = false;
  /** Transcripts on disk (closed sessions, also those of earlier hubs); null without a state dir. */
  private readonly sessionStore: SessionStore | null;
  private readonly retentionTimer: NodeJS.Timeout | null;

  private readonly onDidChangeEmitter = new EventEmitter<string>();
  /** A session was added, changed, or exited (fires with its id). */
  readonly onDidChange: Event<string> = this.onDidChangeEmitter.event;
  private readonly onDidFinishCommandEmitter = new EventEmitter<FinishedCommand>();
  /** A command of a live session finished (its record is on its way to commands.jsonl). */
  readonly onDidFinishCommand: Event<FinishedCommand> = this.onDidFinishCommandEmitter.event;
  private readonly onDidRemoveTranscriptsEmitter = new EventEmitter<string[]>();
  /** Retention removed these sessions' transcripts. */
  readonly onDidRemoveTranscripts: Event<string[]> = this.onDidRemoveTranscriptsEmitter.event;
  private readonly onDidChangeLiveEmitter = new EventEmitter<void>();
  /** A session opened or ended: the list of live sessions changed (MCP's resources/list_changed). */
  readonly onDidChangeLive: Event<void> = this.onDidChangeLiveEmitter.event;

  constructor(private readonly options: SessionManagerOptions) {
    // Transcripts and history: load the store, apply retention now and then hourly.
    this.sessionStore = options.stateDir ? new SessionStore(path.join(options.stateDir, 'sessions'), { isLive: (id) => this.live.has(id) }) : null;
    this.retentionTimer = this.sessionStore ? setInterval(() => this.runRetention(), RETENTION_INTERVAL_MS) : null;
    this.retentionTimer?.unref();
    if (this.sessionStore) this.runRetention();
  }

  get settings(): CoreSettings {
    return this.options.settings;
  }

  /** Disposals of sessions that exited, until their transcripts are closed. */
  private readonly retiring = new Set<Promise<void>>();
  /** Every session's transcript on disk, closed ones included; null when no state dir is kept. */
  get store(): SessionStore | null {
    return this.sessionStore;
  }

  /**
   * What `open` checks before anything is spawned (the limit, the name, cwd, the program, the
   * environment), thrown as the coded error `open` would give: the person's policy asks about an
   * open only once it could run (docs/design.md §2.9). Returns the folder it would run in and
   * the program it would start (the configured shell when none is named).
   */
  checkOpen(request: OpenRequest): { cwd: string; program: string; programPath?: string } {
    if (this.disposed) throw new SwitchboardError(ErrorCode.SpawnFailed, 'Switchboard is shutting down; try again once it has restarted.');
    const settings = this.options.settings;
    if (this.live.size + this.opening >= settings.maxSessions) {
      throw new SwitchboardError(
        ErrorCode.LimitReached,
        `There are already ${settings.maxSessions} open sessions (setting maxSessions). Close one with kill {close: true}, or raise the limit.`,
      );
    }
    if (request.name !== undefined) this.assertNameFree(request.name);
    const cwd = this.resolveCwd(request.cwd);
    const programPath = request.program !== undefined ? assertProgramRuns(request.program, cwd, request.env?.PATH ?? this.options.baseEnv.PATH) : undefined;
    this.environment(request, 'check');
    return { cwd, program: request.program ?? settings.shell, ...(programPath !== undefined ? { programPath } : {}) };
  }

  async open(request: OpenRequest): Promise<TerminalSession> {
    const settings = this.options.settings;
    const { cwd, programPath } = this.checkOpen(request);
    // The hub's sandbox decision (it may refuse: sandbox.required), with the slot held meanwhile;
    // nothing awaits between here and the spawn below but it.
    let sandbox: SessionSandboxPlan;
    this.opening++;
    try {
      sandbox = await (this.options.sandbox ?? unsandboxed)({ creator: request.creator, cwd, sandbox: request.sandbox ?? true });
    } finally {
      this.opening--;
    }
    const id = this.uniqueId();
    const env = this.environment(request, id);
    const transcript = this.options.stateDir
      ? new Transcript(path.join(this.options.stateDir, 'sessions', id), this.options.onWarning, {
          cols: request.cols ?? settings.cols,
          rows: request.rows ?? settings.rows,
          maxBytes: settings.transcriptMaxBytes ?? DEFAULT_TRANSCRIPT_MAX_BYTES,
        })
      : null;
    this.opening++;
    let session: TerminalSession;
    try {
      session = await TerminalSession.start({
        id,
        name: request.name ?? null,
        creator: request.creator,
        program: request.program,
        programPath,
        args: request.args,
        shell: settings.shell,
        login: settings.login,
        cwd,
        env,
        cols: request.cols ?? settings.cols,
        rows: request.rows ?? settings.rows,
        // Agents' sessions keep a short scrollback only where the rest is on disk for `read`.
        scrollback: request.creator.kind === 'agent' && transcript ? (settings.agentScrollback ?? settings.scrollback) : settings.scrollback,
        headLines: settings.headLines,
        transcript,
        startupTimeoutMs: settings.startupTimeoutMs,
        killWaitsMs: settings.killWaitsMs,
        closeGraceMs: settings.closeGraceMs,
        quietMs: settings.quietMs,
        allowSecretInput: settings.allowSecretInput,
        onWarning: this.options.onWarning,
        sandbox,
        sandboxAsked: request.sandbox ?? true,
      });
    } catch (error) {
      await transcript?.close();
      throw error;
    } finally {
      this.opening--;
    }
    this.live.set(id, session);
    // meta.json: written now, finalized (closed_at, exit_code) when the session exits.
    transcript?.writeMeta(sessionMeta(session.info(), cwd, session.integrationNonce));
    session.onDidChange(() => this.onDidChangeEmitter.fire(id));
    session.onDidFinishCommand((record) => this.onDidFinishCommandEmitter.fire({ session: id, name: session.name, creator: request.creator, record }));
    session.onDidExit(() => {
      transcript?.writeMeta(sessionMeta(session.info(), cwd, session.integrationNonce));
      void this.retire(session);
    });
    this.onDidChangeEmitter.fire(id);
    this.onDidChangeLiveEmitter.fire();
    return session;
  }

  /**
   * A client (an agent's MCP connection, a UI) arrived: load what its first session needs
   * (xterm, see emulator.ts) in the background now, so that `open` does not wait for it. A hub
   * no client has reached stays without it. Failures surface at `open`.
   */
  warmUp(): void {
    loadEmulator().catch(() => undefined);
  }

  /** A live session by id or name; SESSION_NOT_FOUND otherwise (exited ones say so). */
  get(ref: string): TerminalSession {
    const session = this.live.get(ref) ?? [...this.live.values()].find((s) => s.name === ref);
    if (session) return session;
    const closed = this.closed.get(ref) ?? [...this.closed.values()].find((s) => s.name === ref);
    if (closed) {
      throw new SwitchboardError(
        ErrorCode.SessionExited,
        `Session ${closed.id} has exited (code ${closed.exit_code ?? 'unknown'}); open a new one or call execute without session.`,
      );
    }
    throw new SwitchboardError(ErrorCode.SessionNotFound, `No session "${ref}". Call list to see the sessions, or execute without session to open one.`);
  }

  /** A session of this hub that has ended, by id or name (until retention removes it); live or unknown ones are undefined. */
  ended(ref: string): SessionInfo | undefined {
    return this.closed.get(ref) ?? [...this.closed.values()].find((s) => s.name === ref);
  }

  /**
   * `read` for any session: a live one reads itself; a closed one (this hub's or an earlier
   * hub's, until retention removes it) is read from its transcript.
   */
  async read(ref: string, request: ReadRequest): Promise<ReadResult> {
    const live = this.live.get(ref) ?? [...this.live.values()].find((s) => s.name === ref);
    if (live) return live.read(request);
    if (!this.sessionStore) return this.get(ref).read(request); // throws the right error
    await this.retired();
    return readClosedSession(this.sessionStore, ref, request, this.options.settings.scrollback);
  }

  /** Any session's screen as style runs (the screenshot): a live one's emulator, a closed one replayed from its transcript. */
  async styledScreen(ref: string): Promise<{ session: string; screen: StyledScreen }> {
    const live = this.live.get(ref) ?? [...this.live.values()].find((s) => s.name === ref);
    if (live) return { session: live.id, screen: live.styledScreen() };
    if (!this.sessionStore) this.get(ref); // throws the right error
    await this.retired();
    return closedStyledScreen(this.sessionStore!, ref, this.options.settings.scrollback);
  }

  list(includeClosed = false): SessionInfo[] {
    const sessions = [...this.live.values()].map((s) => s.info());
    if (!includeClosed) return sessions;
    // Closed sessions: this hub's (while retention keeps them) and earlier hubs', from meta.json.
    const store = this.sessionStore;
    sessions.push(...[...this.closed.values()].filter((s) => !store || store.has(s.id)));
    if (store) sessions.push(...store.listClosed().filter((s) => !this.closed.has(s.id)));
    return sessions;
  }

  /** The live sessions an agent client opened (for stopping everything it started). */
  sessionsOpenedBy(client: string): TerminalSession[] {
    return [...this.live.values()].filter((s) => s.creator.kind === 'agent' && s.creator.client === client);
  }

  /**
   * This client's idle shell for `cwd` (any cwd when omitted), for `execute` without `session`;
   * `reserved` sessions are passed over (one waiting for the person's approval, docs/design.md §2.9).
   * Only a session opened with the same `sandbox` is picked: a command asked to run in the
   * sandbox never lands in a session the person let run outside it, nor the other way round
   * (docs/design.md §2.10).
   */
  findIdleShell(client: string, cwd: string | undefined, reserved?: (id: string) => boolean, sandbox = true): TerminalSession | undefined {
    const wanted = cwd === undefined ? undefined : path.resolve(cwd);
    for (const session of this.live.values()) {
      if (session.creator.kind !== 'agent' || session.creator.client !== client) continue;
      if (!session.configuredShell || session.controller !== 'agent' || session.state !== 'idle' || session.hasPendingCalls) continue;
      if (session.sandboxAsked !== sandbox) continue;
      if (wanted !== undefined && session.cwd !== wanted) continue;
      if (reserved?.(session.id)) continue;
      return session;
    }
    return undefined;
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    if (this.retentionTimer) clearInterval(this.retentionTimer);
    await Promise.all([...this.live.values()].map((s) => s.close().catch(() => undefined)));
    this.live.clear();
    this.onDidChangeEmitter.dispose();
    this.onDidFinishCommandEmitter.dispose();
    this.onDidRemoveTranscriptsEmitter.dispose();
    this.onDidChangeLiveEmitter.dispose();
  }

  private async retire(session: TerminalSession): Promise<void> {
    this.closed.set(session.id, session.info());
    this.live.delete(session.id);
    this.onDidChangeEmitter.fire(session.id);
    this.onDidChangeLiveEmitter.fire();
    const disposed = session.dispose().finally(() => this.retiring.delete(disposed));
    this.retiring.add(disposed);
    await disposed;
  }

  /** Sessions that just left `live` write their transcript's last bytes: a read of a closed one waits for them. */
  private async retired(): Promise<void> {
    await Promise.allSettled([...this.retiring]);
  }

  /** Removes old and surplus closed transcripts (settings retentionDays, retentionBytes). */
  private runRetention(): void {
    try {
      const result = this.sessionStore?.applyRetention({
        days: this.options.settings.retentionDays ?? DEFAULT_RETENTION_DAYS,
        bytes: this.options.settings.retentionBytes ?? DEFAULT_RETENTION_BYTES,
      });
      for (const id of result?.removed ?? []) this.closed.delete(id);
      if (result && result.removed.length > 0) this.onDidRemoveTranscriptsEmitter.fire(result.removed);
    } catch (error) {
      this.options.onWarning(`transcript retention failed: ${(error as Error).message}`);
    }
  }

  private environment(request: OpenRequest, sessionId: string): Record<string, string> {
    const settings = this.options.settings;
    return buildSessionEnv({
      sessionId,
      creator: request.creator,
      base: this.options.baseEnv,
      extra: request.env,
      secretPatterns: settings.secretPatterns,
      secretAllow: settings.secretAllow,
      agentEnv: settings.agentEnv,
    });
  }

  private resolveCwd(cwd: string | undefined): string {
    const resolved = path.resolve(cwd ?? this.options.baseEnv.HOME ?? process.cwd());
    let stat: fs.Stats;
    try {
      stat = fs.statSync(resolved);
    } catch {
      throw new SwitchboardError(ErrorCode.InvalidArgument, `cwd: "${cwd}" does not exist; pass an existing directory (absolute paths are clearest).`);
    }
    if (!stat.isDirectory()) throw new SwitchboardError(ErrorCode.InvalidArgument, `cwd: "${cwd}" is not a directory; pass a directory.`);
    return resolved;
  }

  private assertNameFree(name: string): void {
    if (name.length === 0 || name.length > 64) {
      throw new SwitchboardError(ErrorCode.InvalidArgument, `name: must be 1–64 characters, got ${name.length}.`);
    }
    if ([...this.live.values()].some((s) => s.name === name || s.id === name)) {
      throw new SwitchboardError(ErrorCode.InvalidArgument, `name: a session called "${name}" is already open; choose another name or use that session.`);
    }
  }

  private uniqueId(): string {
    for (;;) {
      const id = newSessionId();
      // Also never reuse the id of a session kept on disk.
      if (!this.live.has(id) && !this.closed.has(id) && !this.sessionStore?.has(id)) return id;
    }
  }
}

/**
 * node-pty starts a missing program "successfully" and the child then exits with an execvp
 * error: check first, so `open` says SPAWN_FAILED instead of opening a session that dies.
 * Returns where the program was found.
 */
function assertProgramRuns(program: string, cwd: string, searchPath: string | undefined): string {
  const found = findExecutable(program, cwd, searchPath);
  if (!found) {
    throw new SwitchboardError(
      ErrorCode.SpawnFailed,
      `program: "${program}" was not found${program.includes('/') ? ' or is not executable' : ' on PATH'}; give an absolute path or a program that is installed.`,
    );
  }
  const interpreter = missingInterpreter(found, cwd, searchPath);
  if (interpreter) {
    throw new SwitchboardError(
      ErrorCode.SpawnFailed,
      `program: "${program}" is a script for ${interpreter}, which was not found; install it, or fix the script's first line (#!).`,
    );
  }
  return found;
}

/** The executable regular file `program` names: a path against `cwd`, else the first on PATH. */
export function findExecutable(program: string, cwd: string, searchPath: string | undefined): string | undefined {
  const candidates = program.includes('/')
    ? [path.resolve(cwd, program)]
    : (searchPath ?? '')
        .split(path.delimiter)
        .filter(Boolean)
        .map((dir) => path.join(dir, program));
  for (const candidate of candidates) {
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here: keep looking
    }
  }
  return undefined;
}

/**
 * For a script, the interpreter its `#!` line names when that cannot run (the kernel's execve
 * fails in the forked child, after node-pty reported a start). `#!/usr/bin/env name` looks
 * `name` up on PATH, as env will. One level only: an interpreter that is itself a script is left
 * to the kernel.
 */
function missingInterpreter(file: string, cwd: string, searchPath: string | undefined): string | undefined {
  let head: string;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const buffer = Buffer.alloc(256);
      head = buffer.toString('latin1', 0, fs.readSync(fd, buffer, 0, buffer.length, 0));
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return undefined; // unreadable (execute-only): the kernel will say
  }
  if (!head.startsWith('#!')) return undefined;
  const [interpreter, argument] = head.slice(2).split('\n')[0]!.trim().split(/\s+/);
  if (!interpreter) return undefined;
  // A relative interpreter is relative to the working directory, as for the kernel.
  if (!findExecutable(path.resolve(cwd, interpreter), cwd, undefined)) return interpreter;
  if (path.basename(interpreter) === 'env' && argument && !argument.startsWith('-') && !argument.includes('=') && !findExecutable(argument, cwd, searchPath)) {
    return `${argument} (through ${interpreter})`;
  }
  return undefined;
}
