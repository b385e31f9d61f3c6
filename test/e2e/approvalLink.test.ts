/// <reference lib="dom" />
/**
 * Approvals where the person is (docs/design.md §2.9 "Where the person answers", §4.3): a real hub
 * in this process (HTTP on a free port, its grants' and links' clock one the test can move), real
 * bash sessions, the official 2.x MCP client over HTTP, and Debian's chromium. The policy asks
 * before `touch *`; each command touches a marker in a folder made for this test.
 *
 * - A client that declares URL elicitation gets one `elicitation/create` in URL mode; the test
 *   opens its link in chromium, sees the window's banner there, clicks Allow once, and the command
 *   runs. The audit says `link`.
 * - A client that accepts every elicitation without opening the page: the command waits, the
 *   marker is never made (the elicitation's answer approves nothing).
 * - A client without the capability: no elicitation, the result it always had.
 * - The same through the stdio shim (`switchboard mcp`, which forwards the hub's requests), both eras.
 * - A 2.x client pinned to 2026-07-28 (no server→client requests there): the call's own result is
 *   `input_required` with the URL elicitation; the client's SDK fulfils it and retries the call,
 *   which waits on the same approval. Allow once on the page: the retry returns the command's
 *   result. Auto-accepted without the page: the retry waits, nothing runs.
 * - The link works once, expires, and stops working once the window answered (the open page says
 *   so at once); neither the bearer token nor the UI cookie opens the page.
 * Writes test-results/screenshots/approval-link-page.png and approval-link-answered.png. Needs dist/renderer: `npm run build`.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { APPROVAL_LINK_TTL_MS } from '../../src/hub/gate/approvalLinks.js';
import { Hub } from '../../src/hub/hub.js';
import { SettingsSchema } from '../../src/hub/settings/settings.js';
import type { UiBridge } from '../../src/hub/ui/uiBridge.js';
import { UI_PROTOCOL_VERSION, type HubMessage } from '../../src/ui-protocol/index.js';
import { testEnv } from '../integration/helpers/hermeticEnv.js';
import { BIN, cleanEnv, ROOT } from '../integration/helpers/hubProcess.js';
import { shellPath } from '../integration/helpers/shells.js';
import { toolAnswer, type ToolAnswer } from '../integration/helpers/toolAnswer.js';
import { launchChromium, openPage, SHOTS } from './browser.js';
import { auditLines } from '../integration/helpers/auditLines.js';

const POLICY = [{ match: 'touch *', action: 'ask', reason: 'the test asks before touch' }] as const;

interface Elicited {
  mode?: string;
  url?: string;
  message?: string;
  elicitationId?: string;
}

/** An agent over HTTP; `url`: it declares URL elicitation and accepts every one at once, as auto-accepting hosts do. */
interface Agent {
  client: Client;
  elicited: Elicited[];
  /** Resolves with the next elicitation the client is sent. */
  nextElicitation(): Promise<Elicited>;
  /** Every method the hub sent this client (requests and notifications). */
  methods: string[];
  /** Resolves once the hub sent this client `method`. */
  sentMethod(method: string): Promise<void>;
  call(name: string, args: Record<string, unknown>): Promise<ToolAnswer>;
}

let stateDir: string;
let folder: string;
let hub: Hub;
let skew = 0;
let browser: Browser;
const logLines: string[] = [];
const logWaiters: { text: string; resolve: () => void }[] = [];
let person: { bridge: UiBridge; messages: HubMessage[] };
const agents: Agent[] = [];

