/**
 * A settings change that loosens the person's rules waits for the person (docs/design.md §5.5),
 * with a real `switchboard serve` whose settings.json denies `touch *`, an agent on the official
 * MCP client over HTTP with the token, a `/ws` connection signed in with that token, and the
 * person's window over the UI cookie (all speaking src/ui-protocol/). The denied command is a
 * `touch` of a marker in a folder made for this test: it must stay denied, the marker absent,
 * until the person confirms. Runs against dist/: `npm run build` first.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HubMessage } from '../../src/ui-protocol/index.js';
import { whenFile } from './helpers/fileWatch.js';
import { removeHome, startHub, tempHome, type HubProcess } from './helpers/hubProcess.js';
import { toolAnswer, type ToolAnswer } from './helpers/toolAnswer.js';
import { personCookie, UiClient } from './helpers/uiClient.js';

type Held = Extract<HubMessage, { type: 'heldSettings' }>;
type Failure = Extract<HubMessage, { type: 'error' }>;
const DENY_TOUCH = { match: 'touch *', action: 'deny', reason: 'the test denies touch' };

let hub: HubProcess;
let agent: Client;
let person: UiClient;
let tokenUi: UiClient;
let folder: string;
let marker: string;

const call = async (name: string, args: Record<string, unknown>): Promise<ToolAnswer> => toolAnswer(await agent.callTool({ name, arguments: args }));
const settingsFile = (): string => path.join(hub.home, 'settings.json');
const onDisk = (): Record<string, unknown> => JSON.parse(readFileSync(settingsFile(), 'utf8')) as Record<string, unknown>;
const audit = (): Record<string, unknown>[] =>
  readFileSync(path.join(hub.home, 'audit.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** The person's window is told of a held change (or that none waits) after `from`. */
function heldAfter(from: number, waiting: boolean): Promise<Held> {
  return person.waitFor<Held>(
    (m) => m.type === 'heldSettings' && (m.held !== null) === waiting,
    waiting ? 'a held change in the window' : 'no held change in the window',
    { from },
  );
}

async function expectTouchDenied(): Promise<void> {
  const denied = await call('execute', { command: `touch ${marker}` });
  expect(denied.error?.code, denied.text).toBe('COMMAND_DENIED');
  expect(existsSync(marker)).toBe(false);
}

