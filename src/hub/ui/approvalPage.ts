import * as fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as path from 'node:path';
import { APPROVAL_PAGE_PATH, ApprovalPageAnswerSchema, type ApprovalPageState } from '../../ui-protocol/index.js';
import type { PersonAuditSink } from '../audit/personAudit.js';
import type { Logger } from '../common/logger.js';
import type { ApprovalLinks, LinkRefusal } from '../gate/approvalLinks.js';
import type { Approval, ApprovalBook } from '../gate/approvals.js';
import { BASE_HEADERS, sendJsonBody, sendText } from '../endpoints/httpReplies.js';
import { allowedOrigins } from '../endpoints/requestGuard.js';
import { CONTENT_TYPES, uiContentSecurityPolicy } from './uiStatic.js';

/**
 * The approval page (docs/design.md §2.9 "Where the person answers", §4.3; the routes in
 * src/ui-protocol/approvalPage.ts): what a URL elicitation's one-time link opens. Its own
 * sign-in, checked here rather than by requestGuard: the link's code, traded once for a cookie
 * scoped to this approval's path, answers this approval and nothing else — it is not the UI
 * cookie, and the bearer token (what agents hold) opens nothing here. Answering here is the
 * person's channel `link`, audited as the window's answers are.
 */
export interface ApprovalPageOptions {
  links: ApprovalLinks;
  book: Pick<ApprovalBook, 'answer' | 'onDidChange' | 'get'>;
  audit: PersonAuditSink;
  logger: Pick<Logger, 'info'>;
  rendererDir: string;
}

/** The page's cookie: per port (cookies are not isolated by port), scoped to the approval's path. */
function approvalCookieName(port: number): string {
  return `switchboard_approval_${port}`;
}

const REFUSED: Record<LinkRefusal, string> = {
  unknown: 'This approval link is not valid here. Answer in the Switchboard window or its menu.',
  used: 'This approval link was already used: each one works once. Answer in the browser that opened it, or in the Switchboard window or its menu.',
  expired: 'This approval link has expired. The command still waits: answer it in the Switchboard window or its menu.',
  ended: 'This approval is no longer pending (answered, or withdrawn), so its link no longer works.',
};

const NOT_SIGNED_IN = 'This page opens only from its approval link (each link works once). Answer in the Switchboard window or its menu.';

/** A body of an answer is a few dozen bytes: anything much larger is not one. */
const MAX_ANSWER_BYTES = 4096;

export async function handleApprovalPage(req: IncomingMessage, res: ServerResponse, port: number, options: ApprovalPageOptions): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const host = (req.headers.host ?? '').toLowerCase();
  if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) return page(res, 403, 'Host must be 127.0.0.1 or localhost with this port.');
  const origin = req.headers.origin;
  if (origin !== undefined && !allowedOrigins(port).includes(origin)) return page(res, 403, 'Origin not allowed.');
  const match = APPROVAL_PAGE_PATH.exec(url.pathname);
  if (!match) return page(res, 404, 'There is no such approval page.');
  const [, id, part] = match as unknown as [string, string, string];
  const { links } = options;

  // The link: the one-time code becomes this page's cookie (out of the address bar and history).
  const code = url.searchParams.get('code');
  if (part === '' && code !== null && req.method === 'GET') {
    const redeemed = links.redeem(id, code);
    if (!redeemed.ok) return page(res, redeemed.why === 'ended' ? 410 : 401, REFUSED[redeemed.why]);
    options.logger.info(`approval ${id}: its link was opened`);
    res.writeHead(303, {
      ...BASE_HEADERS,
      Location: `/approval/${id}/`,
      'Set-Cookie': `${approvalCookieName(port)}=${redeemed.secret}; HttpOnly; SameSite=Strict; Path=/approval/${id}/`,
      'Content-Length': '0',
    });
    return void res.end();
  }
  if (!links.signedIn(id, readCookie(req.headers.cookie, approvalCookieName(port)))) return page(res, 401, NOT_SIGNED_IN);

  switch (part) {
    case '':
      return asset(req, res, port, options.rendererDir, 'approval.html');
    case 'approval.js':
    case 'app.css':
      return asset(req, res, port, options.rendererDir, part);
    case 'state':
      if (req.method !== 'GET') return sendText(res, 405, 'Method not allowed\n', { Allow: 'GET' });
      return sendJsonBody(res, 200, pageState(links, id));
    case 'events':
      if (req.method !== 'GET') return sendText(res, 405, 'Method not allowed\n', { Allow: 'GET' });
      return events(req, res, id, options);
    case 'answer':
      return answer(req, res, port, id, options);
  }
}

