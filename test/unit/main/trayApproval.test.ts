/**
 * A command waiting for the person's approval in the menu bar (docs/design.md §5.1, §2.9): the
 * app's real composition (main/app.ts) over a real hub in this process, an agent on an MCP
 * client calling `execute` with a rule that asks (a harmless `echo`); only `electron` is fake.
 * The icon turns to attention, the session's label says what to approve, its submenu answers
 * it, and nothing is shown or focused. The menu and the app's window (IPC) are the person's
 * channels: each answers, and the audit line names it (`menu`, `app`).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  process.env.ELECTRON_OVERRIDE_DIST_PATH ??= '/nonexistent-electron';
});
vi.mock('electron', async () => (await import('./fakeElectron.js')).electronModule);

import type { SwitchboardApp as App } from '../../../main/app.js';
import type { MenuItemModel } from '../../../main/trayMenu.js';
import { createMcpServer } from '../../../src/mcp/server.js';
import { shellPath } from '../../integration/helpers/shells.js';
import { testEnv } from '../../integration/helpers/hermeticEnv.js';
import { auditLines } from '../../integration/helpers/auditLines.js';
import { toolAnswer } from '../../integration/helpers/toolAnswer.js';

const { SwitchboardApp } = await import('../../../main/app.js');
const { IPC_CHANNELS } = await import('../../../main/ipc.js');
const { FakeBrowserWindow, fake, ipcEvent } = await import('./fakeElectron.js');
const { UI_PROTOCOL_VERSION } = await import('../../../src/ui-protocol/index.js');

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const POLICY = JSON.stringify([{ match: 'echo approve-me*', action: 'ask' }]);
type Item = Extract<MenuItemModel, { kind: 'item' }>;

let stateDir: string;
let switchboard: App;
let agent: Client;

async function until(predicate: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The answer_approval lines of audit.jsonl so far. */
function answers(): Record<string, unknown>[] {
  return auditLines(switchboard.hub, stateDir).filter((line) => line.action === 'answer_approval');
}

function item(id: string, menu: readonly MenuItemModel[] = switchboard.tray.model): Item | undefined {
  for (const entry of menu) {
    if (entry.kind !== 'item') continue;
    if (entry.id === id) return entry;
    const inner = entry.submenu ? item(id, entry.submenu) : undefined;
    if (inner) return inner;
  }
  return undefined;
}

