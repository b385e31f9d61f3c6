/**
 * Who answers for the person (docs/design.md §2.9 "Who answers", §4.3): an agent that holds the
 * hub's bearer token tries, as an agent would, every way to answer its own approval and every way
 * a browser signs in, against a real `switchboard serve` whose policy asks before `touch *`. The
 * agent is the official MCP client over HTTP with the token; its command (a `touch` of a marker in
 * a folder made for this test) must still be waiting, and the marker absent, after every attempt.
 * Then the person answers over the UI cookie, the command runs, and the audit says `window`.
 * Runs against dist/: `npm run build` first.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { ClientMessage, HubMessage } from '../../src/ui-protocol/index.js';
import { whenFile } from './helpers/fileWatch.js';
import { removeHome, startHub, type HubProcess } from './helpers/hubProcess.js';
import { toolAnswer, type ToolAnswer } from './helpers/toolAnswer.js';
import { get, personCookie, UiClient } from './helpers/uiClient.js';

const POLICY = JSON.stringify([{ match: 'touch *', action: 'ask', reason: 'the test asks before touch' }]);

let hub: HubProcess;
let agent: Client;
let folder: string;
let marker: string;
let session: string;
let approvalId: string;
const clients: UiClient[] = [];

const call = async (name: string, args: Record<string, unknown>): Promise<ToolAnswer> => toolAnswer(await agent.callTool({ name, arguments: args }));

/** Upgrade attempt on /ws: the HTTP status when refused, 101 when accepted. */
function tryUpgrade(headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${hub.port}/ws`, { headers, origin: `http://127.0.0.1:${hub.port}` });
    ws.on('unexpected-response', (_req, res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.on('open', () => {
      resolve(101);
      ws.close();
    });
    ws.on('error', (error) => (error.message.includes('Unexpected server response') ? undefined : reject(error)));
  });
}

/** The socket's `login` handshake with `line`: the hub's one answer. */
function socketLogin(line: Record<string, unknown>): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(hub.socket);
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('close', () => resolve(JSON.parse(text) as Record<string, unknown>));
    socket.on('error', reject);
    socket.on('connect', () => socket.write(`${JSON.stringify({ type: 'login', client: 'agent', version: '1', ...line })}\n`));
  });
}

/** The approval on the session as a connected UI last heard of it. */
function approvalSeenBy(ui: UiClient): string | undefined {
  for (let i = ui.messages.length - 1; i >= 0; i--) {
    const m = ui.messages[i]!;
    if (m.type === 'sessionChanged' && m.session.id === session) return m.session.approval?.id;
    if (m.type === 'sessions') return m.sessions.find((s) => s.id === session)?.approval?.id;
  }
  return undefined;
}