const log = (line: string): void => {
  logLines.push(line);
  for (const waiter of [...logWaiters]) {
    if (line.includes(waiter.text)) {
      logWaiters.splice(logWaiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  }
};
/** Resolves once the hub logged a line holding `text` (bounded by the test's timeout). */
const logged = (text: string): Promise<void> =>
  logLines.some((line) => line.includes(text)) ? Promise.resolve() : new Promise((resolve) => logWaiters.push({ text, resolve }));
const logger = { info: log, warn: log, error: log, debug: () => undefined };

async function agent(name: string, url: boolean, era: '2025' | '2026-07-28' = '2025', over: 'http' | 'shim' = 'http'): Promise<Agent> {
  const pinned = era === '2026-07-28' ? { versionNegotiation: { mode: { pin: '2026-07-28' as const } } } : {};
  const client = new Client({ name, version: '1.0' }, { ...(url ? { capabilities: { elicitation: { url: {} } } } : {}), ...pinned });
  const elicited: Elicited[] = [];
  const waiting: ((e: Elicited) => void)[] = [];
  if (url) {
    client.setRequestHandler('elicitation/create', (request) => {
      const params = request.params as Elicited;
      elicited.push(params);
      waiting.shift()?.(params);
      // What hooks and auto-accept modes answer, with no person anywhere near.
      return { action: 'accept' };
    });
  }
  const transport =
    over === 'http'
      ? new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${hub.port}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${hub.token}` } } })
      : new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env: cleanEnv({ SWITCHBOARD_HOME: stateDir }), cwd: ROOT, stderr: 'pipe' });
  await client.connect(transport);
  if (era !== '2025') expect(client.getNegotiatedProtocolVersion()).toBe(era);
  const methods: string[] = [];
  const methodWaiters: { method: string; resolve: () => void }[] = [];
  const received = transport.onmessage;
  transport.onmessage = (message) => {
    const method = (message as { method?: unknown }).method;
    if (typeof method === 'string') {
      methods.push(method);
      for (const waiter of methodWaiters.filter((w) => w.method === method)) waiter.resolve();
    }
    received?.(message);
  };
  const made: Agent = {
    client,
    elicited,
    methods,
    nextElicitation: () => new Promise((resolve) => waiting.push(resolve)),
    sentMethod: (method) => (methods.includes(method) ? Promise.resolve() : new Promise((resolve) => methodWaiters.push({ method, resolve }))),
    call: async (tool, args) => toolAnswer(await client.callTool({ name: tool, arguments: args })),
  };
  agents.push(made);
  return made;
}

const marker = (name: string): string => path.join(folder, name);
/** The command each test asks about: harmless, and its only effect is the marker. */
const touch = (name: string): string => `touch ${marker(name)}`;

const audit = (): Record<string, unknown>[] => auditLines(hub, stateDir);

const approvalOf = (link: string): string => /\/approval\/(ap-[0-9a-f]{8})\//.exec(link)![1]!;

beforeAll(async () => {
  browser = await launchChromium();
  stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-approval-link-'));
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-approval-link-markers-'));
  const settings = SettingsSchema.parse({ shell: shellPath('bash'), port: 0, killWaitMs: 300, loginShell: false, policy: POLICY });
  hub = await Hub.start({ stateDir, logger, settings, env: testEnv(), clock: () => Date.now() + skew });
  const messages: HubMessage[] = [];
  person = { bridge: hub.ui.createBridge({ send: (m) => messages.push(m), channel: 'window' }), messages };
  person.bridge.receive({ type: 'hello', protocol: UI_PROTOCOL_VERSION });
}, 60_000);

afterEach(() => {
  // A failed test leaves no approval behind for the next.
  for (const info of hub.manager.list(false)) hub.approvals.cancel(info.id, 'the test ended');
});

afterAll(async () => {
  for (const made of agents) await made.client.close().catch(() => undefined);
  await browser?.close().catch(() => undefined);
  await hub?.dispose();
  fs.rmSync(stateDir, { recursive: true, force: true });
  fs.rmSync(folder, { recursive: true, force: true });
});

describe('a client that declares URL elicitation', () => {
  it('gets one link; the page shows the banner; Allow once there runs the command', async () => {
    const host = await agent('url-host', true);
    const elicitation = host.nextElicitation();
    const running = host.call('execute', { command: touch('allowed-on-page'), timeout_ms: 60_000 });
    const sent = await elicitation;
    expect(sent.mode).toBe('url');
    expect(sent.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${hub.port}/approval/ap-[0-9a-f]{8}/\\?code=[A-Za-z0-9_-]{43}$`));
    expect(sent.message).toContain(touch('allowed-on-page'));
    expect(sent.message).toContain('accepting this prompt alone allows nothing');
    expect(sent.elicitationId).toBe(approvalOf(sent.url!));

    const page = await openPage(browser);
    await page.goto(sent.url!);
    // The code left the address bar for a cookie scoped to this approval's page.
    expect(new URL(page.url()).search).toBe('');
    const banner = page.locator('#banner[data-banner="approval"]');
    await banner.locator('.approval-command').waitFor({ timeout: 10_000 });
    expect(await banner.locator('.approval-command').textContent()).toBe(touch('allowed-on-page'));
    const text = (await banner.textContent()) ?? '';
    expect(text).toContain('url-host 1.0 wants to run');
    expect(text).toContain('rule 0');
    expect(text).toContain('touch *');
    expect(text).toContain('the test asks before touch');
    await page.screenshot({ path: path.join(SHOTS, 'approval-link-page.png') });

    await banner.locator('[data-action="approval-allow-once"]').click();
    const result = await running;
    expect(result.sc).toMatchObject({ status: 'completed', exit_code: 0 });
    expect(fs.existsSync(marker('allowed-on-page'))).toBe(true);
    await page.locator('#approval-status', { hasText: 'Allowed once' }).waitFor({ timeout: 10_000 });
    expect(await banner.isHidden()).toBe(true);
    await page.screenshot({ path: path.join(SHOTS, 'approval-link-answered.png') });
    expect(host.elicited).toHaveLength(1);
    expect(host.methods.filter((method) => method === 'elicitation/create')).toHaveLength(1);
    // The host may close its prompt: the elicitation is complete (MCP 2025-11-25).
    await host.sentMethod('notifications/elicitation/complete');
    expect(audit()).toContainEqual(
      expect.objectContaining({ actor: 'person', action: 'answer_approval', channel: 'link', approval: approvalOf(sent.url!), answer: 'allow_once' }),
    );
    await page.context().close();
  }, 60_000);

  it('accepting the elicitation without the page approves nothing: the command waits and never runs', async () => {
    const autoAccept = await agent('auto-accept-host', true);
    const elicitation = autoAccept.nextElicitation();
    const running = autoAccept.call('execute', { command: touch('never-by-accept'), timeout_ms: 60_000 });
    const sent = await elicitation;
    const id = approvalOf(sent.url!);
    // The hub heard the client's accept…
    await logged(`approval ${id}: auto-accept-host 1.0 answered its elicitation with accept`);
    // …and the command still waits for the person, nothing typed.
    expect(hub.approvals.get(id)).toBeDefined();
    expect(fs.existsSync(marker('never-by-accept'))).toBe(false);
    // The person denies in the window; the call ends with their answer, the marker never made.
    person.bridge.receive({ type: 'answerApproval', id, answer: 'deny', reason: 'not from a hook' });
    const result = await running;
    expect(result.error).toMatchObject({ code: 'COMMAND_DENIED', by: 'person', reason: 'not from a hook' });
    expect(fs.existsSync(marker('never-by-accept'))).toBe(false);
    // Answered in the window, the link (never used) no longer opens anything.
    const late = await fetch(sent.url!, { redirect: 'manual' });
    expect(late.status).toBe(410);
    expect(await late.text()).toContain('no longer pending');
  }, 60_000);

  it('the call still returns awaiting_approval within its timeout, the link outstanding', async () => {
    const autoAccept = await agent('auto-accept-short', true);
    const elicitation = autoAccept.nextElicitation();
    const result = await autoAccept.call('execute', { command: touch('waits'), timeout_ms: 1_500 });
    const sent = await elicitation;
    expect(result.sc).toMatchObject({ status: 'awaiting_approval' });
    expect((result.sc.approval as { id: string }).id).toBe(approvalOf(sent.url!));
    expect(fs.existsSync(marker('waits'))).toBe(false);
  }, 30_000);
});

