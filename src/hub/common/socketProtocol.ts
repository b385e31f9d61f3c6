/**
 * The hub's unix socket (`<state>/hub.sock`), spoken by the shim (docs/design.md §4.2). Chosen over
 * Streamable HTTP on the socket because the shim already speaks newline-delimited JSON-RPC
 * on stdio: after one handshake line each way, the socket carries exactly those lines.
 *
 *   client → hub   {"type":"hello","token":"<token>","client":"shim","version":"0.1.0"}\n
 *   hub → client   {"type":"welcome","hub_pid":1234,"version":"0.1.0"}\n     (then JSON-RPC lines)
 *              or  {"type":"denied","reason":"…"}\n                          (then the hub closes)
 *
 * The token is required here too: file permissions are not portable enough to be the only lock.
 *
 * `switchboard ui` asks for a one-time browser sign-in code instead of MCP (loginCodes.ts), with
 * the person's UI key (`<state>/ui-key`), never the token: the token is the agents' credential,
 * and a code is a browser signed in as the person (token.ts):
 *
 *   client → hub   {"type":"login","key":"<ui key>","client":"switchboard-ui","version":"0.1.0"}\n
 *   hub → client   {"type":"login_code","code":"…","port":7391,"expires_in_ms":60000}\n   (then the hub closes)
 *              or  {"type":"denied","reason":"…"}\n
 */
export const SOCKET_FILE = 'hub.sock';
export const TOKEN_FILE = 'token';
/** The person's UI key: signs a browser in, never given to agents (token.ts). */
export const UI_KEY_FILE = 'ui-key';
/** Who holds the state dir: `{ pid, started_at, socket, port, version }` (JSON). */
export const HUB_INFO_FILE = 'hub.json';

/** A handshake line longer than this is refused (the token is 43 characters). */
export const MAX_HANDSHAKE_BYTES = 4_096;
/** A JSON-RPC line longer than this is refused with a clear error, never buffered without bound. */
export const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;
/** The handshake must complete within this time or the hub closes the connection. */
export const HANDSHAKE_TIMEOUT_MS = 5_000;

export interface HelloMessage {
  type: 'hello';
  token: string;
  client: string;
  version: string;
}

export interface WelcomeMessage {
  type: 'welcome';
  hub_pid: number;
  version: string;
}

interface DeniedMessage {
  type: 'denied';
  reason: string;
}

export type HandshakeReply = WelcomeMessage | DeniedMessage;

export interface LoginRequestMessage {
  type: 'login';
  /** The person's UI key (`<state>/ui-key`). */
  key: string;
  client: string;
  version: string;
}

export interface LoginCodeMessage {
  type: 'login_code';
  /** Opens the UI once: `http://127.0.0.1:<port>/?login=<code>`. */
  code: string;
  port: number;
  expires_in_ms: number;
}

export type LoginReply = LoginCodeMessage | DeniedMessage;
