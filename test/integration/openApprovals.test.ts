/**
 * Approvals of requests that would start a session (docs/design.md §2.9, §3.2): an agent's `open`
 * judged as the command line it runs, and `sandbox: false` on `open` and `execute`, which always
 * asks unless a rule written for it answers. Nothing is spawned before the person's answer; the
 * same call again waits on the same approval, or gets what was started once it was allowed. A real
 * hub in this process, real bash, an MCP client on an in-memory transport; the person answers
 * through the UI protocol. The rules match harmless `echo` lines only.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hub } from '../../src/hub/hub.js';
import { SettingsSchema } from '../../src/hub/settings/settings.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { UI_PROTOCOL_VERSION, type HubMessage, type UiNewApproval } from '../../src/ui-protocol/index.js';
import type { UiBridge } from '../../src/hub/ui/uiBridge.js';
import { pollUntil } from './helpers/poll.js';
import { shellPath } from './helpers/shells.js';
import { toolAnswer, type ToolAnswer } from './helpers/toolAnswer.js';
import { within } from './helpers/within.js';
import { auditLines } from './helpers/auditLines.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };
const POLICY = [
  { match: 'echo approve-me*', action: 'ask' },
  { match: 'echo deny-me*', action: 'deny' },
  { match: 'echo outside-ok*', action: 'allow', outsideSandbox: true },
] as const;

let stateDir: string;
let home: string;
let hub: Hub;
let client: Client;
let person: { bridge: UiBridge; messages: HubMessage[]; req: number };

const call = async (name: string, args: Record<string, unknown>): Promise<ToolAnswer> => toolAnswer(await client.callTool({ name, arguments: args }));
const ok = async (name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> => {
  const answer = await call(name, args);
  if (answer.isError) throw new Error(`${name} failed: ${answer.text}`);
  return answer.sc;
};
/**
 * Every session this hub has opened, ended ones included: what "spawns nothing" counts. (Live
 * ones only would race the last test's `echo` session, which may still be ending as the next
 * test starts, and would miss a session that spawned and ended at once.)
 */
const sessionsOpened = (): number => hub.manager.list(true).length;

/** The approvals no session shows, as the person's window last heard of them. */
function waiting(): UiNewApproval[] {
  for (let i = person.messages.length - 1; i >= 0; i--) {
    const m = person.messages[i]!;
    if (m.type === 'approvals') return m.approvals;
  }
  return [];
}

async function answer(id: string, how: 'allow_once' | 'allow_30m' | 'deny'): Promise<HubMessage> {
  const req = ++person.req;
  person.bridge.receive({ type: 'answerApproval', id, answer: how, req });
  let reply: HubMessage | undefined;
  await pollUntil(
    () => Boolean((reply = person.messages.find((m) => (m.type === 'done' || m.type === 'error') && m.req === req))),
    'the answer to answerApproval',
  );
  return reply!;
}

const audit = (): Record<string, unknown>[] => auditLines(hub, stateDir);

beforeAll(async () => {
  stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-open-approvals-'));
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-open-approvals-home-'));
  for (const rc of ['.bashrc', '.bash_profile', '.profile']) fs.writeFileSync(path.join(home, rc), '');
  const settings = SettingsSchema.parse({ shell: shellPath('bash'), policy: POLICY, killWaitMs: 300, executeTimeoutMs: 300 });
  hub = new Hub({ stateDir, logger: quiet, settings, env: { ...process.env, HOME: home, SHELL: shellPath('bash') } });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(hub).connect(serverSide);
  client = new Client({ name: 'open-approval-test', version: '1.0' });
  await client.connect(clientSide);
  const messages: HubMessage[] = [];
  const bridge = hub.ui.createBridge({ send: (m) => messages.push(m), channel: 'window' });
  person = { bridge, messages, req: 0 };
  bridge.receive({ type: 'hello', protocol: UI_PROTOCOL_VERSION });
}, 30_000);

