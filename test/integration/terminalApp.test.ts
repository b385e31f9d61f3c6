/**
 * The terminal app's server side (docs/design.md §3.8) against a real hub
 * (`serve`) through real clients:
 *
 * - an SDK 1.x client that did not declare MCP Apps, over the stdio shim, as most hosts: `open`
 *   and `execute` name the app (`_meta.ui.resourceUri`), and it is not offered `screen_updates`;
 * - an SDK 2.x client that declared MCP Apps (`capabilities.extensions["io.modelcontextprotocol/ui"]`),
 *   over HTTP, as a host that draws apps: it reads the app's resource and calls `screen_updates`
 *   the way the view does, replaying every answer into its own xterm; that terminal must show
 *   what the hub's shows after ordinary output, a flood and a resize.
 *
 * And the audit log counts the tool's calls instead of writing a line each. Runs against dist/:
 * `npm run build` first.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { Client as ClientV2, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import xtermHeadless from '@xterm/headless';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, ROOT, removeHome, startHub, type HubProcess } from './helpers/hubProcess.js';
import { toolAnswer, type ToolAnswer } from './helpers/toolAnswer.js';

const { Terminal } = xtermHeadless;
const APPS = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };
const APP_URI = 'ui://switchboard/terminal';

let hub: HubProcess;
let plain: ClientV1;
let host: ClientV2;
/** screen_updates calls made, by outcome, for the audit check. */
const calls = { ok: 0, error: 0 };

async function hostCall(name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  const answer = toolAnswer(await host.callTool({ name, arguments: args }));
  if (name === 'screen_updates') calls[answer.isError ? 'error' : 'ok']++;
  return answer;
}

async function ok(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const answer = await hostCall(name, args);
  if (answer.isError) throw new Error(`${name} ${JSON.stringify(args)} failed: ${answer.text}`);
  return answer.sc;
}

/** The view, as apps/terminal/ runs it: a terminal that replays the hub's answers. */
class View {
  readonly term = new Terminal({ cols: 80, rows: 24, scrollback: 2_000, allowProposedApi: true });
  since: number | undefined;
  resizes: number | undefined;

  constructor(readonly session: string) {}

  /** One call from where the view is; applied as the view applies it. */
  async update(): Promise<Record<string, unknown>> {
    const answer = await ok('screen_updates', { session: this.session, ...(this.since !== undefined ? { since: this.since, resizes: this.resizes } : {}) });
    if (typeof answer.screen === 'string') {
      this.term.resize(answer.cols as number, answer.rows as number);
      await this.write(`\x1bc${answer.screen}`);
    } else if (typeof answer.output === 'string') {
      await this.write(answer.output);
    }
    this.since = answer.seq as number;
    this.resizes = answer.resizes as number;
    return answer;
  }

  /** The visible rows as text, as `read` view `screen` gives them. */
  screen(): string {
    const buffer = this.term.buffer.active;
    const rows: string[] = [];
    for (let y = 0; y < this.term.rows; y++) rows.push(buffer.getLine(buffer.baseY + y)?.translateToString(true) ?? '');
    return rows.join('\n').trimEnd();
  }

  private write(data: string): Promise<void> {
    return new Promise((resolve) => this.term.write(data, resolve));
  }
}

async function hubScreen(session: string): Promise<string> {
  return (await ok('read', { session, view: 'screen' })).content as string;
}

