/**
 * Sessions as resources (docs/design.md §3.7) through the clients hosts embed: the SDK 1.x
 * client over the stdio shim and over HTTP, the 2.x client over the shim and over HTTP (2025 era:
 * `resources/subscribe`), and the 2.x client pinned to 2026-07-28 over the shim and over HTTP
 * (`subscriptions/listen`). One hub in this process, real bash sessions, so the test can see
 * that what a client subscribed to is released when it unsubscribes or goes away.
 *
 * Waits are on the notifications themselves; the flood's rate is counted between the updates'
 * own arrival times. Runs the shim from dist/: `npm run build` first (`npm test` does).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceListChangedNotificationSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hub } from '../../src/hub/hub.js';
import { SettingsSchema } from '../../src/hub/settings/settings.js';
import { SCREEN_UPDATE_INTERVAL_MS } from '../../src/mcp/screenChangeWatches.js';
import { screenUri, SCREEN_URI_TEMPLATE } from '../../src/mcp/sessionScreens.js';
import { BIN, cleanEnv, ROOT } from './helpers/hubProcess.js';
import { pollUntil } from './helpers/poll.js';
import { shellPath } from './helpers/shells.js';
import { toolAnswer, type ToolAnswer } from './helpers/toolAnswer.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };
const INFO = { name: 'resources-test', version: '1.0.0' };
const PINNED = { versionNegotiation: { mode: { pin: '2026-07-28' } } } as const;
/** Updates counted in the flood, the first to the last. */
const FLOOD_UPDATES = 6;

/** Notifications as they arrive, and a bounded wait for the next one that matches. */
class Feed<T> {
  readonly items: { value: T; at: number }[] = [];
  private readonly waiters = new Set<() => void>();

  push(value: T): void {
    this.items.push({ value, at: Date.now() });
    for (const waiter of [...this.waiters]) waiter();
  }

  /** The first item from index `from` on that passes `check`. */
  async next(from: number, check: (value: T) => boolean, what: string, timeoutMs = 15_000): Promise<{ value: T; at: number }> {
    return (await this.several(from, check, 1, what, timeoutMs))[0]!;
  }

  /** The first `count` items from index `from` on that pass `check`, once there are that many. */
  several(from: number, check: (value: T) => boolean, count: number, what: string, timeoutMs = 15_000): Promise<{ value: T; at: number }[]> {
    return new Promise((resolve, reject) => {
      const test = (): void => {
        const found = this.items.slice(from).filter((item) => check(item.value));
        if (found.length < count) return;
        clearTimeout(timer);
        this.waiters.delete(test);
        resolve(found.slice(0, count));
      };
      const timer = setTimeout(() => {
        this.waiters.delete(test);
        reject(new Error(`no ${what} within ${timeoutMs} ms; got ${JSON.stringify(this.items.slice(from))}`));
      }, timeoutMs);
      this.waiters.add(test);
      test();
    });
  }
}

interface Listed {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

/** What the tests need of a client, whichever SDK line, era and transport. */
interface ResourceClient {
  readonly era: 'legacy' | 'modern';
  readonly updates: Feed<string>;
  readonly listChanges: Feed<null>;
  call(name: string, args: Record<string, unknown>): Promise<ToolAnswer>;
  listResources(): Promise<Listed[]>;
  listTemplates(): Promise<{ uriTemplate: string; mimeType?: string }[]>;
  read(uri: string): Promise<{ uri: string; mimeType?: string; text?: string }[]>;
  /** Subscribes (2025) or opens a listen stream (2026) for `uri`; resolves with how to stop. */
  follow(uri: string): Promise<() => Promise<void>>;
  /** Asks for list changes where that must be asked for (a 2026 listen stream); resolves with how to stop. */
  followList(): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

interface Variant {
  name: string;
  connect(hub: Hub, stateDir: string): Promise<ResourceClient>;
}

function shim(stateDir: string): { command: string; args: string[]; env: Record<string, string>; cwd: string; stderr: 'pipe' } {
  return { command: process.execPath, args: [BIN, 'mcp'], env: cleanEnv({ SWITCHBOARD_HOME: stateDir }), cwd: ROOT, stderr: 'pipe' };
}

function httpUrl(hub: Hub): URL {
  return new URL(`http://127.0.0.1:${hub.port}/mcp`);
}

function bearer(hub: Hub): { requestInit: RequestInit } {
  return { requestInit: { headers: { Authorization: `Bearer ${hub.token}` } } };
}

/** `ending`: what the client does before it closes (an HTTP client ends its session with DELETE). */
function v1(client: ClientV1, ending?: () => Promise<void>): ResourceClient {
  const updates = new Feed<string>();
  const listChanges = new Feed<null>();
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (note) => updates.push(note.params.uri));
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => listChanges.push(null));
  return {
    era: 'legacy',
    updates,
    listChanges,
    call: async (name, args) => toolAnswer(await client.callTool({ name, arguments: args })),
    listResources: async () => (await client.listResources()).resources,
    listTemplates: async () => (await client.listResourceTemplates()).resourceTemplates,
    read: async (uri) => (await client.readResource({ uri })).contents as { uri: string; text?: string }[],
    follow: async (uri) => {
      await client.subscribeResource({ uri });
      return async () => void (await client.unsubscribeResource({ uri }));
    },
    followList: async () => async () => undefined,
    close: async () => {
      await ending?.();
      await client.close();
    },
  };
}

