/**
 * A stopped hub leaves nothing behind in the process that ran it (the Electron app stops and
 * starts its hub in one process; `serve` exits, which hides a leak): one Hub in this process,
 * with real bash sessions, a person's UI on /ws, an MCP client over Streamable HTTP and a client
 * on the unix socket, all connected when it stops. Then: no active handle of the kinds a hub
 * makes (timers, servers, sockets, watchers, child processes) beyond what there was before it
 * started, no open file in its state folder, no child process of ours, live or unreaped.
 *
 * process.getActiveResourcesInfo() lists what keeps the event loop alive (unref'd timers are not
 * in it); /proc gives the files and the children.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, describe, expect, it } from 'vitest';
import { connectHubSocket } from '../../src/hub/common/socketClient.js';
import { Hub } from '../../src/hub/hub.js';
import { SettingsSchema } from '../../src/hub/settings/settings.js';
import type { HubProcess } from './helpers/hubProcess.js';
import { pollUntil } from './helpers/poll.js';
import { shellPath } from './helpers/shells.js';
import { personCookie, UiClient } from './helpers/uiClient.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };

/** The kinds of handle a hub makes: timers, servers and sockets (TCP and unix), watchers, children, terminals. */
const HUB_KINDS =
  /^(Timeout|Immediate|TCPServerWrap|TCPSocketWrap|TCPWrap|PipeServerWrap|PipeWrap|PipeConnectWrap|TCPConnectWrap|FSEventWrap|StatWatcher|ProcessWrap|TTYWrap|FSReqCallback|FileHandle|MessagePort|Worker)$/;

function handles(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const kind of process.getActiveResourcesInfo()) if (HUB_KINDS.test(kind)) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return counts;
}

/** Kinds with more handles now than in `before`, and how many more. */
function extra(before: Map<string, number>): Record<string, number> {
  const more: Record<string, number> = {};
  for (const [kind, count] of handles()) if (count > (before.get(kind) ?? 0)) more[kind] = count - (before.get(kind) ?? 0);
  return more;
}

/** Files this process has open under `dir`. */
function openFilesIn(dir: string): string[] {
  const open: string[] = [];
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    try {
      const target = fs.readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(dir)) open.push(target);
    } catch {
      // closed while we looked (readdir's own fd)
    }
  }
  return open;
}

/** This process's children, live or unreaped: `pid state command`. */
function children(): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid …: comm may hold spaces and parentheses, so split after the last ')'.
      const close = stat.lastIndexOf(')');
      const [state, ppid] = stat.slice(close + 2).split(' ');
      if (Number(ppid) === process.pid) found.push(`${entry} ${state} ${stat.slice(stat.indexOf('(') + 1, close)}`);
    } catch {
      // gone while we looked
    }
  }
  return found;
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-disposal-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('a stopped hub', () => {
  it('leaves no handle, open file or child process behind, with sessions, a UI, an MCP client and a socket client connected', async () => {
    const stateDir = path.join(root, 'state');
    const home = path.join(root, 'home');
    fs.mkdirSync(home);
    const childrenBefore = children();
    const before = handles();

    const settings = SettingsSchema.parse({ shell: shellPath('bash'), port: 0, killWaitMs: 300, loginShell: false });
    const hub = await Hub.start({ stateDir, logger: quiet, settings, env: { ...process.env, SHELL: shellPath('bash'), HOME: home } });
    let stopped = false;
    try {
      const port = hub.port!;
      // An MCP agent over Streamable HTTP: two sessions, one left busy with a command.
      const mcp = new Client({ name: 'disposal-test', version: '1.0.0' });
      await mcp.connect(
        new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${hub.token}` } } }),
      );
      const busy = await mcp.callTool({ name: 'execute', arguments: { command: 'sleep 600', background: true } });
      expect(busy.isError).toBeFalsy();
      const done = await mcp.callTool({ name: 'execute', arguments: { command: 'echo one' } });
      expect(done.isError).toBeFalsy();
      expect(hub.manager.list(false).length).toBe(2);

      // The person's UI on /ws, signed in with the UI key as a browser is.
      const asProcess = { port, uiKey: hub.uiKey! } as HubProcess;
      const ui = await UiClient.connect(asProcess, await personCookie(asProcess));
      // A client on the unix socket (what `switchboard status` opens), mid-conversation.
      const socketClient = await connectHubSocket(hub.socketPath!, hub.token!, 'disposal-test', '0.0.0');

      // While it runs, the hub holds things of each kind the test looks for.
      expect(Object.keys(extra(before)).length).toBeGreaterThan(0);
      expect(openFilesIn(stateDir).length).toBeGreaterThan(0);
      expect(children().length).toBeGreaterThan(childrenBefore.length);

      await hub.dispose();
      stopped = true;
      // The clients learn it from their closed connections; closing them is all that is left of them.
      await pollUntil(() => ui.closed, 'the UI connection closed by the hub');
      socketClient.close();
      await mcp.close().catch(() => undefined);

      await pollUntil(() => Object.keys(extra(before)).length === 0, 'no active handle left by the hub', { detail: () => JSON.stringify(extra(before)) });
      await pollUntil(() => openFilesIn(stateDir).length === 0, 'no open file in the state folder', { detail: () => openFilesIn(stateDir).join(', ') });
      await pollUntil(() => children().length <= childrenBefore.length, 'no child process left', { detail: () => children().join('; ') });
      expect(children()).toEqual(childrenBefore);
    } finally {
      if (!stopped) await hub.dispose();
    }
  });
});
