/**
 * `switchboard status [--json] [--all]`: whether a hub runs for this state dir (and its remotes, each
 * connected or why not: docs/design.md §4.7) — hub.json names
 * a live pid and its socket completes the handshake — where, and its sessions (asked over the
 * socket with the `list` tool). Exit 0 when running, 3 when not.
 */
// The hub's light rooms only: status starts no hub, so it does not load one (docs/design.md §1.1).
import { processAlive, readHubInfo, type HubInfo, type HubRemoteInfo } from '../hub/common/hubInfo.js';
import { connectHubSocket } from '../hub/common/socketClient.js';
import { defaultStateDir } from '../hub/common/stateDir.js';
import { readToken } from '../hub/state/token.js';
import { packageVersion } from '../packageInfo.js';

const NOT_RUNNING = 3;
const USAGE = `Usage: switchboard status [--json] [--all]
  --json   machine-readable output
  --all    include closed sessions
`;
/** A 2025 revision every hub version serves (the SDK's stdio entry pins the era from it). */
const PROTOCOL_VERSION = '2025-06-18';

interface Report {
  running: boolean;
  state_dir: string;
  reason?: string;
  pid?: number;
  version?: string;
  started_at?: string;
  socket?: string | null;
  port?: number | null;
  url?: string | null;
  sessions?: unknown[];
  sessions_text?: string;
  /** Whether agents' sessions get a sandbox (docs/design.md §2.10), as the hub found at start. */
  sandbox?: { available: boolean; summary: string };
  /** The other machines it links to (docs/design.md §4.7): each one's state, and why it is down. */
  remotes?: HubRemoteInfo[];
}

export async function run(argv: string[]): Promise<number> {
  const unknown = argv.filter((arg) => !['--json', '--all', '--help', '-h'].includes(arg));
  if (argv.includes('--help') || argv.includes('-h') || unknown.length > 0) {
    (unknown.length > 0 ? process.stderr : process.stdout).write(USAGE);
    return unknown.length > 0 ? 2 : 0;
  }
  const report = await inspect(defaultStateDir(), argv.includes('--all'));
  process.stdout.write(argv.includes('--json') ? `${JSON.stringify(report, null, 2)}\n` : render(report));
  return report.running ? 0 : NOT_RUNNING;
}

async function inspect(stateDir: string, includeClosed: boolean): Promise<Report> {
  const info = readHubInfo(stateDir);
  if (!info) return { running: false, state_dir: stateDir, reason: 'no hub.json' };
  const base: Report = { running: false, state_dir: stateDir, ...describe(info) };
  if (!processAlive(info.pid)) return { ...base, reason: `hub.json names pid ${info.pid}, which is not running` };
  const token = readToken(stateDir);
  if (!token || !info.socket) return { ...base, reason: !token ? 'no token file' : 'the hub has no socket' };
  let client;
  try {
    client = await connectHubSocket(info.socket, token, 'switchboard-status', packageVersion(), 3_000);
  } catch (error) {
    return { ...base, reason: `pid ${info.pid} is alive but its socket does not answer: ${(error as Error).message}` };
  }
  try {
    await client.request('initialize', {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'switchboard-status', version: packageVersion() },
    });
    client.notify('notifications/initialized');
    const result = (await client.request('tools/call', { name: 'list', arguments: { include_closed: includeClosed } })) as {
      content?: { type: string; text?: string }[];
      structuredContent?: { sessions?: unknown[] };
    };
    const text = result.content?.find((c) => c.type === 'text')?.text ?? '';
    return { ...base, running: true, sessions: result.structuredContent?.sessions ?? [], sessions_text: text };
  } catch (error) {
    return { ...base, running: true, reason: `could not list sessions: ${(error as Error).message}` };
  } finally {
    client.close();
  }
}

function describe(info: HubInfo): Partial<Report> {
  return {
    pid: info.pid,
    version: info.version,
    started_at: info.started_at,
    socket: info.socket,
    port: info.port,
    url: info.port === null ? null : `http://127.0.0.1:${info.port}/`,
    ...(info.sandbox ? { sandbox: info.sandbox } : {}),
    ...(info.remotes && info.remotes.length > 0 ? { remotes: info.remotes } : {}),
  };
}

function render(report: Report): string {
  if (!report.running) return `No Switchboard hub is running for ${report.state_dir}${report.reason ? ` (${report.reason})` : ''}.\n`;
  const lines = [
    `Switchboard hub ${report.version} running (pid ${report.pid}, since ${report.started_at})`,
    `  state dir: ${report.state_dir}`,
    `  socket:    ${report.socket ?? 'none'}`,
    `  http:      ${report.url ?? 'none'}${report.url ? ` (MCP at ${report.url}mcp)` : ''}`,
    ...(report.sandbox ? [`  sandbox:   ${report.sandbox.summary}`] : []),
    ...(report.remotes ?? []).map(
      (remote) =>
        `  remote:    ${remote.name} (${remote.destination}): ${remote.state === 'connected' ? `connected, Switchboard ${remote.version ?? '?'}` : `${remote.state}${remote.problem ? ` — ${remote.problem.message}` : ''}`}`,
    ),
  ];
  if (report.sessions) {
    lines.push(`  sessions:  ${report.sessions.length}`);
    if (report.sessions.length > 0) lines.push(...(report.sessions_text ?? '').split('\n').map((line) => `    ${line}`));
  } else if (report.reason) {
    lines.push(`  sessions:  unknown (${report.reason})`);
  }
  return `${lines.join('\n')}\n`;
}
