/**
 * IPC from the window (main/ipc.ts): only our window's top frame showing our UI is heard, and
 * only valid ui-protocol messages reach the hub. With a recording host (what reached the hub)
 * and with the real hub's UiHost (what comes back).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('electron', async () => (await import('./fakeElectron.js')).electronModule);

import type { WebContents } from 'electron';
import { Hub } from '../../../src/hub/hub.js';
import { parseHubMessage, UI_PROTOCOL_VERSION, type HubMessage } from '../../../src/ui-protocol/index.js';
import { APP_URL } from '../../../main/appProtocol.js';
import { IPC_CHANNELS, IpcBridge, untrustedSenderReason } from '../../../main/ipc.js';
import { FakeWebContents, FakeWebFrame, fake, ipcEvent } from './fakeElectron.js';
import { shellPath } from '../../integration/helpers/shells.js';
import { testEnv } from '../../integration/helpers/hermeticEnv.js';

const quiet = { info: () => undefined, warn: vi.fn(), error: vi.fn() };

/** A host recording what reached the hub. */
function recordingHost() {
  const received: unknown[] = [];
  const bridges: { transport: { send(m: HubMessage): void }; disposed: boolean }[] = [];
  return {
    received,
    bridges,
    createBridge(transport: { send(m: HubMessage): void }) {
      const entry = { transport, disposed: false };
      bridges.push(entry);
      return {
        receive: (raw: unknown) => received.push(raw),
        dispose: () => {
          entry.disposed = true;
        },
      };
    },
  };
}

function ourWindow(): FakeWebContents {
  const contents = new FakeWebContents();
  contents.mainFrame.url = APP_URL;
  return contents;
}

const asContents = (c: FakeWebContents | undefined): WebContents | undefined => c as unknown as WebContents;

function setup() {
  fake.ipcMain.removeAllListeners();
  const window = ourWindow();
  const host = recordingHost();
  const ipc = new IpcBridge({ ipcMain: fake.ipcMain as never, host: host as never, windowContents: () => asContents(window), logger: quiet });
  const connect = (contents = window, frame: FakeWebFrame | null = contents.mainFrame) => fake.ipcMain.emit(IPC_CHANNELS.connect, ipcEvent(contents, frame));
  const send = (payload: unknown, contents = window, frame: FakeWebFrame | null = contents.mainFrame) =>
    fake.ipcMain.emit(IPC_CHANNELS.send, ipcEvent(contents, frame), payload);
  return { window, host, ipc, connect, send };
}

describe('untrustedSenderReason', () => {
  it('accepts only our window’s top frame on our origin', () => {
    const ours = ourWindow();
    const check = (event: ReturnType<typeof ipcEvent>) => untrustedSenderReason(event as never, asContents(ours));
    expect(check(ipcEvent(ours))).toBeNull();
    expect(check(ipcEvent(ours, new FakeWebFrame(`${APP_URL}#tab`)))).toBe('not the top frame');
    expect(check(ipcEvent(ours, new FakeWebFrame(APP_URL, ours.mainFrame)))).toBe('not the top frame');
    expect(check(ipcEvent(ours, null))).toBe('frame gone');
    expect(check(ipcEvent(ourWindow()))).toBe('not our window');
    expect(untrustedSenderReason(ipcEvent(ours) as never, undefined)).toBe('no window');
    for (const url of [
      'https://evil.example/',
      'file:///Applications/Switchboard.app/index.html',
      'http://127.0.0.1:7391/',
      'switchboard://other/index.html',
      'switchboard://x@ui/index.html',
      'about:blank',
    ]) {
      ours.mainFrame.url = url;
      expect(check(ipcEvent(ours))).toMatch(/^foreign page/);
    }
  });
});

