import * as os from 'node:os';
import * as path from 'node:path';
import {
  ErrorCode,
  EventEmitter,
  SessionManager,
  SwitchboardError,
  type CoreSettings,
  type SandboxRequest,
  type SessionSandbox,
  type SessionSandboxPlan,
} from '../core/index.js';
import { packageVersion } from '../packageInfo.js';
import { AgentSandbox, SandboxRefusal } from '../sandbox/index.js';
import { createMcpServer, SCREEN_UPDATES_TOOL, type McpConnection, type Screenshot, type ScreenshotRequest, type ToolAuditEvent } from '../mcp/server.js';
import { ScreenChangeWatches } from '../mcp/screenChangeWatches.js';
import { screenSource } from '../mcp/sessionScreens.js';
import { ApprovalBook } from './gate/approvals.js';
import { ApprovalLinks } from './gate/approvalLinks.js';
import { AuditLog } from './audit/audit.js';
import { PolicyGate } from './gate/commandGate.js';
import { HistoryIndex } from './history/historyIndex.js';
import { removeHubInfo, writeHubInfo, type HubInfo } from './common/hubInfo.js';
import { startHttpServer, type HttpServer } from './endpoints/httpServer.js';
import { acquireHubLock } from './state/lock.js';
import type { Logger } from './common/logger.js';
import { LoginCodes } from './state/loginCodes.js';
import { createMcpHttpEndpoint } from './endpoints/mcpHttpEndpoint.js';
import { serveLink } from './remote/linkServer.js';
import { Remotes } from './remote/remotes.js';
import { loadSettings, removedSettingsIn, type Settings } from './settings/settings.js';
import { LIVE_SETTINGS, SettingsEditor } from './settings/settingsEditor.js';
import { SOCKET_FILE, type LoginCodeMessage } from './common/socketProtocol.js';
import { startSocketServer, type SocketServer } from './endpoints/socketServer.js';
import { takeScreenshot } from './screenshot/takeScreenshot.js';
import { terminalAppLoader } from './ui/terminalAppHtml.js';
import { ToolCallSummary } from './audit/toolCallSummary.js';
import { ensureStateDir } from './common/stateDir.js';
import { StagedDisposables, type Stage } from './common/stagedDisposables.js';
import { ensureToken, ensureUiKey, replaceToken, replaceUiKey, tokenWrittenAt } from './state/token.js';
import { UiHost } from './ui/uiHost.js';
import { createUiEndpoint } from './ui/uiEndpoint.js';

export interface HubOptions {
  stateDir: string;
  logger: Logger;
  /** Settings to use instead of `<stateDir>/settings.json` (tests). */
  settings?: Settings;
  env?: NodeJS.ProcessEnv;
  /**
   * The HTTP port for this run only (`serve --port N`): wins over settings.json and
   * SWITCHBOARD_PORT, and a busy port is an error rather than a move to a free one.
   */
  port?: number;
  /** The clock of the person's 30-minute grants (tests pass a fake one). */
  clock?: () => number;
}

export interface HubStartOptions extends HubOptions {
  /** Which endpoints to open (default: both). */
  listen?: { socket?: boolean; http?: boolean };
}

const DAY_MS = 86_400_000;
/** How often the token's age is checked (setting tokenRotationDays). */
const TOKEN_CHECK_MS = 3_600_000;

/**
 * The composition root both hosts (Electron main and headless `serve`) construct the same
 * way: state dir, settings, the session manager.
 */