beforeAll(async () => {
  // The shells start from the test run's own home (test/setup/hermeticHome.ts): no rc file of the machine's.
  hub = await startHub();
  plain = new ClientV1({ name: 'plain-host', version: '1.0.0' });
  await plain.connect(new StdioV1({ command: process.execPath, args: [BIN, 'mcp'], env: cleanEnv({ SWITCHBOARD_HOME: hub.home }), cwd: ROOT, stderr: 'pipe' }));
  host = new ClientV2({ name: 'apps-host', version: '2.0.0' }, { capabilities: APPS });
  await host.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${hub.port}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${hub.token}` } } }),
  );
}, 30_000);

afterAll(async () => {
  await plain?.close().catch(() => undefined);
  await host?.close().catch(() => undefined);
  if (hub) {
    await hub.stop();
    removeHome(hub.home);
  }
});

describe('what hosts are offered', () => {
  it('a 1.x client without MCP Apps: open and execute name the app; screen_updates is neither listed nor callable', async () => {
    const { tools } = await plain.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const name of ['open', 'execute']) expect(byName.get(name)?._meta, name).toEqual({ ui: { resourceUri: APP_URI } });
    for (const name of ['send', 'read', 'list', 'kill', 'screenshot', 'history']) expect(byName.get(name)?._meta, name).toBeUndefined();
    expect([...byName.keys()].sort()).toEqual(['execute', 'history', 'kill', 'list', 'open', 'read', 'screenshot', 'send']);
    await expect(plain.callTool({ name: 'screen_updates', arguments: { session: 'nope' } })).rejects.toThrow(/screen_updates/);
  });

  it('a 2.x client pinned to 2026-07-28 over HTTP (stateless): offered screen_updates when its request declares MCP Apps, not otherwise', async () => {
    const url = new URL(`http://127.0.0.1:${hub.port}/mcp`);
    const auth = { requestInit: { headers: { Authorization: `Bearer ${hub.token}` } } };
    const pinned = { versionNegotiation: { mode: { pin: '2026-07-28' as const } } };
    const withApps = new ClientV2({ name: 'modern-apps-host', version: '1.0.0' }, { ...pinned, capabilities: APPS });
    const without = new ClientV2({ name: 'modern-host', version: '1.0.0' }, pinned);
    try {
      await withApps.connect(new StreamableHTTPClientTransport(url, auth));
      await without.connect(new StreamableHTTPClientTransport(url, auth));
      expect(withApps.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      expect((await withApps.listTools()).tools.map((tool) => tool.name)).toContain('screen_updates');
      expect((await without.listTools()).tools.map((tool) => tool.name)).not.toContain('screen_updates');
    } finally {
      await withApps.close();
      await without.close();
    }
  });

  it('a 2.x host that declared MCP Apps: screen_updates for the app only, and the app as a resource with its MIME type and CSP', async () => {
    const { tools } = await host.listTools();
    const updates = tools.find((tool) => tool.name === 'screen_updates');
    expect(updates?._meta).toEqual({ ui: { resourceUri: APP_URI, visibility: ['app'] } });
    expect(updates?.annotations).toMatchObject({ readOnlyHint: true });
    expect(tools.find((tool) => tool.name === 'execute')?._meta).toEqual({ ui: { resourceUri: APP_URI } });

    const { resources } = await host.listResources();
    expect(resources.find((resource) => resource.uri === APP_URI)).toMatchObject({ mimeType: 'text/html;profile=mcp-app' });
    const read = await host.readResource({ uri: APP_URI });
    const [content] = read.contents as { uri: string; mimeType: string; text: string; _meta: Record<string, unknown> }[];
    expect(content).toMatchObject({ uri: APP_URI, mimeType: 'text/html;profile=mcp-app' });
    expect(content!.text).toBe(readFileSync(path.join(ROOT, 'dist', 'apps', 'terminal.html'), 'utf8'));
    expect(content!.text.startsWith('<!doctype html>')).toBe(true);
    // One document: no file it would have to fetch.
    expect(content!.text).not.toMatch(/<script[^>]+src=|<link[^>]+href=/i);
    expect(content!._meta).toEqual({ ui: { csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] }, prefersBorder: true } });
  });
});

