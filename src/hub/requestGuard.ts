import type { IncomingMessage } from 'node:http';
import { tokensEqual } from './token.js';

/**
 * The checks every HTTP request and WebSocket upgrade passes before anything else happens
 * (docs/conventions.md rule 8, docs/design.md §4.3): all of them look at headers only, so they run
 * before a body byte is read.
 */
export interface GuardVerdict {
  status: 401 | 403;
  reason: string;
}

export interface GuardOptions {
  port: number;
  /** The current token (it may be rotated while the hub runs). */
  token: () => string;
  /** Also accept the UI cookie (the browser UI: `/`, `/ws`); `/mcp` wants the bearer header. */
  allowCookie: boolean;
  /** WebSocket upgrades: browsers always send Origin, so a missing one is refused. */
  requireOrigin: boolean;
  /** `/?token=…` (the printed UI address), accepted on `/` only. */
  queryToken?: string;
  /**
   * `/?login=<code>` (`switchboard ui`), on `/` only: redeems the one-time code. Called only
   * when Host and Origin passed and nothing else signs the request in, so a refused or already
   * signed-in request never uses the code up.
   */
  redeemLoginCode?: () => boolean;
}

/** What a browser shows for a `switchboard ui` link that was used or has expired. */
export const LOGIN_CODE_REFUSED =
  'This sign-in link has expired or was already used: each one works once, within a minute. Run `switchboard ui` again to open the UI.';

/** The UI cookie's name: per port, since cookies are not isolated by port. */
export function uiCookieName(port: number): string {
  return `switchboard_${port}`;
}

export function allowedOrigins(port: number): string[] {
  return [`http://127.0.0.1:${port}`, `http://localhost:${port}`];
}

/** Host, then Origin, then credentials: a 403 or 401 verdict, or undefined when all pass. */
export function guardRequest(req: IncomingMessage, options: GuardOptions): GuardVerdict | undefined {
  const host = (req.headers.host ?? '').toLowerCase();
  if (host !== `127.0.0.1:${options.port}` && host !== `localhost:${options.port}`) {
    return { status: 403, reason: 'Host must be 127.0.0.1 or localhost with this port' };
  }
  const origin = req.headers.origin;
  if (origin !== undefined || options.requireOrigin) {
    if (origin === undefined || !allowedOrigins(options.port).includes(origin)) {
      return { status: 403, reason: 'Origin not allowed' };
    }
  }
  if (!hasValidCredentials(req, options)) {
    if (options.redeemLoginCode?.()) return undefined;
    if (options.redeemLoginCode) return { status: 401, reason: LOGIN_CODE_REFUSED };
    return { status: 401, reason: 'Missing or invalid token (Authorization: Bearer <token from the state directory>)' };
  }
  return undefined;
}

function hasValidCredentials(req: IncomingMessage, options: GuardOptions): boolean {
  const bearer = /^Bearer[ ]+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
  if (bearer !== undefined) return tokensEqual(bearer, options.token());
  if (options.queryToken !== undefined) return tokensEqual(options.queryToken, options.token());
  if (!options.allowCookie) return false;
  const cookie = readCookie(req.headers.cookie, uiCookieName(options.port));
  return cookie !== undefined && tokensEqual(cookie, options.token());
}

function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
