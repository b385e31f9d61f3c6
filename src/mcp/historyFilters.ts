/**
 * A history search's filters as an agent (`history` tool) or the person (the UI's `searchHistory`)
 * gives them, turned into the core's HistoryQuery (docs/design.md §2.7): one reading of `since`,
 * `cwd`, `status` and `limit` for both, so the window and the tool find the same commands.
 */
import { ErrorCode, SwitchboardError, type HistoryQuery } from '../core/index.js';

export const HISTORY_DEFAULT_LIMIT = 20;
export const HISTORY_MAX_LIMIT = 200;

/** The filters before checking (strings as typed; already shape-checked by a schema). */
interface HistoryFilters {
  query?: string;
  cwd?: string;
  session?: string;
  status?: 'failed' | 'succeeded' | 'any';
  client?: string;
  since?: string;
  limit?: number;
}

/** One unit of an age: `30m`, `2h`, `7d`. */
const AGE_UNITS_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** The query the index answers; INVALID_ARGUMENT for a `since` or `cwd` it cannot read. */
export function historyQuery(filters: HistoryFilters, now: number): HistoryQuery {
  const { query: text, cwd, session, status = 'any', client, since, limit = HISTORY_DEFAULT_LIMIT } = filters;
  const query: HistoryQuery = { status, limit };
  if (text !== undefined && text.trim() !== '') query.text = text;
  if (cwd !== undefined) query.cwd = parseCwd(cwd);
  if (session !== undefined) query.session = session;
  if (client !== undefined && client.trim() !== '') query.client = client.trim();
  if (since !== undefined) query.since = parseSince(since, now);
  return query;
}

/** `since`: an ISO time, or an age before `now` (`90s`, `30m`, `2h`, `7d`, `1w`). */
export function parseSince(value: string, now: number): number {
  const text = value.trim();
  const age = /^(\d+(?:\.\d+)?)\s*([smhdw])$/i.exec(text);
  if (age) return now - Number(age[1]) * AGE_UNITS_MS[age[2]!.toLowerCase()]!;
  const time = /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isFinite(time)) return time;
  throw new SwitchboardError(
    ErrorCode.InvalidArgument,
    `since: "${value.slice(0, 100)}" is not a time; pass an ISO time (2025-01-31 or 2025-01-31T09:00:00Z) or an age: a number with s, m, h, d or w (30m, 2h, 7d).`,
    { parameter: 'since', allowed: 'an ISO time or an age such as 30m, 2h, 7d' },
  );
}

/** `cwd`: absolute (or `~`, which the hub expands); a relative path means nothing across sessions. */
function parseCwd(value: string): string {
  if (!(value.startsWith('/') || value === '~' || value.startsWith('~/'))) {
    throw new SwitchboardError(
      ErrorCode.InvalidArgument,
      `cwd: "${value.slice(0, 200)}" is not an absolute folder; pass one such as /home/me/project (~ works).`,
      {
        parameter: 'cwd',
        allowed: 'an absolute folder',
      },
    );
  }
  return value;
}
