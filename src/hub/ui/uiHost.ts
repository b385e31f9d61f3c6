import { EventEmitter, type Disposable, type Event, type SessionInfo, type SessionManager, type TerminalSession } from '../../core/index.js';
import type { Screenshot, ScreenshotRequest } from '../../mcp/server.js';
import type { UiApproval, UiNewApproval, UiRemote, UiSession } from '../../ui-protocol/index.js';
import { isNewSlot, type Approval } from '../gate/approvals.js';
import type { ApprovalBook } from '../gate/approvals.js';
import type { HistorySearch } from '../history/historyIndex.js';
import type { Logger } from '../common/logger.js';
import type { PersonAuditSink } from '../audit/personAudit.js';
import type { HubSettingsView, SettingsEditor } from '../settings/settingsEditor.js';
import type { UiRemotes } from './uiRemotes.js';
import { UiBridge, type UiBridgeTransport } from './uiBridge.js';
import type { UiBridgeHost } from './uiBridgeHost.js';

interface UiHostOptions {
  manager: SessionManager;
  audit: PersonAuditSink;
  logger: Logger;
  /** The hub's version, told to UIs in `welcome`. */
  version: string;
  /** The hub's settings for the settings page. */
  settings: SettingsEditor;
  /** Replaces the endpoints' token (the person asked); `tokenRotated` follows. */
  rotateToken: () => void;
  /** Commands waiting for the person's approval (docs/design.md §2.9); none: no policy. */
  approvals?: ApprovalBook;
  /** A PNG of a session's screen: the `screenshot` tool's own (Hub.screenshot). */
  screenshot: (ref: string, request: ScreenshotRequest) => Promise<Screenshot>;
  /** The history database (docs/design.md §2.7) the window searches; absent: searches say there is none. */
  history?: HistorySearch;
  /** The other machines this hub links to (docs/design.md §4.7): their sessions are listed with these. */
  remotes?: UiRemotes;
}

/**
 * The UI side of the hub, shared by every connected UI (browser tabs over `/ws`, the
 * Electron window over IPC): the session list as UIs see it (live sessions, plus those that
 * ended while the hub runs until the person closes them), whether a session waits for a secret
 * ("needs you"), and one `UiBridge` per connection.
 */
export class UiHost implements UiBridgeHost, Disposable {
  readonly manager: SessionManager;
  readonly audit: PersonAuditSink;
  readonly logger: Logger;
  readonly version: string;
  readonly settings: SettingsEditor;
  readonly rotateToken: () => void;
  readonly approvals: ApprovalBook | undefined;
  readonly screenshot: (ref: string, request: ScreenshotRequest) => Promise<Screenshot>;
  readonly history?: HistorySearch;
  readonly remotes?: UiRemotes;
  private readonly bridges = new Set<UiBridge>();
  /** Live sessions we listen to (for `onDidAwaitInput`), by id. */
  private readonly watched = new Map<string, { session: TerminalSession; subscription: Disposable }>();
  private readonly secret = new Set<string>();
  /** Sessions that ended while this hub ran and the person has not closed yet. */
  private readonly ended = new Map<string, UiSession>();
  private readonly subscription: Disposable;
  private readonly approvalSubscription: Disposable | undefined;
  private disposed = false;

  private readonly onDidChangeSessionEmitter = new EventEmitter<string>();
  /** A session in the list was added or changed (its id). */
  readonly onDidChangeSession: Event<string> = this.onDidChangeSessionEmitter.event;
  private readonly onDidRemoveSessionEmitter = new EventEmitter<string>();
  /** A session left the list. */
  readonly onDidRemoveSession: Event<string> = this.onDidRemoveSessionEmitter.event;
  private readonly onDidChangeSettingsEmitter = new EventEmitter<HubSettingsView>();
  /**
   * Settings were saved through a UI or in settings.json by hand, or the token replaced: every
   * settings page shows them, described once for all.
   */
  readonly onDidChangeSettings: Event<HubSettingsView> = this.onDidChangeSettingsEmitter.event;
  private readonly onDidChangeApprovalsEmitter = new EventEmitter<void>();
  /** An approval of a request that would start a session was asked, answered or withdrawn. */
  readonly onDidChangeApprovals: Event<void> = this.onDidChangeApprovalsEmitter.event;
  private readonly onDidChangeRemotesEmitter = new EventEmitter<void>();
  /** A remote was added or removed, connected or dropped. */
  readonly onDidChangeRemotes: Event<void> = this.onDidChangeRemotesEmitter.event;
  private readonly remoteSubscriptions: Disposable[] = [];
  private readonly onDidRotateTokenEmitter = new EventEmitter<string>();
  /** The endpoints' token and the person's UI key were replaced (the new UI key). */
  readonly onDidRotateToken: Event<string> = this.onDidRotateTokenEmitter.event;

  constructor(options: UiHostOptions) {
    this.manager = options.manager;
    this.audit = options.audit;
    this.logger = options.logger;
    this.version = options.version;
    this.settings = options.settings;
    this.rotateToken = options.rotateToken;
    this.approvals = options.approvals;
    this.screenshot = options.screenshot;
    if (options.history) this.history = options.history;
    this.subscription = this.manager.onDidChange((id) => this.handleChange(id));
    // An approval asked, answered or withdrawn changes the session as every UI shows it.
    this.approvalSubscription = this.approvals?.onDidChange((slot) => {
      if (isNewSlot(slot)) this.onDidChangeApprovalsEmitter.fire();
      else if (this.watched.has(slot)) this.onDidChangeSessionEmitter.fire(slot);
    });
    for (const info of this.manager.list(false)) this.watch(info.id);
    if (options.remotes) {
      const remotes = options.remotes;
      this.remotes = remotes;
      this.remoteSubscriptions.push(
        remotes.onDidChangeSession((id) => this.onDidChangeSessionEmitter.fire(id)),
        remotes.onDidRemoveSession((id) => this.onDidRemoveSessionEmitter.fire(id)),
        remotes.onDidChangeApprovals(() => this.onDidChangeApprovalsEmitter.fire()),
        remotes.onDidChangeStatus(() => this.onDidChangeRemotesEmitter.fire()),
      );
    }
  }

