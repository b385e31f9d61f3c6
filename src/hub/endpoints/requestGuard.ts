import type { IncomingMessage } from 'node:http';
import { tokensEqual } from '../state/token.js';

/**
 * The checks every HTTP request and WebSocket upgrade passes before anything else happens
 * (docs/conventions.md rule 8, docs/design.md §4.3): all of them look at headers only, so they run
 * before a body byte is read.
 */
export interface GuardVerdict {
  status: 401 | 403;
  reason: string;
}

/**
 * What signed a request in: the agents' bearer token (`Authorization`), or the person's
 * (token.ts): the UI cookie, the `/?key=` link `serve` prints, a `switchboard ui` code. Who may
 * answer for the person follows from it (`/ws`: uiWebSocket.ts).
 */
export type Credential = 'bearer' | 'cookie' | 'key-link' | 'login-code';

type GuardResult = { ok: true; credential: Credential } | ({ ok: false } & GuardVerdict);

interface GuardOptions {
  port: number;
  /** The current token (it may be rotated while the hub runs). */
  token: () => string;
  /** The person's current UI key: the cookie's value and the `/?key=` link's (token.ts). */
  uiKey: () => string;
  /** Also accept the UI cookie (the browser UI: `/`, `/ws`); `/mcp` wants the bearer header. */
  allowCookie: boolean;
  /** WebSocket upgrades: browsers always send Origin, so a missing one is refused. */
  requireOrigin: boolean;
  /** `/?key=…` (the printed UI address), accepted on `/` only. */
  queryKey?: string;
  /**
   * `/?token=…` on `/`: the address earlier versions printed. The token signs no browser in any
   * more; given, it only changes the refusal into one that says what to use instead.
   */
  queryToken?: string;
  /**
   * `/?login=<code>` (`switchboard ui`), on `/` only: redeems the one-time code. Called only
   * when Host and Origin passed and nothing else signs the request in, so a refused or already
   * signed-in request never uses the code up.
   */
  redeemLoginCode?: () => boolean;
}

/** What a browser shows for a `switchboard ui` link that was used or has expired. */
const LOGIN_CODE_REFUSED =
  'This sign-in link has expired or was already used: each one works once, within a minute. Run `switchboard ui` again to open the UI.';

/** What a browser shows for `/?token=…`: the agents' token is not the person's sign-in. */
const TOKEN_LINK_REFUSED =
  'The token in this address is what agents sign in with; it does not sign a browser in. Open the address `switchboard serve` printed on its terminal (it carries ?key=), or run `switchboard ui`.';

/** The UI cookie's name: per port, since cookies are not isolated by port. */
export function uiCookieName(port: number): string {
  return `switchboard_${port}`;
}

export function allowedOrigins(port: number): string[] {
  return [`http://127.0.0.1:${port}`, `http://localhost:${port}`];
}

/** Host, then Origin, then credentials: a 403 or 401 verdict, or what signed the request in. */
export function guardRequest(req: IncomingMessage, options: GuardOptions): GuardResult {
  const host = (req.headers.host ?? '').toLowerCase();
  if (host !== `127.0.0.1:${options.port}` && host !== `localhost:${options.port}`) {
    return { ok: false, status: 403, reason: 'Host must be 127.0.0.1 or localhost with this port' };
  }
  const origin = req.headers.origin;
  if (origin !== undefined || options.requireOrigin) {
    if (origin === undefined || !allowedOrigins(options.port).includes(origin)) {
      return { ok: false, status: 403, reason: 'Origin not allowed' };
    }
  }
  const credential = validCredential(req, options);
  if (credential) return { ok: true, credential };
  if (options.redeemLoginCode?.()) return { ok: true, credential: 'login-code' };
  if (options.redeemLoginCode) return { ok: false, status: 401, reason: LOGIN_CODE_REFUSED };
  if (options.queryToken !== undefined) return { ok: false, status: 401, reason: TOKEN_LINK_REFUSED };
  return { ok: false, status: 401, reason: 'Missing or invalid token (Authorization: Bearer <token from the state directory>)' };
}

function validCredential(req: IncomingMessage, options: GuardOptions): Credential | undefined {
  // A bearer decides alone: a request that names one is an agent's, whatever else it carries.
  const bearer = /^Bearer[ ]+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
  if (bearer !== undefined) return tokensEqual(bearer, options.token()) ? 'bearer' : undefined;
  if (options.queryKey !== undefined) return tokensEqual(options.queryKey, options.uiKey()) ? 'key-link' : undefined;
  if (!options.allowCookie) return undefined;
  const cookie = readCookie(req.headers.cookie, uiCookieName(options.port));
  return cookie !== undefined && tokensEqual(cookie, options.uiKey()) ? 'cookie' : undefined;
}

function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
