/**
 * The focus rule (docs/design.md §5.3): agent activity never shows, focuses or raises a window,
 * never activates the app, never shows the Dock icon. The app's real composition (main/app.ts) over
 * a REAL hub in this process, with a real shell session an agent opens and real commands it
 * runs (started, finished, failed, waiting for input, a secret prompt); only `electron` is fake.
 * The tray icon and notifications prove the events did reach main; a person's click proves
 * the spies work.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  // electron-store's own `import 'electron'` is not mocked (it is an external module): make the
  // real package export a path instead of throwing for want of a binary.
  process.env.ELECTRON_OVERRIDE_DIST_PATH ??= '/nonexistent-electron';
});
vi.mock('electron', async () => (await import('./fakeElectron.js')).electronModule);

import type { SwitchboardApp as App } from '../../../main/app.js';
import type { TerminalSession } from '../../../src/core/session/terminalSession.js';
import { shellPath } from '../../integration/helpers/shells.js';
import { testEnv } from '../../integration/helpers/hermeticEnv.js';
import { machinePid } from '../../integration/helpers/processState.js';
import { parse as parseToml } from 'smol-toml';

const { SwitchboardApp } = await import('../../../main/app.js');
const { FakeBrowserWindow, FakeNotification, FakeTray, fake, resetRecords, stolenFocus } = await import('./fakeElectron.js');

const AGENT = { kind: 'agent' as const, client: 'focus-test-agent 1.0' };
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

let stateDir: string;
/** Where the agents' sessions work: beside the state folder, which their sandbox hides. */
let workDir: string;
let switchboard: App;
let session: TerminalSession;

