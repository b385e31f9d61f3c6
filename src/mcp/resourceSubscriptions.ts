/**
 * What one MCP connection is told of sessions as resources (docs/design.md §3.7), and released
 * when it closes:
 *
 *   - 2025-era connections (`initialize`): `resources/subscribe` and `resources/unsubscribe`,
 *     then `notifications/resources/updated` for each subscribed screen that changed, and
 *     `notifications/resources/list_changed` when a session opens or ends;
 *   - 2026-07-28 connections (the shim's socket): the same notifications for what its
 *     `subscriptions/listen` streams ask, routed to them by the SDK (listenRequests.ts);
 *   - a 2026-07-28 request over HTTP gets a server of its own: the HTTP endpoint serves its
 *     streams (src/hub/endpoints/mcpHttpEndpoint.ts), so nothing is done here.
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { DisposableStore, type Disposable, type Event } from '../core/index.js';
import { followListens, type ListenRequests } from './listenRequests.js';
import type { ScreenChangeWatches } from './screenChangeWatches.js';
import { notFound, sessionOfScreenUri } from './sessionScreens.js';

/** How a server was made: the era its entry chose, and for a 2026 stdio connection, its listen streams. */
export interface McpConnection {
  era?: 'legacy' | 'modern';
  listens?: ListenRequests;
  /**
   * An agent's calls over a link from the person's hub on another machine (docs/design.md §4.7):
   * the name that hub gives this machine, and session ids are shown as `<name>:<id>`
   * (sessionIds.ts).
   */
  sessionPrefix?: string;
}

interface ResourceHost {
  screens: ScreenChangeWatches;
  /** A session opened or ended. */
  onDidChangeLive: Event<void>;
  /** Whether a session by this id or name exists, live or ended. */
  knows(ref: string): boolean;
}

export function serveResourceSubscriptions(server: McpServer, host: ResourceHost, connection: McpConnection): void {
  if (connection.era === 'modern' && !connection.listens) return;
  const store = new DisposableStore();
  const sendUpdated = (uri: string): void => void server.server.sendResourceUpdated({ uri }).catch(() => undefined);
  const sendListChanged = (): void => void server.server.sendResourceListChanged().catch(() => undefined);
  const listens = connection.listens;
  if (connection.era === 'modern' && listens) {
    // Connected already (no initialize on 2026-07-28); the SDK drops what no stream asked for.
    store.add(followListens(listens, host.screens, sendUpdated));
    store.add(
      host.onDidChangeLive(() => {
        if (listens.wantsListChanged) sendListChanged();
      }),
    );
  } else {
    const subscriptions = new Map<string, Disposable>();
    store.add({ dispose: () => [...subscriptions.values()].forEach((subscription) => subscription.dispose()) });
    server.server.setRequestHandler('resources/subscribe', (request) => {
      const uri = request.params.uri;
      const ref = sessionOfScreenUri(uri);
      // Only screens change; another resource of this server (static) is subscribed to and never updated.
      if (ref !== undefined && !host.knows(ref)) throw notFound(uri, `there is no session "${ref}", live or ended`);
      if (!subscriptions.has(uri))
        subscriptions.set(
          uri,
          host.screens.watch(uri, () => sendUpdated(uri)),
        );
      return {};
    });
    server.server.setRequestHandler('resources/unsubscribe', (request) => {
      const uri = request.params.uri;
      subscriptions.get(uri)?.dispose();
      subscriptions.delete(uri);
      return {};
    });
    // Told only once the client said it is ready (and a server made for nothing more never subscribes).
    const initialized = server.server.oninitialized;
    server.server.oninitialized = () => {
      initialized?.();
      store.add(host.onDidChangeLive(sendListChanged));
    };
  }
  const closed = server.server.onclose;
  server.server.onclose = () => {
    store.dispose();
    closed?.();
  };
}
