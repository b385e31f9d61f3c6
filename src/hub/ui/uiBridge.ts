import { isSwitchboardError, type Disposable, type TerminalSession } from '../../core/index.js';
import {
  FLOW_ACK_EVERY,
  FLOW_HIGH_WATERMARK,
  FLOW_LOW_WATERMARK,
  MAX_SCREENSHOT_BYTES,
  UI_PROTOCOL_VERSION,
  UiErrorCode,
  parseClientMessage,
  type ClientMessage,
  type HubMessage,
} from '../../ui-protocol/index.js';
import { isPersonChannel, type PersonAction, type UiChannel } from '../audit/personAudit.js';
import type { RemoteBridgeSide } from './uiRemotes.js';
import { DEFAULT_VIEWER_LIMITS, SessionViewer, type ViewerLimits } from './sessionViewer.js';
import { commandOutput, rerun, searchHistory, UiError, type UiHistoryHost } from './uiHistory.js';
import type { UiBridgeHost } from './uiBridgeHost.js';

/**
 * How a bridge reaches its UI. Transport-agnostic: the WebSocket (`/ws`) and the Electron
 * preload's IPC both provide it.
 */
export interface UiBridgeTransport {
  send(message: HubMessage): void;
  /** Bytes sent but not yet taken by the peer (WebSocket `bufferedAmount`); IPC: omit. */
  bufferedAmount?(): number;
  /** Ends the connection (a UI that stopped reading). */
  close?(reason: string): void;
  /**
   * Which way this UI reaches the hub (personAudit.ts): the person's (`window` over the UI
   * cookie, `app`, `menu`) or `token` (a `/ws` signed in with the bearer token agents hold),
   * which may watch and stop things but not act for the person (PERSON_ONLY). Required: no
   * connection is the person's by default.
   */
  channel: UiChannel;
  /** Over a link: the machine it came from, which every audit line of this bridge names (docs/design.md §4.7). */
  via?: string;
}

/**
 * What only the person's channels may do: answer an approval, confirm or discard a settings
 * change that waits for them, and what would let a connection run commands past the policy and
 * the sandbox (take over, type, open a terminal, run a command again, hand a person's session to
 * agents), or replace the credentials. The bearer token is what agents hold, so a `/ws`
 * connection signed in with it gets PERSON_ONLY for these (docs/design.md §2.9).
 */
const PERSON_ONLY: ReadonlySet<ClientMessage['type']> = new Set<ClientMessage['type']>([
  'answerApproval',
  'confirmSettings',
  'discardSettings',
  'takeOver',
  'handBack',
  'input',
  'openTerminal',
  'rerun',
  'rotateToken',
]);

interface UiBridgeLimits extends ViewerLimits {
  /** A transport holding more than this many bytes for `stuckMs` is closed. */
  stuckBytes: number;
  stuckMs: number;
  tickMs: number;
  /** Typing is audited as one byte count per session per this interval. */
  inputAuditMs: number;
}

export const DEFAULT_BRIDGE_LIMITS: UiBridgeLimits = {
  ...DEFAULT_VIEWER_LIMITS,
  stuckBytes: 512 * 1024,
  stuckMs: 15_000,
  tickMs: 200,
  inputAuditMs: 2_000,
};

type MessageOf<T extends ClientMessage['type']> = Extract<ClientMessage, { type: T }>;
/** A handler per message type (`hello` is answered before any table is consulted). */
type Handlers<K extends Exclude<ClientMessage['type'], 'hello'> = Exclude<ClientMessage['type'], 'hello'>> = {
  [T in K]: (message: MessageOf<T>) => Promise<void> | void;
};

/**
 * One UI connection on the hub (docs/design.md §1, "UiBridge → ui-protocol"): validates every
 * message, lists sessions and their changes, runs one `SessionViewer` per subscribed session, and
 * turns the person's actions into core calls. Control is the core's: input goes through
 * `userInput`, which only the session's controller may use; watching never resizes a PTY.
 * Every person action goes to the audit log; typing as a byte count only.
 */
