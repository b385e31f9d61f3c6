import type { ServerResponse } from 'node:http';
import type { Logger } from '../common/logger.js';

interface StalledResponses {
  /** Watches `res` until it finishes or closes. */
  watch(res: ServerResponse): void;
  dispose(): void;
}

interface Watched {
  /** Bytes of this answer still in the hub (response + socket buffers) at the last check. */
  pending: number;
  /** Since when nothing of it has been flushed to the client, or null while it flows. */
  stuckSince: number | null;
}

/**
 * An HTTP client that stops reading its socket must not hold the hub's memory. An
 * answer (an MCP SSE stream or JSON body) whose buffered bytes have not moved for `stallMs`
 * is dropped: the response and its connection are destroyed, exactly as if the client had
 * disconnected (its calls go on; docs/design.md §3.4). Node already stops parsing further pipelined
 * requests on a connection whose answers do not drain, so one connection cannot queue more.
 * An idle stream (nothing to send, e.g. the standalone GET stream) is never dropped.
 */
export function createStalledResponses(options: { stallMs: number; logger: Logger }): StalledResponses {
  const watched = new Map<ServerResponse, Watched>();
  let timer: NodeJS.Timeout | undefined;

  const check = (): void => {
    const now = Date.now();
    for (const [res, state] of watched) {
      const pending = res.writableLength;
      if (pending === 0 || pending < state.pending) {
        state.stuckSince = null; // idle, or the client took some of it
      } else {
        state.stuckSince ??= now;
        if (now - state.stuckSince >= options.stallMs) {
          forget(res);
          options.logger.warn(`http: dropped an answer its client stopped reading (${pending} bytes unread for ${now - state.stuckSince} ms)`);
          res.destroy();
          continue;
        }
      }
      state.pending = pending;
    }
  };

  const forget = (res: ServerResponse): void => {
    watched.delete(res);
    if (watched.size === 0 && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  };

  return {
    watch(res) {
      if (res.writableFinished || res.destroyed || watched.has(res)) return;
      const state: Watched = { pending: 0, stuckSince: null };
      watched.set(res, state);
      res.on('drain', () => (state.stuckSince = null));
      res.once('finish', () => forget(res));
      res.once('close', () => forget(res));
      timer ??= setInterval(check, Math.max(50, Math.min(1_000, Math.floor(options.stallMs / 4)))).unref();
    },
    dispose() {
      if (timer) clearInterval(timer);
      timer = undefined;
      watched.clear();
    },
  };
}