afterAll(async () => {
  await client?.close();
  await hub?.dispose();
  fs.rmSync(stateDir, { recursive: true, force: true });
  fs.rmSync(home, { recursive: true, force: true });
});

describe('open asks the person about the command line it runs', () => {
  it('nothing is spawned while it waits; once allowed, the same call again gets the session; then it asks anew', async () => {
    const before = sessionsOpened();
    const args = { program: 'echo', args: ['approve-me', 'one'] };
    const first = await call('open', args);
    expect(first.sc).toMatchObject({ status: 'awaiting_approval', session: null, approval: { rule: { index: 0, match: 'echo approve-me*' } } });
    expect(first.sc.next).toContain(`wait for the answer with the same call again, open ${JSON.stringify(args)}`);
    expect(first.text).toContain(first.sc.next as string);
    const id = (first.sc.approval as { id: string }).id;
    // The window shows it above the tabs: no session holds it.
    await pollUntil(() => waiting().some((a) => a.id === id), 'the approval in the window');
    expect(waiting().find((a) => a.id === id)).toMatchObject({ tool: 'open', command: 'echo approve-me one', client: 'open-approval-test 1.0', cwd: home });
    expect(sessionsOpened()).toBe(before);

    // The same call while it waits: the same approval, not a second one.
    const again = await call('open', args);
    expect((again.sc.approval as { id: string }).id).toBe(id);
    expect(waiting().filter((a) => a.command === 'echo approve-me one')).toHaveLength(1);

    expect(await answer(id, 'allow_once')).toMatchObject({ type: 'done', for: 'answerApproval' });
    // Started once allowed; the same call again returns it (waiting for it to be up).
    const opened = await ok('open', args);
    expect(opened).toMatchObject({ program: expect.stringMatching(/echo$/) });
    expect(typeof opened.session).toBe('string');
    await pollUntil(() => !waiting().some((a) => a.id === id), 'the approval gone from the window');

    // Taken once: the next identical call is a new request.
    const third = await call('open', args);
    expect(third.sc.status).toBe('awaiting_approval');
    expect((third.sc.approval as { id: string }).id).not.toBe(id);
    await answer((third.sc.approval as { id: string }).id, 'deny');

    const lines = audit();
    expect(lines).toContainEqual(
      expect.objectContaining({ actor: 'policy', tool: 'open', session: null, decision: 'ask', approval: id, rule: { index: 0, match: 'echo approve-me*' } }),
    );
    const answered = lines.find((line) => line.action === 'answer_approval' && line.approval === id);
    expect(answered).toMatchObject({ actor: 'person', answer: 'allow_once' });
    expect(answered).not.toHaveProperty('session');
    expect(JSON.stringify(lines)).not.toContain('approve-me one');
  });

  it('a rule’s deny is COMMAND_DENIED and spawns nothing; the person’s deny reaches the same call again, once', async () => {
    const before = sessionsOpened();
    const denied = await call('open', { program: 'echo', args: ['deny-me'] });
    expect(denied.error).toMatchObject({ code: 'COMMAND_DENIED', by: 'policy', rule: { index: 1 } });
    const shell = await call('open', { program: 'bash', args: ['-c', 'echo deny-me too'] });
    expect(shell.error?.code).toBe('COMMAND_DENIED');
    expect(sessionsOpened()).toBe(before);

    const args = { program: 'echo', args: ['approve-me', 'denied'] };
    const waitingCall = await call('open', args);
    await answer((waitingCall.sc.approval as { id: string }).id, 'deny');
    const told = await call('open', args);
    expect(told.text).toMatch(/^COMMAND_DENIED: The person denied `echo approve-me denied` \(no reason given\)\. Nothing was started/);
    const anew = await call('open', args);
    expect(anew.sc.status).toBe('awaiting_approval');
    await answer((anew.sc.approval as { id: string }).id, 'deny');
    expect(sessionsOpened()).toBe(before);
  });

  it('a bad open is refused before the person is asked', async () => {
    const missing = await call('open', { program: 'echo', args: ['approve-me'], cwd: '/nonexistent/folder' });
    expect(missing.error?.code).toBe('INVALID_ARGUMENT');
    expect(waiting()).toEqual([]);
  });
});