describe('send', () => {
  it('a line typed into the shell asks the person the same way: one link, and accepting it types nothing', async () => {
    const host = await agent('send-host', true);
    const opened = await host.call('open', {});
    const session = String(opened.sc.session);
    const elicitation = host.nextElicitation();
    const running = host.call('send', { session, text: touch('by-send'), keys: ['enter'], wait: { timeout_ms: 60_000 } });
    const sent = await elicitation;
    const id = approvalOf(sent.url!);
    expect(sent.message).toContain(touch('by-send'));
    await logged(`approval ${id}: send-host 1.0 answered its elicitation with accept`);
    expect(hub.approvals.get(id)).toMatchObject({ session, tool: 'send' });
    person.bridge.receive({ type: 'answerApproval', id, answer: 'deny' });
    expect((await running).error).toMatchObject({ code: 'COMMAND_DENIED', by: 'person' });
    expect(fs.existsSync(marker('by-send'))).toBe(false);
  }, 60_000);
});

describe('a client without URL elicitation', () => {
  it('gets no elicitation and the result it always had', async () => {
    const plain = await agent('plain-host', false);
    const result = await plain.call('execute', { command: touch('plain'), timeout_ms: 1_000 });
    expect(result.sc).toMatchObject({ status: 'awaiting_approval' });
    expect(plain.methods).not.toContain('elicitation/create');
    expect(logLines.some((line) => line.includes(`approval ${(result.sc.approval as { id: string }).id}: a one-time link`))).toBe(false);
    expect(fs.existsSync(marker('plain'))).toBe(false);
  }, 30_000);
});

