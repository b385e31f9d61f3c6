/**
 * The person's UI as the hub's HTTP server serves it (docs/design.md §4.3): the built page at `/`
 * with its files (uiStatic.ts), the bridge on `/ws` (uiWebSocket.ts), and an approval's page on
 * `/approval/<id>/` (approvalPage.ts). The endpoints room
 * declares what it needs (`UiEndpoint`); this room provides it, and the hub hands one to the other.
 */
import type { UiEndpoint } from '../endpoints/httpServer.js';
import { handleApprovalPage, type ApprovalPageOptions } from './approvalPage.js';
import { defaultRendererDir, isUiAssetPath, serveUiAsset } from './uiStatic.js';
import { createUiWebSocketServer, type UiWebSocketOptions } from './uiWebSocket.js';

interface UiEndpointOptions extends UiWebSocketOptions {
  /** The built renderer (default: the package's dist/renderer). */
  rendererDir?: string;
  /** An approval's page (`/approval/…`, a URL elicitation's link); none: those paths are 404. */
  approvalPage?: Omit<ApprovalPageOptions, 'rendererDir'>;
}

export function createUiEndpoint(options: UiEndpointOptions): UiEndpoint {
  const rendererDir = options.rendererDir ?? defaultRendererDir();
  return {
    ...createUiWebSocketServer(options),
    isAsset: isUiAssetPath,
    serve: (req, res, urlPath, port) => serveUiAsset(req, res, urlPath, port, rendererDir),
    ...(options.approvalPage ? { approvalPage: (req, res, port) => handleApprovalPage(req, res, port, { ...options.approvalPage!, rendererDir }) } : {}),
  };
}
