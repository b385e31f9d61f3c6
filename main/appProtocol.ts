/**
 * The window loads the UI from `switchboard://ui/`, a custom scheme served from the built
 * renderer (dist/renderer/), not from `file://` (Electron security checklist: a file: page
 * could read any file; a custom standard scheme gives the page its own origin, which the IPC
 * sender check compares exactly). Every response carries the CSP below.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Protocol } from 'electron';
import { CONTENT_TYPES, isUiAssetPath } from '../src/hub/index.js';

const APP_SCHEME = 'switchboard';
const APP_HOST = 'ui';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_URL = `${APP_ORIGIN}/index.html`;

/**
 * The window's Content-Security-Policy: only our own origin, no inline or eval'd script, no
 * network at all (the page talks to the hub through the preload's IPC, never a socket);
 * inline styles because xterm.js sets them.
 */
export const APP_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'none'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-src 'none'",
  "worker-src 'none'",
  "frame-ancestors 'none'",
].join('; ');

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Switchboard</title></head>
<body><h1>Switchboard</h1><p>The UI is not built: run <code>npm run build</code>.</p></body></html>
`;

/** Whether `url` is a page or file of our UI (exact scheme and host). */
export function isAppUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === `${APP_SCHEME}:` && parsed.host === APP_HOST && parsed.username === '' && parsed.password === '';
  } catch {
    return false;
  }
}

/** Whether `url` is a blob the UI made itself (`blob:switchboard://ui/…`): a screenshot it saves. */
export function isAppBlobUrl(url: string): boolean {
  return url.startsWith('blob:') && isAppUrl(url.slice('blob:'.length));
}

/** Registers the scheme as standard + secure. Electron requires this before `app` is ready. */
export function registerAppScheme(protocol: Pick<Protocol, 'registerSchemesAsPrivileged'>): void {
  protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, codeCache: true } }]);
}

/** Serves the renderer under the scheme (after `app` is ready). */
export function serveApp(protocol: Pick<Protocol, 'handle'>, rendererDir: string): void {
  protocol.handle(APP_SCHEME, (request) => appResponse(request.method, request.url, rendererDir));
}

/**
 * One response of the scheme: GET/HEAD of a plain file name under the renderer directory
 * (no dot segments, no hidden files, no symlinks out), with the CSP; 404 otherwise.
 */
export function appResponse(method: string, url: string, rendererDir: string): Response {
  const headers = { 'Content-Security-Policy': APP_CSP, 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' };
  const notFound = (): Response => new Response('Not found\n', { status: 404, headers: { ...headers, 'Content-Type': 'text/plain; charset=utf-8' } });
  if (method !== 'GET' && method !== 'HEAD') return new Response('Method not allowed\n', { status: 405, headers });
  if (!isAppUrl(url)) return notFound();
  const urlPath = decodeURIComponentOrUndefined(new URL(url).pathname);
  if (urlPath === undefined) return notFound();
  const relative = urlPath === '/' ? 'index.html' : isUiAssetPath(urlPath) ? urlPath.slice(1) : undefined;
  if (relative === undefined) return notFound();
  const root = realpathOrUndefined(rendererDir);
  const file = root && realpathOrUndefined(path.join(root, relative));
  if (!root || !file || !file.startsWith(root + path.sep)) {
    if (relative !== 'index.html') return notFound();
    return new Response(NOT_BUILT_PAGE, { status: 200, headers: { ...headers, 'Content-Type': CONTENT_TYPES['.html']! } });
  }
  let body: Buffer;
  try {
    if (!fs.statSync(file).isFile()) return notFound();
    body = fs.readFileSync(file);
  } catch {
    return notFound();
  }
  const contentType = CONTENT_TYPES[path.extname(file).toLowerCase()];
  if (!contentType) return notFound();
  return new Response(method === 'HEAD' ? null : new Uint8Array(body), { status: 200, headers: { ...headers, 'Content-Type': contentType } });
}

function decodeURIComponentOrUndefined(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

function realpathOrUndefined(file: string): string | undefined {
  try {
    return fs.realpathSync(file);
  } catch {
    return undefined;
  }
}
