import type { CallToolResult } from '@modelcontextprotocol/server';
import { EventEmitter, type Disposable, type Event } from '../../core/index.js';
import type { RemoteCaller, RemoteTools } from '../../mcp/toolHost.js';
import type { ClientMessage, HubMessage, UiNewApproval, UiRemote, UiSession } from '../../ui-protocol/index.js';
import type { Logger } from '../common/logger.js';
import { mergeHistory } from './historyAcrossMachines.js';
import { LinkMux } from './linkMux.js';
import { RemoteCalls } from './remoteCalls.js';
import { RemoteLink, type RemoteStatus } from './remoteLink.js';
import { splitRemoteRef } from '../settings/remoteNames.js';
import { RemoteSessions } from './remoteSessions.js';
import type { RemoteEntry } from '../settings/remoteSettings.js';
import { RemoteView } from './remoteView.js';
import type { RemoteBridgeOptions, RemoteBridgeSide, UiRemotes } from '../ui/uiRemotes.js';
import { remoteAction, routeToRemote } from './uiRouting.js';

/** How long an agent's call waits for a remote that is not connected to connect. */
const CALL_CONNECT_WAIT_MS = 15_000;

export interface RemotesOptions {
  entries: readonly RemoteEntry[];
  /** This machine, as remotes' audit logs name where links came from. */
  localName: string;
  version: string;
  logger: Logger;
  env: NodeJS.ProcessEnv;
}

/** One remote: its link, its sessions as listed here, its agents' calls, the windows' views of it. */
class Remote implements Disposable {
  readonly link: RemoteLink;
  readonly sessions: RemoteSessions;
  readonly calls: RemoteCalls;
  readonly views = new Set<RemoteView>();
  private readonly subscriptions: Disposable[];

  constructor(entry: RemoteEntry, options: RemotesOptions) {
    this.link = new RemoteLink(entry, { localName: options.localName, version: options.version, logger: options.logger, env: options.env });
    this.sessions = new RemoteSessions(entry.name, options.logger);
    this.calls = new RemoteCalls({
      name: entry.name,
      localName: options.localName,
      connected: async () => {
        const link = await this.link.connected(CALL_CONNECT_WAIT_MS);
        if (link instanceof LinkMux) return link;
        return { problem: this.unavailable(link), details: { host: entry.name, state: link.state, ...(link.problem ? { problem: link.problem.code } : {}) } };
      },
    });
    this.subscriptions = [
      this.link.onDidConnect((mux) => {
        this.sessions.connect(mux);
        for (const view of this.views) view.reconnected();
      }),
    ];
  }

  get name(): string {
    return this.link.entry.name;
  }

  /** Why this remote takes nothing now, in a sentence (the link's own, or that it is still connecting). */
  unavailable(status: RemoteStatus = this.link.status): string {
    if (status.state === 'connected') return `${status.name} is connected.`;
    if (status.problem) return `${status.name} is not connected: ${status.problem.message}`;
    return `${status.name} (${status.destination}) is not connected yet: ssh is still connecting.`;
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
    for (const view of this.views) view.dispose();
    this.views.clear();
    this.calls.dispose();
    this.sessions.dispose();
    this.link.dispose();
  }
}

/**
 * The other machines this hub links to (docs/design.md §4.7), from the `remotes` setting, changed
 * live: each with its link (remoteLink.ts), its sessions as this hub lists them, its agents'
 * calls, and the windows' views of it. This is what the UI host and the tools see of them.
 */
export class Remotes implements RemoteTools, UiRemotes, Disposable {
  private readonly remotes = new Map<string, Remote>();
  private readonly bridges = new Set<{ views: Map<string, RemoteView>; options: RemoteBridgeOptions }>();
  private readonly onDidChangeStatusEmitter = new EventEmitter<void>();
  /** A remote was added, removed, connected or dropped. */
  readonly onDidChangeStatus: Event<void> = this.onDidChangeStatusEmitter.event;
  private readonly onDidChangeSessionEmitter = new EventEmitter<string>();
  readonly onDidChangeSession: Event<string> = this.onDidChangeSessionEmitter.event;
  private readonly onDidRemoveSessionEmitter = new EventEmitter<string>();
  readonly onDidRemoveSession: Event<string> = this.onDidRemoveSessionEmitter.event;
  private readonly onDidChangeApprovalsEmitter = new EventEmitter<void>();
  readonly onDidChangeApprovals: Event<void> = this.onDidChangeApprovalsEmitter.event;
  private readonly onDidChangeNamesEmitter = new EventEmitter<void>();
  readonly onDidChangeNames: Event<void> = this.onDidChangeNamesEmitter.event;
  private disposed = false;

  constructor(private readonly options: RemotesOptions) {
    this.update(options.entries);
  }

  /** The `remotes` setting changed: links added, removed, or reconnected where their entry changed. */
  update(entries: readonly RemoteEntry[]): void {
    if (this.disposed) return;
    const before = this.names().join('\n');
    const wanted = new Map(entries.map((entry) => [entry.name, entry]));
    for (const [name, remote] of [...this.remotes]) {
      if (wanted.has(name)) continue;
      this.remotes.delete(name);
      for (const bridge of this.bridges) bridge.views.delete(name);
      remote.dispose();
      this.options.logger.info(`remote ${name}: removed`);
    }
    const ordered = new Map<string, Remote>();
    for (const entry of entries) {
      let remote = this.remotes.get(entry.name);
      if (remote) remote.link.update(entry);
      else remote = this.add(entry);
      ordered.set(entry.name, remote);
    }
    this.remotes.clear();
    for (const [name, remote] of ordered) this.remotes.set(name, remote);
    this.onDidChangeStatusEmitter.fire();
    if (this.names().join('\n') !== before) this.onDidChangeNamesEmitter.fire();
  }