describe('screen_updates', () => {
  let session: string;
  let view: View;

  it('first the screen, then nothing while nothing changes (it never types), then the output since', async () => {
    const ran = await ok('execute', { command: "printf 'alpha\\nbeta\\n'" });
    session = ran.session as string;
    view = new View(session);

    const first = await view.update();
    expect(first).toMatchObject({ session, state: 'idle', cols: 120, rows: 32, ui_url: `http://127.0.0.1:${hub.port}/#session=${session}` });
    expect(first.screen).toContain('alpha');
    expect(view.screen()).toBe(await hubScreen(session));

    for (let i = 0; i < 3; i++) {
      const idle = await view.update();
      expect(idle.seq, 'nothing was typed or printed').toBe(first.seq);
      expect(idle).not.toHaveProperty('screen');
      expect(idle).not.toHaveProperty('output');
      expect(idle).not.toHaveProperty('ui_url');
    }

    await ok('execute', { session, command: 'echo gamma-$((6*7))' });
    const more = await view.update();
    expect(more).not.toHaveProperty('screen');
    expect(more.output).toContain('gamma-42');
    expect(more.seq as number).toBeGreaterThan(first.seq as number);
    expect(view.screen()).toBe(await hubScreen(session));
  });

  it('after a flood: the screen as it is now, not the flood, and the view shows what the hub shows', async () => {
    const before = view.since!;
    await ok('execute', { session, command: 'seq 1 200000', timeout_ms: 60_000 });
    const caught = await view.update();
    expect((caught.seq as number) - before).toBeGreaterThan(1_000_000);
    expect(caught).not.toHaveProperty('output');
    expect(typeof caught.screen).toBe('string');
    // The screen and 100 rows of scrollback, never the flood's 1.3 MB.
    expect((caught.screen as string).length).toBeLessThan(40_000);
    expect(caught.screen).toContain('200000');
    expect(view.screen()).toBe(await hubScreen(session));

    await ok('execute', { session, command: 'echo after-flood' });
    const after = await view.update();
    expect(after.output).toContain('after-flood');
    expect(view.screen()).toBe(await hubScreen(session));
  }, 90_000);

  it('asked as the app asks while a flood runs, it shows what the hub shows once the flood is over', async () => {
    await ok('execute', { session, command: 'seq 1 3000000', background: true });
    // Every 500 ms, as the view does, until the command has ended and the view matches the hub
    // (during the flood the hub draws a screen at most every 2 s: test/unit/core/session/viewCatchUp.test.ts).
    await expect
      .poll(
        async () => {
          const answer = await view.update();
          return answer.state === 'idle' && view.screen() === (await hubScreen(session));
        },
        { timeout: 60_000, interval: 500 },
      )
      .toBe(true);
    expect(view.screen()).toContain('3000000');
  }, 90_000);

  it('after a resize, printed over or not: the screen again, at the new size, once', async () => {
    await ok('send', { session, resize: { rows: 20, cols: 90 }, wait: { idle_ms: 300 } });
    const resized = await view.update();
    expect(resized).toMatchObject({ cols: 90, rows: 20, resizes: 1 });
    expect(typeof resized.screen).toBe('string');
    expect(view.screen()).toBe(await hubScreen(session));
    const settled = await view.update();
    expect(settled).not.toHaveProperty('screen');

    await ok('send', { session, resize: { rows: 24, cols: 100 }, text: 'echo resized', keys: ['enter'], wait: { pattern: '^resized$' } });
    const again = await view.update();
    expect(again).toMatchObject({ cols: 100, rows: 24, resizes: 2 });
    expect(again.screen).toContain('resized');
    expect(view.screen()).toBe(await hubScreen(session));
  });

  it('answers only about sessions that exist, and refuses bad input with a coded error', async () => {
    const unknown = await hostCall('screen_updates', { session: 'zzzzzz' });
    expect(unknown.error?.code).toBe('SESSION_NOT_FOUND');
    const negative = await hostCall('screen_updates', { session, since: -1 });
    expect(negative.error?.code).toBe('INVALID_ARGUMENT');
    expect(negative.text).toContain('since');
    const words = await hostCall('screen_updates', { session, since: 'soon' });
    expect(words.error?.code).toBe('INVALID_ARGUMENT');
    const missing = await hostCall('screen_updates', {});
    expect(missing.error?.code).toBe('INVALID_ARGUMENT');
    expect(missing.text).toContain('session');
  });

  it('a session that ended says so (not an error), and the view stops there', async () => {
    const opened = await ok('open', { program: 'bash', args: ['--norc', '--noprofile'] });
    const ended = opened.session as string;
    await ok('kill', { session: ended, close: true });
    const answer = await ok('screen_updates', { session: ended, since: 10 });
    expect(answer).toMatchObject({ session: ended, state: 'exited', seq: 10 });
    expect(answer).not.toHaveProperty('screen');
  });
});

describe('the audit log', () => {
  it('counts screen_updates calls: the first of each client, session and outcome at once, then one line with how many', async () => {
    await hub.stop(); // flushes what is counted
    const lines = readFileSync(path.join(hub.home, 'audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const updates = lines.filter((line) => line.tool === 'screen_updates');
    expect(updates.every((line) => line.client === 'apps-host 2.0.0' && typeof line.calls === 'number')).toBe(true);
    const sum = (outcome: string): number => updates.filter((line) => line.outcome === outcome).reduce((total, line) => total + (line.calls as number), 0);
    expect(sum('ok')).toBe(calls.ok);
    expect(sum('error')).toBe(calls.error);
    // Per session and outcome: the first call alone, then counts (one a minute, and the rest at the stop).
    const firsts = new Map<string, Record<string, unknown>>();
    for (const line of updates)
      if (!firsts.has(`${line.session} ${line.outcome} ${line.code}`)) firsts.set(`${line.session} ${line.outcome} ${line.code}`, line);
    expect([...firsts.values()].every((line) => line.calls === 1)).toBe(true);
    expect(updates.length).toBeLessThan(calls.ok + calls.error);
    expect(
      updates.find((line) => line.session === updates[0]!.session && (line.calls as number) > 1),
      'a count of the rest',
    ).toBeDefined();
    expect(updates.find((line) => line.outcome === 'error' && line.code === 'SESSION_NOT_FOUND')).toMatchObject({ session: 'zzzzzz', calls: 1 });
    // The other tools are still a line per call, with no count.
    expect(lines.filter((line) => line.tool === 'execute').every((line) => line.calls === undefined)).toBe(true);
  });
});
