/**
 * The person's UI as the hub's HTTP server serves it (docs/design.md §4.3): the built page at `/`
 * with its files (uiStatic.ts) and the bridge on `/ws` (uiWebSocket.ts). The endpoints room
 * declares what it needs (`UiEndpoint`); this room provides it, and the hub hands one to the other.
 */
import type { UiEndpoint } from '../endpoints/httpServer.js';
import { defaultRendererDir, isUiAssetPath, serveUiAsset } from './uiStatic.js';
import { createUiWebSocketServer, type UiWebSocketOptions } from './uiWebSocket.js';

export interface UiEndpointOptions extends UiWebSocketOptions {
  /** The built renderer (default: the package's dist/renderer). */
  rendererDir?: string;
}

export function createUiEndpoint(options: UiEndpointOptions): UiEndpoint {
  const rendererDir = options.rendererDir ?? defaultRendererDir();
  return {
    ...createUiWebSocketServer(options),
    isAsset: isUiAssetPath,
    serve: (req, res, urlPath, port) => serveUiAsset(req, res, urlPath, port, rendererDir),
  };
}
