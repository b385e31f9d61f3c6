/**
 * The two shapes every tool answers with (docs/design.md §3.1, §3.5):
 *
 * - a success carries `structuredContent` (checked against the tool's `outputSchema`) and a
 *   short text; each is complete on its own, because some hosts show the model only the text
 *   and others only `JSON.stringify(structuredContent)`. `next` (the call to make next) and
 *   input `warnings` ride in both.
 * - an expected failure is `isError: true` with a text that leads with a stable code and says
 *   what to do next, and **no `structuredContent`**: strict clients (the TypeScript SDK 1.x
 *   that most hosts embed) check `structuredContent` against the success `outputSchema` even
 *   on an error, and would turn the whole answer into a protocol error. Programs find the code
 *   and details in `_meta["dev.switchboard/error"]`.
 *
 * Nothing here throws: a tool call never becomes a JSON-RPC error.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { isSwitchboardError, type ErrorCode } from '../core/index.js';

/** Not one of the agent-facing codes of docs/design.md §3.5: a bug or an environment fault on our side. */
export const INTERNAL_ERROR = 'INTERNAL_ERROR';

/** Where an error result carries its code and details as data (reverse-DNS, as MCP asks of `_meta` keys). */
const ERROR_META_KEY = 'dev.switchboard/error';

/** What `_meta[ERROR_META_KEY]` holds. */
interface ErrorMeta {
  code: ErrorCode | typeof INTERNAL_ERROR;
  [detail: string]: unknown;
}

interface ErrorLogger {
  error(message: string): void;
}

/** A success's text, and the next step when the text names one (it goes into `structuredContent` too). */
export interface Rendering {
  text: string;
  next?: string;
}

/** A success; input `warnings` (unknown parameters, converted aliases) are appended to the text and listed. */
export function success(structuredContent: object, { text, next }: Rendering, warnings: string[] = []): CallToolResult {
  const structured: Record<string, unknown> = { ...structuredContent };
  if (next !== undefined) structured.next = next;
  if (warnings.length > 0) structured.warnings = warnings;
  return withWarnings({ content: [{ type: 'text', text }], structuredContent: structured }, warnings);
}

export function failure(code: ErrorCode | typeof INTERNAL_ERROR, message: string, details: Record<string, unknown> = {}): CallToolResult {
  const meta: ErrorMeta = { ...details, code };
  return {
    isError: true,
    content: [{ type: 'text', text: `${code}: ${message}` }],
    _meta: { [ERROR_META_KEY]: meta },
  };
}

/** The code and details of an error result, or undefined for a success (or a result of someone else's making). */
export function errorMeta(result: CallToolResult): ErrorMeta | undefined {
  const meta = result._meta?.[ERROR_META_KEY];
  return typeof meta === 'object' && meta !== null && typeof (meta as ErrorMeta).code === 'string' ? (meta as ErrorMeta) : undefined;
}

/**
 * Any thrown value as a result. Coded core errors keep their code, message and details;
 * anything else is logged by name and message (stderr, never stdout; the stack with
 * SWITCHBOARD_LOG=debug) and reported generically, so no
 * stack trace, file path or internal message reaches the agent.
 */
export function errorResult(error: unknown, logger: ErrorLogger, tool: string, warnings: string[] = []): CallToolResult {
  const extra = warnings.length > 0 ? { warnings } : {};
  if (isSwitchboardError(error)) {
    const result = failure(error.code, error.message, { ...error.details, ...extra });
    return withWarnings(result, warnings);
  }
  // The stack only when asked for (SWITCHBOARD_LOG=debug): logs carry no stack traces by default.
  const debug = process.env.SWITCHBOARD_LOG === 'debug';
  const detail = error instanceof Error ? ((debug ? error.stack : undefined) ?? `${error.name}: ${error.message}`) : String(error);
  logger.error(`${tool}: unexpected error: ${detail}`);
  return withWarnings(
    failure(
      INTERNAL_ERROR,
      `Switchboard hit an unexpected error running ${tool} (details are in its log). Call list to check the session's state, then retry.`,
      extra,
    ),
    warnings,
  );
}

/** Appends the input warnings to the text rendering (they are also in structuredContent or _meta). */
export function withWarnings(result: CallToolResult, warnings: string[]): CallToolResult {
  if (warnings.length === 0) return result;
  const [first, ...rest] = result.content;
  if (first?.type !== 'text') return result;
  const text = `${first.text}\n${warnings.map((w) => `[warning: ${w}]`).join('\n')}`;
  return { ...result, content: [{ ...first, text }, ...rest] };
}
