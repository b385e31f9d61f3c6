/**
 * Sessions as resources on one server (docs/design.md §3.7): the screens (sessionScreens.ts) and
 * what this connection subscribes to (resourceSubscriptions.ts), through the hub's one set of
 * screen watches (screenChangeWatches.ts).
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { ErrorCode, isSwitchboardError } from '../core/index.js';
import { serveResourceSubscriptions, type McpConnection } from './resourceSubscriptions.js';
import { ScreenChangeWatches } from './screenChangeWatches.js';
import { registerSessionScreens, screenSource } from './sessionScreens.js';
import type { ToolHost } from './toolHost.js';

export function serveSessionResources(server: McpServer, host: ToolHost, connection: McpConnection): void {
  registerSessionScreens(server, host);
  let screens = host.screenWatches;
  if (!screens) {
    // A host without the hub's watches (tests): this server keeps its own, released with it.
    const own = (screens = new ScreenChangeWatches(screenSource(host)));
    const closed = server.server.onclose;
    server.server.onclose = () => {
      own.dispose();
      closed?.();
    };
  }
  const manager = host.manager;
  serveResourceSubscriptions(server, { screens, onDidChangeLive: manager.onDidChangeLive, knows: (ref) => knowsSession(manager, ref) }, connection);
}

/** A session by this id or name, live or ended (and still on disk). */
function knowsSession(manager: ToolHost['manager'], ref: string): boolean {
  try {
    manager.get(ref);
    return true;
  } catch (error) {
    return (isSwitchboardError(error) && error.code === ErrorCode.SessionExited) || Boolean(manager.store?.find(ref));
  }
}