export class UiBridge implements Disposable {
  private greeted = false;
  private disposed = false;
  private readonly viewers = new Map<string, { viewer: SessionViewer; exit: Disposable }>();
  /** The size this UI last asked for per session: applied when the person takes over. */
  private readonly wantedSize = new Map<string, { cols: number; rows: number }>();
  /** Bytes typed per session not yet written to the audit log. */
  private readonly typed = new Map<string, { bytes: number; timer: NodeJS.Timeout }>();
  private readonly subscriptions: Disposable[] = [];
  private readonly ticker: NodeJS.Timeout;
  private stuckSince: number | null = null;
  /** A screenshot is being drawn for this UI (one at a time: each is a render in the hub). */
  private shooting = false;
  /** uiHistory.ts's view of the hub: its `rerun` is audited with this connection's channel. */
  private readonly historyHost: UiHistoryHost;
  /** This connection's way to the remotes' sessions (docs/design.md §4.7), when the hub links any. */
  private readonly remote: RemoteBridgeSide | undefined;
  private readonly handlers: Handlers;

  constructor(
    private readonly host: UiBridgeHost,
    private readonly transport: UiBridgeTransport,
    private readonly onDispose: () => void = () => undefined,
    private readonly limits: UiBridgeLimits = DEFAULT_BRIDGE_LIMITS,
  ) {
    this.ticker = setInterval(() => this.tick(), limits.tickMs);
    this.ticker.unref();
    this.historyHost = {
      ...(host.history ? { history: host.history } : {}),
      manager: host.manager,
      live: (id) => host.live(id),
      audit: (entry) => this.record(entry),
    };
    this.handlers = this.createHandlers();
    this.remote = host.remotes?.forBridge({
      send: (message) => this.send(message),
      person: isPersonChannel(transport.channel),
      audit: (entry) => this.record(entry),
      typed: (session, bytes) => this.countTyped(session, bytes),
    });
  }

  /** One message from the UI: a JSON string, or an already-decoded value (IPC). Never throws. */
  receive(raw: unknown): void {
    if (this.disposed) return;
    const parsed = parseClientMessage(raw);
    if (!parsed.ok) return this.send(parsed.error);
    const message = parsed.message;
    try {
      const result = this.dispatch(message);
      if (result) result.catch((error: unknown) => this.fail(message, error));
    } catch (error) {
      this.fail(message, error);
    }
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    clearInterval(this.ticker);
    for (const id of [...this.typed.keys()]) this.flushTyped(id);
    for (const { viewer, exit } of this.viewers.values()) {
      exit.dispose();
      viewer.dispose();
    }
    this.viewers.clear();
    this.remote?.dispose();
    for (const subscription of this.subscriptions) subscription.dispose();
    this.onDispose();
  }

  // ---- dispatch --------------------------------------------------------------------------

  private dispatch(message: ClientMessage): Promise<void> | void {
    if (message.type === 'hello') return this.hello(message);
    if (!this.greeted) {
      return this.send({ type: 'error', code: UiErrorCode.Protocol, message: 'Send hello first.', for: message.type, ...ids(message) });
    }
    if (PERSON_ONLY.has(message.type) && !isPersonChannel(this.transport.channel)) {
      return this.send({ type: 'error', code: UiErrorCode.PersonOnly, message: personOnly(message.type), for: message.type, ...ids(message) });
    }
    // A remote's session, approval or machine: carried over its link (docs/design.md §4.7).
    if (this.remote?.route(message)) return;
    const handler = this.handlers[message.type] as (message: ClientMessage) => Promise<void> | void;
    return handler(message);
  }

