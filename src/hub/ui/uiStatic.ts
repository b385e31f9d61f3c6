import * as fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BASE_HEADERS, sendText } from '../endpoints/httpReplies.js';

/** Content types of what the renderer build emits; anything else is not served (also by the app's protocol). */
export const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.txt': 'text/plain; charset=utf-8',
};

/** Largest file served (the renderer bundle is a few MB at most). */
const MAX_ASSET_BYTES = 32 * 1024 * 1024;

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Switchboard</title></head>
<body><h1>Switchboard</h1><p>The hub is running, but the UI is not built: run <code>npm run build</code> in the Switchboard checkout.</p></body></html>
`;

/**
 * The built renderer: `dist/renderer/` of the package (index.html, app.js, app.css, …).
 * Found by walking up from this module to the package root, so it works from `dist/src/hub/`
 * (the built CLI) and from `src/hub/` (tests running the sources).
 */
export function defaultRendererDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return path.join(dir, 'dist', 'renderer');
    const parent = path.dirname(dir);
    if (parent === dir) return path.resolve('dist', 'renderer');
    dir = parent;
  }
}

/**
 * The page's Content-Security-Policy: everything from our origin, no inline scripts, no
 * eval; inline styles allowed because xterm.js sets them; the WebSocket on our own port only.
 */
export function uiContentSecurityPolicy(port: number): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src 'self' ws://127.0.0.1:${port} ws://localhost:${port}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * Serves `/` (index.html) and the renderer's files, after the request guard passed. Only
 * plain names under the renderer directory with a known extension: no dot segments, no
 * hidden files, no symlinks out of it.
 */
export function serveUiAsset(req: IncomingMessage, res: ServerResponse, urlPath: string, port: number, rendererDir: string): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') return sendText(res, 405, 'Method not allowed\n', { Allow: 'GET, HEAD' });
  const csp = { 'Content-Security-Policy': uiContentSecurityPolicy(port) };
  const relative = urlPath === '/' ? 'index.html' : assetPath(urlPath);
  if (relative === undefined) return sendText(res, 404, 'Not found\n');
  const root = realpathOrUndefined(rendererDir);
  const file = root && realpathOrUndefined(path.join(root, relative));
  if (!root || !file || !file.startsWith(root + path.sep)) {
    if (relative !== 'index.html') return sendText(res, 404, 'Not found\n');
    return sendBody(res, req, 200, CONTENT_TYPES['.html']!, Buffer.from(NOT_BUILT_PAGE), {
      'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
    });
  }
  let body: Buffer;
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile() || stat.size > MAX_ASSET_BYTES) return sendText(res, 404, 'Not found\n');
    body = fs.readFileSync(file);
  } catch {
    return sendText(res, 404, 'Not found\n');
  }
  sendBody(res, req, 200, CONTENT_TYPES[path.extname(file).toLowerCase()]!, body, csp);
}

/** Whether a path may name a renderer file (checked again, fully, by `serveUiAsset`). */
export function isUiAssetPath(urlPath: string): boolean {
  return assetPath(urlPath) !== undefined;
}

/** `/app.js` → `app.js`; undefined for anything not a plain, known file name. */
function assetPath(urlPath: string): string | undefined {
  if (!urlPath.startsWith('/') || urlPath.includes('\\') || urlPath.includes('\0')) return undefined;
  const segments = urlPath.slice(1).split('/');
  if (segments.some((s) => s === '' || s.startsWith('.') || !/^[A-Za-z0-9._-]+$/.test(s))) return undefined;
  const relative = segments.join('/');
  return CONTENT_TYPES[path.extname(relative).toLowerCase()] ? relative : undefined;
}

function realpathOrUndefined(file: string): string | undefined {
  try {
    return fs.realpathSync(file);
  } catch {
    return undefined;
  }
}

function sendBody(res: ServerResponse, req: IncomingMessage, status: number, contentType: string, body: Buffer, headers: Record<string, string>): void {
  res.writeHead(status, { ...BASE_HEADERS, 'Content-Type': contentType, 'Content-Length': String(body.length), ...headers });
  res.end(req.method === 'HEAD' ? undefined : body);
}