function v2(client: ClientV2, ending?: () => Promise<void>): ResourceClient {
  const updates = new Feed<string>();
  const listChanges = new Feed<null>();
  client.setNotificationHandler('notifications/resources/updated', (note) => updates.push(note.params.uri));
  client.setNotificationHandler('notifications/resources/list_changed', () => listChanges.push(null));
  const era = client.getProtocolEra() === 'modern' ? 'modern' : 'legacy';
  return {
    era,
    updates,
    listChanges,
    call: async (name, args) => toolAnswer(await client.callTool({ name, arguments: args })),
    listResources: async () => (await client.listResources()).resources,
    listTemplates: async () => (await client.listResourceTemplates()).resourceTemplates,
    read: async (uri) => (await client.readResource({ uri })).contents as { uri: string; text?: string }[],
    follow: async (uri) => {
      if (era === 'legacy') {
        await client.subscribeResource({ uri });
        return async () => void (await client.unsubscribeResource({ uri }));
      }
      const subscription = await client.listen({ resourceSubscriptions: [uri] });
      expect(subscription.honoredFilter).toEqual({ resourceSubscriptions: [uri] });
      return () => subscription.close();
    },
    followList: async () => {
      if (era === 'legacy') return async () => undefined;
      const subscription = await client.listen({ resourcesListChanged: true });
      expect(subscription.honoredFilter).toEqual({ resourcesListChanged: true });
      return () => subscription.close();
    },
    close: async () => {
      await ending?.();
      await client.close();
    },
  };
}

const VARIANTS: Variant[] = [
  {
    name: 'SDK 1.x over the shim',
    async connect(_hub, stateDir) {
      const client = new ClientV1(INFO);
      await client.connect(new StdioV1(shim(stateDir)));
      return v1(client);
    },
  },
  {
    name: 'SDK 1.x over HTTP',
    async connect(hub) {
      const client = new ClientV1(INFO);
      const transport = new HttpV1(httpUrl(hub), bearer(hub));
      await client.connect(transport);
      return v1(client, () => transport.terminateSession());
    },
  },
  {
    name: 'SDK 2.x over the shim (2025)',
    async connect(_hub, stateDir) {
      const client = new ClientV2(INFO);
      await client.connect(new StdioV2(shim(stateDir)));
      expect(client.getProtocolEra()).toBe('legacy');
      return v2(client);
    },
  },
  {
    name: 'SDK 2.x over HTTP (2025)',
    async connect(hub) {
      const client = new ClientV2(INFO);
      const transport = new HttpV2(httpUrl(hub), bearer(hub));
      await client.connect(transport);
      expect(client.getProtocolEra()).toBe('legacy');
      return v2(client, () => transport.terminateSession());
    },
  },
  {
    name: 'SDK 2.x 2026-07-28 over the shim',
    async connect(_hub, stateDir) {
      const client = new ClientV2(INFO, PINNED);
      await client.connect(new StdioV2(shim(stateDir)));
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      return v2(client);
    },
  },
  {
    name: 'SDK 2.x 2026-07-28 over HTTP',
    async connect(hub) {
      const client = new ClientV2(INFO, PINNED);
      await client.connect(new HttpV2(httpUrl(hub), bearer(hub)));
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      return v2(client);
    },
  },
];

let stateDir: string;
let home: string;
let work: string;
let hub: Hub;