export class Hub {
  readonly manager: SessionManager;
  readonly settings: Settings;
  readonly stateDir: string;
  readonly logger: Logger;
  /** The person's side: one UiBridge per connected UI (`/ws` in a browser, IPC in the app's window). */
  readonly ui: UiHost;
  /** `<state>/history.db`: every finished command of every session, searchable (ToolHost.history). */
  readonly history: HistoryIndex;
  /** `<state>/audit.jsonl`: every tool call (ToolHost.audit). */
  private readonly auditLog: AuditLog;
  /** The OS sandbox agents' sessions run in (docs/design.md §2.10), decided as each opens. */
  readonly sandbox: AgentSandbox;
  /** The terminal app's calls, twice a second per view: counted per minute (docs/design.md §4.6). */
  private readonly auditSummary: ToolCallSummary;
  /** ToolHost: the terminal app's HTML (docs/design.md §3.8), read once. */
  readonly terminalApp: () => Promise<string | undefined>;
  /**
   * Everything this hub made that must end with it (timers, watchers, servers, listeners,
   * sessions and their processes, the history worker, the lock), registered where it is made.
   */
  private readonly parts = new StagedDisposables();
  private socketServer: SocketServer | undefined;
  private httpServer: HttpServer | undefined;
  private tokenValue: string | undefined;
  /** The person's UI key (token.ts): the browser's sign-in, never given to agents. */
  private uiKeyValue: string | undefined;
  /** `switchboard ui`'s one-time browser sign-in codes (issued on the socket, redeemed over HTTP). */
  private readonly loginCodes = new LoginCodes();
  /** The port was given for this run (`serve --port`). */
  private readonly portGiven: boolean;
  private readonly settingsEditor: SettingsEditor;
  /** Commands waiting for the person's approval, and the grants answers left (docs/design.md §2.9). */
  readonly approvals: ApprovalBook;
  /** ToolHost: the person's policy, checked before a command line is typed. */
  readonly gate: PolicyGate;
  /** One-time links to an approval's page, sent in URL elicitations (docs/design.md §2.9). */
  private readonly approvalLinks: ApprovalLinks;
  private readonly onDidChangeToolDefaultsEmitter = new EventEmitter<void>();
  /** ToolHost: a default the tools' descriptions name (executeTimeoutMs, maxLines) changed. */
  readonly onDidChangeToolDefaults = this.onDidChangeToolDefaultsEmitter.event;
  /** ToolHost: the subscribed screens (docs/design.md §3.7), one watch per session for every connection. */
  readonly screenWatches: ScreenChangeWatches;
  /** ToolHost, UiHost: the other machines this hub links to over ssh (docs/design.md §4.7), from the `remotes` setting. */
  readonly remotes: Remotes;
  /** hub.json as last written (its `remotes` are rewritten as they connect and drop). */
  private hubInfo: HubInfo | undefined;
  /** dispose() has begun: hub.json is not written again. */
  private stopping = false;

  /**
   * The hub of `serve` and of the app: takes the state dir's lock (HubLockedError
   * names the holder), the token, then the unix socket and loopback HTTP, and writes hub.json.
   * `dispose()` undoes all of it.
   */
  static async start(options: HubStartOptions): Promise<Hub> {
    const stateDir = ensureStateDir(options.stateDir);
    const lock = acquireHubLock(stateDir);
    let hub: Hub | undefined;
    try {
      hub = new Hub({ ...options, stateDir });
      hub.own('state', () => lock.release());
      await hub.listen(options.listen ?? { socket: true, http: true });
      return hub;
    } catch (error) {
      if (hub) await hub.dispose().catch(() => undefined);
      else lock.release();
      throw error;
    }
  }

