import { EventEmitter, type Disposable, type Event } from '../../core/index.js';
import { parseHubMessage, UI_PROTOCOL_VERSION, type HubMessage, type UiNewApproval, type UiSession } from '../../ui-protocol/index.js';
import type { Logger } from '../common/logger.js';
import type { LinkMux, LinkStream } from './linkMux.js';
import { remoteRef } from '../settings/remoteNames.js';

/**
 * A remote's sessions and the approvals no session there shows, as this hub's window and menu
 * list them (docs/design.md §4.7): kept from a UI stream of the hub's own over the link (the
 * remote's `sessions`, `sessionChanged`, `sessionRemoved`, `approvals`), each id made
 * `<remote>:<id>` and marked with `host`. When the link drops the sessions stay as they last were
 * (they go on running there); the approvals go, since nobody can answer them until the link is
 * back, when they come again with the remote's fresh list.
 */
export class RemoteSessions implements Disposable {
  private readonly sessions = new Map<string, UiSession>();
  private approvalList: UiNewApproval[] = [];
  private stream: LinkStream | undefined;
  private disposed = false;
  private readonly onDidChangeSessionEmitter = new EventEmitter<string>();
  /** A session was added or changed (its id here, `<remote>:<id>`). */
  readonly onDidChangeSession: Event<string> = this.onDidChangeSessionEmitter.event;
  private readonly onDidRemoveSessionEmitter = new EventEmitter<string>();
  readonly onDidRemoveSession: Event<string> = this.onDidRemoveSessionEmitter.event;
  private readonly onDidChangeApprovalsEmitter = new EventEmitter<void>();
  readonly onDidChangeApprovals: Event<void> = this.onDidChangeApprovalsEmitter.event;

  constructor(
    private readonly name: string,
    private readonly logger: Logger,
  ) {}

  /** A link is up: ask the remote for its sessions over a stream of our own. */
  connect(mux: LinkMux): void {
    if (this.disposed) return;
    this.stream?.close('replaced');
    const stream = mux.open({ kind: 'ui', person: true });
    this.stream = stream;
    stream.onDidMessage((text) => this.receive(text));
    stream.onDidClose(() => {
      if (this.stream !== stream) return;
      this.stream = undefined;
      this.setApprovals([]);
      // Nobody can answer them while the link is down; the remote's list brings them back.
      for (const [id, session] of this.sessions) {
        if (!session.approval) continue;
        const { approval: _approval, ...rest } = session;
        this.sessions.set(id, rest);
        this.onDidChangeSessionEmitter.fire(id);
      }
    });
    stream.send({ type: 'hello', protocol: UI_PROTOCOL_VERSION });
  }

  list(): UiSession[] {
    return [...this.sessions.values()];
  }

  /** A session by its id here (`<remote>:<id>`). */
  info(id: string): UiSession | undefined {
    return this.sessions.get(id);
  }

  approvals(): UiNewApproval[] {
    return this.approvalList;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.stream?.close('the remote was removed');
    for (const id of [...this.sessions.keys()]) {
      this.sessions.delete(id);
      this.onDidRemoveSessionEmitter.fire(id);
    }
    this.setApprovals([]);
    this.onDidChangeSessionEmitter.dispose();
    this.onDidRemoveSessionEmitter.dispose();
    this.onDidChangeApprovalsEmitter.dispose();
  }

  private receive(text: string): void {
    const parsed = parseHubMessage(text);
    if (!parsed.ok) return this.logger.warn(`remote ${this.name}: ${parsed.error.message}`);
    const message: HubMessage = parsed.message;
    switch (message.type) {
      case 'sessions': {
        const fresh = new Map(message.sessions.map((session) => [remoteRef(this.name, session.id), this.here(session)]));
        for (const id of [...this.sessions.keys()]) {
          if (fresh.has(id)) continue;
          this.sessions.delete(id);
          this.onDidRemoveSessionEmitter.fire(id);
        }
        for (const [id, session] of fresh) {
          this.sessions.set(id, session);
          this.onDidChangeSessionEmitter.fire(id);
        }
        return;
      }
      case 'sessionChanged': {
        const session = this.here(message.session);
        this.sessions.set(session.id, session);
        return this.onDidChangeSessionEmitter.fire(session.id);
      }
      case 'sessionRemoved': {
        const id = remoteRef(this.name, message.id);
        if (this.sessions.delete(id)) this.onDidRemoveSessionEmitter.fire(id);
        return;
      }
      case 'approvals':
        return this.setApprovals(message.approvals.map((approval) => ({ ...approval, id: remoteRef(this.name, approval.id), host: this.name })));
      case 'error':
        return this.logger.warn(`remote ${this.name}: ${message.code}: ${message.message}`);
      default:
        return; // settings and the like are the remote's own page's
    }
  }

  /** A remote's session as this hub lists it: `<remote>:<id>`, `host`, its approval's id likewise. */
  private here(session: UiSession): UiSession {
    return {
      ...session,
      id: remoteRef(this.name, session.id),
      host: this.name,
      ...(session.approval ? { approval: { ...session.approval, id: remoteRef(this.name, session.approval.id) } } : {}),
    };
  }

  private setApprovals(approvals: UiNewApproval[]): void {
    if (approvals.length === 0 && this.approvalList.length === 0) return;
    this.approvalList = approvals;
    this.onDidChangeApprovalsEmitter.fire();
  }
}
