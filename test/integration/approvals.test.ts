/**
 * The person's approvals (docs/design.md §2.9) through the MCP tools, with a real hub in this
 * process, real bash sessions and an MCP client on an in-memory transport; the person answers
 * as the UI does (`answerApproval` on a UiBridge). The clock of the 30-minute grants is a fake
 * one the test moves. The rules match harmless `echo`/`printf` lines only.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GRANT_MS } from '../../src/hub/gate/approvals.js';
import { Hub } from '../../src/hub/hub.js';
import { SettingsSchema } from '../../src/hub/settings/settings.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { UI_PROTOCOL_VERSION, type ClientMessage, type HubMessage, type UiSession } from '../../src/ui-protocol/index.js';
import type { UiBridge } from '../../src/hub/ui/uiBridge.js';
import { pollUntil } from './helpers/poll.js';
import { testEnv } from './helpers/hermeticEnv.js';
import { shellPath } from './helpers/shells.js';
import { toolAnswer, type ToolAnswer } from './helpers/toolAnswer.js';
import { within } from './helpers/within.js';
import { auditLines } from './helpers/auditLines.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };
const POLICY = [
  { match: 'echo approve-me*', action: 'ask' },
  { match: 'echo grant-me*', action: 'ask' },
  { match: 'echo deny-me*', action: 'deny', reason: 'the test says no' },
] as const;

let stateDir: string;
let hub: Hub;
let now = Date.parse('2030-01-01T00:00:00Z');
let client: Client;
let person: { bridge: UiBridge; messages: HubMessage[]; req: number };

const call = async (name: string, args: Record<string, unknown>): Promise<ToolAnswer> => toolAnswer(await client.callTool({ name, arguments: args }));
const ok = async (name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> => {
  const answer = await call(name, args);
  if (answer.isError) throw new Error(`${name} failed: ${answer.text}`);
  return answer.sc;
};

/** Polls (bounded) until `get` gives a value: the window's messages have no event of their own here. */
async function until<T>(get: () => T | undefined | false, what: string): Promise<T> {
  let value: T | undefined | false;
  await pollUntil(() => Boolean((value = get())), what);
  return value as T;
}

/** What the person's window knows of a session (the last sessionChanged). */
function seen(id: string): UiSession | undefined {
  for (let i = person.messages.length - 1; i >= 0; i--) {
    const m = person.messages[i]!;
    if (m.type === 'sessionChanged' && m.session.id === id) return m.session;
  }
  return undefined;
}

/** The person answers through the UI protocol, as the banner's buttons do; the hub's reply. */
async function answer(id: string, how: 'allow_once' | 'allow_30m' | 'deny', reason?: string): Promise<HubMessage> {
  const req = ++person.req;
  person.bridge.receive({ type: 'answerApproval', id, answer: how, ...(reason !== undefined ? { reason } : {}), req } satisfies ClientMessage);
  return until(() => person.messages.find((m) => (m.type === 'done' || m.type === 'error') && m.req === req), 'the answer to answerApproval');
}

/** Waits until the person's window shows an approval pending on the session. */
async function pendingApproval(session: string): Promise<NonNullable<UiSession['approval']>> {
  return until(() => seen(session)?.approval, `an approval on ${session} in the window`);
}

const audit = (): Record<string, unknown>[] => auditLines(hub, stateDir);

beforeAll(async () => {
  stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-approvals-'));
  const settings = SettingsSchema.parse({ shell: shellPath('bash'), policy: POLICY, killWaitMs: 300 });
  hub = new Hub({ stateDir, logger: quiet, settings, env: testEnv(), clock: () => now });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(hub).connect(serverSide);
  client = new Client({ name: 'approval-test', version: '1.0' });
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
});

afterEach(() => {
  // A failed test leaves no approval behind for the next.
  for (const info of hub.manager.list(false)) hub.approvals.cancel(info.id, 'the test ended');
});