/** Waits until `predicate` holds (the tray re-renders on a short debounce). */
async function until(predicate: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const trayIcons = (): string[] => FakeTray.instances[0]!.images.map((image) => path.basename(image.path));
const execute = (command: string, timeoutMs = 10_000) => session.execute({ command, timeoutMs, maxLines: 50 });

function expectNoStolenFocus(): void {
  expect(stolenFocus()).toEqual([]);
  for (const window of FakeBrowserWindow.instances) {
    expect(window.show).not.toHaveBeenCalled();
    expect(window.focus).not.toHaveBeenCalled();
    expect(window.moveTop).not.toHaveBeenCalled();
    expect(window.showInactive).not.toHaveBeenCalled();
  }
  expect(fake.app.focus).not.toHaveBeenCalled();
  expect(fake.app.dock.show).not.toHaveBeenCalled();
}

beforeAll(async () => {
  resetRecords();
  stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-focus-'));
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-focus-work-'));
  // Notifications on (off by default), so their path runs too; "long" = 1 s here.
  fs.writeFileSync(path.join(stateDir, 'app-preferences.json'), JSON.stringify({ notifications: true, notifyAfterMs: 1_000 }));
  switchboard = await SwitchboardApp.start({
    stateDir,
    logger: quiet,
    env: testEnv({ SWITCHBOARD_SHELL: shellPath('bash'), SWITCHBOARD_AWAITING_INPUT_QUIET_MS: '300' }),
    listen: { socket: false, http: false },
    platform: 'darwin', // the platform where activation matters most
    iconsDir: '/icons',
    preload: '/preload.cjs',
    rendererDir: stateDir,
  });
}, 30_000);

afterAll(async () => {
  await switchboard?.dispose();
  fs.rmSync(stateDir, { recursive: true, force: true });
  fs.rmSync(workDir, { recursive: true, force: true });
});

describe('agent activity never steals focus', () => {
  it('starts in the menu bar only: a tray, no window', () => {
    expect(FakeTray.instances).toHaveLength(1);
    expect(trayIcons()).toEqual(['idleTemplate.png']);
    expect(FakeBrowserWindow.instances).toHaveLength(0);
    expectNoStolenFocus();
  });

  it('an agent opens a session and runs commands: started, finished, failed (slow)', async () => {
    session = await switchboard.hub.manager.open({ creator: AGENT, cwd: workDir });
    await until(() => switchboard.tray.model.some((i) => i.kind === 'item' && i.id === `session:${session.id}`), 'the session in the tray menu');

    const ok = await execute('sleep 1.2; echo done');
    expect(ok.status).toBe('completed');
    const failed = await execute('sleep 0.2; (exit 3)');
    expect(failed).toMatchObject({ status: 'completed', exit_code: 3 });
    await until(() => switchboard.tray.state === 'attention', 'the attention icon after a failure');
    expect(trayIcons()).toContain('runningTemplate.png');

    // Notifications were shown (silent), and still nothing was shown or focused.
    await until(() => FakeNotification.instances.length >= 2, 'notifications');
    expect(FakeNotification.instances.map((n) => n.options.title)).toEqual(['Command finished', 'Command failed (exit 3)']);
    for (const n of FakeNotification.instances) expect(n.options.silent).toBe(true);
    expectNoStolenFocus();
  });

  it('awaiting input and a secret prompt turn the icon to attention, and still nothing is shown', async () => {
    const asking = await execute('read -r answer; echo "got $answer"');
    expect(asking.status).toBe('awaiting_input');
    await until(() => switchboard.tray.state === 'attention', 'attention while awaiting input');
    await session.send({ clientId: 'test', text: 'yes', keys: ['enter'] });
    await until(() => session.state === 'idle', 'the read to finish');

    const secret = await execute('read -rs pw; echo ok');
    expect(secret.status).toBe('awaiting_input');
    await until(() => switchboard.hub.ui.info(session.id)?.secret === true, 'the secret prompt');
    await until(() => FakeNotification.instances.some((n) => n.options.title === 'Switchboard needs you'), 'the needs-you notification');
    const label = (): string => {
      const item = switchboard.tray.model.find((i) => i.kind === 'item' && i.id === `session:${session.id}`);
      return item?.kind === 'item' ? item.label : '';
    };
    await until(() => label().includes('needs you: password prompt'), 'the tray menu saying "needs you"');
    session.interrupt();
    await until(() => session.state === 'idle', 'the prompt to be interrupted');
    expectNoStolenFocus();
  });

  it('a second agent session and a flood of output change nothing either', async () => {
    const other = await switchboard.hub.manager.open({ creator: { kind: 'agent', client: 'other-agent 2' }, cwd: workDir });
    const result = await other.execute({ command: 'seq 1 20000 | tail -n 1', timeoutMs: 10_000, maxLines: 10 });
    expect(result.status).toBe('completed');
    await other.close();
    expectNoStolenFocus();
  });

  it('with the window open (the person opened it), agent events still never show, focus or raise it', async () => {
    // The person clicks "Watch" in the tray: this one may show and focus.
    switchboard.handleTrayAction({ type: 'watch', session: session.id });
    await until(() => FakeBrowserWindow.instances[0]?.show.mock.calls.length === 1, 'the window shown for the person');
    const window = FakeBrowserWindow.instances[0]!;
    expect(window.focus).toHaveBeenCalledTimes(1);
    expect(fake.app.focus).toHaveBeenCalledTimes(1); // macOS: the person's click activates the app
    expect(window.options).toMatchObject({ show: false });
    expect(window.webContents.sentOn('switchboard:command')).toEqual([{ type: 'watch', session: session.id }]);

    // Forget the person's calls; from here on only the agent acts.
    resetRecords();
    FakeBrowserWindow.instances.push(window);
    await execute('sleep 0.3; echo again');
    await execute('(exit 1)');
    const waiting = await execute('read -r x');
    expect(waiting.status).toBe('awaiting_input');
    session.interrupt();
    const third = await switchboard.hub.manager.open({ creator: AGENT, cwd: workDir });
    await third.execute({ command: 'true', timeoutMs: 10_000, maxLines: 10 });
    await third.close();
    await until(() => session.state === 'idle', 'idle again');
    expectNoStolenFocus();
  });

  it('a notification click is the person: it opens the window on that session', async () => {
    resetRecords();
    switchboard.window.close();
    switchboard.notifier.sessionChanged({ ...switchboard.hub.ui.info(session.id)!, state: 'running', command: 'x', running_ms: 5_000 });
    switchboard.notifier.sessionChanged({ ...switchboard.hub.ui.info(session.id)!, state: 'idle', last_exit_code: 9 });
    const notification = FakeNotification.instances.at(-1)!;
    expect(notification.options.title).toBe('Command failed (exit 9)');
    expectNoStolenFocus();
    notification.emit('click');
    await until(() => FakeBrowserWindow.instances[0]?.show.mock.calls.length === 1, 'the window shown after the click');
  });
});

describe('tray actions go through the hub’s UI bridge', () => {
  it('Take over / Hand back / Interrupt change the session without showing anything', async () => {
    switchboard.window.close();
    resetRecords();
    switchboard.handleTrayAction({ type: 'takeOver', session: session.id });
    await until(() => session.controller === 'user', 'take over');
    switchboard.handleTrayAction({ type: 'handBack', session: session.id });
    await until(() => session.controller === 'agent', 'hand back');
    switchboard.handleTrayAction({ type: 'interrupt', session: session.id });
    expectNoStolenFocus();
    // The audit log is written once the turn is over (src/hub/audit/audit.ts).
    const file = path.join(stateDir, 'audit.jsonl');
    const audit = (): string => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');
    await until(() => audit().includes('"action":"hand_back"'), 'the actions audited');
    expect(audit()).toMatch(/"action":"take_over"/);
  });

  it('Stop everything <client> started closes that agent’s sessions and what runs in them, and no other', async () => {
    const ROGUE = { kind: 'agent' as const, client: 'rogue-agent 1' };
    const first = await switchboard.hub.manager.open({ creator: ROGUE, cwd: workDir });
    const second = await switchboard.hub.manager.open({ creator: ROGUE, cwd: workDir });
    const background = await first.execute({ command: 'sleep 300 & echo "pid=$!"', timeoutMs: 10_000, maxLines: 10 });
    const inside = Number(/pid=(\d+)/.exec(background.output)?.[1]);
    expect(inside).toBeGreaterThan(0);
    const pid = await machinePid(first.id, /^sleep 300$/, inside);
    expect(await second.execute({ command: 'sleep 300', timeoutMs: 300, maxLines: 10 })).toMatchObject({ status: 'running' });
    const item = (): Extract<(typeof switchboard.tray.model)[number], { kind: 'item' }> | undefined =>
      switchboard.tray.model.find((i): i is Extract<typeof i, { kind: 'item' }> => i.kind === 'item' && i.id === 'stopClient:rogue-agent 1');
    await until(() => item()?.label === 'Stop everything rogue-agent 1 started (2 sessions)', 'the stop item in the tray menu');
    resetRecords();

    switchboard.handleTrayAction(item()!.action!);
    const gone = (): boolean => !switchboard.hub.manager.list(false).some((s) => s.id === first.id || s.id === second.id);
    await until(gone, 'both sessions closed');
    const alive = (): boolean => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    await until(() => !alive(), 'the background sleep to be gone');
    await until(() => item() === undefined, 'the stop item to leave the menu');
    expect(switchboard.hub.manager.list(false).some((s) => s.id === session.id)).toBe(true); // the other agent's session stays
    expectNoStolenFocus();
    const file = path.join(stateDir, 'audit.jsonl');
    await until(() => fs.readFileSync(file, 'utf8').includes('"action":"stop_client"'), 'the action audited');
    const line = fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .find((l) => l.includes('"stop_client"'))!;
    expect(JSON.parse(line)).toMatchObject({ actor: 'person', client: 'rogue-agent 1', sessions: expect.arrayContaining([first.id, second.id]) });
  });

  it('Copy MCP config puts the host’s config on the clipboard', () => {
    switchboard.handleTrayAction({ type: 'copyMcpConfig', host: 'cursor' });
    const text = fake.clipboard.writeText.mock.calls.at(-1)![0] as string;
    expect(JSON.parse(text)).toMatchObject({ mcpServers: { switchboard: { args: [expect.stringMatching(/bin[/\\]switchboard\.js$/), 'mcp'] } } });
    switchboard.handleTrayAction({ type: 'copyMcpConfig', host: 'vscode' });
    expect(JSON.parse(fake.clipboard.writeText.mock.calls.at(-1)![0] as string)).toHaveProperty('servers.switchboard.type', 'stdio');
    // Codex reads TOML: the table it takes, parsed as Codex parses it.
    switchboard.handleTrayAction({ type: 'copyMcpConfig', host: 'codex' });
    const toml = parseToml(fake.clipboard.writeText.mock.calls.at(-1)![0] as string) as { mcp_servers: { switchboard: { args: string[] } } };
    expect(toml.mcp_servers.switchboard.args).toEqual([expect.stringMatching(/bin[/\\]switchboard\.js$/), 'mcp']);
  });

  it('Start at login sets the login item (hidden) and the preference', () => {
    switchboard.handleTrayAction({ type: 'toggleStartAtLogin' });
    expect(fake.app.setLoginItemSettings).toHaveBeenLastCalledWith({ openAtLogin: true, openAsHidden: true });
    expect(switchboard.preferences.read().startAtLogin).toBe(true);
    expect(switchboard.tray.model.find((i) => i.kind === 'item' && i.id === 'startAtLogin')).toMatchObject({ checked: true });
    switchboard.handleTrayAction({ type: 'toggleStartAtLogin' });
    expect(switchboard.preferences.read().startAtLogin).toBe(false);
  });

  it('New terminal opens a person’s session and shows it: the person asked', async () => {
    resetRecords();
    switchboard.window.close();
    switchboard.handleTrayAction({ type: 'newTerminal' });
    await until(() => FakeBrowserWindow.instances[0]?.show.mock.calls.length === 1, 'the new terminal shown');
    const mine = switchboard.hub.ui.list().find((s) => s.creator.kind === 'user');
    expect(mine).toMatchObject({ controller: 'user' });
    expect(FakeBrowserWindow.instances[0]!.webContents.sentOn('switchboard:command')).toEqual([{ type: 'watch', session: mine!.id }]);
  });

  it('Quit asks Electron to quit (before-quit then closes the hub: index.test.ts)', () => {
    switchboard.handleTrayAction({ type: 'quit' });
    expect(fake.app.quit).toHaveBeenCalledTimes(1);
  });
});
