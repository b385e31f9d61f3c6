/**
 * One menu bar for every machine (docs/design.md §4.7), against a real OpenSSH server on loopback
 * (helpers/sshServer.ts) and two real hubs: this machine's (`serve`, its own state folder, the
 * remote in its settings) and the remote's, which `switchboard link` starts over ssh in a state
 * folder of its own. An agent reaches the remote through the shim with the SDK 1.x client most
 * hosts embed; the person through the UI protocol over /ws, as the window does.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UiRemote, UiSession } from '../../src/ui-protocol/index.js';
import { stopHubIn } from './helpers/hubCleanup.js';
import { pollUntil } from './helpers/poll.js';
import { BIN, cleanEnv, removeHome, ROOT, startHub, tempHome, type HubProcess } from './helpers/hubProcess.js';
import { startSshServer, type SshServer } from './helpers/sshServer.js';
import { toolAnswer, type ToolAnswer } from './helpers/toolAnswer.js';
import { personCookie, UiClient } from './helpers/uiClient.js';

/** How the remote starts Switchboard: this checkout's, on this Node (what `--command` names on a real machine). */
const REMOTE_COMMAND = `${process.execPath} ${BIN}`;

let ssh: SshServer;
let hub: HubProcess;
let agentHome: string;
let agent: Client;
let ui: UiClient;

async function call(name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  return toolAnswer(await agent.callTool({ name, arguments: args }, undefined, { timeout: 60_000 }));
}

function remoteOf(name: string): UiRemote | undefined {
  for (let i = ui.messages.length - 1; i >= 0; i--) {
    const message = ui.messages[i]!;
    if (message.type === 'remotes') return message.remotes.find((remote) => remote.name === name);
  }
  return undefined;
}

async function remoteState(name: string, state: UiRemote['state'], from = 0, timeoutMs = 30_000): Promise<UiRemote> {
  const message = await ui.waitFor(
    (m) => m.type === 'remotes' && m.remotes.some((remote) => remote.name === name && remote.state === state),
    `${name} ${state}`,
    { from, timeoutMs },
  );
  return (message as Extract<typeof message, { type: 'remotes' }>).remotes.find((remote) => remote.name === name)!;
}

/** The remote's own policy: it asks its person before these harmless lines run (docs/design.md §2.9). */
const REMOTE_POLICY = [{ match: 'printf ask-over-link*', action: 'ask' }];

/** `switchboard <args>` of this machine's hub (its state folder): exit code, stdout, stderr. */
function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: cleanEnv({ SWITCHBOARD_HOME: hub.home }), cwd: ROOT, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** The audit lines of a state folder, once `found` is among them (the remote hub appends them on its own time). */
async function auditLine(stateDir: string, found: (line: Record<string, unknown>) => boolean, what: string): Promise<Record<string, unknown>> {
  const file = path.join(stateDir, 'audit.jsonl');
  let line: Record<string, unknown> | undefined;
  await pollUntil(
    () => {
      if (!existsSync(file)) return false;
      line = readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((text) => JSON.parse(text) as Record<string, unknown>)
        .find(found);
      return line !== undefined;
    },
    what,
    { timeoutMs: 10_000 },
  );
  return line!;
}