  constructor(options: HubOptions) {
    const env = options.env ?? process.env;
    this.stateDir = ensureStateDir(options.stateDir);
    this.logger = options.logger;
    const settings = options.settings ?? loadSettings(this.stateDir, env);
    if (!options.settings) for (const notice of removedSettingsIn(this.stateDir, env)) this.logger.warn(notice);
    this.settings = options.port === undefined ? settings : { ...settings, port: options.port };
    this.portGiven = options.port !== undefined;
    this.own('records', () => this.onDidChangeToolDefaultsEmitter.dispose());
    this.sandbox = new AgentSandbox({ stateDir: this.stateDir, settings: () => this.settings.sandbox, env, logger: this.logger });
    this.own('sessions', () => this.sandbox.dispose());
    this.manager = new SessionManager({
      settings: coreSettings(this.settings, env),
      stateDir: this.stateDir,
      baseEnv: env,
      onWarning: (message) => this.logger.warn(message),
      sandbox: (request) => this.planSandbox(request),
    });
    this.own('sessions', () => this.manager.dispose());
    this.history = new HistoryIndex({ stateDir: this.stateDir, store: this.manager.store!, logger: this.logger });
    this.own('records', () => this.history.dispose());
    // Records stage: the sessions' last commands, finished as they close, still reach the history.
    this.ownDisposable(
      'records',
      this.manager.onDidFinishCommand((finished) => this.history.add(finished)),
    );
    this.ownDisposable(
      'records',
      this.manager.onDidRemoveTranscripts((ids) => this.history.remove(ids)),
    );
    this.auditLog = new AuditLog(this.stateDir, this.logger);
    this.own('records', () => this.auditLog.flush());
    this.screenWatches = new ScreenChangeWatches(screenSource(this));
    this.ownDisposable('sessions', this.screenWatches);
    this.auditSummary = new ToolCallSummary((event) => this.auditLog.toolCall(event));
    this.ownDisposable('records', this.auditSummary);
    this.terminalApp = terminalAppLoader(this.logger);
    this.approvals = new ApprovalBook(options.clock);
    this.ownDisposable('records', this.approvals);
    this.gate = new PolicyGate({ settings: () => this.settings, book: this.approvals, audit: (event) => this.auditLog.policy(event), logger: this.logger });
    this.approvalLinks = new ApprovalLinks(this.approvals, options.clock);
    // An approval answered anywhere, or withdrawn: its link stops working.
    this.ownDisposable(
      'records',
      this.approvals.onDidChange(() => this.approvalLinks.prune()),
    );
    // Closing a session withdraws the approval it waits for (records stage: sessions close as the hub stops too).
    this.ownDisposable(
      'records',
      this.manager.onDidChange((id) => {
        if (this.approvals.pending(id)?.terminal?.state === 'exited') this.gate.sessionClosed(id);
      }),
    );
    this.remotes = new Remotes({ entries: this.settings.remotes, localName: localMachineName(), version: packageVersion(), logger: this.logger, env });
    // Released after the UI (registered later in the same stage) and before the sessions.
    this.ownDisposable('endpoints', this.remotes);
    this.ownDisposable(
      'intake',
      this.remotes.onDidChangeStatus(() => this.writeRemotes()),
    );
    const settingsEditor = new SettingsEditor({
      stateDir: this.stateDir,
      env,
      inForce: () => this.settings,
      loaded: settings,
      apply: (saved) => this.applySettings(saved, env),
    });
    this.settingsEditor = settingsEditor;
    this.ownDisposable('records', settingsEditor);
    this.ui = new UiHost({
      manager: this.manager,
      audit: this.auditLog.personSink(),
      logger: this.logger,
      version: packageVersion(),
      settings: settingsEditor,
      rotateToken: () => this.rotateToken('the person asked'),
      approvals: this.approvals,
      screenshot: (ref, request) => this.screenshot(ref, request),
      history: this.history,
      remotes: this.remotes,
    });
    this.ownDisposable('endpoints', this.ui);
    // A change nobody confirmed is not in force, and must not become so at the next start
    // (released after the watch below, so discarding it is not read back as an edit).
    this.own('intake', () => this.discardHeldChange());
    const settingsWatch = settingsEditor.watch(
      (result) => {
        if (!result.applied) this.logger.warn(`${settingsEditor.file} changed but was not applied: ${result.problem}`);
        else if (result.held)
          this.logger.warn(
            `${settingsEditor.file} changed; not in force until the person confirms it in the window: ${result.held.changes.map((change) => change.text).join('; ')}`,
          );
        else this.logger.info(`${settingsEditor.file} changed: applied (settings read per session or per call now, the endpoints' at the next start)`);
        this.ui.settingsChanged();
      },
      (error) => this.logger.warn(`settings.json is no longer watched (${error.message}); edits apply at the next start or from the settings page`),
    );
    this.ownDisposable('intake', settingsWatch);
  }

  /** Registers what releases a part this hub made; `dispose()` runs it at `stage`. */
  private own(stage: Stage, release: () => void | Promise<void>): void {
    this.parts.add(stage, release);
  }

  private ownDisposable(stage: Stage, part: { dispose(): void }): void {
    this.parts.add(stage, () => part.dispose());
  }

