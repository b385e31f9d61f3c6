/**
 * `send` `resize` and `wait.absent` through MCP (docs/design.md §3.3) on a real `switchboard
 * serve`: the official MCP client over HTTP as the agent, a `/ws` client as the person's UI. A
 * resize reaches the program (stty, vim), `list` and `read`, the UI (`resized_by`, §5.2) and the
 * audit log (§4.6); it is refused while the person controls the session; a spinner's absence ends
 * a wait. Runs against dist/: `npm run build` first.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HubMessage, UiSession } from '../../src/ui-protocol/index.js';
import { removeHome, startHub, type HubProcess } from './helpers/hubProcess.js';
import { toolAnswer, type ToolAnswer } from './helpers/toolAnswer.js';
import { personCookie, UiClient } from './helpers/uiClient.js';

const AGENT = { name: 'resize-agent', version: '4.5.6' };

let hub: HubProcess;
let agent: Client;
let ui: UiClient;

async function call(name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  return toolAnswer(await agent.callTool({ name, arguments: args }));
}

async function ok(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const answer = await call(name, args);
  if (answer.isError) throw new Error(`${name} ${JSON.stringify(args)} failed: ${answer.text}`);
  return answer.sc;
}

async function listed(id: string): Promise<Record<string, unknown>> {
  const sessions = (await ok('list', {})).sessions as Record<string, unknown>[];
  const found = sessions.find((entry) => entry.id === id);
  if (!found) throw new Error(`session ${id} is not listed`);
  return found;
}

function auditLines(): Record<string, unknown>[] {
  return readFileSync(path.join(hub.home, 'audit.jsonl'), 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

beforeAll(async () => {
  hub = await startHub();
  agent = new Client(AGENT);
  await agent.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${hub.port}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${hub.token}` } } }),
  );
  ui = await UiClient.connect(hub, await personCookie(hub));
}, 30_000);

afterAll(async () => {
  ui?.close();
  await agent?.close().catch(() => undefined);
  if (hub) {
    expect(await hub.stop()).toBe(0);
    removeHome(hub.home);
  }
});

describe('send resize through MCP', () => {
  it('stty size, list and read show the new size; the UI is told who resized it; the audit line says to what size', async () => {
    const { session } = await ok('open', { rows: 24, cols: 80 });
    const id = String(session);
    const from = ui.mark();
    const sent = await ok('send', {
      session: id,
      resize: { rows: 33, cols: 111 },
      text: 'stty size',
      keys: ['enter'],
      wait: { pattern: '^33 111$', timeout_ms: 10_000 },
    });
    expect(sent.waited).toBe('pattern');
    expect(await listed(id)).toMatchObject({ rows: 33, cols: 111 });
    const screen = await ok('read', { session: id, view: 'screen' });
    expect(screen.lines).toBe(33);

    const changed = await ui.waitFor<Extract<HubMessage, { type: 'sessionChanged' }>>(
      (m) => m.type === 'sessionChanged' && m.session.id === id && m.session.resized_by !== undefined,
      'the UI told of the agent’s resize',
      { from },
    );
    const seen: UiSession = changed.session;
    expect(seen).toMatchObject({ rows: 33, cols: 111, resized_by: { client: 'resize-agent 4.5.6', rows: 33, cols: 111, at: expect.any(String) } });

    const line = auditLines().find((entry) => entry.actor === 'agent' && entry.tool === 'send' && entry.session === id);
    expect(line).toMatchObject({ actor: 'agent', client: 'resize-agent 4.5.6', outcome: 'ok', resize: { rows: 33, cols: 111 }, keys: 1 });
    await ok('kill', { session: id, close: true });
  });

  it('vim redraws at the size given as "100x30"', async () => {
    const { session } = await ok('open', {
      program: 'vim',
      args: ['-N', '-u', 'NONE', '-i', 'NONE', '-n', '-c', 'set ruler laststatus=0'],
      rows: 24,
      cols: 80,
    });
    const id = String(session);
    await ok('read', { session: id, view: 'screen', wait: { pattern: '0,0-1', timeout_ms: 10_000 } });
    // Vim draws its ruler on the last row, 18 columns from the right edge: both move with the size.
    const resized = await ok('send', { session: id, resize: '100x30', wait: { pattern: '^ {81,}0,0-1', timeout_ms: 10_000 } });
    expect(resized.waited).toBe('pattern');
    const rows = String((await ok('read', { session: id, view: 'screen' })).content).split('\n');
    expect(rows).toHaveLength(30);
    expect(rows[29]).toMatch(/0,0-1\s+All$/);
    expect(rows[29]!.length).toBeGreaterThan(80);
    expect(rows.slice(1, 29).every((row) => row === '~')).toBe(true);
    await ok('kill', { session: id, close: true });
  });

  it('a size outside open’s bounds is INVALID_ARGUMENT naming the value', async () => {
    const { session } = await ok('open', {});
    const refused = await call('send', { session, resize: { rows: 24, cols: 4000 } });
    expect(refused.isError).toBe(true);
    expect(refused.error?.code).toBe('INVALID_ARGUMENT');
    expect(refused.text).toMatch(/^INVALID_ARGUMENT: resize\.cols: 4000 is not allowed; use an integer from 10 to 1000/);
    await ok('kill', { session, close: true });
  });

  it('is refused with SESSION_CONTROLLED_BY_USER while the person controls the session; the person’s size stays', async () => {
    const { session } = await ok('open', { rows: 24, cols: 80 });
    const id = String(session);
    expect(await ui.request({ type: 'takeOver', session: id })).toMatchObject({ type: 'done', for: 'takeOver' });
    const refused = await call('send', { session: id, resize: { rows: 40, cols: 120 } });
    expect(refused.isError).toBe(true);
    expect(refused.error?.code).toBe('SESSION_CONTROLLED_BY_USER');
    expect(await listed(id)).toMatchObject({ rows: 24, cols: 80 });
    expect(auditLines().filter((entry) => entry.session === id && entry.tool === 'send')).toEqual([
      expect.objectContaining({ outcome: 'error', code: 'SESSION_CONTROLLED_BY_USER', resize: { rows: 40, cols: 120 } }),
    ]);
    expect(await ui.request({ type: 'handBack', session: id })).toMatchObject({ type: 'done', for: 'handBack' });
    await ok('kill', { session: id, close: true });
  });
});

describe('wait.absent through MCP', () => {
  it('a python3 spinner: send a key, wait until "Loading" is gone → waited absent with the text that replaced it', async () => {
    const spinner = [
      'import select, sys, time, tty',
      'tty.setcbreak(0)',
      'i = 0',
      'while not select.select([0], [], [], 0.05)[0]:',
      "    sys.stdout.write('\\rLoading\\u2026 ' + '|/-\\\\'[i % 4]); sys.stdout.flush(); i += 1",
      'sys.stdin.read(1)',
      "sys.stdout.write('\\r\\x1b[2KLoaded 7 files\\n'); sys.stdout.flush()",
      'time.sleep(600)',
    ].join('\n');
    const { session } = await ok('open', { program: 'python3', args: ['-c', spinner] });
    await ok('read', { session, view: 'screen', wait: { pattern: 'Loading', timeout_ms: 10_000 } });
    const gone = await ok('send', { session, keys: ['q'], wait: { until_gone: 'Loading', timeout_ms: 15_000 } });
    expect(gone.waited).toBe('absent');
    expect(String(gone.screen)).toContain('Loaded 7 files');
    expect(String(gone.screen)).not.toContain('Loading');
    const already = await ok('read', { session, view: 'screen', wait: { absent: 'Loading', timeout_ms: 600_000 } });
    expect(already.waited).toBe('absent');
    await ok('kill', { session, close: true });
  });

  it('a runaway absent regex is INVALID_ARGUMENT', async () => {
    const { session } = await ok('execute', { command: 'python3 -c "print(\'a\' * 3000)"' });
    const refused = await call('read', { session, view: 'screen', wait: { absent: '(a+)+c', timeout_ms: 5_000 } });
    expect(refused.error?.code).toBe('INVALID_ARGUMENT');
    expect(refused.text).toMatch(/^INVALID_ARGUMENT: wait\.absent: .*catastrophic backtracking/);
  });
});