describe('sandbox: false always goes to the person', () => {
  it('open with sandbox: false asks though no rule matches; once allowed, every line into that session asks too, unless an outsideSandbox rule allows it', async () => {
    const first = await call('open', { sandbox: false });
    expect(first.sc).toMatchObject({ status: 'awaiting_approval', session: null, approval: { rule: null, outside_sandbox: true } });
    expect((first.sc.approval as { reason: string }).reason).toContain('outside the sandbox');
    const id = (first.sc.approval as { id: string }).id;
    await pollUntil(() => waiting().some((a) => a.id === id && a.unsandboxed === true), 'the approval in the window, outside the sandbox');
    await answer(id, 'allow_once');
    const session = (await ok('open', { sandbox: false })).session as string;
    expect(hub.manager.get(session).unsandboxed).toBe(true);

    const asked = await call('execute', { session, command: 'echo hello', timeout_ms: 100 });
    expect(asked.sc).toMatchObject({ status: 'awaiting_approval', approval: { outside_sandbox: true } });
    await answer((asked.sc.approval as { id: string }).id, 'deny');
    await call('read', { session, wait: { exit: true, timeout_ms: 100 } }); // hears the denial
    const preApproved = await ok('execute', { session, command: 'echo outside-ok fine', timeout_ms: 10_000 });
    expect(preApproved).toMatchObject({ status: 'completed', output: 'outside-ok fine' });
    expect(audit()).toContainEqual(
      expect.objectContaining({
        actor: 'policy',
        tool: 'execute',
        session,
        decision: 'allow',
        outside_sandbox: true,
        rule: { index: 2, match: 'echo outside-ok*' },
      }),
    );
    await ok('kill', { session, close: true });
  });

  it('execute with sandbox: false into a session inside the sandbox is INVALID_ARGUMENT saying what to do', async () => {
    const session = (await ok('open', {})).session as string;
    const refused = await call('execute', { session, command: 'echo hi', sandbox: false });
    expect(refused.error).toMatchObject({ code: 'INVALID_ARGUMENT', parameter: 'sandbox' });
    expect(refused.text).toContain('omit session to have one opened outside the sandbox');
    await ok('kill', { session, close: true });
  });

  it('execute with sandbox: false and no session: asked first, then a shell outside the sandbox runs it; a plain execute never reuses that shell', async () => {
    const before = sessionsOpened();
    const running = call('execute', { command: 'echo from-outside', sandbox: false, timeout_ms: 20_000 });
    await pollUntil(() => waiting().some((a) => a.command === 'echo from-outside' && a.tool === 'execute'), 'the approval in the window');
    expect(sessionsOpened()).toBe(before);
    await answer(waiting().find((a) => a.command === 'echo from-outside')!.id, 'allow_once');
    const result = await within(running, 15_000, 'the allowed execute');
    expect(result.sc).toMatchObject({ status: 'completed', output: 'from-outside' });
    const outside = result.sc.session as string;
    expect(hub.manager.get(outside).unsandboxed).toBe(true);
    const inside = await ok('execute', { command: 'echo inside' });
    expect(inside.session).not.toBe(outside);
    expect(hub.manager.get(inside.session as string).unsandboxed).toBe(false);
  });
});

describe('keys into a program that is not a shell', () => {
  it('are out of the engine’s sight: a line for a REPL is not judged as shell', async () => {
    const session = (await ok('open', {})).session as string;
    await call('execute', { session, command: 'python3 -q', timeout_ms: 2_000 });
    const sent = await ok('send', { session, text: 'print("echo deny-me " + "as python")', keys: ['enter'], wait: { pattern: 'as python' } });
    expect(sent.output).toContain('echo deny-me as python');
    await ok('kill', { session, close: true });
  });
});
