/**
 * The name of a request that would start a session (`open`, `execute` outside the sandbox):
 * the client, the tool and every argument that shapes what runs, as canonical JSON. The same call
 * again is the same request, and waits on the same approval rather than asking the person twice
 * (docs/design.md §2.9).
 */
export function requestKey(tool: string, client: string, fields: Record<string, unknown>): string {
  const entries = Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .sort(([a], [b]) => a.localeCompare(b));
  return JSON.stringify([tool, client, entries]);
}
