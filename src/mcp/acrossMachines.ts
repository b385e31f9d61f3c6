/**
 * `list` and `history` across machines (docs/design.md §4.7): the same tool on each connected
 * remote, asked at once, each answer as that remote gives it (ids `<remote>:<id>`). A remote that
 * is down, or does not answer in time, is named in a note instead of holding the call up.
 */
import type { CallToolResult, ServerContext } from '@modelcontextprotocol/server';
import { LOCAL_HOST } from './hostInput.js';
import type { ToolDeps } from './toolHost.js';
import { errorMeta } from './toolResult.js';

/** A remote that takes longer than this to list is left out of the answer, with a note. */
const REMOTE_ANSWER_MS = 10_000;

export type MachineAnswer = { host: string; structured: Record<string, unknown> } | { host: string; note: string };

/** Whether this machine's own answer is wanted under `host` (absent: every machine). */
export function includesLocal(host: string | undefined): boolean {
  return host === undefined || host === LOCAL_HOST;
}

/** `tool` with `args` on every connected remote, or the one `host` names; none for `local`. */
export async function askRemotes(
  deps: ToolDeps,
  ctx: ServerContext,
  host: string | undefined,
  tool: string,
  args: Record<string, unknown>,
): Promise<MachineAnswer[]> {
  const remotes = deps.host.remotes;
  if (!remotes || host === LOCAL_HOST) return [];
  const names = host === undefined ? remotes.names() : [host];
  return Promise.all(
    names.map(async (name): Promise<MachineAnswer> => {
      const down = remotes.unavailable(name);
      if (down !== undefined) return { host: name, note: `${down} Its sessions are not in this answer.` };
      const aborted = new AbortController();
      const caller = { ...deps.remoteCaller(ctx), signal: AbortSignal.any([ctx.mcpReq.signal, aborted.signal]) };
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<MachineAnswer>((resolve) => {
        timer = setTimeout(() => {
          aborted.abort();
          resolve({ host: name, note: `${name} did not answer within ${REMOTE_ANSWER_MS / 1000} s; its sessions are not in this answer.` });
        }, REMOTE_ANSWER_MS);
      });
      const asked = remotes.call(name, tool, args, caller).then(
        (result): MachineAnswer => answerOf(name, result),
        (error: unknown): MachineAnswer => ({ host: name, note: `${(error as Error).message}` }),
      );
      try {
        return await Promise.race([asked, late]);
      } finally {
        clearTimeout(timer);
      }
    }),
  );
}

function answerOf(host: string, result: CallToolResult): MachineAnswer {
  if (result.isError || !result.structuredContent) {
    const meta = errorMeta(result);
    const text = result.content.find((item) => item.type === 'text');
    return { host, note: `${host} answered ${meta?.code ?? 'an error'}: ${text?.type === 'text' ? text.text : 'no text'}` };
  }
  return { host, structured: result.structuredContent as Record<string, unknown> };
}
