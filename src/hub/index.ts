/**
 * The hub's public entry: what main/ and src/commands/ may use. Everything else under src/hub/ is
 * the hub's own business; the lint rule of docs/design.md §1.2 refuses a deep import from outside.
 * (The shim, and src/commands/mcp.ts that runs it, import only the common/ room instead: importing
 * this entry would load the hub and the core into a process that only forwards lines. For the same
 * reason a command that starts no hub (`config`, `export`, `status`, `ui`) imports the light rooms
 * common/, state/ and hostConfig/ directly.)
 *
 * The rooms, each a folder named after its job, top to bottom (a room imports only the rooms below
 * it; hub.ts, the composition root, imports them all):
 *   remote/      hubs reached over SSH: composes on the endpoints and the UI, the core through the manager
 *   ui/          the person's UI: UiHost, one UiBridge per connection, viewers, history, the page, /ws
 *   endpoints/   the socket, HTTP and its guard, the MCP HTTP endpoint
 *   transports/  the MCP transports around a connection: forwarding, detaching, limits, taps
 *   gate/        the policy gate for every way in, typed lines, approvals
 *   settings/    settings.json, its editor, held changes, loosening
 *   state/       the lock, the token and UI key, one-time login codes
 *   history/     the history database and its worker
 *   audit/       the audit log, the person's actions, tool-call summaries
 *   screenshot/  a session's screen as a PNG
 *   hostConfig/  MCP hosts' config files
 *   common/      what the shim may load too: state folder, hub info, socket protocol, logger, JSON-RPC
 */
export { Hub, type HubOptions, type HubStartOptions } from './hub.js';

export { stderrLogger, type Logger } from './common/logger.js';
export { defaultStateDir, ensureStateDir } from './common/stateDir.js';
export { processAlive, readHubInfo, type HubInfo, type HubRemoteInfo } from './common/hubInfo.js';
export { SOCKET_FILE } from './common/socketProtocol.js';
export { acquireHubLock, HubLockedError } from './state/lock.js';
export { connectHubSocket, requestLoginCode } from './common/socketClient.js';
export { readToken, readUiKey } from './state/token.js';

export { describeSettingsIssues, loadSettings, SETTINGS_FILE } from './settings/settings.js';
export { SettingsEditor } from './settings/settingsEditor.js';
export { RemoteEntrySchema, type RemoteEntry } from './settings/remoteSettings.js';
export { changeRemotesThroughHub } from './remote/remotesThroughHub.js';

export type { UiBridge } from './ui/uiBridge.js';
export type { UiHost } from './ui/uiHost.js';
export { CONTENT_TYPES, defaultRendererDir, isUiAssetPath } from './ui/uiStatic.js';

export { configSnippet, configText, hostFormat, HOSTS, SERVER_NAME, serverEntry, type HostName } from './hostConfig/hostConfig.js';
export { ConfigEditRefused, type EntryEdit } from './hostConfig/entryEdit.js';
export { setJsonEntry } from './hostConfig/jsonEntryEditor.js';
export { setTomlEntry } from './hostConfig/tomlEntryEditor.js';