beforeAll(async () => {
  ssh = await startSshServer();
  mkdirSync(ssh.remoteState, { recursive: true, mode: 0o700 });
  writeFileSync(path.join(ssh.remoteState, 'settings.json'), JSON.stringify({ policy: REMOTE_POLICY }));
  const home = tempHome('sb-local-');
  writeFileSync(
    path.join(home, 'settings.json'),
    JSON.stringify({
      remotes: [
        { name: 'devbox', destination: ssh.host, command: REMOTE_COMMAND, sshConfig: ssh.clientConfig },
        { name: 'changed', destination: ssh.wrongKeyHost, command: REMOTE_COMMAND, sshConfig: ssh.clientConfig },
        { name: 'refused', destination: 'sbremote-refused', command: REMOTE_COMMAND, sshConfig: ssh.refusedConfig },
        { name: 'bare', destination: ssh.host, sshConfig: ssh.clientConfig },
      ],
    }),
  );
  // An older Switchboard there, which has no `link` command: what its cli says to one it does not know.
  const older = path.join(ssh.dir, 'older-switchboard.mjs');
  writeFileSync(
    older,
    "process.stderr.write('switchboard: unknown command \"' + process.argv[2] + '\"\\n\\nUsage: switchboard <command>\\n');\nprocess.exitCode = 2;\n",
  );
  const settings = JSON.parse(readFileSync(path.join(home, 'settings.json'), 'utf8')) as { remotes: unknown[] };
  settings.remotes.push({ name: 'older', destination: ssh.host, command: `${process.execPath} ${older}`, sshConfig: ssh.clientConfig });
  // A machine that does not answer: port 1 on loopback refuses; its own ssh config, nothing of ~/.ssh read.
  const closedConfig = path.join(ssh.dir, 'ssh_config_closed');
  writeFileSync(
    closedConfig,
    [
      'Host sbremote-closed',
      '  HostName 127.0.0.1',
      '  Port 1',
      '  IdentityFile /dev/null',
      '  IdentitiesOnly yes',
      '  IdentityAgent none',
      '  UserKnownHostsFile /dev/null',
      '  GlobalKnownHostsFile /dev/null',
      '',
    ].join('\n'),
  );
  settings.remotes.push({ name: 'closed', destination: 'sbremote-closed', command: REMOTE_COMMAND, sshConfig: closedConfig });
  writeFileSync(path.join(home, 'settings.json'), JSON.stringify(settings));
  hub = await startHub({ home });
  ui = await UiClient.connect(hub, await personCookie(hub));
  agentHome = mkdtempSync(path.join(tmpdir(), 'sb-agent-'));
  mkdirSync(path.join(agentHome, 'project'));
  agent = new Client({ name: 'remote-test-agent', version: '1.2.0' });
  await agent.connect(
    new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env: cleanEnv({ SWITCHBOARD_HOME: hub.home }), cwd: ROOT, stderr: 'pipe' }),
  );
}, 60_000);

afterAll(async () => {
  await agent?.close();
  ui?.close();
  await hub?.stop();
  if (ssh) await stopHubIn(ssh.remoteState);
  await ssh?.stop();
  if (hub) removeHome(hub.home);
  if (agentHome) removeHome(agentHome);
});