describe('execute asks the person', () => {
  it('waits within timeout_ms; Allow once types it and the call returns its output', async () => {
    const session = (await ok('open', {})).session as string;
    const running = call('execute', { session, command: 'echo approve-me once', timeout_ms: 20_000 });
    const approval = await pendingApproval(session);
    expect(approval).toMatchObject({ command: 'echo approve-me once', client: 'approval-test 1.0', rule: { index: 0, match: 'echo approve-me*' } });
    expect(approval.cwd).toBe(os.homedir());
    // Nothing typed while it waits.
    expect((await ok('read', { session, view: 'screen' })).content).not.toContain('approve-me once');
    expect(await answer(approval.id, 'allow_once')).toMatchObject({ type: 'done', for: 'answerApproval', session });
    const result = await within(running, 15_000, 'the allowed execute');
    expect(result.sc).toMatchObject({ status: 'completed', exit_code: 0, output: 'approve-me once' });
    await pollUntil(() => seen(session)?.approval === undefined && seen(session) !== undefined, 'the banner gone from the window');
    // Answered once: a second answer is refused, clearly.
    expect(await answer(approval.id, 'deny')).toMatchObject({
      type: 'error',
      code: 'UNKNOWN_APPROVAL',
      message: expect.stringContaining('already answered (allow_once)'),
    });
    expect(await answer('ap-nothere', 'deny')).toMatchObject({
      type: 'error',
      code: 'UNKNOWN_APPROVAL',
      message: expect.stringContaining('There is no approval ap-nothere'),
    });
    const lines = audit();
    expect(lines).toContainEqual(
      expect.objectContaining({
        actor: 'policy',
        tool: 'execute',
        session,
        decision: 'ask',
        rule: { index: 0, match: 'echo approve-me*' },
        approval: approval.id,
      }),
    );
    expect(lines).toContainEqual(expect.objectContaining({ actor: 'person', action: 'answer_approval', session, approval: approval.id, answer: 'allow_once' }));
    // Never the command line.
    expect(JSON.stringify(lines)).not.toContain('approve-me once');
  });

  it('Deny: the waiting execute gets COMMAND_DENIED with the person’s reason, and nothing was typed', async () => {
    const session = (await ok('open', {})).session as string;
    const running = call('execute', { session, command: 'echo approve-me never', timeout_ms: 20_000 });
    const approval = await pendingApproval(session);
    await answer(approval.id, 'deny', 'not on a Friday');
    const result = await within(running, 10_000, 'the denied execute');
    expect(result.isError).toBe(true);
    expect(result.error?.code).toBe('COMMAND_DENIED');
    expect(result.text).toMatch(/^COMMAND_DENIED: The person denied `echo approve-me never`: not on a Friday\./);
    expect(
      hub.manager
        .get(session)
        .commands()
        .some((c) => c.command.includes('approve-me never')),
    ).toBe(false);
    expect(audit()).toContainEqual(expect.objectContaining({ actor: 'person', action: 'answer_approval', answer: 'deny', reason: true }));
    expect(JSON.stringify(audit())).not.toContain('Friday');
  });

  it('a rule’s deny is COMMAND_DENIED naming the rule, without asking', async () => {
    const denied = await call('execute', { command: 'echo deny-me now' });
    expect(denied.isError).toBe(true);
    expect(denied.text).toMatch(/^COMMAND_DENIED: The person's policy denies this \(rule 2, echo deny-me\*\): .*the test says no/);
    expect(denied.error).toMatchObject({ code: 'COMMAND_DENIED', by: 'policy', rule: { index: 2, match: 'echo deny-me*' } });
    expect(audit()).toContainEqual(expect.objectContaining({ actor: 'policy', decision: 'deny', rule: { index: 2, match: 'echo deny-me*' } }));
  });

  it('awaiting_approval after timeout_ms; the session is reserved; read wait.exit waits through the approval and returns the output', async () => {
    const session = (await ok('open', {})).session as string;
    const waiting = await call('execute', { session, command: 'echo approve-me later; (exit 3)', timeout_ms: 200 });
    expect(waiting.sc).toMatchObject({ status: 'awaiting_approval', exit_code: null, output: '', session });
    const next = `read {"session":"${session}","view":"command","wait":{"exit":true}}`;
    expect(waiting.sc.next).toContain(next);
    expect(waiting.text).toContain(waiting.sc.next as string);
    const approvalId = (waiting.sc.approval as { id: string }).id;

    // Reserved: another execute on it is SESSION_BUSY naming the approval; execute without session passes it over.
    const busy = await call('execute', { session, command: 'echo hello' });
    expect(busy.error?.code).toBe('SESSION_BUSY');
    expect(busy.text).toContain(approvalId);
    const elsewhere = await ok('execute', { command: 'echo elsewhere' });
    expect(elsewhere.session).not.toBe(session);

    // A read with a short wait says it still waits for the person.
    const early = await call('read', { session, view: 'command', wait: { exit: true, timeout_ms: 200 } });
    expect(early.sc.waited, early.text).toBe('timeout');
    expect(early.sc.next).toContain('approval');

    const reading = call('read', { session, view: 'command', wait: { exit: true, timeout_ms: 20_000 } });
    await answer(approvalId, 'allow_once');
    const read = await within(reading, 20_000, 'read through the approval');
    expect(read.sc).toMatchObject({ content: 'approve-me later', exit_code: 3 });
  });

  it('a denial after the call returned is told to the next read with a wait', async () => {
    const session = (await ok('open', {})).session as string;
    const waiting = await ok('execute', { session, command: 'echo approve-me denied-later', timeout_ms: 100 });
    await answer((waiting.approval as { id: string }).id, 'deny');
    const read = await call('read', { session, view: 'command', wait: { exit: true } });
    expect(read.text).toMatch(/^COMMAND_DENIED: The person denied `echo approve-me denied-later` \(no reason given\)/);
    // Told once.
    expect((await call('read', { session, wait: { idle_ms: 50 } })).isError).toBe(false);
  });

  it('closing the session withdraws its approval', async () => {
    const session = (await ok('open', {})).session as string;
    const running = call('execute', { session, command: 'echo approve-me closed', timeout_ms: 20_000 });
    await pendingApproval(session);
    await ok('kill', { session, close: true });
    const result = await within(running, 10_000, 'the execute of a closed session');
    expect(result.error?.code).toBe('COMMAND_DENIED');
    expect(result.text).toContain('the session was closed');
  });
});

describe('Allow for 30 min', () => {
  it('grants this client this rule until the clock passes 30 minutes; then it asks again', async () => {
    const session = (await ok('open', {})).session as string;
    const first = call('execute', { session, command: 'echo grant-me one', timeout_ms: 20_000 });
    const approval = await pendingApproval(session);
    await answer(approval.id, 'allow_30m');
    expect((await within(first, 15_000, 'the first grant-me')).sc.output).toBe('grant-me one');

    now += GRANT_MS - 1_000;
    expect(await ok('execute', { session, command: 'echo grant-me two', timeout_ms: 10_000 })).toMatchObject({ status: 'completed', output: 'grant-me two' });
    expect(audit()).toContainEqual(expect.objectContaining({ actor: 'policy', decision: 'allow', grant: true, rule: { index: 1, match: 'echo grant-me*' } }));
    // Another rule is not granted.
    expect((await ok('execute', { session, command: 'echo approve-me x', timeout_ms: 50 })).status).toBe('awaiting_approval');
    await answer(hub.approvals.pending(session)!.id, 'deny');
    await call('read', { session, wait: { exit: true } }); // hears the denial

    now += 2_000;
    const lapsed = await ok('execute', { session, command: 'echo grant-me three', timeout_ms: 50 });
    expect(lapsed.status).toBe('awaiting_approval');
    await answer((lapsed.approval as { id: string }).id, 'deny');
  });
});

describe('send of a line into a shell at its prompt', () => {
  it('is checked too: ask waits, deny refuses, a line typed in pieces is judged whole', async () => {
    const session = (await ok('open', {})).session as string;
    const sending = call('send', { session, text: 'echo approve-me sent', keys: ['enter'], wait: { timeout_ms: 20_000, pattern: 'approve-me sent\\n' } });
    const approval = await pendingApproval(session);
    expect(approval.command).toBe('echo approve-me sent');
    await answer(approval.id, 'allow_once');
    expect((await within(sending, 15_000, 'the allowed send')).sc.output).toContain('approve-me sent');

    const denied = await call('send', { session, text: 'echo deny-me typed', keys: ['enter'] });
    expect(denied.error?.code).toBe('COMMAND_DENIED');

    // In pieces: the text first (no Enter: not checked), then Enter alone runs the whole line.
    await ok('send', { session, keys: ['ctrl+u'] });
    await ok('send', { session, text: 'echo deny-' });
    const piece = await call('send', { session, text: 'me in pieces', keys: ['enter'] });
    expect(piece.error?.code).toBe('COMMAND_DENIED');

    // ctrl+u is a key the hub does not model (it may be rebound): the line is unknown, so the next line is asked.
    await ok('send', { session, keys: ['ctrl+u'] });
    const unknown = await call('execute', { session, command: 'echo hello', timeout_ms: 50 });
    expect(unknown.sc.status, unknown.text).toBe('awaiting_approval');
    expect(unknown.sc.approval).toMatchObject({ rule: null, reason: expect.stringContaining('keys whose effect the hub cannot know (ctrl+u)') });
    await answer((unknown.sc.approval as { id: string }).id, 'deny');

    // A line for a program at its own prompt (not a shell) is out of the engine's sight.
    const other = (await ok('open', {})).session as string;
    await ok('execute', { session: other, command: `head -n 1 | sed 's/^/got /'`, timeout_ms: 300 });
    const answered = await ok('send', { session: other, text: 'echo deny-me as data', keys: ['enter'], wait: { pattern: 'got ' } });
    expect(answered.output).toContain('got echo deny-me as data');

    // Text refused before it was typed (the person had the keyboard) is not on the line the next send judges.
    const third = (await ok('open', {})).session as string;
    person.bridge.receive({ type: 'takeOver', session: third });
    await pollUntil(() => hub.manager.get(third).controller === 'user', 'the person in control');
    expect((await call('send', { session: third, text: '#' })).error?.code).toBe('SESSION_CONTROLLED_BY_USER');
    person.bridge.receive({ type: 'handBack', session: third });
    await pollUntil(() => hub.manager.get(third).controller === 'agent', 'control handed back');
    expect((await call('send', { session: third, text: 'echo deny-me after', keys: ['enter'] })).error?.code).toBe('COMMAND_DENIED');

    // A shell's own `read` cannot be told from its prompt: what is typed there is judged as a line.
    await ok('execute', { session: other, command: `read -r line; printf 'got %s\\n' "$line"`, timeout_ms: 300 });
    const judged = await call('send', { session: other, text: 'echo deny-me as data', keys: ['enter'] });
    expect(judged.error?.code).toBe('COMMAND_DENIED');
  });
});
