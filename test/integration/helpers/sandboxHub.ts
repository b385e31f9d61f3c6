/**
 * A hub in this process whose agents' sessions run in the real sandbox (bubblewrap), for the
 * sandbox's tests: an MCP client on an in-memory transport, and a folder of the test's own under
 * the system temp folder holding everything the sandbox is tried against:
 *   <root>/home     HOME (its rc files are the test's), not writable from the sandbox
 *   <root>/tmp      the hub's TMPDIR: the temp folder the sandbox may write
 *   <root>/project  a project folder (a session opened there may write it)
 *   <root>/outside  a folder no sandboxed session may write
 *   <root>/state    the hub's state folder (token, settings, transcripts): never readable inside
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { Hub } from '../../../src/hub/hub.js';
import { SettingsSchema } from '../../../src/hub/settings/settings.js';
import { createMcpServer } from '../../../src/mcp/server.js';
import { skipFishFirstRun } from './hermeticEnv.js';
import { shellPath } from './shells.js';
import { toolAnswer, type ToolAnswer } from './toolAnswer.js';

export interface SandboxHub {
  hub: Hub;
  client: Client;
  root: string;
  home: string;
  tmp: string;
  project: string;
  outside: string;
  stateDir: string;
  warnings: string[];
  call(name: string, args: Record<string, unknown>): Promise<ToolAnswer>;
  /** The call's structuredContent; throws with the text on an error. */
  ok(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
  dispose(): Promise<void>;
}

export async function startSandboxHub(options: { settings?: Record<string, unknown>; env?: Record<string, string> } = {}): Promise<SandboxHub> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sb-sandbox-')));
  const dirs = {
    home: path.join(root, 'home'),
    tmp: path.join(root, 'tmp'),
    project: path.join(root, 'project'),
    outside: path.join(root, 'outside'),
    stateDir: path.join(root, 'state'),
  };
  for (const dir of Object.values(dirs)) fs.mkdirSync(dir);
  skipFishFirstRun(dirs.home);
  const warnings: string[] = [];
  const logger = {
    info: () => undefined,
    warn: (message: string) => warnings.push(message),
    error: (message: string) => warnings.push(message),
    debug: () => undefined,
  };
  const settings = SettingsSchema.parse({ shell: shellPath('bash'), loginShell: false, killWaitMs: 300, closeGraceMs: 300, ...options.settings });
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: dirs.home,
    TMPDIR: dirs.tmp,
    LANG: 'C.UTF-8',
    USER: process.env.USER ?? 'root',
    SHELL: shellPath('bash'),
    ...options.env,
  };
  const hub = new Hub({ stateDir: dirs.stateDir, logger, settings, env });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(hub).connect(serverSide);
  const client = new Client({ name: 'sandbox-test', version: '1.0' });
  await client.connect(clientSide);
  const call = async (name: string, args: Record<string, unknown>): Promise<ToolAnswer> => toolAnswer(await client.callTool({ name, arguments: args }));
  return {
    hub,
    client,
    root,
    ...dirs,
    warnings,
    call,
    async ok(name, args) {
      const answer = await call(name, args);
      if (answer.isError) throw new Error(`${name} ${JSON.stringify(args)} failed: ${answer.text}`);
      return answer.sc;
    },
    async dispose() {
      await client.close().catch(() => undefined);
      await hub.dispose();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}