const auditLines = (): Record<string, unknown>[] =>
  existsSync(path.join(hub.home, 'audit.jsonl'))
    ? readFileSync(path.join(hub.home, 'audit.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>)
    : [];

beforeAll(async () => {
  folder = mkdtempSync(path.join(tmpdir(), 'sb-person-channels-'));
  marker = path.join(folder, 'ran');
  hub = await startHub({ env: { SWITCHBOARD_POLICY: POLICY } });
  agent = new Client({ name: 'token-holding-agent', version: '1.0.0' });
  await agent.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${hub.port}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${hub.token}` } } }),
  );
  const waiting = await call('execute', { command: `touch ${marker}`, timeout_ms: 300 });
  expect(waiting.sc.status, waiting.text).toBe('awaiting_approval');
  session = waiting.sc.session as string;
  approvalId = (waiting.sc.approval as { id: string }).id;
}, 30_000);

afterAll(async () => {
  for (const client of clients) client.close();
  await agent?.close().catch(() => undefined);
  if (hub) {
    expect(await hub.stop()).toBe(0);
    removeHome(hub.home);
  }
  rmSync(folder, { recursive: true, force: true });
});

describe('an agent holding the token', () => {
  it('over /ws with the bearer token, cannot answer its approval or act for the person: PERSON_ONLY, saying why, and nothing changes', async () => {
    const ui = await UiClient.connectWith(hub, { Authorization: `Bearer ${hub.token}` });
    clients.push(ui);
    // It may watch: it sees the approval like any UI.
    expect(approvalSeenBy(ui)).toBe(approvalId);
    const token = readFileSync(path.join(hub.home, 'token'), 'utf8');
    const attempts: ClientMessage[] = [
      { type: 'answerApproval', id: approvalId, answer: 'allow_once' },
      { type: 'answerApproval', id: approvalId, answer: 'allow_30m' },
      { type: 'takeOver', session },
      { type: 'input', session, data: 'echo typed-past-the-policy\r' },
      { type: 'handBack', session },
      { type: 'openTerminal', cols: 80, rows: 24 },
      { type: 'rerun', session, from: { session, seq: 1 } },
      { type: 'rotateToken' },
    ];
    for (const attempt of attempts) {
      const answer = await ui.request(attempt);
      expect(answer, attempt.type).toMatchObject({ type: 'error', code: 'PERSON_ONLY', for: attempt.type });
      expect((answer as Extract<HubMessage, { type: 'error' }>).message).toContain(
        'this connection signed in with the bearer token, which agents hold. Nothing changed.',
      );
    }
    const refusal = (await ui.request({ type: 'answerApproval', id: approvalId, answer: 'allow_once' })) as Extract<HubMessage, { type: 'error' }>;
    expect(refusal.message).toBe(
      "Approvals are answered only by the person, from the window signed in with its cookie, the app's window or the menu bar: this connection signed in with the bearer token, which agents hold. Nothing changed.",
    );
    // Nothing changed: the approval waits, the command did not run, no terminal opened, the token is the same.
    const person = await UiClient.connect(hub, await personCookie(hub));
    clients.push(person);
    expect(approvalSeenBy(person)).toBe(approvalId);
    const listed = person.messages.find((m): m is Extract<HubMessage, { type: 'sessions' }> => m.type === 'sessions')!;
    expect(listed.sessions.map((s) => s.id)).toEqual([session]);
    expect(listed.sessions[0]!.controller).toBe('agent');
    expect(existsSync(marker)).toBe(false);
    expect(readFileSync(path.join(hub.home, 'token'), 'utf8')).toBe(token);
    // It may still stop things: an interrupt is not acting for the person.
    expect(await ui.request({ type: 'interrupt', session })).toMatchObject({ type: 'done', for: 'interrupt' });
  });

  it('mints no cookie: /?token=, a cookie that holds the token, the socket’s login with the token are all refused', async () => {
    const byLink = await get(hub.port, `/?token=${hub.token}`);
    expect(byLink.status).toBe(401);
    expect(byLink.headers['set-cookie']).toBeUndefined();
    expect(byLink.body).toContain('does not sign a browser in');
    // The page itself over the bearer (a non-browser client may send one): served, but no cookie.
    const byBearer = await get(hub.port, '/', { Authorization: `Bearer ${hub.token}` });
    expect(byBearer.headers['set-cookie']).toBeUndefined();
    const forged = `switchboard_${hub.port}=${hub.token}`;
    expect((await get(hub.port, '/', { Cookie: forged })).status).toBe(401);
    expect(await tryUpgrade({ Cookie: forged })).toBe(401);
    expect(await socketLogin({ token: hub.token })).toEqual({ type: 'denied', reason: expect.stringContaining("a sign-in code needs the person's UI key") });
    expect(await socketLogin({ key: hub.token })).toEqual({ type: 'denied', reason: 'invalid UI key' });
    expect(existsSync(marker)).toBe(false);
  });

  it('has no MCP tool that answers an approval, and calling one by name changes nothing', async () => {
    const { tools } = await agent.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['execute', 'history', 'kill', 'list', 'open', 'read', 'screenshot', 'send']);
    const attempt = await agent.callTool({ name: 'answerApproval', arguments: { id: approvalId, answer: 'allow_once' } }).catch((error: unknown) => error);
    expect(attempt instanceof Error || (attempt as { isError?: boolean }).isError === true).toBe(true);
    // Its own session is reserved for the waiting command: it cannot type past it either.
    const busy = await call('send', { session, text: 'echo past-the-approval\n' });
    expect(busy.error?.code).toBe('SESSION_BUSY');
    expect(existsSync(marker)).toBe(false);
  });

  it('the person answers in the window over the UI cookie: the command runs, and the audit line says channel "window"', async () => {
    const person = await UiClient.connect(hub, await personCookie(hub));
    clients.push(person);
    expect(await person.request({ type: 'answerApproval', id: approvalId, answer: 'allow_once' })).toMatchObject({
      type: 'done',
      for: 'answerApproval',
      session,
    });
    const ran = await call('read', { session, view: 'command', wait: { exit: true, timeout_ms: 15_000 } });
    expect(ran.sc, ran.text).toMatchObject({ exit_code: 0 });
    expect(existsSync(marker)).toBe(true);
    const answered = (): Record<string, unknown>[] => auditLines().filter((line) => line.action === 'answer_approval');
    await whenFile(path.join(hub.home, 'audit.jsonl'), () => answered().length > 0, 'the answer in audit.jsonl');
    expect(answered()).toEqual([
      { time: expect.any(String), actor: 'person', action: 'answer_approval', channel: 'window', session, approval: approvalId, answer: 'allow_once' },
    ]);
    // The bearer connection's refused attempts changed nothing, so they left no person line.
    expect(
      auditLines()
        .filter((line) => line.actor === 'person' && line.channel === 'token')
        .map((line) => line.action),
    ).toEqual(['interrupt']);
  });
});