describe('a remote over ssh', () => {
  it('connects, starting the remote hub in its own state folder, and says which version runs there', async () => {
    const devbox = await remoteState('devbox', 'connected');
    expect(devbox.version).toBe(JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version);
    const remoteHub = JSON.parse(readFileSync(path.join(ssh.remoteState, 'hub.json'), 'utf8')) as { pid: number; port: number };
    expect(remoteHub.pid).not.toBe(hub.pid);
  }, 40_000);

  it("tools/list names open's host while there are remotes, and stays under 10 000 characters with it", async () => {
    const listed = await agent.listTools();
    const size = JSON.stringify(listed).length;
    console.info(`tools/list with remotes: ${size} characters of JSON`);
    expect(size).toBeLessThan(10_000);
    expect(Object.keys(listed.tools.find((tool) => tool.name === 'open')?.inputSchema.properties ?? {})).toContain('host');
  });

  it('an agent opens a shell there with host, runs a command, and sees the remote exit code and ids naming the machine', async () => {
    const opened = await call('open', { host: 'devbox', cwd: ssh.home });
    expect(opened.isError, opened.text).toBe(false);
    const session = String(opened.sc.session);
    expect(session).toMatch(/^devbox:[a-z0-9]{6}$/);
    expect(String(opened.sc.next)).toContain(`"session":"${session}"`);
    const ran = await call('execute', { session, command: 'echo "$SWITCHBOARD_HOME"; exit_with() { return $1; }; exit_with 3' });
    expect(ran.isError, ran.text).toBe(false);
    expect(ran.sc.session).toBe(session);
    expect(ran.sc.exit_code, JSON.stringify(ran.sc)).toBe(3);
    expect(String(ran.sc.output)).toContain(ssh.remoteState);
    // send and read work there as here: typed at the remote shell, its output read back.
    const sent = await call('send', { session, text: 'echo sent-$((40+1))', keys: ['enter'] });
    expect(sent.isError, sent.text).toBe(false);
    const waited = await call('read', { session, view: 'screen', wait: { pattern: '^sent-41$' } });
    expect(waited.text).toContain('sent-41');
    const listed = await call('list', { host: 'devbox' });
    const row = (listed.sc.sessions as { id: string; host?: string; creator: { client?: string } }[]).find((s) => s.id === session);
    expect(row?.host).toBe('devbox');
    // The remote's policy, grants and audit know who called, and from where.
    expect(row?.creator.client).toMatch(/^remote-test-agent 1\.2\.0 via /);
    const local = await call('list', { host: 'local' });
    expect((local.sc.sessions as { id: string }[]).some((s) => s.id === session)).toBe(false);
    // Both audits: here the agent's call on devbox:…, there the same call from "… via <this machine>" on its own id.
    const remoteId = session.slice('devbox:'.length);
    const here = await auditLine(
      hub.home,
      (line) => line.actor === 'agent' && line.tool === 'execute' && line.session === session,
      'the execute in this audit',
    );
    expect(here).toMatchObject({ client: 'remote-test-agent 1.2.0', outcome: 'ok' });
    const there = await auditLine(
      ssh.remoteState,
      (line) => line.actor === 'agent' && line.tool === 'execute' && line.session === remoteId,
      'the execute in the remote audit',
    );
    expect(String(there.client)).toMatch(/^remote-test-agent 1\.2\.0 via /);
  }, 60_000);

  it('history finds a remote command with its host, and its read call works as written', async () => {
    const opened = await call('open', { host: 'devbox' });
    const session = String(opened.sc.session);
    await call('execute', { session, command: 'echo history-marker-41' });
    const found = await call('history', { query: 'history-marker-41' });
    const row = (found.sc.commands as { session: string; host?: string; next: string }[])[0]!;
    expect(row.host).toBe('devbox');
    expect(row.session).toBe(session);
    const next = JSON.parse(row.next.slice(row.next.indexOf('{'))) as Record<string, unknown>;
    const output = await call('read', next);
    expect(output.text).toContain('history-marker-41');
    // The window's history search finds it too, across machines, and opens its output.
    const inWindow = await ui.ask({ type: 'searchHistory', query: 'history-marker-41' });
    expect(inWindow.type).toBe('historyResults');
    const hit = (inWindow as Extract<typeof inWindow, { type: 'historyResults' }>).commands.find((entry) => entry.session === session);
    expect(hit?.host).toBe('devbox');
    const shown = await ui.ask({ type: 'commandOutput', session, seq: hit!.seq });
    expect(shown).toMatchObject({ type: 'commandOutputResult', session });
    expect((shown as { text: string }).text).toContain('history-marker-41');
  }, 60_000);

  it('the window lists the remote session under its machine, and watches it live', async () => {
    const opened = await call('open', { host: 'devbox' });
    const session = String(opened.sc.session);
    const listed = await ui.waitFor(
      (m) => (m.type === 'sessionChanged' && m.session.id === session) || (m.type === 'sessions' && m.sessions.some((s) => s.id === session)),
      'the remote session in the window',
    );
    const info = (
      listed.type === 'sessionChanged' ? listed.session : (listed as Extract<typeof listed, { type: 'sessions' }>).sessions.find((s) => s.id === session)
    ) as UiSession;
    expect(info.host).toBe('devbox');
    const from = ui.mark();
    ui.send({ type: 'subscribe', session });
    await ui.waitFor((m) => m.type === 'snapshot' && m.session === session, 'a snapshot of the remote session', { from });
    await call('execute', { session, command: 'echo live-over-the-link' });
    await ui.waitForText(session, 'live-over-the-link', from);
    // Save screenshot in the window: drawn by the remote hub, named here by the remote's id; audited here with host.
    const shot = await ui.ask({ type: 'screenshot', session });
    expect(shot).toMatchObject({ type: 'screenshotTaken', session });
    expect(
      Buffer.from((shot as { png: string }).png, 'base64')
        .subarray(1, 4)
        .toString('latin1'),
    ).toBe('PNG');
    await auditLine(hub.home, (line) => line.action === 'screenshot' && line.session === session && line.host === 'devbox', 'the screenshot in this audit');
  }, 60_000);

  it("an agent's screenshot of a remote session is drawn there and comes back as an image", async () => {
    const session = String((await call('open', { host: 'devbox' })).sc.session);
    await call('execute', { session, command: 'echo shot-$((40+1))' });
    const shot = await agent.callTool({ name: 'screenshot', arguments: { session } }, undefined, { timeout: 60_000 });
    const content = shot.content as { type: string; data?: string; mimeType?: string; text?: string }[];
    expect(shot.isError, JSON.stringify(content).slice(0, 300)).toBeFalsy();
    const image = content.find((item) => item.type === 'image');
    expect(image?.mimeType).toBe('image/png');
    expect(Buffer.from(image!.data!, 'base64').subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(content.find((item) => item.type === 'text')?.text).toContain(session);
  }, 60_000);

  it('a changed host key, a refused key and a missing Switchboard are each a clear reason', async () => {
    const changed = remoteOf('changed')?.state === 'disconnected' ? remoteOf('changed')! : await remoteState('changed', 'disconnected');
    expect(changed.problem?.code).toBe('host_key_changed');
    const refused = remoteOf('refused')?.state === 'disconnected' ? remoteOf('refused')! : await remoteState('refused', 'disconnected');
    expect(refused.problem?.code).toBe('key_refused');
    const bare = remoteOf('bare')?.state === 'disconnected' ? remoteOf('bare')! : await remoteState('bare', 'disconnected');
    expect(bare.problem?.code).toBe('not_installed');
    expect(bare.problem?.message).toContain('--command');
    const older = remoteOf('older')?.state === 'disconnected' ? remoteOf('older')! : await remoteState('older', 'disconnected');
    expect(older.problem?.code).toBe('incompatible');
    expect(older.problem?.message).toContain('Install the same version of Switchboard on both machines');
    const closed = remoteOf('closed')?.state === 'disconnected' ? remoteOf('closed')! : await remoteState('closed', 'disconnected');
    expect(closed.problem?.code).toBe('unreachable');
    expect(closed.problem?.message).toContain('cannot be reached');
    const asked = await call('open', { host: 'changed' });
    expect(asked.isError).toBe(true);
    expect(asked.error?.code).toBe('REMOTE_UNAVAILABLE');
    expect(asked.text).toContain('host key');
  }, 60_000);

  it("a command the remote's policy asks about waits for the person, who answers in this window; both audits say who and from where", async () => {
    const session = String((await call('open', { host: 'devbox' })).sc.session);
    const from = ui.mark();
    const running = call('execute', { session, command: 'printf ask-over-link-41', timeout_ms: 30_000 });
    const asked = await ui.waitFor(
      (m) => m.type === 'sessionChanged' && m.session.id === session && m.session.approval !== undefined,
      'the remote approval in this window',
      { from },
    );
    const approval = (asked as Extract<typeof asked, { type: 'sessionChanged' }>).session.approval!;
    expect(approval.id).toMatch(/^devbox:/);
    expect(approval.command).toBe('printf ask-over-link-41');
    expect(approval.client).toMatch(/^remote-test-agent 1\.2\.0 via /);
    expect(await ui.request({ type: 'answerApproval', id: approval.id, answer: 'allow_once' })).toMatchObject({ type: 'done', session });
    const ran = await running;
    expect(ran.isError, ran.text).toBe(false);
    expect(ran.sc).toMatchObject({ status: 'completed', exit_code: 0, output: 'ask-over-link-41' });
    const remoteId = session.slice('devbox:'.length);
    // There: the person's answer came over the link from this machine.
    const there = await auditLine(ssh.remoteState, (line) => line.action === 'answer_approval' && line.session === remoteId, 'the answer in the remote audit');
    expect(there).toMatchObject({ actor: 'person', channel: 'remote', via: expect.any(String) });
    // Here: the person answered in the window, for devbox.
    const here = await auditLine(hub.home, (line) => line.action === 'answer_approval' && line.host === 'devbox', 'the answer in this audit');
    expect(here).toMatchObject({ actor: 'person', channel: 'window', approval: approval.id, answer: 'allow_once' });
  }, 60_000);

  it("an agent's /ws signed in with the token cannot answer a remote approval either", async () => {
    const session = String((await call('open', { host: 'devbox' })).sc.session);
    const agentUi = await UiClient.connectWith(hub, { Authorization: `Bearer ${hub.token}` });
    try {
      const from = ui.mark();
      const running = call('execute', { session, command: 'printf ask-over-link-denied', timeout_ms: 30_000 });
      const asked = await ui.waitFor(
        (m) => m.type === 'sessionChanged' && m.session.id === session && m.session.approval !== undefined,
        'the remote approval',
        { from },
      );
      const approval = (asked as Extract<typeof asked, { type: 'sessionChanged' }>).session.approval!;
      expect(await agentUi.request({ type: 'answerApproval', id: approval.id, answer: 'allow_once' })).toMatchObject({ type: 'error', code: 'PERSON_ONLY' });
      expect(await ui.request({ type: 'answerApproval', id: approval.id, answer: 'deny', reason: 'not now' })).toMatchObject({ type: 'done' });
      const ran = await running;
      expect(ran.isError).toBe(true);
      expect(ran.error?.code).toBe('COMMAND_DENIED');
    } finally {
      agentUi.close();
    }
  }, 60_000);

  it('a /ws signed in with the token cannot add a remote: the change waits for the person, who discards it, and no ssh starts', async () => {
    const agentUi = await UiClient.connectWith(hub, { Authorization: `Bearer ${hub.token}` });
    try {
      const remotes = JSON.parse(readFileSync(path.join(hub.home, 'settings.json'), 'utf8')).remotes as unknown[];
      // A remote's command runs through ssh outside every sandbox: an agent must not be able to add one.
      const sneaky = { name: 'sneaky', destination: ssh.host, command: REMOTE_COMMAND, sshConfig: ssh.clientConfig };
      const from = ui.mark();
      const answer = await agentUi.request({ type: 'setSettings', changes: { remotes: [...remotes, sneaky] } });
      expect(answer).toMatchObject({ type: 'error', code: 'HELD_FOR_PERSON' });
      const held = await ui.waitFor(
        (m) => m.type === 'heldSettings' && m.held !== null && m.held.settings.includes('remotes'),
        'the held change in the window',
        { from },
      );
      expect(remoteOf('sneaky')).toBeUndefined();
      const id = (held as Extract<typeof held, { type: 'heldSettings' }>).held!.id;
      expect(await ui.request({ type: 'discardSettings', id })).toMatchObject({ type: 'done' });
      expect(JSON.parse(readFileSync(path.join(hub.home, 'settings.json'), 'utf8')).remotes).toEqual(remotes);
      expect(remoteOf('sneaky')).toBeUndefined();
    } finally {
      agentUi.close();
    }
  }, 60_000);

  it('remote add, list and remove change the running hub at once, as the person types them', async () => {
    const added = await cli(['remote', 'add', 'second', ssh.host, '--command', REMOTE_COMMAND, '--ssh-config', ssh.clientConfig]);
    expect(added.stderr).toContain('Added second: connected');
    expect(added.code).toBe(0);
    expect(remoteOf('second')?.state ?? (await remoteState('second', 'connected')).state).toBe('connected');
    const status = await cli(['status']);
    expect(status.stdout).toMatch(/remote: +second \(sbremote\): connected, Switchboard /);
    expect(status.stdout).toMatch(/remote: +changed \(sbremote-wrongkey\): disconnected — .*host key/);
    const statusJson = JSON.parse((await cli(['status', '--json'])).stdout) as { remotes?: { name: string; problem?: { code: string } }[] };
    expect(statusJson.remotes?.find((remote) => remote.name === 'bare')?.problem?.code).toBe('not_installed');
    const listed = await cli(['remote', 'list']);
    expect(listed.stdout).toMatch(/^second\tsbremote\tconnected/m);
    expect(listed.stdout).toMatch(/^changed\tsbremote-wrongkey\tdisconnected: .*host key/m);
    const json = JSON.parse((await cli(['remote', 'list', '--json'])).stdout) as {
      hub_running: boolean;
      remotes: { name: string; status?: { state: string } }[];
    };
    expect(json.hub_running).toBe(true);
    expect(json.remotes.find((remote) => remote.name === 'second')?.status?.state).toBe('connected');
    const twice = await cli(['remote', 'add', 'second', ssh.host]);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain('there is a remote named second already');
    const badName = await cli(['remote', 'add', 'local', ssh.host]);
    expect(badName.code).toBe(2);
    expect(badName.stderr).toContain('names this machine');
    const from = ui.mark();
    const removed = await cli(['remote', 'remove', 'second']);
    expect(removed.code, removed.stderr).toBe(0);
    await ui.waitFor((m) => m.type === 'remotes' && !m.remotes.some((remote) => remote.name === 'second'), 'second gone from the window', { from });
    expect(JSON.parse(readFileSync(path.join(hub.home, 'settings.json'), 'utf8')).remotes.map((remote: { name: string }) => remote.name)).toEqual([
      'devbox',
      'changed',
      'refused',
      'bare',
      'older',
      'closed',
    ]);
    const unknown = await cli(['remote', 'remove', 'second']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('there is no remote named second');
  }, 90_000);

  it('the link cut mid-command: the waiting call gets "result unknown", the command finishes there, the link comes back and the window sees it again', async () => {
    const session = String((await call('open', { host: 'devbox' })).sc.session);
    let from = ui.mark();
    ui.send({ type: 'subscribe', session });
    await ui.waitFor((m) => m.type === 'snapshot' && m.session === session, 'a snapshot', { from });
    const running = call('execute', { session, command: 'echo cut-$((40+1))-start; sleep 4; echo cut-$((40+1))-end', timeout_ms: 30_000 });
    // What the command prints, not what was typed: the line itself holds neither marker.
    await ui.waitForText(session, 'cut-41-start', from);
    from = ui.mark();
    // Cut it from the server's side: sshd's processes for the test's connections (this test's own).
    const pids = ssh.connectionPids();
    expect(pids.length).toBeGreaterThan(0);
    for (const pid of pids) process.kill(pid, 'SIGTERM');
    const cut = await running;
    expect(cut.isError).toBe(true);
    expect(cut.error?.code).toBe('REMOTE_UNAVAILABLE');
    expect(cut.text).toContain('result is unknown');
    await remoteState('devbox', 'disconnected', from);
    await remoteState('devbox', 'connected', from);
    // The view is subscribed again: a fresh snapshot of the same session.
    await ui.waitFor((m) => m.type === 'snapshot' && m.session === session, 'a fresh snapshot after the link came back', { from });
    // The command ran on there to its end, and the session is still the agent's.
    await ui.waitForText(session, 'cut-41-end', from);
    const read = await call('read', { session });
    expect(read.isError, read.text).toBe(false);
    expect(read.text).toContain('cut-41-end');
  }, 90_000);

  it("an approval pending when the link drops reappears once it is back, and the person's answer then runs the command there", async () => {
    const session = String((await call('open', { host: 'devbox' })).sc.session);
    let from = ui.mark();
    const running = call('execute', { session, command: 'printf ask-over-link-drop-$((40+1))', timeout_ms: 60_000 });
    await ui.waitFor((m) => m.type === 'sessionChanged' && m.session.id === session && m.session.approval !== undefined, 'the remote approval', { from });
    from = ui.mark();
    for (const pid of ssh.connectionPids()) process.kill(pid, 'SIGTERM');
    const cut = await running;
    expect(cut.error?.code).toBe('REMOTE_UNAVAILABLE');
    await remoteState('devbox', 'disconnected', from);
    await remoteState('devbox', 'connected', from);
    const back = await ui.waitFor(
      (m) =>
        (m.type === 'sessionChanged' && m.session.id === session && m.session.approval !== undefined) ||
        (m.type === 'sessions' && m.sessions.some((s) => s.id === session && s.approval !== undefined)),
      'the approval back in the window',
      { from },
    );
    const info = back.type === 'sessionChanged' ? back.session : (back as Extract<typeof back, { type: 'sessions' }>).sessions.find((s) => s.id === session)!;
    expect(info.approval?.command).toBe('printf ask-over-link-drop-$((40+1))');
    from = ui.mark();
    ui.send({ type: 'subscribe', session });
    expect(await ui.request({ type: 'answerApproval', id: info.approval!.id, answer: 'allow_once' })).toMatchObject({ type: 'done' });
    await ui.waitForText(session, 'ask-over-link-drop-41', from);
  }, 90_000);

  it("an open the remote's policy asks about is a banner of its own here (host devbox), and the person's answer opens it there", async () => {
    const from = ui.mark();
    const opening = call('open', { host: 'devbox', program: 'printf', args: ['ask-over-link-open'] });
    const asked = await ui.waitFor(
      (m) => m.type === 'approvals' && m.approvals.some((approval) => approval.host === 'devbox'),
      'the remote open in the window',
      { from },
    );
    const approval = (asked as Extract<typeof asked, { type: 'approvals' }>).approvals.find((entry) => entry.host === 'devbox')!;
    expect(approval).toMatchObject({ tool: 'open', id: expect.stringMatching(/^devbox:/), client: expect.stringMatching(/^remote-test-agent 1\.2\.0 via /) });
    expect(await ui.request({ type: 'answerApproval', id: approval.id, answer: 'allow_once' })).toMatchObject({ type: 'done' });
    const opened = await opening;
    expect(opened.isError, opened.text).toBe(false);
    expect(String(opened.sc.session)).toMatch(/^devbox:/);
  }, 60_000);

  it('the window interrupts, kills and closes a remote session as a local one, and this audit says so with its host', async () => {
    const session = String((await call('open', { host: 'devbox' })).sc.session);
    let seen = ui.mark();
    ui.send({ type: 'subscribe', session });
    // Each time the command's own output (not the line typed) says it is past its start.
    const running = call('execute', { session, command: 'echo int-$((40+1)); sleep 30', timeout_ms: 60_000 });
    await ui.waitForText(session, 'int-41', seen);
    expect(await ui.request({ type: 'interrupt', session })).toMatchObject({ type: 'done', session });
    const interrupted = await running;
    expect(interrupted.sc.status).toBe('completed');
    expect(interrupted.sc.exit_code, JSON.stringify(interrupted.sc)).not.toBe(0);
    seen = ui.mark();
    const again = call('execute', { session, command: 'echo kill-$((40+1)); sleep 30', timeout_ms: 60_000 });
    await ui.waitForText(session, 'kill-41', seen);
    expect(await ui.request({ type: 'kill', session })).toMatchObject({ type: 'done', session });
    const killed = await again;
    expect(killed.sc.exit_code, JSON.stringify(killed.sc)).not.toBe(0);
    const from = ui.mark();
    expect(await ui.request({ type: 'close', session })).toMatchObject({ type: 'done', session });
    await ui.waitFor(
      (m) => (m.type === 'sessionChanged' && m.session.id === session && m.session.state === 'exited') || (m.type === 'sessionRemoved' && m.id === session),
      'the remote session closed',
      { from },
    );
    const gone = await call('execute', { session, command: 'echo after-close' });
    expect(gone.isError).toBe(true);
    for (const action of ['interrupt', 'kill', 'close']) {
      await auditLine(
        hub.home,
        (line) => line.action === action && line.session === session && line.host === 'devbox' && line.channel === 'window',
        `${action} in this audit`,
      );
    }
  }, 90_000);

  it('flow control holds end to end: a window that stops acking a flooded remote session falls behind at the watermark, the live one sees it all, an ack brings a fresh snapshot', async () => {
    const session = String((await call('open', { host: 'devbox' })).sc.session);
    const lagging = await UiClient.connect(hub, await personCookie(hub), { autoAck: false });
    try {
      const liveFrom = ui.mark();
      const lagFrom = lagging.mark();
      ui.send({ type: 'subscribe', session });
      lagging.send({ type: 'subscribe', session });
      await ui.waitFor((m) => m.type === 'snapshot' && m.session === session, 'snapshot (live)', { from: liveFrom });
      await lagging.waitFor((m) => m.type === 'snapshot' && m.session === session, 'snapshot (lagging)', { from: lagFrom });
      const flood = await call('execute', { session, command: 'yes | head -n 300000; echo flood-done-$((1+1))', timeout_ms: 60_000, max_lines: 5 });
      expect(flood.isError, flood.text).toBe(false);
      // The remote's viewer for the lagging window stopped at its high watermark: the link carried no backlog.
      await lagging.waitFor((m) => m.type === 'behind' && m.session === session, 'behind', { from: lagFrom, timeoutMs: 30_000 });
      const lagFrames = lagging.messages.slice(lagFrom).filter((m) => m.type === 'frame' && m.session === session) as { data: Uint8Array; seq: number }[];
      const unacked = lagFrames.reduce((sum, frame) => sum + frame.data.length, 0);
      expect(unacked).toBeLessThan(200_000);
      await ui.waitForText(session, 'flood-done-2', liveFrom, 30_000);
      const resumeFrom = lagging.mark();
      lagging.autoAck = true;
      lagging.send({ type: 'ack', session, bytes: unacked });
      const fresh = await lagging.waitFor((m) => m.type === 'snapshot' && m.session === session, 'a fresh snapshot', { from: resumeFrom, timeoutMs: 30_000 });
      expect((fresh as { seq: number }).seq).toBeGreaterThan(lagFrames.at(-1)?.seq ?? 0);
      expect((fresh as { data: string }).data).toContain('flood-done-2');
    } finally {
      lagging.close();
    }
  }, 120_000);
});