  /**
   * Settings the person saved from the settings page: those read per session or per call
   * (LIVE_SETTINGS) take effect now; the endpoints' keep their start values until a restart.
   */
  private applySettings(saved: Settings, env: NodeJS.ProcessEnv): void {
    const live = this.settings as Record<string, unknown>;
    const toolDefaultsChanged = this.settings.executeTimeoutMs !== saved.executeTimeoutMs || this.settings.maxLines !== saved.maxLines;
    const remotesChanged = JSON.stringify(this.settings.remotes) !== JSON.stringify(saved.remotes);
    for (const key of LIVE_SETTINGS) live[key] = saved[key];
    Object.assign(this.manager.settings, coreSettings(this.settings, env));
    if (remotesChanged) this.remotes?.update(this.settings.remotes);
    if (toolDefaultsChanged) this.onDidChangeToolDefaultsEmitter.fire();
  }

  /**
   * A new token in `<state>/token` and a new UI key in `<state>/ui-key`, required from now on by
   * every HTTP request, UI page and new socket connection; connections already open stay (shims
   * read the file when they connect, browser pages are sent the new key to renew their cookie).
   */
  rotateToken(reason: string): void {
    this.tokenValue = replaceToken(this.stateDir);
    const key = replaceUiKey(this.stateDir);
    this.uiKeyValue = key;
    this.loginCodes.clear(); // a code asked for with the old key signs nobody in
    this.logger.info(`replaced the token and the UI key (${reason})`);
    this.ui.tokenRotated(key);
  }

  /** tokenRotationDays: at start and hourly, a token that old is replaced. */
  private rotateTokenIfDue(): void {
    const days = this.settings.tokenRotationDays;
    const written = tokenWrittenAt(this.stateDir);
    if (days <= 0 || written === undefined || Date.now() - written < days * DAY_MS) return;
    try {
      this.rotateToken(`older than ${days} days, setting tokenRotationDays`);
    } catch (error) {
      this.logger.warn(`could not replace the token: ${(error as Error).message}`);
    }
  }

  /** The bound HTTP port, or null when HTTP is not listening. */
  get port(): number | null {
    return this.httpServer?.port ?? null;
  }

  get socketPath(): string | null {
    return this.socketServer?.path ?? null;
  }

  /** The bearer token of the endpoints: what agents' connections carry. */
  get token(): string | undefined {
    return this.tokenValue;
  }

  /** The person's UI key (only `serve` shows it, to the person on a terminal, in the UI address). */
  get uiKey(): string | undefined {
    return this.uiKeyValue;
  }

  /** ToolHost: a PNG of a session's screen (the `screenshot` tool, the UI's "Save screenshot"). */
  screenshot(ref: string, request: ScreenshotRequest = {}): Promise<Screenshot> {
    return takeScreenshot(this.manager, ref, request, (session, file) => this.sandbox.refusesWrite(this.writerSandbox(session), file));
  }

  /**
   * Whose sandbox a file the hub writes for an agent follows (a `screenshot` path): an agent's
   * session's own; for the person's session, an ended one or one recorded before sandboxes, a
   * sandbox as the settings make it with no project folder (temp and the writable folders).
   */
  private writerSandbox(id: string): SessionSandbox {
    const sandbox = this.manager.list(true).find((info) => info.id === id)?.sandbox;
    if (sandbox && (sandbox.on || sandbox.off === 'allowed' || sandbox.off === 'unavailable')) return sandbox;
    return { on: true, filesystem: this.settings.sandbox.filesystem, project: null, summary: '' };
  }

  /** A session's sandbox (the core's decider): the sandbox layer's plan, its refusals as coded errors. */
  private async planSandbox(request: SandboxRequest): Promise<SessionSandboxPlan> {
    try {
      return await this.sandbox.plan(request);
    } catch (error) {
      if (error instanceof SandboxRefusal)
        throw new SwitchboardError(error.code === 'SPAWN_FAILED' ? ErrorCode.SpawnFailed : ErrorCode.InvalidArgument, error.message);
      throw error;
    }
  }

  /** ToolHost: one line per MCP tool call in audit.jsonl (never the arguments). */
  audit(event: ToolAuditEvent): void {
    if (event.tool === SCREEN_UPDATES_TOOL) this.auditSummary.record(event);
    else this.auditLog.toolCall(event);
  }

