/**
 * The machine a call is about (docs/design.md §4.7): `open`'s `host`, and the filter of `list` and
 * `history`. A remote's name, or `local` for this machine.
 */
import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { ErrorCode, SwitchboardError } from '../core/index.js';
import { lenientInputSchema } from './schemas.js';
import type { RemoteTools } from './toolHost.js';

/** This machine, as `host` names it. */
export const LOCAL_HOST = 'local';

export const hostSchema = z.string().min(1).max(64);

/** What models also call it. */
export const HOST_ALIASES: Record<string, string> = { machine: 'host', remote: 'host' };

/**
 * The input schema a tool with `host` is listed with: `host` only while the hub links remotes,
 * since it means nothing otherwise and models pay for every listed word (docs/design.md §3.6).
 * Calls are parsed with the whole schema either way.
 */
export function listedWithHost(schema: z.ZodObject, remotes: RemoteTools | undefined): StandardSchemaWithJSON<unknown, unknown> {
  return lenientInputSchema(remotes && remotes.names().length > 0 ? schema : schema.omit({ host: true }));
}

/** `host` when it names this machine or a remote; INVALID_ARGUMENT naming the machines otherwise. */
export function checkHost(host: string | undefined, remotes: RemoteTools | undefined): string | undefined {
  if (host === undefined || host === LOCAL_HOST || remotes?.has(host)) return host;
  const names = remotes?.names() ?? [];
  throw new SwitchboardError(
    ErrorCode.InvalidArgument,
    `host: there is no machine "${host.slice(0, 64)}"; use ${names.length > 0 ? `one of ${names.map((name) => `"${name}"`).join(', ')} (the remotes), or ` : ''}"${LOCAL_HOST}" for this machine${names.length === 0 ? ' (no remote is set up: the person adds one with switchboard remote add)' : ''}.`,
    { parameter: 'host', value: host.slice(0, 64), allowed: [LOCAL_HOST, ...names] },
  );
}