describe('the link', () => {
  it('works once; a second browser gets "already used"; the window answering first ends the open page', async () => {
    const host = await agent('once-host', true);
    const elicitation = host.nextElicitation();
    const running = host.call('execute', { command: touch('once'), timeout_ms: 60_000 });
    const sent = await elicitation;
    const id = approvalOf(sent.url!);
    const first = await openPage(browser);
    await first.goto(sent.url!);
    await first.locator('#banner .approval-command').waitFor({ timeout: 10_000 });

    const second = await openPage(browser);
    const again = await second.goto(sent.url!);
    expect(again?.status()).toBe(401);
    expect(await second.locator('[data-refusal]').textContent()).toContain('already used');
    await second.context().close();

    // Neither what agents hold nor the person's UI key opens the page.
    const bearer = await fetch(`http://127.0.0.1:${hub.port}/approval/${id}/`, { headers: { Authorization: `Bearer ${hub.token}` } });
    expect(bearer.status).toBe(401);
    const cookie = await fetch(`http://127.0.0.1:${hub.port}/approval/${id}/`, { headers: { Cookie: `switchboard_${hub.port}=${hub.uiKey}` } });
    expect(cookie.status).toBe(401);

    // The window answers first: the open page says so at once, and its buttons go.
    person.bridge.receive({ type: 'answerApproval', id, answer: 'allow_once' });
    await first.locator('#approval-status', { hasText: 'answered (allow_once)' }).waitFor({ timeout: 10_000 });
    expect(await first.locator('#banner').isHidden()).toBe(true);
    expect((await running).sc).toMatchObject({ status: 'completed', exit_code: 0 });
    // An answer the page sends now is refused: whichever answered first won.
    const late = await first.evaluate(
      async () => (await fetch('answer', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"answer":"deny"}' })).status,
    );
    expect(late).toBe(409);
    expect(audit().filter((line) => line.action === 'answer_approval' && line.approval === id)).toEqual([
      expect.objectContaining({ channel: 'window', answer: 'allow_once' }),
    ]);
    await first.context().close();
  }, 60_000);

  it('its page answers only its own origin, with its own cookie, for its own approval', async () => {
    const host = await agent('origin-host', true);
    const elicitation = host.nextElicitation();
    const running = host.call('execute', { command: touch('cross-site'), timeout_ms: 60_000 });
    const sent = await elicitation;
    const id = approvalOf(sent.url!);
    const signIn = await fetch(sent.url!, { redirect: 'manual' });
    expect(signIn.status).toBe(303);
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    expect(signIn.headers.get('set-cookie')).toContain(`Path=/approval/${id}/`);
    const origin = `http://127.0.0.1:${hub.port}`;
    const post = (headers: Record<string, string>, to = id): Promise<Response> =>
      fetch(`${origin}/approval/${to}/answer`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...headers },
        body: '{"answer":"allow_once"}',
      });
    // A form or script from another site, or none at all, is no answer.
    expect((await post({ Cookie: cookie })).status).toBe(403);
    expect((await post({ Cookie: cookie, Origin: 'http://evil.example' })).status).toBe(403);
    // Without the page's cookie, or for another approval, neither.
    expect((await post({ Origin: origin })).status).toBe(401);
    expect((await post({ Origin: origin, Authorization: `Bearer ${hub.token}` })).status).toBe(401);
    const other = await agent('origin-other', false);
    const elsewhere = await other.call('execute', { command: touch('cross-approval'), timeout_ms: 500 });
    expect((await post({ Origin: origin, Cookie: cookie }, (elsewhere.sc.approval as { id: string }).id)).status).toBe(401);
    // A DNS-rebinding Host is refused before anything else.
    // (node:http: fetch will not send another Host.)
    const rebound = await new Promise<number>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port: hub.port, path: `/approval/${id}/state`, headers: { Cookie: cookie, Host: 'attacker.example' } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        })
        .on('error', reject);
    });
    expect(rebound).toBe(403);
    expect(hub.approvals.get(id)).toBeDefined();
    expect(fs.existsSync(marker('cross-site'))).toBe(false);
    // The page's own answer: its origin and its cookie.
    const answered = await post({ Origin: origin, Cookie: cookie });
    expect(answered.status).toBe(200);
    expect(await answered.json()).toMatchObject({ state: 'ended' });
    expect((await running).sc).toMatchObject({ status: 'completed', exit_code: 0 });
  }, 60_000);

  it('expires: opened after its lifetime it says so, and the command still waits', async () => {
    const host = await agent('late-host', true);
    const elicitation = host.nextElicitation();
    const running = host.call('execute', { command: touch('expired'), timeout_ms: 60_000 });
    const sent = await elicitation;
    const id = approvalOf(sent.url!);
    skew += APPROVAL_LINK_TTL_MS + 1_000;
    try {
      const page = await openPage(browser);
      const response = await page.goto(sent.url!);
      expect(response?.status()).toBe(401);
      expect(await page.locator('[data-refusal]').textContent()).toContain('expired');
      await page.context().close();
      expect(hub.approvals.get(id)).toBeDefined();
    } finally {
      skew = 0;
    }
    person.bridge.receive({ type: 'answerApproval', id, answer: 'deny' });
    expect((await running).error).toMatchObject({ code: 'COMMAND_DENIED' });
    expect(fs.existsSync(marker('expired'))).toBe(false);
  }, 60_000);
});