  /**
   * One table per feature, each message type handled in exactly one (the type checks that none is
   * missing): watching and driving sessions, stopping them, approvals, settings and credentials,
   * screenshots, history.
   */
  private createHandlers(): Handlers {
    const viewing: Handlers<'subscribe' | 'unsubscribe' | 'ack' | 'input' | 'resize' | 'takeOver' | 'handBack' | 'openTerminal'> = {
      subscribe: (message) => this.subscribe(message),
      unsubscribe: (message) => this.unsubscribe(message.session),
      ack: (message) => this.viewers.get(message.session)?.viewer.ack(message.bytes),
      input: (message) => this.input(message),
      resize: (message) => this.resize(message),
      takeOver: (message) => this.takeOver(message),
      handBack: (message) => this.handBack(message),
      openTerminal: (message) => this.openTerminal(message),
    };
    const stopping: Handlers<'interrupt' | 'kill' | 'close' | 'stopClient'> = {
      interrupt: (message) => this.interrupt(message),
      kill: (message) => this.kill(message),
      close: (message) => this.close(message),
      stopClient: (message) => this.stopClient(message),
    };
    const approvals: Handlers<'answerApproval'> = {
      answerApproval: (message) => this.answerApproval(message),
    };
    const settings: Handlers<'getSettings' | 'setSettings' | 'confirmSettings' | 'discardSettings' | 'rotateToken'> = {
      getSettings: (message) => this.send({ type: 'hubSettings', ...this.host.settings.describe(), ...ids(message) }),
      setSettings: (message) => this.setSettings(message),
      confirmSettings: (message) => this.answerHeld(message),
      discardSettings: (message) => this.answerHeld(message),
      rotateToken: (message) => {
        this.host.rotateToken();
        this.record({ action: 'rotate_token' });
        this.send({ type: 'done', for: message.type, ...ids(message) });
      },
    };
    const screenshots: Handlers<'screenshot'> = {
      screenshot: (message) => this.screenshot(message),
    };
    const history: Handlers<'searchHistory' | 'commandOutput' | 'rerun'> = {
      searchHistory: (message) => {
        const local = (): Promise<HubMessage> => searchHistory(this.historyHost, message);
        return (this.remote ? this.remote.searchHistory(message, local) : local()).then((reply) => this.send(reply));
      },
      commandOutput: (message) => commandOutput(this.historyHost, message).then((reply) => this.send(reply)),
      rerun: (message) => rerun(this.historyHost, message).then((id) => this.done(message, id)),
    };
    return { ...viewing, ...stopping, ...approvals, ...settings, ...screenshots, ...history };
  }

  private hello(message: MessageOf<'hello'>): void {
    if (message.protocol !== UI_PROTOCOL_VERSION) {
      return this.send({
        type: 'error',
        code: UiErrorCode.Protocol,
        message: `This hub speaks UI protocol ${UI_PROTOCOL_VERSION}, the page ${message.protocol}: reload the page.`,
        for: 'hello',
        ...ids(message),
      });
    }
    if (!this.greeted) {
      this.greeted = true;
      this.subscriptions.push(
        this.host.onDidChangeSession((id) => this.sessionChanged(id)),
        this.host.onDidRemoveSession((id) => this.send({ type: 'sessionRemoved', id })),
        this.host.onDidChangeApprovals(() => this.send({ type: 'approvals', approvals: this.host.newApprovals() })),
        this.host.onDidChangeRemotes(() => this.send({ type: 'remotes', remotes: this.host.remoteStatuses() })),
        this.host.onDidChangeSettings((view) => this.send({ type: 'hubSettings', ...view })),
        this.host.settings.onDidChangeHeld((held) => this.send({ type: 'heldSettings', held })),
        // The new UI key only to a browser signed in with the cookie: it renews its cookie with it.
        this.host.onDidRotateToken((key) => this.send({ type: 'tokenRotated', ...(this.transport.channel === 'window' ? { key } : {}) })),
      );
    }
    this.send({
      type: 'welcome',
      protocol: UI_PROTOCOL_VERSION,
      version: this.host.version,
      flow: { ackEvery: FLOW_ACK_EVERY, highWatermark: FLOW_HIGH_WATERMARK, lowWatermark: FLOW_LOW_WATERMARK },
    });
    this.send({ type: 'sessions', sessions: this.host.list() });
    this.send({ type: 'heldSettings', held: this.host.settings.heldChange() });
    this.send({ type: 'approvals', approvals: this.host.newApprovals() });
    this.send({ type: 'remotes', remotes: this.host.remoteStatuses() });
  }

  private sessionChanged(id: string): void {
    const session = this.host.info(id);
    if (session) this.send({ type: 'sessionChanged', session });
  }

