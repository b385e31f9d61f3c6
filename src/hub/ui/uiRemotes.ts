/**
 * What the UI room needs of the other machines (docs/design.md §4.7), as interfaces: the remote/
 * room above it implements them (remote/remotes.ts), so the UI never imports that room. A UiHost
 * lists remote sessions with its own; each UiBridge gets a side of its own to carry what it is
 * asked about a remote's session over that remote's link.
 */
import type { Disposable, Event } from '../../core/index.js';
import type { ClientMessage, HubMessage, UiNewApproval, UiRemote, UiSession } from '../../ui-protocol/index.js';
import type { PersonAction } from '../audit/personAudit.js';

/** What a UI bridge gives its remote side. */
export interface RemoteBridgeOptions {
  send(message: HubMessage): void;
  /** The bridge's connection is the person's. */
  person: boolean;
  /** One person action of this hub's audit (the bridge adds its channel). */
  audit(entry: PersonAction): void;
  /** Typing into a remote session, counted as the bridge counts it. */
  typed(session: string, bytes: number): void;
}

/** One UI bridge's way to the remotes. */
export interface RemoteBridgeSide extends Disposable {
  /** True when `message` is about a remote (forwarded, or answered with why not); false: this hub's own. */
  route(message: ClientMessage): boolean;
  /** A history search across machines: this hub's answer and each connected remote's, newest first. */
  searchHistory(message: Extract<ClientMessage, { type: 'searchHistory' }>, local: () => Promise<HubMessage>): Promise<HubMessage>;
}

/** The remotes as a UiHost lists them with its own sessions and approvals. */
export interface UiRemotes {
  sessions(): UiSession[];
  info(id: string): UiSession | undefined;
  approvals(): UiNewApproval[];
  /** Every remote and whether it is connected, in settings' order. */
  statuses(): UiRemote[];
  forBridge(options: RemoteBridgeOptions): RemoteBridgeSide;
  readonly onDidChangeSession: Event<string>;
  readonly onDidRemoveSession: Event<string>;
  readonly onDidChangeApprovals: Event<void>;
  /** A remote was added, removed, connected or dropped. */
  readonly onDidChangeStatus: Event<void>;
}
