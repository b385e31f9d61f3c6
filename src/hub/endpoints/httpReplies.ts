import type { ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

/** Headers on every answer: nothing is cached, framed or sniffed. */
export const BASE_HEADERS: Record<string, string> = {
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
};

/** A JSON-RPC error body (id null) with an HTTP status; `close` ends the connection after it. */
export function sendJsonRpcError(res: ServerResponse, status: number, code: number, message: string, extraHeaders: Record<string, string> = {}): void {
  sendJsonBody(res, status, { jsonrpc: '2.0', id: null, error: { code, message } }, extraHeaders);
}

/** Any JSON body (an error with the caller's id, or an array of them) with an HTTP status. */
export function sendJsonBody(res: ServerResponse, status: number, value: unknown, extraHeaders: Record<string, string> = {}): void {
  if (res.headersSent) return void res.end();
  const body = JSON.stringify(value);
  res.writeHead(status, { ...BASE_HEADERS, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)), ...extraHeaders });
  res.end(body);
}

export function sendText(res: ServerResponse, status: number, text: string, extraHeaders: Record<string, string> = {}): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { ...BASE_HEADERS, 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': String(Buffer.byteLength(text)), ...extraHeaders });
  res.end(text);
}

/** Refuses a WebSocket upgrade on the raw socket: an HTTP status line, never a 101. */
export function refuseUpgrade(socket: Duplex, status: number, reason: string): void {
  const body = `${reason}\n`;
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
      'Connection: close\r\nContent-Type: text/plain; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  setTimeout(() => socket.destroy(), 1_000).unref();
}
