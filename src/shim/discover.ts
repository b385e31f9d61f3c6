/**
 * `server/discover` (MCP 2026-07-28), answered by the shim itself, at once: a 2026-era client
 * asks it first, before anything else, and on stdio a slow answer reads as "no modern server"
 * (the SDK then falls back to `initialize`) or as a failed connect (a client pinned to the
 * revision). What it says is static (src/mcpIntroduction.ts, shared with the hub's McpServer),
 * so no hub has to start or answer for it (docs/design.md §4.4; docs/decisions.md, "The shim
 * answers server/discover"). Anything the shim cannot answer as the hub would (no `_meta`
 * envelope, an incomplete one) is forwarded, and the hub answers it.
 */
import { INSTRUCTIONS, MODERN_PROTOCOL_VERSIONS, SERVER_CAPABILITIES, SERVER_NAME } from '../mcpIntroduction.js';
import { UNSUPPORTED_PROTOCOL_VERSION, type JsonRpcRequest, type JsonRpcResponse } from '../hub/common/jsonRpc.js';

export const DISCOVER = 'server/discover';

const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const CLIENT_INFO_KEY = 'io.modelcontextprotocol/clientInfo';
const CLIENT_CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';

/** The answer to a `server/discover` request, or undefined to forward it to the hub. */
export function answerDiscover(request: JsonRpcRequest, version: string): JsonRpcResponse | undefined {
  const meta = objectOrUndefined(objectOrUndefined(request.params)?._meta);
  const requested = meta?.[PROTOCOL_VERSION_KEY];
  if (typeof requested !== 'string') return undefined;
  if (!MODERN_PROTOCOL_VERSIONS.includes(requested)) {
    return {
      jsonrpc: '2.0',
      id: request.id,
      error: {
        code: UNSUPPORTED_PROTOCOL_VERSION,
        message: `Unsupported protocol version: ${requested}`,
        data: { supported: [...MODERN_PROTOCOL_VERSIONS], requested },
      },
    };
  }
  if (!objectOrUndefined(meta?.[CLIENT_INFO_KEY]) || !objectOrUndefined(meta?.[CLIENT_CAPABILITIES_KEY])) return undefined;
  return {
    jsonrpc: '2.0',
    id: request.id,
    result: {
      supportedVersions: [...MODERN_PROTOCOL_VERSIONS],
      capabilities: structuredClone(SERVER_CAPABILITIES),
      instructions: INSTRUCTIONS,
      // As the hub's own answer has them (the SDK's defaults).
      resultType: 'complete',
      ttlMs: 0,
      cacheScope: 'private',
      _meta: { [SERVER_INFO_KEY]: { name: SERVER_NAME, version } },
    },
  };
}

function objectOrUndefined(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