beforeAll(async () => {
  stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-tray-approval-'));
  switchboard = await SwitchboardApp.start({
    stateDir,
    logger: quiet,
    env: testEnv({ SWITCHBOARD_SHELL: shellPath('bash'), SWITCHBOARD_POLICY: POLICY }),
    listen: { socket: false, http: false },
    platform: 'darwin',
    iconsDir: '/icons',
    preload: '/preload.cjs',
    rendererDir: stateDir,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(switchboard.hub).connect(serverSide);
  agent = new Client({ name: 'tray-agent', version: '2.0' });
  await agent.connect(clientSide);
}, 30_000);

afterAll(async () => {
  await agent?.close();
  await switchboard?.dispose();
  fs.rmSync(stateDir, { recursive: true, force: true });
});

describe('the tray and a pending approval', () => {
  it('shows it (attention, "needs you: approve …", Allow once / Allow for 30 min / Deny), and Allow once runs the command', async () => {
    const session = toolAnswer(await agent.callTool({ name: 'open', arguments: {} })).sc.session as string;
    await until(() => switchboard.tray.state === 'idle', 'an idle icon first');
    const running = agent.callTool({ name: 'execute', arguments: { session, command: 'echo approve-me from-tray', timeout_ms: 20_000 } });

    await until(() => switchboard.tray.state === 'attention', 'the attention icon');
    const row = (): Item | undefined => item(`session:${session}`);
    await until(() => row()?.label.includes('needs you: approve echo approve-me from-tray') ?? false, 'the session’s label');
    expect(row()!.toolTip).toContain('asked by tray-agent 2.0');
    expect(row()!.toolTip).toContain('rule 0 (echo approve-me*)');
    const approval = switchboard.hub.approvals.pending(session)!;
    expect(item(`allowOnce:${session}`)).toMatchObject({
      label: 'Allow once',
      enabled: true,
      action: { type: 'answerApproval', approval: approval.id, answer: 'allow_once' },
    });
    expect(item(`allow30m:${session}`)).toMatchObject({ label: 'Allow for 30 min', enabled: true, action: { answer: 'allow_30m' } });
    expect(item(`deny:${session}`)).toMatchObject({ label: 'Deny', enabled: true, action: { answer: 'deny' } });

    switchboard.handleTrayAction(item(`allowOnce:${session}`)!.action!);
    const result = toolAnswer(await running);
    expect(result.sc).toMatchObject({ status: 'completed', output: 'approve-me from-tray' });
    await until(() => item(`allowOnce:${session}`) === undefined, 'the answers to leave the menu');
    expect(row()!.label).not.toContain('needs you');
    // Nothing was shown or focused by the agent's ask (the person answered from the menu).
    for (const window of FakeBrowserWindow.instances) expect(window.show).not.toHaveBeenCalled();
    expect(fake.app.focus).not.toHaveBeenCalled();
  });

  it('an agent’s open waiting for the person (no session yet) is a menu row of its own, answered the same way; nothing is spawned before', async () => {
    const before = switchboard.hub.manager.list(false).length;
    const opening = agent.callTool({ name: 'open', arguments: { program: 'echo', args: ['approve-me', 'opened'] } });
    const row = (): Item | undefined => switchboard.tray.model.find((entry): entry is Item => entry.kind === 'item' && entry.id.startsWith('approval:'));
    await until(() => row() !== undefined, 'the approval’s row in the menu');
    expect(row()!.label).toBe('needs you: open echo approve-me opened — tray-agent 2.0');
    expect(row()!.toolTip).toContain('rule 0 (echo approve-me*)');
    expect(switchboard.tray.state).toBe('attention');
    // Nothing spawned while it waits.
    expect(switchboard.hub.manager.list(false).length).toBe(before);
    const approvalId = row()!.id.slice('approval:'.length);
    expect(item(`allow30m:${approvalId}`)).toMatchObject({ label: 'Allow for 30 min', enabled: true });
    switchboard.handleTrayAction(item(`allowOnce:${approvalId}`)!.action!);
    const opened = toolAnswer(await opening);
    expect(opened.sc).toMatchObject({ program: expect.stringMatching(/echo$/) });
    expect(typeof opened.sc.session).toBe('string');
    await until(() => row() === undefined, 'the row to leave the menu');
    await until(() => answers().some((line) => line.approval === approvalId && line.answer === 'allow_once'), 'the answer audited');
  });

  it('Deny from the menu is the agent’s COMMAND_DENIED', async () => {
    const waiting = toolAnswer(await agent.callTool({ name: 'execute', arguments: { command: 'echo approve-me denied', timeout_ms: 50 } }));
    expect(waiting.sc.status).toBe('awaiting_approval');
    const session = waiting.sc.session as string;
    await until(() => item(`deny:${session}`) !== undefined, 'Deny in the session’s submenu');
    const approval = switchboard.hub.approvals.pending(session)!.id;
    switchboard.handleTrayAction(item(`deny:${session}`)!.action!);
    const read = toolAnswer(await agent.callTool({ name: 'read', arguments: { session, view: 'command', wait: { exit: true } } }));
    expect(read.error?.code).toBe('COMMAND_DENIED');
    await until(() => answers().some((line) => line.approval === approval), 'the answer audited');
    expect(answers().find((line) => line.approval === approval)).toEqual({
      time: expect.any(String),
      actor: 'person',
      action: 'answer_approval',
      channel: 'menu',
      session,
      approval,
      answer: 'deny',
      reason: false,
    });
  });

  it('the app’s window answers over IPC too, and the audit line says channel "app"', async () => {
    const waiting = toolAnswer(await agent.callTool({ name: 'execute', arguments: { command: 'echo approve-me from-the-window', timeout_ms: 50 } }));
    expect(waiting.sc.status).toBe('awaiting_approval');
    const session = waiting.sc.session as string;
    const approval = (waiting.sc.approval as { id: string }).id;
    // The person opens the window (a click on the icon); its page connects over IPC.
    switchboard.showForPerson('tray');
    const window = FakeBrowserWindow.instances.at(-1)!;
    await until(() => window.loadedUrl !== undefined, 'the window’s page');
    const contents = window.webContents;
    fake.ipcMain.emit(IPC_CHANNELS.connect, ipcEvent(contents));
    fake.ipcMain.emit(IPC_CHANNELS.send, ipcEvent(contents), { type: 'hello', protocol: UI_PROTOCOL_VERSION });
    fake.ipcMain.emit(IPC_CHANNELS.send, ipcEvent(contents), { type: 'answerApproval', id: approval, answer: 'allow_once', req: 7 });
    await until(() => contents.sentOn(IPC_CHANNELS.message).some((m) => (m as { req?: number }).req === 7), 'the window’s answer');
    expect(contents.sentOn(IPC_CHANNELS.message).find((m) => (m as { req?: number }).req === 7)).toMatchObject({
      type: 'done',
      for: 'answerApproval',
      session,
    });
    const read = toolAnswer(await agent.callTool({ name: 'read', arguments: { session, view: 'command', wait: { exit: true } } }));
    expect(read.sc).toMatchObject({ exit_code: 0 });
    await until(() => answers().some((line) => line.approval === approval), 'the answer audited');
    expect(answers().find((line) => line.approval === approval)).toEqual({
      time: expect.any(String),
      actor: 'person',
      action: 'answer_approval',
      channel: 'app',
      session,
      approval,
      answer: 'allow_once',
    });
  });
});