beforeAll(async () => {
  folder = mkdtempSync(path.join(tmpdir(), 'sb-settings-hold-'));
  marker = path.join(folder, 'ran');
  const home = tempHome();
  writeFileSync(path.join(home, 'settings.json'), JSON.stringify({ policy: [DENY_TOUCH] }));
  hub = await startHub({ home });
  agent = new Client({ name: 'settings-agent', version: '1.0.0' });
  await agent.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${hub.port}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${hub.token}` } } }),
  );
  person = await UiClient.connect(hub, await personCookie(hub));
  tokenUi = await UiClient.connectWith(hub, { Authorization: `Bearer ${hub.token}` });
  await expectTouchDenied();
}, 30_000);

afterAll(async () => {
  person?.close();
  tokenUi?.close();
  await agent?.close().catch(() => undefined);
  if (hub) {
    expect(await hub.stop()).toBe(0);
    removeHome(hub.home);
  }
  rmSync(folder, { recursive: true, force: true });
});

describe('a change over a connection signed in with the token', () => {
  it('that loosens is saved but not in force: HELD_FOR_PERSON naming it, the window told; it cannot confirm it; the person discards it', async () => {
    const from = person.mark();
    const answer = (await tokenUi.request({ type: 'setSettings', changes: { policy: [] } })) as Failure;
    expect(answer).toMatchObject({ type: 'error', code: 'HELD_FOR_PERSON', for: 'setSettings' });
    expect(answer.message).toContain('Saved to settings.json but not in force: policy rule 0 `touch *` deny → removed.');
    const held = (await heldAfter(from, true)).held!;
    expect(held.changes).toEqual([{ setting: 'policy', source: 'token', text: 'policy rule 0 `touch *` deny → removed', loosens: true }]);
    expect(onDisk().policy).toEqual([]);
    await expectTouchDenied();

    for (const type of ['confirmSettings', 'discardSettings'] as const) {
      const refused = (await tokenUi.request({ type, id: held.id })) as Failure;
      expect(refused).toMatchObject({ type: 'error', code: 'PERSON_ONLY' });
      expect(refused.message).toContain('A settings change that waits for the person is confirmed or discarded only by the person');
    }
    await expectTouchDenied();

    const cleared = person.mark();
    expect(await person.request({ type: 'discardSettings', id: held.id })).toMatchObject({ type: 'done', for: 'discardSettings' });
    await heldAfter(cleared, false);
    expect(onDisk().policy).toEqual([DENY_TOUCH]);
    await expectTouchDenied();
    await whenFile(path.join(hub.home, 'audit.jsonl'), () => audit().some((line) => line.action === 'discard_settings'), 'the discard in audit.jsonl');
    expect(audit().filter((line) => line.action === 'discard_settings' || line.action === 'change_settings')).toEqual([
      { time: expect.any(String), actor: 'person', action: 'change_settings', channel: 'token', settings: ['policy'] },
      { time: expect.any(String), actor: 'person', action: 'discard_settings', channel: 'window', settings: ['policy'] },
    ]);
  });

  it('that tightens applies at once: a deny rule added at the end', async () => {
    const answer = await tokenUi.request({ type: 'setSettings', changes: { policy: [DENY_TOUCH, { match: 'echo tight*', action: 'deny' }] } });
    expect(answer).toMatchObject({ type: 'done', for: 'setSettings' });
    const denied = await call('execute', { command: 'echo tight-now' });
    expect(denied.error).toMatchObject({ code: 'COMMAND_DENIED', by: 'policy', rule: { index: 1, match: 'echo tight*' } });
  });
});

describe('a hand edit of settings.json', () => {
  it('that removes the deny rule waits for the person: the command stays denied until they confirm, then runs; the audit says window', async () => {
    const from = person.mark();
    writeFileSync(settingsFile(), JSON.stringify({ policy: [] }));
    const held = (await heldAfter(from, true)).held!;
    expect(held.changes.map((change) => [change.source, change.text])).toEqual([
      ['settings.json', 'policy rule 0 `touch *` deny → removed'],
      ['settings.json', 'policy rule 1 `echo tight*` deny → removed'],
    ]);
    await hub.waitForStderr('not in force until the person confirms it in the window: policy rule 0 `touch *` deny → removed');
    await expectTouchDenied();

    expect(await person.request({ type: 'confirmSettings', id: held.id })).toMatchObject({ type: 'done', for: 'confirmSettings' });
    const ran = await call('execute', { command: `touch ${marker}` });
    expect(ran.sc, ran.text).toMatchObject({ status: 'completed', exit_code: 0 });
    expect(existsSync(marker)).toBe(true);
    await whenFile(path.join(hub.home, 'audit.jsonl'), () => audit().some((line) => line.action === 'confirm_settings'), 'the confirm in audit.jsonl');
    expect(audit().find((line) => line.action === 'confirm_settings')).toEqual({
      time: expect.any(String),
      actor: 'person',
      action: 'confirm_settings',
      channel: 'window',
      settings: ['policy'],
    });
  });

  it('that turns the sandbox off waits for the person: agents’ new sessions stay sandboxed until they confirm; discarded, the file is put back', async () => {
    const from = person.mark();
    writeFileSync(settingsFile(), JSON.stringify({ policy: [], sandbox: { filesystem: 'off' } }));
    const held = (await heldAfter(from, true)).held!;
    expect(held.changes).toEqual([{ setting: 'sandbox', source: 'settings.json', text: 'sandbox.filesystem project → off', loosens: true }]);
    const opened = await call('open', { cwd: folder });
    expect(opened.sc, opened.text).toMatchObject({ sandbox: { on: true, filesystem: 'project' } });
    await call('kill', { session: opened.sc.session, close: true });

    const cleared = person.mark();
    expect(await person.request({ type: 'discardSettings', id: held.id })).toMatchObject({ type: 'done', for: 'discardSettings' });
    await heldAfter(cleared, false);
    expect((onDisk().sandbox as Record<string, unknown> | undefined)?.filesystem).not.toBe('off');
  });
});

describe('a change from the person’s window', () => {
  it('on the settings page applies at once, loosening or not', async () => {
    expect(await person.request({ type: 'setSettings', changes: { policy: [DENY_TOUCH] } })).toMatchObject({ type: 'done', for: 'setSettings' });
    const other = path.join(folder, 'again');
    const denied = await call('execute', { command: `touch ${other}` });
    expect(denied.error?.code).toBe('COMMAND_DENIED');
    const from = person.mark();
    expect(await person.request({ type: 'setSettings', changes: { policy: [] } })).toMatchObject({ type: 'done', for: 'setSettings' });
    const ran = await call('execute', { command: `touch ${other}` });
    expect(ran.sc, ran.text).toMatchObject({ status: 'completed', exit_code: 0 });
    expect(existsSync(other)).toBe(true);
    expect(person.messages.slice(from).some((m) => m.type === 'heldSettings')).toBe(false);
  });
});

describe('when the hub stops', () => {
  it('a change nobody confirmed is discarded: settings.json gets back what was in force, and the log says so', async () => {
    const from = person.mark();
    writeFileSync(settingsFile(), JSON.stringify({ policy: [{ match: 'touch *', action: 'allow' }] }));
    await heldAfter(from, true);
    expect(await hub.stop()).toBe(0);
    expect(onDisk()).toEqual({ policy: [] });
    expect(hub.stderr()).toContain('the change that waited for the person (policy) was discarded as the hub stopped');
  });
});
