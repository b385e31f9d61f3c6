/**
 * The little JSON-RPC 2.0 the shim must understand to forward MCP without speaking it: which
 * line is a request, a notification or a response, and the error replies the shim sends itself
 * (a line that is not JSON, not JSON-RPC, a batch, a line over the size cap, a call the hub can
 * no longer answer). Error codes live here, in one place (docs/conventions.md rule 3).
 */

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
/** Server-defined range: the hub is unreachable or the connection to it was lost. */
export const HUB_UNAVAILABLE = -32000;
/** MCP 2026-07-28: the request's `_meta` names a protocol revision the server does not serve. */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

export type JsonRpcId = string | number;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: JsonRpcId;
  method: string;
  params?: unknown;
}

interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: unknown;
}

export interface JsonRpcResponse {
  jsonrpc: '2.0';
  id: JsonRpcId | null;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

type Classified =
  | { kind: 'request'; message: JsonRpcRequest }
  | { kind: 'notification'; message: JsonRpcNotification }
  | { kind: 'response'; message: JsonRpcResponse }
  /** Not forwardable: `replies` are the error responses to write back (at least one). */
  | { kind: 'invalid'; replies: JsonRpcResponse[] };

export function errorResponse(id: JsonRpcId | null, code: number, message: string): JsonRpcResponse {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

/** A map key that keeps `1` and `"1"` apart. */
export function idKey(id: JsonRpcId): string {
  return `${typeof id}:${String(id)}`;
}

function isId(value: unknown): value is JsonRpcId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What one message is sent as: a line of the shim's stdio, or the body of a POST to `/mcp`. */
type MessageUnit = 'line' | 'request';

/**
 * The -32600 answer for a JSON value that is not one JSON-RPC 2.0 message, else undefined: the
 * one check of the envelope, shared by the shim (per line) and the hub's HTTP path (per POST body),
 * so both refuse with the same rules and words. A batch array is refused whole (MCP 2025-06-18
 * dropped batches) with one error per id in it (an array; one error with id null if it holds
 * none); a value that is not an object, or lacks `"jsonrpc": "2.0"`, gets one error carrying its id,
 * so the caller is never left guessing.
 */
export function envelopeError(value: unknown, unit: MessageUnit): JsonRpcResponse | JsonRpcResponse[] | undefined {
  if (Array.isArray(value)) {
    const message = `Invalid Request: batch arrays are not supported and nothing in this batch was run; send one JSON-RPC 2.0 message per ${unit}.`;
    const ids = value
      .filter(isObject)
      .map((item) => item.id)
      .filter(isId);
    return ids.length > 0 ? ids.map((id) => errorResponse(id, INVALID_REQUEST, message)) : errorResponse(null, INVALID_REQUEST, message);
  }
  if (!isObject(value)) return errorResponse(null, INVALID_REQUEST, 'Invalid Request: a message must be a JSON object.');
  if (value.jsonrpc !== '2.0') return errorResponse(isId(value.id) ? value.id : null, INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0".');
  return undefined;
}

/** Classifies one line from the MCP host. Never throws. */
export function classifyLine(line: string): Classified {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    // The parser's message quotes the input; the reply never echoes what the host sent.
    return {
      kind: 'invalid',
      replies: [errorResponse(null, PARSE_ERROR, 'Parse error: the line is not valid JSON; send one JSON-RPC 2.0 message per line.')],
    };
  }
  const refused = envelopeError(value, 'line');
  if (refused) return { kind: 'invalid', replies: [refused].flat() };
  return classifyObject(value);
}

function classifyObject(value: unknown): Classified {
  const id = isObject(value) && isId(value.id) ? value.id : null;
  const invalid = (why: string): Classified => ({
    kind: 'invalid',
    replies: [errorResponse(id, INVALID_REQUEST, `Invalid Request: ${why}.`)],
  });
  if (!isObject(value)) return invalid('a message must be a JSON object');
  if (value.jsonrpc !== '2.0') return invalid('"jsonrpc" must be "2.0"');
  if ('id' in value && value.id !== null && !isId(value.id)) return invalid('"id" must be a string or a number');
  if (typeof value.method === 'string') {
    if (id === null) {
      if ('id' in value) return invalid('a request\'s "id" must not be null');
      return { kind: 'notification', message: value as unknown as JsonRpcNotification };
    }
    return { kind: 'request', message: value as unknown as JsonRpcRequest };
  }
  if ('method' in value) return invalid('"method" must be a string');
  if (id !== null && ('result' in value || isObject(value.error))) {
    return { kind: 'response', message: value as unknown as JsonRpcResponse };
  }
  return invalid('expected a request ("method" and "id"), a notification ("method") or a response ("id" with "result" or "error")');
}

const ID_VALUE = String.raw`(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.)*")`;
/** `{"id":…` or `{"jsonrpc":"2.0","id":…` (the id as the object's first key, or right after jsonrpc). */
const ID_AT_HEAD = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"[^"]*"\s*,\s*)?"id"\s*:\s*${ID_VALUE}\s*,`);
/** `…,"id":7}` closing the top-level object (the official SDKs put the id last). */
const ID_AT_TAIL = new RegExp(String.raw`[,{]\s*"id"\s*:\s*${ID_VALUE}\s*\}\s*$`);

/**
 * Best effort: the id of a message of which only the first and last bytes were kept (a line
 * over the size cap), so the caller gets an error for its request instead of waiting forever.
 * Only the top level is trusted: the id as the first key of the head or the last of the tail.
 */
export function recoverId(head: string, tail: string): JsonRpcId | null {
  const match = ID_AT_HEAD.exec(head) ?? ID_AT_TAIL.exec(tail);
  if (!match?.[1]) return null;
  try {
    const id: unknown = JSON.parse(match[1]);
    return isId(id) ? id : null;
  } catch {
    return null;
  }
}