beforeAll(async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-resources-'));
  stateDir = path.join(root, 'state');
  home = path.join(root, 'home');
  work = path.join(root, 'work');
  for (const dir of [home, work]) fs.mkdirSync(dir);
  const settings = SettingsSchema.parse({ shell: shellPath('bash'), port: 0, killWaitMs: 300, loginShell: false });
  hub = await Hub.start({ stateDir, logger: quiet, settings, env: { ...process.env, SHELL: shellPath('bash'), HOME: home } });
});

afterAll(async () => {
  await hub?.dispose();
  if (stateDir) fs.rmSync(path.dirname(stateDir), { recursive: true, force: true });
});

describe.each(VARIANTS)('sessions as resources through the $name', (variant) => {
  let client: ResourceClient;
  /** A serial for this variant's markers and names, so no screen shows another test's. */
  let serial = 0;
  const marker = (what: string): string => `${what}-${VARIANTS.indexOf(variant)}-${++serial}`;

  const ok = async (tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const answer = await client.call(tool, args);
    if (answer.isError) throw new Error(`${tool} ${JSON.stringify(args)} failed: ${answer.text}`);
    return answer.sc;
  };
  const openSession = async (name?: string): Promise<string> => (await ok('open', { cwd: work, ...(name ? { name } : {}) })).session as string;
  const screenText = async (uri: string): Promise<string> => {
    const contents = await client.read(uri);
    expect(contents).toHaveLength(1);
    expect(contents[0]).toMatchObject({ uri, mimeType: 'text/plain' });
    return contents[0]!.text ?? '';
  };

  beforeAll(async () => {
    client = await variant.connect(hub, stateDir);
  }, 30_000);

  afterAll(async () => {
    await client?.close();
  });

  it('lists the live sessions with what runs there, and reads a screen exactly as read view screen shows it', async () => {
    const name = marker('listed');
    const id = await openSession(name);
    const uri = screenUri(id);
    const listed = (await client.listResources()).find((resource) => resource.uri === uri);
    expect(listed).toMatchObject({ name, title: `${name} (bash)`, mimeType: 'text/plain' });
    expect(listed?.description).toContain('bash, idle, in ');
    expect(listed?.description).toContain(work);
    expect(listed?.description).toContain('opened by resources-test 1.0.0');
    expect(await client.listTemplates()).toContainEqual(expect.objectContaining({ uriTemplate: SCREEN_URI_TEMPLATE, mimeType: 'text/plain' }));

    const said = marker('listed');
    await ok('execute', { session: id, command: `echo ${said}` });
    // The command's end mark comes before the prompt is drawn: wait for the prompt after its output.
    expect(await ok('read', { session: id, wait: { pattern: `^${said}\\n.*[#$] ?$` } })).toMatchObject({ waited: 'pattern' });
    const text = await screenText(uri);
    // The same view as the tool's (the shell is at its prompt: nothing moves in between).
    const tool = await client.call('read', { session: id, view: 'screen' });
    expect(text).toBe(tool.text);
    expect(text).toMatch(/\n\[\d+ of \d+ lines, cursor row \d+ col \d+; session \w+, idle\]$/);
  });

  it('an unknown session is the resource-not-found error (-32602 with the URI), saying what to do', async () => {
    const uri = screenUri('nosuch');
    const failure = await client.read(uri).then(
      () => undefined,
      (error: { code?: number; message?: string; data?: unknown }) => error,
    );
    expect(failure?.code).toBe(-32602);
    expect(failure?.data).toEqual({ uri });
    expect(failure?.message).toContain('there is no session "nosuch"');
    expect(failure?.message).toContain('resources/list names the live sessions');
    // A 2025-era subscription to it is refused the same way (a 2026 listen stream is the SDK's to accept).
    if (client.era === 'legacy') {
      const refused = await client.follow(uri).then(
        () => undefined,
        (error: { code?: number; data?: unknown }) => error,
      );
      expect(refused?.code).toBe(-32602);
      expect(refused?.data).toEqual({ uri });
    }
  });

  it('an ended session is not listed, and its last screen still reads, from its transcript', async () => {
    const id = await openSession();
    const said = marker('ended');
    await ok('execute', { session: id, command: `echo ${said}` });
    await ok('kill', { session: id, close: true });
    const uri = screenUri(id);
    expect((await client.listResources()).map((resource) => resource.uri)).not.toContain(uri);
    const text = await screenText(uri);
    expect(text).toContain(said);
    expect(text).toMatch(/; session \w+, exited with code \d+\]$/);
  });

  it('a subscribed screen: a command changes it, updated comes, a read shows the change; unsubscribing stops it and lets go', async () => {
    const id = await openSession();
    const uri = screenUri(id);
    const before = hub.screenWatches.subscriberCount;
    const stop = await client.follow(uri);
    await pollUntil(() => hub.screenWatches.subscriberCount === before + 1, 'the hub to watch the subscribed screen');

    const said = marker('subscribed');
    const from = client.updates.items.length;
    await ok('execute', { session: id, command: `echo ${said}` });
    await client.updates.next(from, (value) => value === uri, `an update of ${uri}`);
    expect(await screenText(uri)).toContain(`\n${said}\n`);

    await stop();
    // Nothing of it is left in the hub (a listen stream ends with a notification: wait for it).
    await pollUntil(() => hub.screenWatches.subscriberCount === before, 'the hub to let go of the screen');
    // And no update comes for it: a screen still followed changes after it and is told.
    const sentinelId = await openSession();
    const sentinel = screenUri(sentinelId);
    const stopSentinel = await client.follow(sentinel);
    const after = client.updates.items.length;
    await ok('execute', { session: id, command: `echo ${marker('unsubscribed')}` });
    await ok('execute', { session: sentinelId, command: `echo ${marker('sentinel')}` });
    await client.updates.next(after, (value) => value === sentinel, `an update of the sentinel ${sentinel}`);
    expect(client.updates.items.slice(after).map((item) => item.value)).not.toContain(uri);
    await stopSentinel();
  });

  it(`a flood is told at most about twice a second (${FLOOD_UPDATES} updates counted between their own arrivals)`, async () => {
    const id = await openSession();
    const uri = screenUri(id);
    const stop = await client.follow(uri);
    await pollUntil(() => hub.screenWatches.watchedSessions > 0, 'the hub to watch the flooding screen');
    const from = client.updates.items.length;
    const started = await ok('execute', { session: id, command: 'seq 1 2000000000', timeout_ms: 200 });
    expect(started.status).toBe('running');
    const flood = await client.updates.several(from, (value) => value === uri, FLOOD_UPDATES, `${FLOOD_UPDATES} updates of the flood`, 60_000);
    await ok('kill', { session: id });
    const first = flood[0]!.at;
    const end = flood[FLOOD_UPDATES - 1]!.at;
    // FLOOD_UPDATES - 1 intervals of at least SCREEN_UPDATE_INTERVAL_MS each (one of slack for delivery).
    const seconds = (end - first) / 1_000;
    expect(FLOOD_UPDATES - 1, `${FLOOD_UPDATES} updates in ${seconds} s`).toBeLessThanOrEqual(seconds * (1_000 / SCREEN_UPDATE_INTERVAL_MS) + 1);
    // Stopped, the screen reads as the shell back at its prompt (the last update and that there
    // is never a backlog behind it: test/unit/mcp/screenChangeWatches.test.ts, on a fake clock).
    await pollUntil(async () => (await screenText(uri)).endsWith(', idle]'), 'the screen to show the shell at its prompt again');
    await stop();
  }, 120_000);

  it('list_changed when a session opens and when it ends', async () => {
    const stop = await client.followList();
    let from = client.listChanges.items.length;
    const id = await openSession();
    await client.listChanges.next(from, () => true, 'list_changed for the opened session');
    expect((await client.listResources()).map((resource) => resource.uri)).toContain(screenUri(id));
    from = client.listChanges.items.length;
    await ok('kill', { session: id, close: true });
    await client.listChanges.next(from, () => true, 'list_changed for the ended session');
    expect((await client.listResources()).map((resource) => resource.uri)).not.toContain(screenUri(id));
    await stop();
  });

  it('a client that goes away while subscribed leaves nothing behind', async () => {
    const id = await openSession();
    const before = { subscribers: hub.screenWatches.subscriberCount, sessions: hub.screenWatches.watchedSessions };
    // Every subscription of the tests before (this client's and the earlier clients') is gone.
    expect(before).toEqual({ subscribers: 0, sessions: 0 });
    await client.follow(screenUri(id));
    await pollUntil(() => hub.screenWatches.subscriberCount === before.subscribers + 1, 'the hub to watch the subscribed screen');
    await client.close();
    await pollUntil(
      () => hub.screenWatches.subscriberCount === before.subscribers && hub.screenWatches.watchedSessions === before.sessions,
      "the hub to let go of a gone client's subscription",
    );
  });
});
