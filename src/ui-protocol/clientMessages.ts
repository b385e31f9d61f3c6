/** Messages from a UI to the hub (client → hub), validated by the hub's UiBridge. */
import { z } from 'zod';
import { MAX_COMMAND_OUTPUT_LINES, MAX_INPUT_CHARS, MAX_SETTING_CHANGES } from './constants.js';
import { cols, req, rows, sessionRef } from './fields.js';
import { APPROVAL_ANSWERS } from './sessionShapes.js';

const onSession = <T extends string>(type: T) => z.object({ type: z.literal(type), session: sessionRef, req });

export const ClientMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('hello'), protocol: z.number().int(), req }),
  onSession('subscribe'),
  onSession('unsubscribe'),
  z.object({ type: z.literal('input'), session: sessionRef, data: z.string().min(1).max(MAX_INPUT_CHARS), req }),
  z.object({ type: z.literal('resize'), session: sessionRef, cols, rows, req }),
  onSession('takeOver'),
  onSession('handBack'),
  onSession('interrupt'),
  onSession('kill'),
  onSession('close'),
  /** `host`: the remote machine whose sessions of that client to stop (absent: this machine's). */
  z.object({ type: z.literal('stopClient'), client: z.string().min(1).max(256), host: z.string().min(1).max(64).optional(), req }),
  z.object({
    type: z.literal('answerApproval'),
    id: z.string().min(1).max(128),
    answer: z.enum(APPROVAL_ANSWERS),
    reason: z.string().max(1_000).optional(),
    req,
  }),
  /** `host`: open it on that remote machine (absent: this one). */
  z.object({ type: z.literal('openTerminal'), cwd: z.string().min(1).max(4096).optional(), cols, rows, host: z.string().min(1).max(64).optional(), req }),
  z.object({ type: z.literal('ack'), session: sessionRef, bytes: z.number().int().nonnegative(), req }),
  z.object({ type: z.literal('getSettings'), req }),
  z.object({ type: z.literal('confirmSettings'), id: z.string().min(1).max(64), req }),
  z.object({ type: z.literal('discardSettings'), id: z.string().min(1).max(64), req }),
  z.object({ type: z.literal('rotateToken'), req }),
  z.object({ type: z.literal('screenshot'), session: sessionRef, theme: z.enum(['dark', 'light']).optional(), req }),
  z.object({
    type: z.literal('searchHistory'),
    query: z.string().max(1_000).optional(),
    cwd: z.string().min(1).max(4096).optional(),
    status: z.enum(['failed', 'succeeded', 'any']).optional(),
    client: z.string().min(1).max(256).optional(),
    since: z.string().min(1).max(64).optional(),
    session: sessionRef.optional(),
    /** Only this machine (`local`) or this remote; absent: every machine connected. */
    host: z.string().min(1).max(64).optional(),
    limit: z.number().int().min(1).max(200).optional(),
    req,
  }),
  z.object({
    type: z.literal('commandOutput'),
    session: sessionRef,
    seq: z.number().int().min(1),
    offset: z.number().int().min(0).optional(),
    limit: z.number().int().min(1).max(MAX_COMMAND_OUTPUT_LINES).optional(),
    req,
  }),
  z.object({ type: z.literal('rerun'), session: sessionRef, from: z.object({ session: sessionRef, seq: z.number().int().min(1) }), req }),
  z.object({
    type: z.literal('setSettings'),
    // Values are checked by the hub against its settings schema (src/hub/settings/settings.ts).
    changes: z
      .record(z.string().min(1).max(64), z.unknown())
      .refine((changes) => Object.keys(changes).length > 0 && Object.keys(changes).length <= MAX_SETTING_CHANGES, `Send 1 to ${MAX_SETTING_CHANGES} settings.`),
    req,
  }),
]);
export type ClientMessage = z.infer<typeof ClientMessageSchema>;
export type ClientMessageType = ClientMessage['type'];
export const CLIENT_MESSAGE_TYPES = [
  'hello',
  'subscribe',
  'unsubscribe',
  'input',
  'resize',
  'takeOver',
  'handBack',
  'interrupt',
  'kill',
  'close',
  'stopClient',
  'answerApproval',
  'openTerminal',
  'ack',
  'getSettings',
  'setSettings',
  'confirmSettings',
  'discardSettings',
  'rotateToken',
  'screenshot',
  'searchHistory',
  'commandOutput',
  'rerun',
] as const satisfies readonly ClientMessageType[];
