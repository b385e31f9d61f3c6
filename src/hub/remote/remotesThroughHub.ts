import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { packageVersion } from '../../packageInfo.js';
import { parseHubMessage, UI_PROTOCOL_VERSION, type HubMessage, type UiRemote } from '../../ui-protocol/index.js';
import { LINK_PROTOCOL_VERSION, UI_KEY_FILE } from '../common/socketProtocol.js';
import { RemotesSchema, type RemoteEntry } from '../settings/remoteSettings.js';
import { connectSocketLink } from './socketLink.js';

/**
 * The running hub's `remotes` setting changed by `edit` as the person changes it on the settings
 * page, over a link to its socket signed in with its UI key (socketLink.ts); then, for `watch`, how
 * that remote is doing once it has connected or failed (or after `waitMs`).
 */
export async function changeRemotesThroughHub(
  stateDir: string,
  socketPath: string,
  edit: (remotes: RemoteEntry[]) => RemoteEntry[],
  watch: string | undefined,
  waitMs: number,
): Promise<{ status?: UiRemote }> {
  const key = fs.readFileSync(path.join(stateDir, UI_KEY_FILE), 'utf8').trim();
  const { mux } = await connectSocketLink(socketPath, {
    type: 'link',
    key,
    from: `${os.hostname().split('.')[0] ?? 'this machine'} (switchboard remote)`,
    name: 'local',
    link_protocol: LINK_PROTOCOL_VERSION,
    client: 'switchboard-remote',
    version: packageVersion(),
  });
  const stream = mux.open({ kind: 'ui', person: true });
  const inbox: HubMessage[] = [];
  let wake: (() => void) | undefined;
  stream.onDidMessage((text) => {
    const parsed = parseHubMessage(text);
    if (parsed.ok) inbox.push(parsed.message);
    wake?.();
  });
  stream.onDidClose(() => wake?.());
  const next = async <T extends HubMessage['type']>(types: T[], deadline: number): Promise<Extract<HubMessage, { type: T }> | undefined> => {
    for (;;) {
      const index = inbox.findIndex((message) => (types as string[]).includes(message.type));
      if (index !== -1) return inbox.splice(index, 1)[0] as Extract<HubMessage, { type: T }>;
      if (stream.closed || Date.now() >= deadline) return undefined;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, deadline - Date.now());
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  };
  try {
    stream.send({ type: 'hello', protocol: UI_PROTOCOL_VERSION });
    stream.send({ type: 'getSettings', req: 1 });
    const settings = await next(['hubSettings'], Date.now() + 5_000);
    const saved = settings?.settings.find((setting) => setting.key === 'remotes');
    if (!saved) throw new Error('the running hub does not know remotes; restart it with this version');
    const current = RemotesSchema.parse(saved.saved ?? []);
    stream.send({ type: 'setSettings', changes: { remotes: edit(current) }, req: 2 });
    for (;;) {
      const answer = await next(['done', 'error'], Date.now() + 5_000);
      if (!answer) throw new Error('the hub did not answer');
      if (answer.req !== 2) continue;
      if (answer.type === 'error') throw new Error(answer.message);
      break;
    }
    if (!watch) return {};
    const deadline = Date.now() + waitMs;
    let status: UiRemote | undefined;
    for (;;) {
      const remotes = await next(['remotes'], deadline);
      if (!remotes) return status ? { status } : {};
      status = remotes.remotes.find((remote) => remote.name === watch);
      if (status && status.state !== 'connecting') return { status };
    }
  } finally {
    mux.end('done');
  }
}
