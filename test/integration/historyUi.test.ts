/**
 * The person's side of the history database over `/ws` (docs/design.md §2.7, §4.6, §5.2): a real
 * `switchboard serve`, restarted on the same state dir, the MCP client over the stdio shim as the
 * agent, and a WebSocket client speaking src/ui-protocol/ as the page does: searchHistory finds
 * a closed session's commands from an earlier hub run, commandOutput returns a closed command's
 * output, rerun types a command into the person's terminal and is audited by its source, never
 * its text. Runs against dist/: `npm run build` first.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import type { HubMessage, UiHistoryEntry } from '../../src/ui-protocol/index.js';
import { BIN, cleanEnv, removeHome, ROOT, startHub, tempHome, type HubProcess } from './helpers/hubProcess.js';
import { pollUntil } from './helpers/poll.js';
import { toolAnswer } from './helpers/toolAnswer.js';
import { personCookie, UiClient } from './helpers/uiClient.js';

const hubs: HubProcess[] = [];
const clients: Client[] = [];
const uis: UiClient[] = [];
const homes: string[] = [];

afterEach(async () => {
  for (const ui of uis.splice(0)) ui.close();
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
  for (const hub of hubs.splice(0)) await hub.stop().catch(() => undefined);
  for (const home of homes.splice(0)) removeHome(home);
});

async function agentOn(hub: HubProcess): Promise<(tool: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>> {
  const client = new Client({ name: 'history-ui-agent', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env: cleanEnv({ SWITCHBOARD_HOME: hub.home }), cwd: ROOT, stderr: 'pipe' }),
  );
  clients.push(client);
  return async (tool, args) => {
    const answer = toolAnswer(await client.callTool({ name: tool, arguments: args }));
    if (answer.isError) throw new Error(`${tool} ${JSON.stringify(args)} failed: ${answer.text}`);
    return answer.sc;
  };
}

type Results = Extract<HubMessage, { type: 'historyResults' }>;
type Output = Extract<HubMessage, { type: 'commandOutputResult' }>;

async function search(ui: UiClient, filters: Record<string, unknown>): Promise<Results> {
  const answer = await ui.ask({ type: 'searchHistory', ...filters });
  if (answer.type !== 'historyResults') throw new Error(`searchHistory ${JSON.stringify(filters)}: ${JSON.stringify(answer)}`);
  return answer;
}

describe('history in the window (ui-protocol)', () => {
  it("searches an earlier hub run's closed session, opens a closed command's output, and runs a command again audited by its source", async () => {
    const home = tempHome();
    homes.push(home);
    // Beside the hub's state folder: the agent's sandboxed session may not work in it.
    const cwd = path.join(`${home}-work`, 'project');
    homes.push(`${home}-work`);
    fs.mkdirSync(cwd, { recursive: true });

    // The first hub run: an agent's session with a long and a failing command, closed.
    const first = await startHub({ home });
    hubs.push(first);
    const agent = await agentOn(first);
    const long = await agent('execute', { command: 'seq 1 300 # histui-long', cwd });
    const failed = await agent('execute', { command: 'false # histui-fail', session: long.session });
    expect(failed.exit_code).toBe(1);
    await agent('kill', { session: long.session, close: true });
    await clients.pop()!.close();
    await first.stop();
    hubs.pop();

    // The second run: another agent session, live.
    const hub = await startHub({ home });
    hubs.push(hub);
    const agent2 = await agentOn(hub);
    const live = await agent2('execute', { command: 'echo histui-live', cwd });
    const ui = await UiClient.connect(hub, await personCookie(hub));
    uis.push(ui);

    // Every session's commands, newest first, the earlier run's closed session included (the
    // index may still be filling from the transcripts at the start: ask until all are there).
    let found: Results | undefined;
    await pollUntil(async () => (found = await search(ui, { query: 'histui' })).total === 3, 'all three commands in the index', { everyMs: 100 });
    expect(found!.commands.map((row) => row.command)).toEqual(['echo histui-live', 'false # histui-fail', 'seq 1 300 # histui-long']);
    const [liveRow, failRow, longRow] = found!.commands as [UiHistoryEntry, UiHistoryEntry, UiHistoryEntry];
    expect(liveRow).toMatchObject({ session: live.session, exit_code: 0, cwd, creator: 'history-ui-agent 1.0.0' });
    expect(failRow).toMatchObject({ session: long.session, seq: failed.command_seq, exit_code: 1 });
    expect(longRow).toMatchObject({ session: long.session, seq: long.command_seq, exit_code: 0, output_head: '1\n2\n3\n4\n5' });

    // Filters read as the history tool reads them.
    expect((await search(ui, { query: 'histui', status: 'failed' })).commands.map((row) => row.command)).toEqual(['false # histui-fail']);
    expect((await search(ui, { query: 'histui', session: live.session as string })).total).toBe(1);
    expect((await search(ui, { query: 'histui', cwd: path.join(home, 'elsewhere') })).total).toBe(0);
    expect((await search(ui, { query: 'histui', since: '1h' })).total).toBe(3);
    const badSince = await ui.ask({ type: 'searchHistory', since: 'yesterday' });
    expect(badSince).toMatchObject({ type: 'error', code: 'INVALID_ARGUMENT', for: 'searchHistory' });
    expect((badSince as { message: string }).message).toMatch(/since: "yesterday" is not a time/);

    // A closed command's output, bounded and paged.
    const page = (await ui.ask({ type: 'commandOutput', session: longRow.session, seq: longRow.seq, limit: 100 })) as Output;
    expect(page).toMatchObject({
      type: 'commandOutputResult',
      session: long.session,
      seq: long.command_seq,
      lines: 100,
      total_lines: 300,
      truncated: true,
      exit_code: 0,
      offset: 0,
    });
    expect(page.text.split('\n')).toEqual(Array.from({ length: 100 }, (_, i) => String(i + 1)));
    const rest = (await ui.ask({ type: 'commandOutput', session: longRow.session, seq: longRow.seq, offset: 290 })) as Output;
    expect(rest.text.split('\n')).toEqual(Array.from({ length: 10 }, (_, i) => String(291 + i)));
    const failOutput = (await ui.ask({ type: 'commandOutput', session: failRow.session, seq: failRow.seq })) as Output;
    expect(failOutput).toMatchObject({ exit_code: 1, total_lines: 0 });
    expect(await ui.ask({ type: 'commandOutput', session: longRow.session, seq: 99 })).toMatchObject({ type: 'error', for: 'commandOutput' });

    // Run again: never into an agent's session the person has not taken over, never into a busy one.
    const refused = await ui.request({ type: 'rerun', session: live.session as string, from: { session: longRow.session, seq: failRow.seq } });
    expect(refused).toMatchObject({ type: 'error', code: 'NOT_IN_CONTROL' });
    const unknown = await ui.request({ type: 'rerun', session: live.session as string, from: { session: longRow.session, seq: 99 } });
    expect(unknown).toMatchObject({ type: 'error', code: 'INVALID_ARGUMENT' });

    // Into a new terminal of the person's: the command runs there, as if typed.
    const opened = await ui.request({ type: 'openTerminal', cols: 100, rows: 30, cwd });
    expect(opened.type).toBe('done');
    const mine = (opened as { session: string }).session;
    const from = ui.mark();
    ui.send({ type: 'subscribe', session: mine });
    await ui.waitFor((m) => m.type === 'snapshot' && m.session === mine, "the new terminal's snapshot", { from });
    const ran = await ui.request({ type: 'rerun', session: mine, from: { session: longRow.session, seq: longRow.seq } });
    expect(ran).toMatchObject({ type: 'done', for: 'rerun', session: mine });
    await ui.waitForText(mine, /\r\n300\r\n/, from);
    let mineRows: Results | undefined;
    await pollUntil(async () => (mineRows = await search(ui, { session: mine })).total === 1, 'the re-run command in the index', { everyMs: 100 });
    expect(mineRows!.commands[0]).toMatchObject({ command: 'seq 1 300 # histui-long', exit_code: 0, creator: 'person' });

    // Audited as the person's rerun, by its source; the command line is nowhere in the audit log.
    const auditFile = path.join(home, 'audit.jsonl');
    let entries: Record<string, unknown>[] = [];
    await pollUntil(
      () =>
        (entries = fs
          .readFileSync(auditFile, 'utf8')
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as Record<string, unknown>)).some((e) => e.action === 'rerun'),
      'the rerun audit line',
      { everyMs: 50 },
    );
    expect(entries.filter((e) => e.action === 'rerun')).toEqual([
      { time: expect.any(String), actor: 'person', action: 'rerun', channel: 'window', session: mine, from: { session: long.session, seq: long.command_seq } },
    ]);
    expect(fs.readFileSync(auditFile, 'utf8')).not.toContain('histui');
  });
});