  private subscribe(message: MessageOf<'subscribe'>): void {
    const session = this.session(message.session);
    // Subscribing again resynchronizes: a fresh snapshot under a new subscription.
    this.unsubscribe(session.id);
    const viewer = new SessionViewer(session, { send: (m) => this.send(m), bufferedAmount: () => this.bufferedAmount() }, this.limits, (error) =>
      this.fail(message, error),
    );
    const exit = session.onDidExit(() => this.viewers.get(session.id)?.viewer.finish());
    this.viewers.set(session.id, { viewer, exit });
  }

  private unsubscribe(id: string): void {
    const entry = this.viewers.get(id);
    if (!entry) return;
    this.viewers.delete(id);
    entry.exit.dispose();
    entry.viewer.dispose();
  }

  private input(message: MessageOf<'input'>): void {
    const session = this.session(message.session);
    if (session.controller !== 'user') {
      return this.send({
        type: 'error',
        code: UiErrorCode.NotInControl,
        message: `An agent controls session ${session.id}: take it over before typing.`,
        for: 'input',
        ...ids(message),
      });
    }
    session.userInput(message.data);
    if (session.creator.kind === 'agent') this.countTyped(session.id, Buffer.byteLength(message.data, 'utf8'));
  }

  /** Watching never resizes a PTY: only the controlling person's size is applied. */
  private resize(message: MessageOf<'resize'>): void {
    const session = this.session(message.session);
    this.wantedSize.set(session.id, { cols: message.cols, rows: message.rows });
    if (session.controller === 'user') session.resize(message.cols, message.rows);
  }

  private takeOver(message: MessageOf<'takeOver'>): void {
    const session = this.session(message.session);
    const changed = session.controller !== 'user';
    session.takeOver();
    // The person's tab size wins from now on (and stays after hand back).
    const size = this.wantedSize.get(session.id);
    if (size) session.resize(size.cols, size.rows);
    if (changed) this.audit('take_over', session.id);
    this.done(message, session.id);
  }

  private handBack(message: MessageOf<'handBack'>): void {
    const session = this.session(message.session);
    const changed = session.controller !== 'agent';
    this.flushTyped(session.id);
    session.handBack();
    if (changed) this.audit('hand_back', session.id);
    this.done(message, session.id);
  }

  private interrupt(message: MessageOf<'interrupt'>): void {
    const session = this.session(message.session);
    this.flushTyped(session.id);
    session.interrupt();
    this.audit('interrupt', session.id);
    this.done(message, session.id);
  }

  private async kill(message: MessageOf<'kill'>): Promise<void> {
    const session = this.session(message.session);
    this.flushTyped(session.id);
    this.audit('kill', session.id);
    const result = await session.kill();
    this.send({ type: 'done', for: 'kill', session: session.id, ended_by: result.ended_by, ...ids(message) });
  }

  private async close(message: MessageOf<'close'>): Promise<void> {
    const id = message.session;
    const session = this.host.live(id);
    if (!session && this.host.isEnded(id)) {
      this.host.dismiss(id);
      return this.done(message, id);
    }
    const live = session ?? this.session(id);
    this.flushTyped(live.id);
    this.audit('close', live.id);
    await live.close();
    this.host.dismiss(live.id);
    this.done(message, live.id);
  }

  /**
   * Everything one agent client started, stopped in one action (docs/design.md §2.8): every live
   * session it opened is closed (the process tree, nothing left running) and leaves the list,
   * the ones the person took over too — the person asked for all of it.
   */
  private async stopClient(message: MessageOf<'stopClient'>): Promise<void> {
    const sessions = this.host.manager.sessionsOpenedBy(message.client);
    const ids = sessions.map((session) => session.id);
    this.record({ action: 'stop_client', client: message.client, sessions: ids });
    for (const id of ids) this.flushTyped(id);
    await Promise.all(sessions.map((session) => session.close()));
    for (const id of ids) this.host.dismiss(id);
    this.send({ type: 'done', for: message.type, sessions: ids, ...(message.req !== undefined ? { req: message.req } : {}) });
  }

