/**
 * The history database and the `history` tool (docs/design.md §2.7, §3.2): real hubs
 * (`switchboard serve`), real shells, the 2.x MCP client over the stdio shim. Restarts, a database
 * deleted or out of reach, many sessions writing at once, and a person's secret that must never
 * be recorded. Runs against dist/: `npm run build` first.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, removeHome, ROOT, startHub, tempHome, type HubProcess } from './helpers/hubProcess.js';
import { pollUntil } from './helpers/poll.js';
import { toolAnswer, type ToolAnswer } from './helpers/toolAnswer.js';
import { personCookie, UiClient } from './helpers/uiClient.js';
import type { HistoryEntry } from '../../src/core/types.js';

/** A row as the tool sends it: the index's entry and the `read` call for its output. */
type Row = HistoryEntry & { next: string };

interface Agent {
  call(tool: string, args: Record<string, unknown>): Promise<ToolAnswer>;
  ok(tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
  history(args: Record<string, unknown>): Promise<{ commands: Row[]; total: number; note?: string; text: string }>;
  close(): Promise<void>;
}

const hubs: HubProcess[] = [];
const agents: Agent[] = [];
const homes: string[] = [];

afterEach(async () => {
  for (const agent of agents.splice(0)) await agent.close().catch(() => undefined);
  for (const hub of hubs.splice(0)) await hub.stop().catch(() => undefined);
  for (const home of homes.splice(0)) removeHome(home);
});

async function hubAt(home: string, env: Record<string, string> = {}): Promise<HubProcess> {
  const hub = await startHub({ home, env });
  hubs.push(hub);
  return hub;
}

async function stop(hub: HubProcess): Promise<void> {
  hubs.splice(hubs.indexOf(hub), 1);
  await hub.stop();
}

async function connect(hub: HubProcess, name = 'history-test'): Promise<Agent> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env: cleanEnv({ SWITCHBOARD_HOME: hub.home }), cwd: ROOT, stderr: 'pipe' }),
  );
  const call = async (tool: string, args: Record<string, unknown>): Promise<ToolAnswer> => toolAnswer(await client.callTool({ name: tool, arguments: args }));
  const ok = async (tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const answer = await call(tool, args);
    if (answer.isError) throw new Error(`${tool} ${JSON.stringify(args)} failed: ${answer.text}`);
    return answer.sc;
  };
  const agent: Agent = {
    call,
    ok,
    async history(args) {
      const answer = await call('history', args);
      if (answer.isError) throw new Error(`history ${JSON.stringify(args)} failed: ${answer.text}`);
      return { ...(answer.sc as { commands: Row[]; total: number; note?: string }), text: answer.text };
    },
    close: () => client.close(),
  };
  agents.push(agent);
  return agent;
}

/** The history tool's answer once `accept` takes it: a rebuild has no event a client could wait on. */
async function eventually<T>(ask: () => Promise<T | undefined>, what: string): Promise<T> {
  let value: T | undefined;
  await pollUntil(async () => (value = await ask()) !== undefined, what, { everyMs: 100 });
  return value!;
}

