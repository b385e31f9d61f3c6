/**
 * The `subscriptions/listen` streams open on a 2026-07-28 endpoint, and which session screens
 * they ask to follow (docs/design.md §3.7). The SDK serves the streams itself, before any
 * McpServer sees them (its stdio entry and `createMcpHandler`), and routes each
 * `notifications/resources/updated` a server sends to the streams that asked for its URI; it
 * does not say which URIs those are. This bookkeeping does, from the requests as they pass, so
 * that only screens someone listens to are watched (`followListens`).
 */
import { PROTOCOL_VERSION_META_KEY, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { EventEmitter, type Disposable, type Event } from '../core/index.js';
import type { ScreenChangeWatches } from './screenChangeWatches.js';

export const LISTEN = 'subscriptions/listen';

/** What a listen stream asked for, of what concerns resources. */
interface ListenFilter {
  resourceSubscriptions: readonly string[];
  resourcesListChanged: boolean;
}

export class ListenRequests implements Disposable {
  private readonly streams = new Map<unknown, ListenFilter>();
  private readonly onDidChangeEmitter = new EventEmitter<void>();
  /** A stream opened or closed. */
  readonly onDidChange: Event<void> = this.onDidChangeEmitter.event;

  /** A stream opened under `key` (unique while it is open) with the request's `params`. */
  open(key: unknown, params: unknown): void {
    const notifications = objectOrUndefined(objectOrUndefined(params)?.notifications);
    const uris = notifications?.resourceSubscriptions;
    this.streams.set(key, {
      resourceSubscriptions: Array.isArray(uris) ? uris.filter((uri): uri is string => typeof uri === 'string') : [],
      resourcesListChanged: notifications?.resourcesListChanged === true,
    });
    this.onDidChangeEmitter.fire();
  }

  close(key: unknown): void {
    if (this.streams.delete(key)) this.onDidChangeEmitter.fire();
  }

  /**
   * A message from the client of a stdio connection: a listen request opens a stream under its
   * id (only with the 2026 envelope, as the SDK serves it), its `notifications/cancelled` closes it.
   */
  observeInbound(message: JSONRPCMessage): void {
    if (!('method' in message)) return;
    const params = objectOrUndefined(message.params);
    if ('id' in message && message.method === LISTEN && typeof objectOrUndefined(params?._meta)?.[PROTOCOL_VERSION_META_KEY] === 'string') {
      this.open(message.id, params);
    } else if (!('id' in message) && message.method === 'notifications/cancelled') {
      this.close(params?.requestId);
    }
  }

  /** A message to the client: an answer to a listen request (refused, or closed by the server) ends its stream. */
  observeOutbound(message: JSONRPCMessage): void {
    if (!('method' in message) && 'id' in message && this.streams.has(message.id)) this.close(message.id);
  }

  /** Every screen URI an open stream follows. */
  get uris(): ReadonlySet<string> {
    const uris = new Set<string>();
    for (const stream of this.streams.values()) for (const uri of stream.resourceSubscriptions) uris.add(uri);
    return uris;
  }

  /** Whether an open stream asked for `notifications/resources/list_changed`. */
  get wantsListChanged(): boolean {
    for (const stream of this.streams.values()) if (stream.resourcesListChanged) return true;
    return false;
  }

  dispose(): void {
    this.streams.clear();
    this.onDidChangeEmitter.dispose();
  }
}

/**
 * Keeps one screen watch per URI the open streams follow, calling `notify(uri)` on each update,
 * until disposed. The SDK's router gives each interested stream its own copy.
 */
export function followListens(listens: ListenRequests, screens: ScreenChangeWatches, notify: (uri: string) => void): Disposable {
  const watches = new Map<string, Disposable>();
  const sync = (): void => {
    const wanted = listens.uris;
    for (const [uri, watch] of watches) {
      if (wanted.has(uri)) continue;
      watch.dispose();
      watches.delete(uri);
    }
    for (const uri of wanted)
      if (!watches.has(uri))
        watches.set(
          uri,
          screens.watch(uri, () => notify(uri)),
        );
  };
  const subscription = listens.onDidChange(sync);
  sync();
  return {
    dispose: () => {
      subscription.dispose();
      for (const watch of watches.values()) watch.dispose();
      watches.clear();
    },
  };
}

function objectOrUndefined(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
