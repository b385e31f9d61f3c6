/**
 * The core's public entry: what the other layers (src/mcp, src/hub, src/commands) may use.
 * Everything else under src/core/ is the core's own business; the lint rule of
 * docs/design.md §1.2 refuses a deep import from outside.
 *
 * The rooms, each a folder named after its concept:
 *   session/     a session (TerminalSession) and the manager that owns them all
 *   pty/         spawning a PTY with node-pty
 *   output/      the one place a PTY's byte stream is handled, and fitting output for a model
 *   emulation/   the headless xterm that is the truth of the screen, and floods through it
 *   shell/       shell integration: the plan that injects it, the marks, the tracker that reads them
 *   processes/   the OS side: foreground jobs, terminal reads, signals, the process table
 *   transcript/  output.log, commands.jsonl, closed sessions on disk, replay, export
 */
export { ErrorCode, SwitchboardError, isSwitchboardError } from './errors.js';
export { EventEmitter, nextEvent, type Disposable, type Event } from './event.js';
export type * from './types.js';

export { SessionManager, findExecutable, type CoreSettings } from './session/sessionManager.js';
export type { TerminalSession } from './session/terminalSession.js';
export { DEFAULT_SECRET_PATTERNS } from './session/sessionEnv.js';

export type { OutputFrame } from './session/outputPipe.js';
export { Utf8Pieces, wellFormedUtf8 } from './output/utf8.js';

export { DEFAULT_TRANSCRIPT_MAX_BYTES } from './transcript/transcript.js';
export { DEFAULT_RETENTION_BYTES, DEFAULT_RETENTION_DAYS, SessionStore } from './transcript/sessionStore.js';
export { asciicastLines, exportAsciicast } from './transcript/asciicast.js';