  /**
   * The person answers a command waiting for approval (docs/design.md §2.9), from the banner or
   * the menu; only the person's channels get here (PERSON_ONLY), and the audit says which.
   */
  private answerApproval(message: MessageOf<'answerApproval'>): void {
    const approvals = this.host.approvals;
    if (!approvals) {
      return this.send({ type: 'error', code: UiErrorCode.UnknownApproval, message: 'This hub has no approvals.', for: message.type, ...ids(message) });
    }
    let approval;
    try {
      approval = approvals.answer(message.id, message.answer, message.reason);
    } catch (error) {
      return this.send({ type: 'error', code: UiErrorCode.UnknownApproval, message: (error as Error).message, for: message.type, ...ids(message) });
    }
    const reason = message.answer === 'deny' ? { reason: Boolean(message.reason?.trim()) } : {};
    // An approval of an `open` (or an execute that opens its shell) has no session yet.
    const session = approval.session ?? undefined;
    this.record({ action: 'answer_approval', ...(session ? { session } : {}), approval: approval.id, answer: message.answer, ...reason });
    this.done(message, session);
  }

  private async openTerminal(message: MessageOf<'openTerminal'>): Promise<void> {
    const session = await this.host.manager.open({
      creator: { kind: 'user' },
      cols: message.cols,
      rows: message.rows,
      ...(message.cwd !== undefined ? { cwd: message.cwd } : {}),
    });
    this.audit('open_terminal', session.id);
    this.done(message, session.id);
  }

  /** The person's "Save screenshot": the `screenshot` tool's PNG of the live session's screen. */
  private async screenshot(message: MessageOf<'screenshot'>): Promise<void> {
    const session = this.session(message.session);
    if (this.shooting) {
      return this.send({
        type: 'error',
        code: UiErrorCode.Busy,
        message: 'A screenshot is being taken: wait for it to be saved, then try again.',
        for: message.type,
        ...ids(message),
      });
    }
    this.shooting = true;
    try {
      const shot = await this.host.screenshot(session.id, message.theme ? { theme: message.theme } : {});
      if (shot.png.length > MAX_SCREENSHOT_BYTES) {
        const mb = (bytes: number): string => `${Math.ceil(bytes / (1024 * 1024))} MB`;
        return this.send({
          type: 'error',
          code: UiErrorCode.TooLarge,
          message: `The screenshot of session ${shot.session} is ${mb(shot.png.length)}, over the ${mb(MAX_SCREENSHOT_BYTES)} the page takes: make the session smaller (take over and shrink the window) and try again.`,
          for: message.type,
          ...ids(message),
        });
      }
      this.audit('screenshot', shot.session);
      this.send({
        type: 'screenshotTaken',
        session: shot.session,
        png: shot.png.toString('base64'),
        width: shot.width,
        height: shot.height,
        ...(message.req !== undefined ? { req: message.req } : {}),
      });
    } finally {
      this.shooting = false;
    }
  }

  private setSettings(message: MessageOf<'setSettings'>): void {
    const person = isPersonChannel(this.transport.channel);
    let held;
    try {
      held = this.host.settings.save(message.changes, person ? 'person' : 'token');
    } catch (error) {
      if (isSwitchboardError(error)) throw error;
      // A disk that refused the file: say what happened, not "see the log".
      this.host.logger.warn(`ui setSettings: ${(error as Error).message}`);
      return this.send({ type: 'error', code: UiErrorCode.Internal, message: (error as Error).message, for: message.type, ...ids(message) });
    }
    this.record({ action: 'change_settings', settings: Object.keys(message.changes) });
    // Every UI (this one included) gets the settings as saved, before this one's `done`.
    this.host.settingsChanged();
    const waiting = held?.changes.filter((change) => Object.hasOwn(message.changes, change.setting)) ?? [];
    if (!person && held?.settings.some((key) => Object.hasOwn(message.changes, key))) {
      return this.send({
        type: 'error',
        code: UiErrorCode.HeldForPerson,
        message: `Saved to settings.json but not in force: ${waiting.map((change) => change.text).join('; ') || held.settings.join(', ')}. A change from a connection signed in with the token, which agents hold, waits until the person confirms it in the window (or discards it); the settings in force stay.`,
        for: message.type,
        ...ids(message),
      });
    }
    this.send({ type: 'done', for: message.type, ...ids(message) });
  }

