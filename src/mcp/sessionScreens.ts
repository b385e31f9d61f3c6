/**
 * Sessions as resources (docs/design.md §3.7): `switchboard://sessions/{id}/screen` is a
 * session's screen as `read` view `screen` renders it — the grid as text, then the cursor and
 * the state in brackets — for any session, live or ended (an ended one's last screen, replayed
 * from its transcript as `read` does). `resources/list` names the live sessions.
 */
import { ResourceNotFoundError, ResourceTemplate, type McpServer, type RegisteredResourceTemplate } from '@modelcontextprotocol/server';
import { ErrorCode, isSwitchboardError, type ReadRequest, type SessionInfo } from '../core/index.js';
import type { ScreenSource } from './screenChangeWatches.js';
import type { ToolHost } from './toolHost.js';
import { renderRead } from './tools/read.js';

export const SCREEN_URI_TEMPLATE = 'switchboard://sessions/{id}/screen';
const SCREEN_URI = /^switchboard:\/\/sessions\/([^/?#]+)\/screen$/;
const MIME_TYPE = 'text/plain';
/** Whose `read` cursor a screen read would move: none (view `screen` has no cursor), but the core asks. */
const SCREEN_READER = 'resources';

/** The screen resource of a session. */
export function screenUri(id: string): string {
  return `switchboard://sessions/${encodeURIComponent(id)}/screen`;
}

/** The session (id or name) a screen resource names, or undefined when `uri` is not one. */
export function sessionOfScreenUri(uri: string): string | undefined {
  const match = SCREEN_URI.exec(uri);
  if (!match) return undefined;
  try {
    return decodeURIComponent(match[1]!);
  } catch {
    return undefined;
  }
}

/** The screen as `read` view `screen` shows it, text and footer; the core's coded errors as they come. */
async function renderScreen(host: Pick<ToolHost, 'manager'>, ref: string): Promise<string> {
  const request: ReadRequest = { clientId: SCREEN_READER, view: 'screen', format: 'plain' };
  const result = await host.manager.read(ref, request);
  return renderRead(ref, request, result).text;
}

export function registerSessionScreens(server: McpServer, host: Pick<ToolHost, 'manager' | 'logger'>): RegisteredResourceTemplate {
  const template = new ResourceTemplate(SCREEN_URI_TEMPLATE, {
    list: () => ({ resources: host.manager.list(false).map(listed) }),
  });
  return server.registerResource(
    'session-screen',
    template,
    {
      title: 'Terminal screen',
      description:
        "A terminal session's screen as text, then its cursor and state; live sessions are listed, ended ones can still be read. Subscribe to follow it.",
      mimeType: MIME_TYPE,
    },
    async (uri) => {
      const ref = sessionOfScreenUri(uri.href);
      if (ref === undefined) throw notFound(uri.href, 'it is not a session screen (switchboard://sessions/<id>/screen)');
      try {
        return { contents: [{ uri: uri.href, mimeType: MIME_TYPE, text: await renderScreen(host, ref) }] };
      } catch (error) {
        if (isSwitchboardError(error) && error.code === ErrorCode.SessionNotFound)
          throw notFound(uri.href, `there is no session "${ref}", live or ended (retention may have removed it)`);
        host.logger.error(`resources/read ${uri.href}: ${(error as Error).stack ?? String(error)}`);
        throw new Error(`Could not read the screen of session "${ref}"; try the read tool with view "screen".`);
      }
    },
  );
}

/** The hub's sessions as screen updates see them (screenChangeWatches.ts). */
export function screenSource(host: Pick<ToolHost, 'manager' | 'logger'>): ScreenSource {
  return {
    live: (ref) => {
      try {
        return host.manager.get(ref);
      } catch {
        return undefined; // ended or unknown: its screen does not change
      }
    },
    render: (id) => renderScreen(host, id),
    onError: (error) => host.logger.error(`screen update: ${(error as Error).stack ?? String(error)}`),
  };
}

/** The spec's resource-not-found (-32602 with `data.uri`), saying what to do. */
export function notFound(uri: string, why: string): ResourceNotFoundError {
  return new ResourceNotFoundError(
    uri,
    `Resource ${uri} not found: ${why}. resources/list names the live sessions; the list tool with include_closed names ended ones too.`,
  );
}

/** A live session as `resources/list` shows it: what runs there, its state and folder. */
function listed(info: SessionInfo): { uri: string; name: string; title: string; description: string; mimeType: string } {
  const label = info.name ?? info.id;
  const program = info.program.split('/').pop() || info.program;
  const who = info.creator.kind === 'agent' ? `opened by ${info.creator.client}` : "the person's own";
  const doing = info.command ? `${info.state}: ${info.command}` : info.state;
  return {
    uri: screenUri(info.id),
    name: label,
    title: `${label} (${program})`,
    description: `${program}, ${doing}, in ${info.cwd ?? 'an unknown folder'}; ${who}. The screen as text.`,
    mimeType: MIME_TYPE,
  };
}