/** A folder for the agents' commands beside the hub's state folder: never in it, which sandboxed sessions may not enter. */
function workDir(home: string, ...parts: string[]): string {
  const work = `${home}-work`;
  if (!homes.includes(work)) homes.push(work);
  const dir = path.join(work, ...parts);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** Runs `command` and checks it completed. */
async function run(agent: Agent, command: string, where: { cwd?: string; session?: string }): Promise<Record<string, unknown>> {
  const result = await agent.ok('execute', { command, ...where });
  expect(result.status, `${command}: ${JSON.stringify(result)}`).toBe('completed');
  return result;
}

/** Every file under `dir`, as bytes. */
function filesUnder(dir: string): { file: string; bytes: Buffer }[] {
  const found: { file: string; bytes: Buffer }[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    found.push({ file, bytes: fs.readFileSync(file) });
  }
  return found;
}

describe('history', () => {
  it('finds commands by words, folder and below, status, since and client, newest first, each naming its read call', async () => {
    const home = tempHome();
    homes.push(home);
    const hub = await hubAt(home);
    const agent = await connect(hub);
    const project = workDir(home, 'project');
    const nested = workDir(home, 'project', 'src');
    const other = workDir(home, 'project-other');
    const first = await run(agent, 'echo alpha-build one', { cwd: project });
    await run(agent, "sh -c 'echo broke; exit 3' # alpha-build two", { cwd: nested });
    await run(agent, 'echo alpha-build three', { cwd: other });
    await run(agent, 'printf "x|y\\n" # piped', { cwd: other });

    const all = await agent.history({ query: 'alpha-build' });
    expect(all.total).toBe(3);
    expect(all.commands.map((c) => c.command)).toEqual(['echo alpha-build three', "sh -c 'echo broke; exit 3' # alpha-build two", 'echo alpha-build one']);
    const failing = all.commands[1]!;
    expect(failing).toMatchObject({ cwd: nested, exit_code: 3, output_head: 'broke', creator: 'history-test 1.0.0' });
    expect(failing.next).toBe(`read {"session":"${failing.session}","view":"command","seq":${failing.seq}}`);
    expect(all.text).toContain(`${failing.session} #${failing.seq}`);
    expect(all.text).toContain("$ sh -c 'echo broke; exit 3' # alpha-build two");
    expect(all.text).toContain('  | broke');

    // This folder and below; not a sibling that shares its prefix.
    const inProject = await agent.history({ query: 'alpha-build', cwd: project });
    expect(inProject.commands.map((c) => c.cwd)).toEqual([nested, project]);
    expect((await agent.history({ query: 'alpha-build', cwd: `${project}/` })).total).toBe(2);
    expect((await agent.history({ query: 'alpha-build', status: 'failed' })).commands.map((c) => c.exit_code)).toEqual([3]);
    expect((await agent.history({ query: 'alpha-build', status: 'succeeded' })).total).toBe(2);
    expect((await agent.history({ query: 'alpha-build', client: 'history-test' })).total).toBe(3);
    expect((await agent.history({ query: 'alpha-build', client: 'person' })).total).toBe(0);
    // One idle shell per cwd: the first command's session ran only it.
    expect((await agent.history({ query: 'alpha-build', session: first.session })).commands.map((c) => c.command)).toEqual(['echo alpha-build one']);
    expect((await agent.history({ query: 'alpha-build', since: '1h' })).total).toBe(3);
    expect((await agent.history({ query: 'alpha-build', since: new Date(Date.now() + 60_000).toISOString() })).total).toBe(0);
    expect((await agent.history({ query: 'alpha-build', limit: 1 })).commands).toHaveLength(1);

    // Punctuation is text, never FTS syntax: no error, and a pipe finds the command with one.
    for (const query of ['"alpha', 'alpha-build AND (', 'NEAR(alpha', '*', 'alpha"*"', '^ : - + {col}', "'; DROP TABLE commands; --"]) {
      const answer = await agent.call('history', { query });
      expect(answer.isError, `${query}: ${answer.text}`).toBe(false);
    }
    expect((await agent.history({ query: '"alpha' })).total).toBe(3);
    expect((await agent.history({ query: '|' })).commands.map((c) => c.command)).toEqual(['printf "x|y\\n" # piped']);

    const bad = await agent.call('history', { since: 'yesterday' });
    expect(bad.error?.code).toBe('INVALID_ARGUMENT');
    expect(bad.text).toMatch(/^INVALID_ARGUMENT: since: "yesterday" is not a time; .*30m, 2h, 7d/);
    expect((await agent.call('history', { cwd: 'relative/dir' })).error?.code).toBe('INVALID_ARGUMENT');
    expect((await agent.call('history', { status: 'maybe' })).error?.code).toBe('INVALID_ARGUMENT');
  });

  it("survives a restart: an earlier hub's commands, closed session included, answer history and read view command", async () => {
    const home = tempHome();
    homes.push(home);
    const first = await hubAt(home);
    const agent = await connect(first);
    const cwd = workDir(home, 'a');
    const done = await run(agent, 'seq 1 300 # restart-case', { cwd });
    await agent.ok('kill', { session: done.session, close: true });
    await agent.close();
    agents.length = 0;
    await stop(first);

    const second = await hubAt(home);
    const again = await connect(second);
    const found = await again.history({ query: 'restart-case' });
    expect(found.commands).toHaveLength(1);
    const row = found.commands[0]!;
    expect(row).toMatchObject({ session: done.session, seq: done.command_seq, exit_code: 0, output_head: '1\n2\n3\n4\n5' });
    const read = await again.ok('read', { session: row.session, view: 'command', seq: row.seq, limit: 1000 });
    expect(read).toMatchObject({ total_lines: 300, exit_code: 0, state: 'exited' });
    expect((read.content as string).split('\n')).toHaveLength(300);
  });

  it('is rebuilt from commands.jsonl when history.db was deleted while the hub was stopped', async () => {
    const home = tempHome();
    homes.push(home);
    const first = await hubAt(home);
    const agent = await connect(first);
    const cwd = workDir(home, 'b');
    await run(agent, 'echo rebuilt-one', { cwd });
    await run(agent, 'false # rebuilt-two', { cwd });
    expect((await agent.history({ query: 'rebuilt' })).total).toBe(2);
    await agent.close();
    agents.length = 0;
    await stop(first);
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(path.join(home, `history.db${suffix}`), { force: true });

    const second = await hubAt(home);
    const again = await connect(second);
    const rows = await eventually(async () => {
      const page = await again.history({ query: 'rebuilt' });
      return page.total === 2 && page.note === undefined ? page : undefined;
    }, 'both commands back in the rebuilt index');
    expect(rows.commands.map((c) => [c.command, c.exit_code, c.output_head])).toEqual([
      ['false # rebuilt-two', 1, ''],
      ['echo rebuilt-one', 0, 'rebuilt-one'],
    ]);
    expect(fs.existsSync(path.join(home, 'history.db'))).toBe(true);
  });

  it('follows retention: a session retention removed leaves the index', async () => {
    const home = tempHome();
    homes.push(home);
    const first = await hubAt(home);
    const agent = await connect(first);
    const done = await run(agent, 'echo retained-case', { cwd: workDir(home, 'r') });
    await agent.ok('kill', { session: done.session, close: true });
    expect((await agent.history({ query: 'retained-case' })).total).toBe(1);
    await agent.close();
    agents.length = 0;
    await stop(first);
    // Ended 30 days ago: the next hub's retention (14 days) removes it at start.
    const metaFile = path.join(home, 'sessions', done.session as string, 'meta.json');
    const meta = JSON.parse(fs.readFileSync(metaFile, 'utf8')) as Record<string, unknown>;
    fs.writeFileSync(metaFile, JSON.stringify({ ...meta, closed_at: new Date(Date.now() - 30 * 86_400_000).toISOString() }));

    const second = await hubAt(home);
    const again = await connect(second);
    expect(fs.existsSync(path.dirname(metaFile))).toBe(false);
    await eventually(async () => ((await again.history({ query: 'retained-case' })).total === 0 ? true : undefined), 'the removed session gone from the index');
  });

  it('deleted under a running hub: commands still run and the index is rebuilt, old commands included', async () => {
    const home = tempHome();
    homes.push(home);
    const hub = await hubAt(home);
    const agent = await connect(hub);
    const cwd = workDir(home, 'd');
    await run(agent, 'echo deleted-before', { cwd });
    expect((await agent.history({ query: 'deleted' })).total).toBe(1);
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(path.join(home, `history.db${suffix}`), { force: true });

    await run(agent, 'echo deleted-after', { cwd });
    const page = await eventually(async () => {
      const p = await agent.history({ query: 'deleted' });
      return p.total === 2 && p.note === undefined ? p : undefined;
    }, 'both commands in the recreated index');
    expect(page.commands.map((c) => c.command)).toEqual(['echo deleted-after', 'echo deleted-before']);
    expect(fs.existsSync(path.join(home, 'history.db'))).toBe(true);
  });

  it('out of reach under a running hub (a folder where the file was): commands run, one log line, history says why, then catches up', async () => {
    const home = tempHome();
    homes.push(home);
    const hub = await hubAt(home);
    const agent = await connect(hub);
    const cwd = workDir(home, 'e');
    await run(agent, 'echo reach-before', { cwd });
    expect((await agent.history({ query: 'reach' })).total).toBe(1);
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(path.join(home, `history.db${suffix}`), { force: true });
    fs.mkdirSync(path.join(home, 'history.db'));

    const during = await run(agent, 'echo reach-during', { cwd });
    expect(during.output).toBe('reach-during');
    await run(agent, 'echo reach-during-too', { cwd });
    const unavailable = await agent.history({ query: 'reach' });
    expect(unavailable.total).toBe(0);
    expect(unavailable.note).toMatch(/^The history index is unavailable \(.+\); it catches up once it can be written\./);
    expect(unavailable.text).toContain(unavailable.note);
    await agent.history({ query: 'reach' });
    const logged = hub
      .stderr()
      .split('\n')
      .filter((line) => line.includes('history.db is unavailable'));
    expect(logged, hub.stderr()).toHaveLength(1);

    fs.rmdirSync(path.join(home, 'history.db'));
    const caughtUp = await eventually(async () => {
      const p = await agent.history({ query: 'reach' });
      return p.total === 3 && p.note === undefined ? p : undefined;
    }, 'the index caught up');
    expect(caughtUp.commands.map((c) => c.command)).toEqual(['echo reach-during-too', 'echo reach-during', 'echo reach-before']);
  });

  it('20 sessions running commands at once: every command indexed exactly once', async () => {
    const home = tempHome();
    homes.push(home);
    const hub = await hubAt(home);
    const agent = await connect(hub);
    const cwd = workDir(home, 'many');
    const sessions = await Promise.all(Array.from({ length: 20 }, async () => (await agent.ok('open', { cwd })).session as string));
    await Promise.all(
      sessions.map(async (session, i) => {
        for (let n = 0; n < 3; n++) await run(agent, `echo many-${i}-${n}`, { session });
      }),
    );
    const page = await agent.history({ query: 'many', limit: 200 });
    expect(page.total).toBe(60);
    const keys = page.commands.map((c) => `${c.session}#${c.seq}`);
    expect(new Set(keys).size).toBe(60);
    expect(new Set(page.commands.map((c) => c.command)).size).toBe(60);
    expect(new Set(page.commands.map((c) => c.session))).toEqual(new Set(sessions));
  });

  it('a secret the person typed at an echo-off prompt is in no history row and in no file of the state dir', async () => {
    const home = tempHome();
    homes.push(home);
    const hub = await hubAt(home);
    const agent = await connect(hub);
    const secret = 'Tr0ub4dor-zebra-917';
    const asked = await agent.ok('execute', { command: 'read -s -p "Password: " pw; echo; echo "got ${#pw} chars"', cwd: workDir(home, 's') });
    expect(asked).toMatchObject({ status: 'awaiting_input', input_kind: 'secret' });
    const session = asked.session as string;
    const person = await UiClient.connect(hub, await personCookie(hub));
    try {
      expect(await person.request({ type: 'takeOver', session })).toMatchObject({ type: 'done' });
      person.send({ type: 'input', session, data: `${secret}\r` });
      expect(await person.request({ type: 'handBack', session })).toMatchObject({ type: 'done' });
    } finally {
      person.close();
    }
    const finished = await agent.ok('read', { session, view: 'command', wait: { exit: true } });
    expect(finished).toMatchObject({ exit_code: 0 });
    expect(finished.content).toContain(`got ${secret.length} chars`);

    const page = await agent.history({ query: 'read Password' });
    expect(page.commands).toHaveLength(1);
    expect(page.commands[0]!.output_head).toContain(`got ${secret.length} chars`);
    expect(JSON.stringify(page)).not.toContain(secret);
    const everywhere = await agent.history({ limit: 200 });
    expect(JSON.stringify(everywhere)).not.toContain(secret);
    // Nor on disk: history.db (and its WAL), commands.jsonl, output.log, audit.jsonl.
    const files = filesUnder(home);
    expect(files.map((f) => path.basename(f.file))).toEqual(expect.arrayContaining(['history.db', 'commands.jsonl', 'output.log']));
    for (const { file, bytes } of files) expect(bytes.includes(secret), file).toBe(false);
  });
});