describe('IpcBridge', () => {
  let s: ReturnType<typeof setup>;
  beforeEach(() => {
    s = setup();
    quiet.warn.mockClear();
  });
  afterEach(() => s.ipc.dispose());

  it('connect opens one bridge for our page and says open; valid messages reach the hub', () => {
    s.connect();
    expect(s.host.bridges).toHaveLength(1);
    expect(s.window.sentOn(IPC_CHANNELS.status)).toEqual(['open']);
    s.send({ type: 'hello', protocol: UI_PROTOCOL_VERSION });
    s.send({ type: 'subscribe', session: 'k3f9q2', req: 4 });
    expect(s.host.received).toEqual([
      { type: 'hello', protocol: UI_PROTOCOL_VERSION },
      { type: 'subscribe', session: 'k3f9q2', req: 4 },
    ]);
    // Hub messages go to the page on the message channel.
    s.host.bridges[0]!.transport.send({ type: 'sessionRemoved', id: 'k3f9q2' });
    expect(s.window.sentOn(IPC_CHANNELS.message)).toEqual([{ type: 'sessionRemoved', id: 'k3f9q2' }]);
  });

  it('sends a frame’s bytes in a buffer of their own (structured clone would copy the whole buffer a view is on)', () => {
    s.connect();
    const batch = Buffer.from('a'.repeat(60_000) + 'echo');
    const echo = batch.subarray(60_000); // one read's bytes, a view on the batch
    s.host.bridges[0]!.transport.send({ type: 'frame', session: 'k3f9q2', seq: 2, end: 60_004, data: echo });
    const [sent] = s.window.sentOn(IPC_CHANNELS.message) as Extract<HubMessage, { type: 'frame' }>[];
    expect(sent).toMatchObject({ type: 'frame', session: 'k3f9q2', seq: 2, end: 60_004 });
    expect(sent!.data.buffer.byteLength).toBe(4);
    expect(Buffer.from(sent!.data).toString()).toBe('echo');
  });

  it('drops connect and send from a foreign window, a sub-frame or a foreign page, without an answer', () => {
    const stranger = new FakeWebContents();
    stranger.mainFrame.url = APP_URL; // even showing our URL, it is not our window
    s.connect(stranger);
    s.send({ type: 'hello', protocol: UI_PROTOCOL_VERSION }, stranger);

    s.connect(); // our page connects properly…
    const iframe = new FakeWebFrame(APP_URL, s.window.mainFrame);
    s.send({ type: 'input', session: 'k3f9q2', data: 'rm -rf ~\r' }, s.window, iframe);
    s.window.mainFrame.url = 'https://evil.example/'; // …then navigates away somehow
    s.send({ type: 'kill', session: 'k3f9q2' });
    s.send({ type: 'kill', session: 'k3f9q2' }, s.window, null);

    expect(s.host.bridges).toHaveLength(1);
    expect(s.host.received).toEqual([]);
    expect(stranger.sent).toEqual([]);
    expect(s.window.sentOn(IPC_CHANNELS.message)).toEqual([]);
    expect(quiet.warn).toHaveBeenCalledTimes(5);
  });

  it('rejects invalid payloads with a protocol error; none reaches the hub', () => {
    s.connect();
    const invalid: unknown[] = [
      undefined,
      null,
      42,
      'not json',
      '{"type":"hello"}',
      { type: 'launchMissiles' },
      { type: 'input', session: 'k3f9q2' },
      { type: 'input', session: 'k3f9q2', data: '' },
      { type: 'input', session: 'k3f9q2', data: 'x'.repeat(1_000_001) },
      { type: 'resize', session: 'k3f9q2', cols: 0, rows: 24 },
      { type: 'resize', session: 'k3f9q2', cols: '80', rows: 24 },
      { type: 'subscribe', session: '' },
      { type: 'openTerminal', cols: 80, rows: 24, cwd: '' },
      { type: 'ack', session: 'k3f9q2', bytes: -1 },
      [{ type: 'hello', protocol: 1 }],
    ];
    for (const payload of invalid) s.send(payload);
    expect(s.host.received).toEqual([]);
    const replies = s.window.sentOn(IPC_CHANNELS.message) as HubMessage[];
    expect(replies).toHaveLength(invalid.length);
    for (const reply of replies) expect(reply).toMatchObject({ type: 'error', code: 'BAD_MESSAGE' });
  });

  it('a message before connect gets an error, not the hub', () => {
    s.send({ type: 'hello', protocol: UI_PROTOCOL_VERSION });
    expect(s.host.received).toEqual([]);
    expect(s.window.sentOn(IPC_CHANNELS.message)).toEqual([expect.objectContaining({ type: 'error', code: 'PROTOCOL' })]);
  });

  it('a reconnect replaces the bridge; a destroyed page disposes it; dispose closes all', () => {
    s.connect();
    s.connect();
    expect(s.host.bridges.map((b) => b.disposed)).toEqual([true, false]);
    s.window.destroy();
    expect(s.host.bridges[1]!.disposed).toBe(true);
    expect(s.ipc.size).toBe(0);

    const again = setup();
    again.connect();
    again.ipc.dispose();
    expect(again.host.bridges[0]!.disposed).toBe(true);
    expect(again.window.sentOn(IPC_CHANNELS.status)).toEqual(['open', 'closed']);
    // Handlers are gone: a late message is not heard.
    again.send({ type: 'hello', protocol: UI_PROTOCOL_VERSION });
    expect(again.host.received).toEqual([]);
  });
});