  /**
   * ToolHost: the UI's address showing one session (the terminal app's link, docs/design.md
   * §3.8): the same loopback page in the Electron app and headless, with no sign-in in it.
   */
  uiAddress(session: string): string | undefined {
    return this.port === null ? undefined : `http://127.0.0.1:${this.port}/#session=${encodeURIComponent(session)}`;
  }

  /**
   * ToolHost: the one-time link to a pending approval's page (a URL elicitation's, docs/design.md
   * §2.9): loopback, once per approval; `ended` resolves when it is answered or withdrawn.
   */
  approvalLink(approvalId: string): { url: string; expiresInMs: number; ended: Promise<void> } | undefined {
    const port = this.port;
    if (port === null) return undefined;
    const issued = this.approvalLinks.issue(approvalId);
    if (!issued) return undefined;
    const ended = new Promise<void>((resolve) => {
      const watch = this.approvals.onDidChange(() => {
        if (this.approvals.get(approvalId)) return;
        watch.dispose();
        resolve();
      });
    });
    this.logger.info(`approval ${approvalId}: a one-time link to its page was issued`);
    return { url: `http://127.0.0.1:${port}/approval/${approvalId}/?code=${issued.code}`, expiresInMs: issued.expiresInMs, ended };
  }

  private async listen(listen: { socket?: boolean; http?: boolean }): Promise<void> {
    this.tokenValue = ensureToken(this.stateDir);
    this.uiKeyValue = ensureUiKey(this.stateDir);
    this.rotateTokenIfDue();
    const tokenTimer = setInterval(() => this.rotateTokenIfDue(), TOKEN_CHECK_MS);
    tokenTimer.unref();
    this.own('intake', () => clearInterval(tokenTimer));
    const token = (): string => this.tokenValue ?? '';
    const uiKey = (): string => this.uiKeyValue ?? '';
    const version = packageVersion();
    const createServer = (connection: McpConnection) => {
      const server = createMcpServer(this, connection);
      // An agent finished its handshake: it is about to open a session (SessionManager.warmUp).
      // Not earlier, so the loading does not delay the initialize answer itself.
      const initialized = server.server.oninitialized;
      server.server.oninitialized = () => {
        initialized?.();
        this.manager.warmUp();
      };
      return server;
    };
    const rateLimit = { perSecond: this.settings.rateLimitPerSecond, burst: this.settings.rateLimitBurst };
    if (listen.socket !== false) {
      this.socketServer = await startSocketServer({
        path: path.join(this.stateDir, SOCKET_FILE),
        token,
        uiKey,
        version,
        maxMessageBytes: this.settings.bodyLimitBytes,
        rateLimit,
        createServer,
        logger: this.logger,
        issueLoginCode: () => this.issueLoginCode(),
        // The person's hub on another machine: its agents' calls and its windows (docs/design.md §4.7).
        serveLink: (socket, hello) =>
          serveLink(socket, hello, { createServer, createBridge: (transport) => this.ui.createBridge(transport), rateLimit, logger: this.logger }),
      });
      const socketServer = this.socketServer;
      this.own('endpoints', () => socketServer.close());
    }
    if (listen.http !== false) {
      const mcp = createMcpHttpEndpoint({
        createServer,
        logger: this.logger,
        bodyLimitBytes: this.settings.bodyLimitBytes,
        idleMs: this.settings.httpSessionIdleMs,
        rateLimit,
        resources: { screens: this.screenWatches, onDidChangeLive: this.manager.onDidChangeLive },
      });
      const ui = createUiEndpoint({
        host: this.ui,
        logger: this.logger,
        maxPayload: this.settings.bodyLimitBytes,
        approvalPage: { links: this.approvalLinks, book: this.approvals, audit: this.auditLog.personSink(), logger: this.logger },
      });
      this.httpServer = await startHttpServer({
        port: this.settings.port,
        strictPort: this.portGiven,
        token,
        uiKey,
        bodyLimitBytes: this.settings.bodyLimitBytes,
        mcp,
        ui,
        logger: this.logger,
        stallMs: this.settings.httpStallMs,
        loginCodes: this.loginCodes,
      }).catch(async (error: unknown) => {
        await mcp.close();
        throw error;
      });
      const httpServer = this.httpServer;
      this.own('endpoints', () => httpServer.close());
    }
    this.hubInfo = {
      pid: process.pid,
      started_at: new Date().toISOString(),
      socket: this.socketPath,
      port: this.port,
      version,
      sandbox: this.sandbox.status(),
    };
    this.writeRemotes();
    this.own('state', () => removeHubInfo(this.stateDir));
  }