  /** A new connection: messages in through `bridge.receive`, out through `transport.send`. */
  createBridge(transport: UiBridgeTransport): UiBridge {
    if (this.disposed) throw new Error('The UI host is closed.');
    this.manager.warmUp(); // the person may open a terminal from it
    const bridge = new UiBridge(this, transport, () => this.bridges.delete(bridge));
    this.bridges.add(bridge);
    return bridge;
  }

  list(): UiSession[] {
    return [...this.manager.list(false).map((info) => this.toUi(info)), ...this.ended.values(), ...(this.remotes?.sessions() ?? [])];
  }

  /** The remote machines and whether each is connected (docs/design.md §4.7). */
  remoteStatuses(): UiRemote[] {
    return this.remotes?.statuses() ?? [];
  }

  /** Approvals of requests that would start a session (an agent's `open`): no session shows them. */
  newApprovals(): UiNewApproval[] {
    const here = (this.approvals?.pendingWithoutSession() ?? []).map((approval): UiNewApproval => ({
      ...uiApproval(approval),
      tool: approval.tool === 'open' ? 'open' : 'execute',
    }));
    return [...here, ...(this.remotes?.approvals() ?? [])];
  }

  /** A session of the list by id, or undefined. */
  info(id: string): UiSession | undefined {
    const live = this.watched.get(id);
    if (live) return this.toUi(live.session.info());
    return this.ended.get(id) ?? this.remotes?.info(id);
  }

  /** The live session, or undefined (ended, closed or unknown). */
  live(id: string): TerminalSession | undefined {
    return this.watched.get(id)?.session;
  }

  isEnded(id: string): boolean {
    return this.ended.has(id);
  }

  /** The person closed an ended session: it leaves every UI's list. */
  dismiss(id: string): void {
    if (!this.ended.delete(id)) return;
    this.onDidRemoveSessionEmitter.fire(id);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const bridge of [...this.bridges]) bridge.dispose();
    this.subscription.dispose();
    this.approvalSubscription?.dispose();
    for (const subscription of this.remoteSubscriptions) subscription.dispose();
    this.onDidChangeRemotesEmitter.dispose();
    for (const { subscription } of this.watched.values()) subscription.dispose();
    this.watched.clear();
    this.onDidChangeSessionEmitter.dispose();
    this.onDidRemoveSessionEmitter.dispose();
    this.onDidChangeApprovalsEmitter.dispose();
    this.onDidChangeSettingsEmitter.dispose();
    this.onDidRotateTokenEmitter.dispose();
  }

  /** The hub replaced its token and UI key: pages renew their login, settings pages show its new age. */
  tokenRotated(key: string): void {
    this.onDidRotateTokenEmitter.fire(key);
    this.settingsChanged();
  }

  /** The settings were saved through a UI, or settings.json was edited by hand. */
  settingsChanged(): void {
    if (this.onDidChangeSettingsEmitter.hasListeners) this.onDidChangeSettingsEmitter.fire(this.settings.describe());
  }

  private handleChange(id: string): void {
    const watched = this.watched.get(id) ?? this.watch(id);
    if (!watched) return; // ended before we saw it live, or unknown
    // The state alone on every change (an execute makes four): the whole info only at the end.
    const state = watched.session.state;
    if (state !== 'awaiting_input') this.secret.delete(id);
    if (state === 'exited') {
      // Captured now: the session is disposed right after this event.
      watched.subscription.dispose();
      this.watched.delete(id);
      this.secret.delete(id);
      this.ended.set(id, this.toUi(watched.session.info()));
    }
    this.onDidChangeSessionEmitter.fire(id);
  }

  private watch(id: string): { session: TerminalSession; subscription: Disposable } | undefined {
    let session: TerminalSession;
    try {
      session = this.manager.get(id);
    } catch {
      return undefined;
    }
    if (session.id !== id) return undefined;
    const entry = {
      session,
      subscription: session.onDidAwaitInput(({ secret }) => {
        if (secret) this.secret.add(id);
        else this.secret.delete(id);
      }),
    };
    this.watched.set(id, entry);
    return entry;
  }

  private toUi(info: SessionInfo): UiSession {
    const resized = this.watched.get(info.id)?.session.agentResize;
    const approval = info.state === 'exited' ? undefined : this.approvals?.pending(info.id);
    return {
      ...info,
      ...(this.secret.has(info.id) && info.state === 'awaiting_input' ? { secret: true } : {}),
      ...(resized ? { resized_by: { ...resized } } : {}),
      ...(approval ? { approval: uiApproval(approval) } : {}),
    };
  }
}

function uiApproval(approval: Approval): UiApproval {
  const { id, command, cwd, client, rule, reason, asked_at: askedAt } = approval;
  return { id, command, cwd, client, rule, reason, asked_at: askedAt, ...(approval.unsandboxed ? { unsandboxed: true } : {}) };
}
