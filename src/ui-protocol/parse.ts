/** Parsing a message on receipt, on both sides: an invalid one becomes the `error` to send back. */
import type { z } from 'zod';
import { ClientMessageSchema, type ClientMessage } from './clientMessages.js';
import { UiErrorCode } from './constants.js';
import { HubMessageSchema, type HubMessage } from './hubMessages.js';

export type Parsed<T> = { ok: true; message: T } | { ok: false; error: Extract<HubMessage, { type: 'error' }> };

/** Parses one client message (a JSON string or an already-decoded value, e.g. over IPC). */
export function parseClientMessage(raw: unknown): Parsed<ClientMessage> {
  return parseWith(ClientMessageSchema, raw);
}

/** Parses one hub message (the renderer's side). */
export function parseHubMessage(raw: unknown): Parsed<HubMessage> {
  return parseWith(HubMessageSchema, raw);
}

function parseWith<T>(schema: z.ZodType<T>, raw: unknown): Parsed<T> {
  let value: unknown = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      return { ok: false, error: { type: 'error', code: UiErrorCode.BadMessage, message: 'Message is not JSON.' } };
    }
  }
  const result = schema.safeParse(value);
  if (result.success) return { ok: true, message: result.data };
  const head = value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  const issue = result.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  return {
    ok: false,
    error: {
      type: 'error',
      code: UiErrorCode.BadMessage,
      message: `Invalid message: ${where}${issue?.message ?? 'unknown shape'}`,
      ...(typeof head.type === 'string' ? { for: head.type.slice(0, 64) } : {}),
      ...(typeof head.session === 'string' ? { session: head.session.slice(0, 128) } : {}),
      ...(typeof head.req === 'number' && Number.isInteger(head.req) && head.req >= 0 ? { req: head.req } : {}),
    },
  };
}
