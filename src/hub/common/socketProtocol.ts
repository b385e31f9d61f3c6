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
 *
 * A link from the person's hub on another machine (docs/design.md §4.7), through that person's ssh
 * and this machine's `switchboard link`, which reads this hub's UI key here and adds it (the key
 * never crosses the link):
 *
 *   client → hub   {"type":"link","key":"<ui key>","from":"laptop","name":"devbox","link_protocol":1,"client":"switchboard-link","version":"0.1.0"}\n
 *   hub → client   {"type":"welcome","hub_pid":1234,"version":"0.1.0","link_protocol":1}\n   (then link frames, src/hub/remote/linkProtocol.ts)
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
  /** Answering a `link`: the link protocol this hub speaks (LINK_PROTOCOL_VERSION). */
  link_protocol?: number;
}

export interface DeniedMessage {
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

/**
 * The link protocol (src/hub/remote/linkProtocol.ts): its frames and what travels in them. Two hubs
 * link only when both speak the same one; a change either side could not read bumps it.
 */
export const LINK_PROTOCOL_VERSION = 1;

/**
 * The first line of a link (docs/design.md §4.7). The person's hub sends it without `key` over the
 * ssh channel; `switchboard link` on this machine adds this hub's UI key and passes it on.
 */
export interface LinkHelloMessage {
  type: 'link';
  /** This hub's UI key, added by `switchboard link` on this machine. */
  key?: string;
  /** The machine the link comes from (the person's, as its hub names itself): the audit's `via`. */
  from: string;
  /** What the person calls this machine there: session ids are shown as `<name>:<id>` on the link. */
  name: string;
  link_protocol: number;
  client: string;
  version: string;
}
