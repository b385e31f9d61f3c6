/**
 * What a UiBridge needs of the hub, one narrow interface per feature (as uiHistory.ts's
 * `UiHistoryHost`): the bridge depends on these, never on UiHost, so uiHost.ts → uiBridge.ts is
 * the only way the two files point (UiHost provides them all, and the tests may provide a part).
 */
import type { Event, SessionManager, TerminalSession } from '../../core/index.js';
import type { Screenshot, ScreenshotRequest } from '../../mcp/server.js';
import type { UiNewApproval, UiRemote, UiSession } from '../../ui-protocol/index.js';
import type { PersonAuditSink } from '../audit/personAudit.js';
import type { Logger } from '../common/logger.js';
import type { ApprovalBook } from '../gate/approvals.js';
import type { HubSettingsView, SettingsEditor } from '../settings/settingsEditor.js';
import type { UiHistoryHost } from './uiHistory.js';
import type { UiRemotes } from './uiRemotes.js';

/** The session list as every UI sees it (live ones, and ended ones until the person closes them). */
interface SessionListHost {
  /** The hub's version, told in `welcome`. */
  readonly version: string;
  list(): UiSession[];
  info(id: string): UiSession | undefined;
  live(id: string): TerminalSession | undefined;
  isEnded(id: string): boolean;
  /** The person closed an ended session: it leaves every UI's list. */
  dismiss(id: string): void;
  readonly onDidChangeSession: Event<string>;
  readonly onDidRemoveSession: Event<string>;
}

/** Opening, finding and stopping sessions, and reading their commands: the core's manager. */
interface SessionControlHost {
  readonly manager: Pick<SessionManager, 'open' | 'get' | 'sessionsOpenedBy' | 'read' | 'store'>;
}

/** Commands waiting for the person (docs/design.md §2.9); none: no policy. */
interface ApprovalsHost {
  readonly approvals: Pick<ApprovalBook, 'answer'> | undefined;
  /** Approvals of requests that would start a session (no session shows them). */
  newApprovals(): UiNewApproval[];
  readonly onDidChangeApprovals: Event<void>;
}

/** The settings page, the held changes and the credentials. */
interface SettingsHost {
  readonly settings: Pick<SettingsEditor, 'describe' | 'save' | 'heldChange' | 'confirmHeld' | 'discardHeld' | 'onDidChangeHeld'>;
  /** Every settings page shows the saved settings (called after a save or an answer). */
  settingsChanged(): void;
  readonly onDidChangeSettings: Event<HubSettingsView>;
  /** Replaces the endpoints' token and the UI key (the person asked). */
  rotateToken(): void;
  readonly onDidRotateToken: Event<string>;
}

/** A PNG of a session's screen: the `screenshot` tool's own. */
interface ScreenshotHost {
  screenshot(ref: string, request: ScreenshotRequest): Promise<Screenshot>;
}

/** What a bridge logs and audits through (every person action goes to the audit log). */
interface RecordHost {
  readonly logger: Logger;
  readonly audit: PersonAuditSink;
}

/** The other machines (docs/design.md §4.7): their sessions are in the list; a bridge carries what is asked of them. */
export interface RemotesHost {
  /** None: this hub links no machine. */
  readonly remotes?: UiRemotes;
  /** Every remote and whether it is connected (none: an empty list). */
  remoteStatuses(): UiRemote[];
  readonly onDidChangeRemotes: Event<void>;
}

/** Everything a UiBridge is handed: UiHost provides it. */
export type UiBridgeHost = SessionListHost &
  RemotesHost &
  SessionControlHost &
  ApprovalsHost &
  SettingsHost &
  ScreenshotHost &
  RecordHost &
  Pick<UiHistoryHost, 'history'>;
