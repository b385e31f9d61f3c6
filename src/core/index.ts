/**
 * The core's public entry: what the other layers (src/mcp, src/hub, src/commands) may use.
 * Everything else under src/core/ is the core's own business; the lint rule of
 * docs/design.md §1.2 refuses a deep import from outside.
 *
 * The rooms, each a folder named after its concept, top to bottom (a room imports only the
 * rooms below it):
 *   session/     a session (TerminalSession, its parts, the one pipe of its byte stream) and
 *                the manager that owns them all
 *   transcript/  output.log, commands.jsonl, closed sessions on disk, replay, export
 *   emulation/   the headless xterm that is the truth of the screen, and floods through it
 *   processes/   the OS side: foreground jobs, terminal reads, signals, the process table
 *   shell/       shell integration: the plan that injects it, the marks, the tracker that reads them
 *   output/      text helpers: UTF-8 boundaries, fitting output for a model, the buffer as text
 *   pty/         spawning a PTY with node-pty
 */
export { ErrorCode, SwitchboardError, isSwitchboardError } from './errors.js';
export { DisposableStore, EventEmitter, nextEvent, type Disposable, type Event } from './event.js';
export type * from './types.js';

export { SessionManager, findExecutable, type CoreSettings, type FinishedCommand } from './session/sessionManager.js';
export type { TerminalSession } from './session/terminalSession.js';
export type { LaunchWrapper, PlannedLaunch, SandboxDecider, SandboxRequest, SessionSandboxPlan } from './session/sessionSandbox.js';
export { DEFAULT_SECRET_PATTERNS } from './session/sessionEnv.js';
export { AGENT_ENV_DEFAULTS, agentEnvEntryProblem } from './session/agentEnvironment.js';

export type { OutputFrame } from './session/outputPipe.js';
export { Utf8Pieces, wellFormedUtf8 } from './output/utf8.js';
export { styledText } from './emulation/styledScreen.js';

export { DEFAULT_TRANSCRIPT_MAX_BYTES } from './transcript/transcript.js';
export { DEFAULT_RETENTION_BYTES, DEFAULT_RETENTION_DAYS, SessionStore } from './transcript/sessionStore.js';
export { asciicastLines, exportAsciicast } from './transcript/asciicast.js';