describe('IpcBridge: the notification settings', () => {
  function withSettings() {
    fake.ipcMain.removeAllListeners();
    const window = ourWindow();
    let stored = { notifications: false, notifyAfterMs: 30_000 };
    const update = vi.fn((patch: Partial<typeof stored>) => (stored = { ...stored, ...patch }));
    const notificationSettings = { read: () => stored, update };
    const ipc = new IpcBridge({
      ipcMain: fake.ipcMain as never,
      host: recordingHost() as never,
      windowContents: () => asContents(window),
      logger: quiet,
      notificationSettings,
    });
    const change = (payload: unknown, contents = window) => fake.ipcMain.emit(IPC_CHANNELS.setAppSettings, ipcEvent(contents), payload);
    return { window, ipc, update, change };
  }

  it('sends them on connect; a valid change is written and sent back', () => {
    const s = withSettings();
    try {
      fake.ipcMain.emit(IPC_CHANNELS.connect, ipcEvent(s.window));
      expect(s.window.sentOn(IPC_CHANNELS.appSettings)).toEqual([{ notifications: false, notifyAfterMs: 30_000 }]);
      s.change({ notifications: true });
      s.change({ notifyAfterMs: 300_000 });
      expect(s.update.mock.calls).toEqual([[{ notifications: true }], [{ notifyAfterMs: 300_000 }]]);
      expect(s.window.sentOn(IPC_CHANNELS.appSettings).at(-1)).toEqual({ notifications: true, notifyAfterMs: 300_000 });
    } finally {
      s.ipc.dispose();
    }
  });

  it('an invalid change, one from a page not connected or not ours, writes nothing; ours gets the settings back', () => {
    const s = withSettings();
    try {
      s.change({ notifications: true }); // before connect
      fake.ipcMain.emit(IPC_CHANNELS.connect, ipcEvent(s.window));
      const stranger = new FakeWebContents();
      stranger.mainFrame.url = APP_URL;
      s.change({ notifications: true }, stranger);
      quiet.warn.mockClear();
      for (const payload of [{ notifyAfterMs: 5 }, { notifications: 'yes' }, { secretPatterns: [] }, 'notifications', null]) s.change(payload);
      expect(s.update).not.toHaveBeenCalled();
      expect(stranger.sent).toEqual([]);
      expect(quiet.warn).toHaveBeenCalledTimes(5);
      // Each refused change is answered with what holds, so the page's controls go back.
      expect(s.window.sentOn(IPC_CHANNELS.appSettings)).toHaveLength(6);
    } finally {
      s.ipc.dispose();
    }
  });
});

describe('IpcBridge with the real hub', () => {
  let stateDir: string;
  let hub: Hub;
  beforeEach(() => {
    stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-ipc-'));
    hub = new Hub({ stateDir, logger: quiet, env: testEnv({ SHELL: shellPath('sh') }) });
  });
  afterEach(async () => {
    await hub.dispose();
    fs.rmSync(stateDir, { recursive: true, force: true });
  });

  it('hello over IPC gets welcome and the session list back, validated by the protocol', () => {
    fake.ipcMain.removeAllListeners();
    const window = ourWindow();
    const ipc = new IpcBridge({ ipcMain: fake.ipcMain as never, host: hub.ui, windowContents: () => asContents(window), logger: quiet });
    try {
      fake.ipcMain.emit(IPC_CHANNELS.connect, ipcEvent(window));
      fake.ipcMain.emit(IPC_CHANNELS.send, ipcEvent(window), { type: 'hello', protocol: UI_PROTOCOL_VERSION });
      fake.ipcMain.emit(IPC_CHANNELS.send, ipcEvent(window), { type: 'kill' });
      const replies = window.sentOn(IPC_CHANNELS.message);
      expect(replies.map((m) => parseHubMessage(m).ok)).toEqual([true, true, true, true, true, true]);
      // The held settings change, the approvals no session shows (an agent's open) and the remotes (none here) follow the session list.
      expect((replies as HubMessage[]).map((m) => m.type)).toEqual(['welcome', 'sessions', 'heldSettings', 'approvals', 'remotes', 'error']);
    } finally {
      ipc.dispose();
    }
  });
});