  /** The person confirms or discards the settings change that waits for them (docs/design.md §5.5). */
  private answerHeld(message: MessageOf<'confirmSettings' | 'discardSettings'>): void {
    const confirm = message.type === 'confirmSettings';
    const answer = confirm ? this.host.settings.confirmHeld(message.id) : this.host.settings.discardHeld(message.id);
    if (!answer.ok) return this.send({ type: 'error', code: UiErrorCode.NotWaiting, message: answer.reason, for: message.type, ...ids(message) });
    this.record({ action: confirm ? 'confirm_settings' : 'discard_settings', settings: answer.settings });
    this.host.settingsChanged();
    this.send({ type: 'done', for: message.type, ...ids(message) });
  }

  // ---- helpers ---------------------------------------------------------------------------

  /** A live session by id or name (SESSION_NOT_FOUND / SESSION_EXITED from the core otherwise). */
  private session(ref: string): TerminalSession {
    return this.host.live(ref) ?? this.host.manager.get(ref);
  }

  private done(message: ClientMessage, session: string | undefined): void {
    this.send({ type: 'done', for: message.type, ...(session !== undefined ? { session } : {}), ...ids(message) });
  }

  private fail(message: ClientMessage, error: unknown): void {
    if (isSwitchboardError(error) || error instanceof UiError) {
      return this.send({ type: 'error', code: error.code, message: error.message, for: message.type, ...ids(message) });
    }
    this.host.logger.error(`ui ${message.type}: ${(error as Error)?.message ?? String(error)}`);
    this.send({ type: 'error', code: UiErrorCode.Internal, message: 'The hub could not do that; see its log.', for: message.type, ...ids(message) });
  }

  private send(message: HubMessage): void {
    if (this.disposed) return;
    try {
      this.transport.send(message);
    } catch (error) {
      this.host.logger.warn(`ui send: ${(error as Error).message}`);
    }
  }

  private bufferedAmount(): number {
    return this.transport.bufferedAmount?.() ?? 0;
  }

  private audit(action: PersonAction['action'], session: string, bytes?: number): void {
    this.record(bytes === undefined ? { action, session } : { action, session, bytes });
  }

  /** One audit line for what came through this connection, with its channel. */
  private record(entry: PersonAction): void {
    this.host.audit({ ...entry, channel: this.transport.channel, ...(this.transport.via !== undefined ? { via: this.transport.via } : {}) });
  }

  /** Typing becomes one audit line per session per interval: a byte count, never the bytes. */
  private countTyped(session: string, bytes: number): void {
    const entry = this.typed.get(session);
    if (entry) {
      entry.bytes += bytes;
      return;
    }
    const timer = setTimeout(() => this.flushTyped(session), this.limits.inputAuditMs);
    timer.unref();
    this.typed.set(session, { bytes, timer });
  }

  private flushTyped(session: string): void {
    const entry = this.typed.get(session);
    if (!entry) return;
    this.typed.delete(session);
    clearTimeout(entry.timer);
    this.audit('input', session, entry.bytes);
  }

  /** Behind viewers catch up once drained; a UI that stopped reading altogether is dropped. */
  private tick(): void {
    if (this.bufferedAmount() > this.limits.stuckBytes) {
      this.stuckSince ??= Date.now();
      if (Date.now() - this.stuckSince >= this.limits.stuckMs) {
        this.host.logger.warn(`ui: closing a connection that stopped reading (${this.bufferedAmount()} bytes queued)`);
        this.transport.close?.('not reading');
        this.dispose();
        return;
      }
    } else {
      this.stuckSince = null;
    }
    for (const { viewer } of this.viewers.values()) viewer.tick();
  }
}

/** Why a `token` connection may not do `type` (PERSON_ONLY): what it is, who may, and that nothing changed. */
function personOnly(type: ClientMessage['type']): string {
  const what =
    type === 'answerApproval'
      ? 'Approvals are answered only by the person'
      : type === 'confirmSettings' || type === 'discardSettings'
        ? 'A settings change that waits for the person is confirmed or discarded only by the person'
        : `${type} is the person's to do`;
  return `${what}, from the window signed in with its cookie, the app's window or the menu bar: this connection signed in with the bearer token, which agents hold. Nothing changed.`;
}

function ids(message: ClientMessage): { session?: string; req?: number } {
  return {
    ...('session' in message ? { session: message.session } : {}),
    ...(message.req !== undefined ? { req: message.req } : {}),
  };
}