  /** Every remote as the window and `status` show it, in settings' order. */
  statuses(): UiRemote[] {
    return [...this.remotes.values()].map((remote) => ({ ...remote.link.status }));
  }

  /** The ssh process of a remote's link (tests cut the link with it). */
  sshPid(name: string): number | undefined {
    return this.remotes.get(name)?.link.sshPid;
  }

  // ---- the person's side (uiHost.ts) ---------------------------------------------------------

  sessions(): UiSession[] {
    return [...this.remotes.values()].flatMap((remote) => remote.sessions.list());
  }

  info(id: string): UiSession | undefined {
    const split = splitRemoteRef(id);
    return split ? this.remotes.get(split.host)?.sessions.info(id) : undefined;
  }

  approvals(): UiNewApproval[] {
    return [...this.remotes.values()].flatMap((remote) => remote.sessions.approvals());
  }

  /** A UI bridge's way to the remotes: one view per remote it touches. */
  forBridge(options: RemoteBridgeOptions): RemoteBridgeSide {
    const bridge = { views: new Map<string, RemoteView>(), options };
    this.bridges.add(bridge);
    const viewOf = (host: string): RemoteView | undefined => {
      const remote = this.remotes.get(host);
      if (!remote) return undefined;
      let view = bridge.views.get(host);
      if (!view) {
        view = new RemoteView(
          {
            name: host,
            get mux() {
              return remote.link.mux;
            },
            unavailable: () => remote.unavailable(),
          },
          options.send,
          options.person,
        );
        bridge.views.set(host, view);
        remote.views.add(view);
      }
      return view;
    };
    return {
      route: (message) => {
        const routed = routeToRemote(message, (host) => this.remotes.has(host));
        if (!routed) return false;
        if ('refused' in routed) {
          options.send(routed.refused);
          return true;
        }
        const action = remoteAction(message, routed.host);
        // Typing is counted in agents' sessions, as on this machine's (uiBridge.ts).
        if (action?.typed) {
          if (this.info(action.typed.session)?.creator.kind === 'agent') options.typed(action.typed.session, action.typed.bytes);
        } else if (action?.entry) options.audit(action.entry);
        viewOf(routed.host)!.forward(routed.message);
        return true;
      },
      searchHistory: (message, local) => this.searchHistory(message, local, viewOf),
      dispose: () => {
        this.bridges.delete(bridge);
        for (const [host, view] of bridge.views) {
          this.remotes.get(host)?.views.delete(view);
          view.dispose();
        }
        bridge.views.clear();
      },
    };
  }

  // ---- the agents' side (RemoteTools) ---------------------------------------------------------

  split(ref: string): { host: string; id: string } | undefined {
    const split = splitRemoteRef(ref);
    return split && this.remotes.has(split.host) ? split : undefined;
  }

  has(host: string): boolean {
    return this.remotes.has(host);
  }

  unavailable(host: string): string | undefined {
    const remote = this.remotes.get(host);
    if (!remote) return `there is no remote ${host}`;
    return remote.link.mux ? undefined : remote.unavailable();
  }

  names(): string[] {
    return [...this.remotes.keys()];
  }

  call(host: string, tool: string, args: Record<string, unknown>, caller: RemoteCaller): Promise<CallToolResult> {
    const remote = this.remotes.get(host);
    if (!remote) return Promise.reject(new Error(`no remote ${host}`));
    return remote.calls.call(tool, args, caller);
  }

  connectionClosed(connection: string): void {
    for (const remote of this.remotes.values()) remote.calls.connectionClosed(connection);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const remote of this.remotes.values()) remote.dispose();
    this.remotes.clear();
    this.onDidChangeStatusEmitter.dispose();
    this.onDidChangeSessionEmitter.dispose();
    this.onDidRemoveSessionEmitter.dispose();
    this.onDidChangeApprovalsEmitter.dispose();
    this.onDidChangeNamesEmitter.dispose();
  }

  private add(entry: RemoteEntry): Remote {
    const remote = new Remote(entry, this.options);
    remote.link.onDidChangeStatus(() => this.onDidChangeStatusEmitter.fire());
    remote.sessions.onDidChangeSession((id) => this.onDidChangeSessionEmitter.fire(id));
    remote.sessions.onDidRemoveSession((id) => this.onDidRemoveSessionEmitter.fire(id));
    remote.sessions.onDidChangeApprovals(() => this.onDidChangeApprovalsEmitter.fire());
    return remote;
  }

  /**
   * This hub's history and every connected remote's (or the one `host` or `session` names),
   * merged newest first and cut to the limit; a remote that does not answer is named in `note`.
   */
  private async searchHistory(
    message: Extract<ClientMessage, { type: 'searchHistory' }>,
    local: () => Promise<HubMessage>,
    viewOf: (host: string) => RemoteView | undefined,
  ): Promise<HubMessage> {
    const machines = [...this.remotes.values()].map((remote) => ({
      name: remote.name,
      connected: remote.link.mux !== undefined,
      ask: (question: Extract<ClientMessage, { type: 'searchHistory' }>) => viewOf(remote.name)!.ask(question),
      unavailable: () => remote.unavailable(),
    }));
    return mergeHistory(message, local, machines);
  }
}