  /** hub.json with the remotes as they are now (`switchboard status`, `remote list`). */
  private writeRemotes(): void {
    if (!this.hubInfo || this.stopping) return;
    try {
      writeHubInfo(this.stateDir, { ...this.hubInfo, remotes: this.remotes.statuses() });
    } catch (error) {
      this.logger.warn(`could not write hub.json: ${(error as Error).message}`);
    }
  }

  /** A one-time UI sign-in code for `switchboard ui` (socket `login`), or why there is none. */
  private issueLoginCode(): LoginCodeMessage | { reason: string } {
    if (this.port === null) return { reason: 'this hub serves no HTTP, so it has no browser UI' };
    const { code, expiresInMs } = this.loginCodes.issue();
    this.logger.info('issued a one-time UI sign-in code (switchboard ui)');
    return { type: 'login_code', code, port: this.port, expires_in_ms: expiresInMs };
  }

  /** A change to settings.json that waited for the person, discarded as the hub stops. */
  private discardHeldChange(): void {
    const waiting = this.settingsEditor.heldChange();
    if (!waiting) return;
    const discarded = this.settingsEditor.discardHeld();
    if (discarded.ok)
      this.logger.warn(
        `${this.settingsEditor.file}: the change that waited for the person (${discarded.settings.join(', ')}) was discarded as the hub stopped; the file holds what was in force`,
      );
    else
      this.logger.warn(
        `${this.settingsEditor.file}: the change that waited for the person (${waiting.settings.join(', ')}) could not be discarded as the hub stopped (${discarded.reason}); the next start reads the file as it is`,
      );
  }

  /**
   * Releases all this hub made, stage by stage (common/stagedDisposables.ts): what takes new
   * work (the token timer, the settings watch), the endpoints (no new calls), the sessions and
   * their processes, the records they write (history, audit, approvals), then hub.json and the
   * lock. Throws the first failure, after releasing everything else.
   */
  async dispose(): Promise<void> {
    this.stopping = true;
    const errors = await this.parts.dispose();
    if (errors.length > 0) throw errors[0];
  }
}

/**
 * The core's share of the settings. `Required`: the core's optional settings fall back to
 * defaults, so one left out here would ignore the person's value without any error.
 */
export function coreSettings(settings: Settings, env: NodeJS.ProcessEnv): Required<CoreSettings> {
  return {
    maxSessions: settings.maxSessions,
    scrollback: settings.scrollback,
    agentScrollback: settings.agentScrollback,
    headLines: settings.commandHeadLines,
    shell: settings.shell ?? defaultShell(env),
    login: settings.loginShell,
    startupTimeoutMs: settings.shellStartupTimeoutMs,
    killWaitsMs: [settings.killWaitMs, settings.killWaitMs],
    closeGraceMs: settings.closeGraceMs,
    quietMs: settings.awaitingInputQuietMs,
    allowSecretInput: settings.allowAgentSecretInput,
    secretPatterns: settings.secretPatterns,
    secretAllow: settings.secretAllow,
    agentEnv: settings.agentEnv,
    cols: settings.defaultCols,
    rows: settings.defaultRows,
    retentionDays: settings.retentionDays,
    retentionBytes: settings.retentionBytes,
    transcriptMaxBytes: settings.transcriptMaxBytes,
  };
}

/** This machine, as a remote's audit names where a link came from: its host name (the first label). */
function localMachineName(): string {
  const name =
    os
      .hostname()
      .split('.')[0]
      ?.replace(/[^A-Za-z0-9._-]/g, '') ?? '';
  return name || 'unknown-host';
}

function defaultShell(env: NodeJS.ProcessEnv): string {
  if (env.SHELL) return env.SHELL;
  try {
    const shell = os.userInfo().shell;
    if (shell) return shell;
  } catch {
    // No passwd entry (containers): fall through.
  }
  return process.platform === 'darwin' ? '/bin/zsh' : '/bin/bash';
}