describe('a 2.x client pinned to 2026-07-28 (input_required)', () => {
  it("is told through the call's input_required; Allow once on the page: the retried call returns the command's result", async () => {
    const modern = await agent('modern-host', true, '2026-07-28');
    const elicitation = modern.nextElicitation();
    const running = modern.call('execute', { command: touch('modern-allowed'), timeout_ms: 60_000 });
    const sent = await elicitation;
    expect(sent.mode).toBe('url');
    expect(sent.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${hub.port}/approval/ap-[0-9a-f]{8}/\\?code=`));
    expect(sent.message).toContain(touch('modern-allowed'));
    // No server→client request on this revision: the elicitation came inside the call's result.
    expect(modern.methods).not.toContain('elicitation/create');
    const page = await openPage(browser);
    await page.goto(sent.url!);
    const banner = page.locator('#banner[data-banner="approval"]');
    await banner.locator('.approval-command').waitFor({ timeout: 10_000 });
    expect(await banner.locator('.approval-command').textContent()).toBe(touch('modern-allowed'));
    await banner.locator('[data-action="approval-allow-once"]').click();
    const result = await running;
    expect(result.sc).toMatchObject({ status: 'completed', exit_code: 0 });
    expect(fs.existsSync(marker('modern-allowed'))).toBe(true);
    expect(modern.elicited).toHaveLength(1);
    await page.context().close();
  }, 60_000);

  it('auto-accepted without the page, the retried call waits and then says awaiting_approval; nothing runs', async () => {
    const modern = await agent('modern-auto-accept', true, '2026-07-28');
    const elicitation = modern.nextElicitation();
    const result = await modern.call('execute', { command: touch('modern-never'), timeout_ms: 1_500 });
    const sent = await elicitation;
    const id = approvalOf(sent.url!);
    expect(result.sc).toMatchObject({ status: 'awaiting_approval' });
    expect((result.sc.approval as { id: string }).id).toBe(id);
    expect(modern.elicited).toHaveLength(1);
    expect(hub.approvals.get(id)).toBeDefined();
    expect(fs.existsSync(marker('modern-never'))).toBe(false);
  }, 30_000);

  it('open: the same call again after the link waits on the same approval, and a denial on the page is COMMAND_DENIED', async () => {
    const modern = await agent('modern-open', true, '2026-07-28');
    const elicitation = modern.nextElicitation();
    const running = modern.call('open', { program: 'touch', args: [marker('modern-open')] });
    const sent = await elicitation;
    const page = await openPage(browser);
    await page.goto(sent.url!);
    const banner = page.locator('#banner[data-banner="approval"]');
    await banner.locator('.approval-command').waitFor({ timeout: 10_000 });
    expect(await banner.textContent()).toContain('modern-open 1.0 wants to open');
    await banner.locator('input.approval-reason').fill('not now');
    await banner.locator('[data-action="approval-deny"]').click();
    const result = await running;
    expect(result.error).toMatchObject({ code: 'COMMAND_DENIED', by: 'person', reason: 'not now' });
    expect(fs.existsSync(marker('modern-open'))).toBe(false);
    expect(audit()).toContainEqual(
      expect.objectContaining({ action: 'answer_approval', channel: 'link', approval: approvalOf(sent.url!), answer: 'deny', reason: true }),
    );
    await page.context().close();
  }, 60_000);
});

describe('through the stdio shim', () => {
  it('2025-11-25: the elicitation is forwarded; Allow once on its page runs the command', async () => {
    const host = await agent('shim-host', true, '2025', 'shim');
    const elicitation = host.nextElicitation();
    const running = host.call('execute', { command: touch('shim-allowed'), timeout_ms: 60_000 });
    const sent = await elicitation;
    expect(sent.mode).toBe('url');
    const page = await openPage(browser);
    await page.goto(sent.url!);
    const banner = page.locator('#banner[data-banner="approval"]');
    await banner.locator('.approval-command').waitFor({ timeout: 10_000 });
    await banner.locator('[data-action="approval-allow-once"]').click();
    expect((await running).sc).toMatchObject({ status: 'completed', exit_code: 0 });
    expect(fs.existsSync(marker('shim-allowed'))).toBe(true);
    await page.context().close();
  }, 60_000);

  it('2026-07-28: input_required through the shim; auto-accepted, nothing runs', async () => {
    const modern = await agent('shim-modern', true, '2026-07-28', 'shim');
    const elicitation = modern.nextElicitation();
    const result = await modern.call('execute', { command: touch('shim-modern-never'), timeout_ms: 1_500 });
    const sent = await elicitation;
    expect(result.sc).toMatchObject({ status: 'awaiting_approval' });
    expect(hub.approvals.get(approvalOf(sent.url!))).toBeDefined();
    expect(fs.existsSync(marker('shim-modern-never'))).toBe(false);
  }, 30_000);
});