/** What the page shows: the approval as the window's banner has it, or how it ended. */
function pageState(links: ApprovalLinks, id: string): ApprovalPageState {
  const state = links.state(id);
  if ('ended' in state) return { state: 'ended', text: `This approval was ${state.ended}; this page answers nothing any more.` };
  return { state: 'pending', approval: uiApproval(state.pending), wants: wantsOf(state.pending) };
}

function wantsOf(approval: Approval): string {
  if (approval.session !== null) return 'wants to run';
  return approval.tool === 'open' ? 'wants to open' : 'wants to run, in a new shell,';
}

function uiApproval(approval: Approval): Extract<ApprovalPageState, { state: 'pending' }>['approval'] {
  const { id, command, cwd, client, rule, reason, asked_at: askedAt } = approval;
  return { id, command, cwd, client, rule, reason, asked_at: askedAt, ...(approval.unsandboxed ? { unsandboxed: true } : {}) };
}

/** Server-sent events: the state now, and again when the approval ends (answered anywhere, or withdrawn). */
function events(req: IncomingMessage, res: ServerResponse, id: string, options: ApprovalPageOptions): void {
  res.writeHead(200, { ...BASE_HEADERS, 'Content-Type': 'text/event-stream; charset=utf-8', Connection: 'keep-alive' });
  const send = (): boolean => {
    const state = pageState(options.links, id);
    res.write(`data: ${JSON.stringify(state)}\n\n`);
    return state.state === 'ended';
  };
  if (send()) return void res.end();
  const change = options.book.onDidChange(() => {
    if (options.book.get(id)) return;
    send();
    finish();
  });
  const finish = (): void => {
    change.dispose();
    res.end();
  };
  req.on('close', () => change.dispose());
}

async function answer(req: IncomingMessage, res: ServerResponse, port: number, id: string, options: ApprovalPageOptions): Promise<void> {
  if (req.method !== 'POST') return sendText(res, 405, 'Method not allowed\n', { Allow: 'POST' });
  // The page's own script sends it (fetch always names the origin); a form from elsewhere cannot.
  if (req.headers.origin === undefined || !allowedOrigins(port).includes(req.headers.origin))
    return sendJsonBody(res, 403, { error: 'Origin required: answer from the approval page itself.' });
  const body = await readSmallBody(req, MAX_ANSWER_BYTES);
  let parsed;
  try {
    parsed = body === undefined ? undefined : ApprovalPageAnswerSchema.safeParse(JSON.parse(body));
  } catch {
    parsed = undefined;
  }
  if (!parsed?.success) return sendJsonBody(res, 400, { error: 'The answer must be JSON: {"answer": "allow_once" | "allow_30m" | "deny", "reason"?: "…"}.' });
  const { answer: given, reason } = parsed.data;
  let approval: Approval;
  try {
    approval = options.book.answer(id, given, reason);
  } catch (error) {
    // Whichever of the window, the menu and this page answers first wins; the others are told.
    return sendJsonBody(res, 409, { error: (error as Error).message, ...pageState(options.links, id) });
  }
  options.audit({
    action: 'answer_approval',
    channel: 'link',
    ...(approval.session ? { session: approval.session } : {}),
    approval: approval.id,
    answer: given,
    ...(given === 'deny' ? { reason: Boolean(reason?.trim()) } : {}),
  });
  return sendJsonBody(res, 200, pageState(options.links, id));
}

function asset(req: IncomingMessage, res: ServerResponse, port: number, rendererDir: string, name: string): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') return sendText(res, 405, 'Method not allowed\n', { Allow: 'GET, HEAD' });
  let body: Buffer;
  try {
    body = fs.readFileSync(path.join(rendererDir, name));
  } catch {
    return page(res, 500, 'The approval page is not built: run `npm run build` in the Switchboard checkout, or answer in the window.');
  }
  res.writeHead(200, {
    ...BASE_HEADERS,
    'Content-Type': CONTENT_TYPES[path.extname(name)]!,
    'Content-Length': String(body.length),
    'Content-Security-Policy': uiContentSecurityPolicy(port),
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** A refusal a person reads in their browser: a plain page saying what happened and what to do. */
function page(res: ServerResponse, status: number, text: string): void {
  const html = `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="color-scheme" content="dark light"><title>Switchboard — approval</title></head>\n<body style="font: 15px system-ui, sans-serif; max-width: 40em; margin: 4em auto; padding: 0 1em"><h1 style="font-size: 1.2em">Switchboard</h1><p data-refusal>${escapeHtml(text)}</p></body></html>\n`;
  res.writeHead(status, {
    ...BASE_HEADERS,
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(html)),
    'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  });
  res.end(html);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function readSmallBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > limit ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => resolve(undefined));
  });
}
