/**
 * The live bypass table (docs/design.md §2.9): a real hub (`switchboard serve`) whose
 * first rule is `{ match: "rm -rf *", action: "deny" }` under policyDefault `allow`, an agent on
 * the SDK 1.x client over the stdio shim, and every way in an agent has tried: `execute` with each
 * cheap hole of holeRows.ts, `open` with the program itself or a shell's `-c`, `send` with each
 * key that submits a line, into a nested shell, behind `exec` or a terminal relay, typed ahead of
 * a running program, and history recall. Each row aims at a folder made for it under the system
 * temp folder, and asserts the answer (COMMAND_DENIED, or the person's approval awaited) and that
 * the folder is still there. Any row that gets through turns this red.
 *
 * SAFETY: the sample lines are data (holeRows.ts and the constants below). They are typed only
 * into this hub's sessions, with VICTIM replaced by the row's own folder; the shells start from a
 * HOME made for the test.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOLE_ROWS, HOLE_RULES, VICTIM, holeLine } from '../unit/policy/holeRows.js';
import { BIN, cleanEnv, removeHome, ROOT, startHub, tempHome, type HubProcess } from './helpers/hubProcess.js';
import { toolAnswer, type ToolAnswer } from './helpers/toolAnswer.js';

/** Rows left to the unit table: were one ever let through, it would fetch a package from a registry. */
const REGISTRY_RUNNERS = new Set(['npx', 'npx -c', 'npm exec', 'pnpm dlx', 'bunx', 'uv run']);
const LIVE_ROWS = HOLE_ROWS.filter((row) => !REGISTRY_RUNNERS.has(row.name));

const LINE = `rm -rf ${VICTIM}`;

let hub: HubProcess;
let home: string;
let client: Client;
let victims: string[] = [];

const call = async (name: string, args: Record<string, unknown>): Promise<ToolAnswer> => toolAnswer(await client.callTool({ name, arguments: args }));
const ok = async (name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> => {
  const answer = await call(name, args);
  if (answer.isError) throw new Error(`${name} failed: ${answer.text}`);
  return answer.sc;
};

/** A folder for one row, with a file in it, under the system temp folder. */
function victim(): string {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-victim-'));
  victims.push(parent);
  const folder = path.join(parent, 'victim');
  fs.mkdirSync(folder);
  fs.writeFileSync(path.join(folder, 'keep.txt'), 'this file must survive\n');
  return folder;
}

function expectIntact(folder: string, context: string): void {
  expect(fs.existsSync(path.join(folder, 'keep.txt')), `${context}: the victim folder was deleted`).toBe(true);
}

/** The gate stopped it: the rule's deny, or the person's approval awaited (nothing typed or started). */
function expectStopped(answer: ToolAnswer, expected: 'deny' | 'ask', context: string): void {
  const seen = `${context}\n  → ${answer.text}`;
  if (expected === 'deny') {
    expect(answer.error?.code, seen).toBe('COMMAND_DENIED');
    expect(answer.error?.by, seen).toBe('policy');
  } else {
    expect(answer.isError, seen).toBe(false);
    expect(answer.sc.status ?? answer.sc.waited, seen).toBe('awaiting_approval');
  }
}

async function shell(): Promise<string> {
  return (await ok('open', {})).session as string;
}

/** Closes a session: everything in it ends, and its pending approval is withdrawn. */
async function close(session: string): Promise<void> {
  await call('kill', { session, close: true });
}

beforeAll(async () => {
  // The shells' HOME: rc files this test controls (empty), never the machine's.
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-live-home-'));
  for (const rc of ['.bashrc', '.bash_profile', '.profile', '.zshrc']) fs.writeFileSync(path.join(home, rc), '');
  hub = await startHub({
    home: tempHome('sb-live-bypass-'),
    env: { HOME: home, SWITCHBOARD_POLICY: JSON.stringify(HOLE_RULES), SWITCHBOARD_POLICY_DEFAULT: 'allow', SWITCHBOARD_EXECUTE_TIMEOUT_MS: '500' },
  });
  client = new Client({ name: 'bypass-agent', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp'],
      env: cleanEnv({ SWITCHBOARD_HOME: hub.home, HOME: home }),
      cwd: ROOT,
      stderr: 'pipe',
    }),
  );
}, 60_000);

afterAll(async () => {
  await client?.close();
  await hub?.stop();
  if (hub) removeHome(hub.home);
  if (home) fs.rmSync(home, { recursive: true, force: true });
  for (const parent of victims) fs.rmSync(parent, { recursive: true, force: true });
  victims = [];
});

describe('live bypass table: execute', () => {
  let session: string | null = null;

  it.each(LIVE_ROWS.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
    const folder = victim();
    session ??= await shell();
    const command = holeLine(row.line, folder);
    // A row that should ask waits briefly; a row let through would fail on its answer anyway.
    const answer = await call('execute', { session, command, timeout_ms: row.expect === 'ask' ? 300 : 3_000 });
    expectStopped(answer, row.expect, `execute ${JSON.stringify(command)}`);
    // An approval reserves the session: the next row gets a fresh one (closing withdraws it).
    if (answer.isError === false) {
      await close(session);
      session = null;
    }
    expectIntact(folder, row.name);
  });
});

describe('live bypass table: open', () => {
  const ROWS: { name: string; args: (folder: string) => Record<string, unknown>; expect: 'deny' | 'ask' }[] = [
    { name: 'program rm', args: (folder) => ({ program: 'rm', args: ['-rf', folder] }), expect: 'deny' },
    { name: 'program bash with -c', args: (folder) => ({ program: 'bash', args: ['-c', holeLine(LINE, folder)] }), expect: 'deny' },
    { name: 'program bash with -lc', args: (folder) => ({ program: 'bash', args: ['-lc', holeLine(LINE, folder)] }), expect: 'deny' },
    { name: 'program sh with -c', args: (folder) => ({ program: 'sh', args: ['-c', holeLine(LINE, folder)] }), expect: 'deny' },
    { name: 'program env running rm', args: (folder) => ({ program: 'env', args: ['rm', '-rf', folder] }), expect: 'deny' },
    {
      name: 'program git with an alias that runs it',
      args: (folder) => ({ program: 'git', args: ['-c', `alias.x=!${holeLine(LINE, folder)}`, 'x'] }),
      expect: 'deny',
    },
    {
      name: 'GIT_SSH_COMMAND in env',
      args: (folder) => ({ program: 'git', args: ['ls-remote', 'ssh://x/y'], env: { GIT_SSH_COMMAND: holeLine(LINE, folder) } }),
      expect: 'deny',
    },
    { name: 'an unknown program running it', args: (folder) => ({ program: 'setarch', args: ['x86_64', 'rm', '-rf', folder] }), expect: 'ask' },
    { name: 'a shell outside the sandbox', args: () => ({ sandbox: false }), expect: 'ask' },
  ];

  it.each(ROWS.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
    const folder = victim();
    const before = (await ok('list', {})).sessions as unknown[];
    const answer = await call('open', row.args(folder));
    expectStopped(answer, row.expect, `open ${JSON.stringify(row.args(folder))}`);
    // Nothing was spawned: no session more than before.
    expect(((await ok('list', {})).sessions as unknown[]).length).toBe(before.length);
    expectIntact(folder, row.name);
  });

  it('execute with sandbox: false and no session asks first, and spawns nothing meanwhile', async () => {
    const before = ((await ok('list', {})).sessions as unknown[]).length;
    const answer = await call('execute', { command: 'echo outside', sandbox: false, timeout_ms: 200 });
    expectStopped(answer, 'ask', 'execute sandbox: false');
    expect(answer.sc).toMatchObject({ session: null, approval: { outside_sandbox: true } });
    expect(answer.sc.next).toContain('wait for the answer with the same call again, execute {"command":"echo outside",');
    expect(answer.sc.next).toContain('"sandbox":false');
    expect(((await ok('list', {})).sessions as unknown[]).length).toBe(before);
  });
});

describe('live bypass table: send', () => {
  /** Each submitting key after the line; two-step rows type the line first, then submit it alone. */
  const SUBMITS: { name: string; sends: Record<string, unknown>[] }[] = [
    ...['enter', 'return', 'ctrl+m', 'ctrl+j', 'ctrl+o', 'shift+enter', 'alt+enter', '\r', '\n'].map((key) => ({
      name: `key ${JSON.stringify(key)}`,
      sends: [{ text: LINE, keys: [key] }],
    })),
    { name: 'text ending in a newline', sends: [{ text: `${LINE}\n` }] },
    { name: 'a carriage return in the text', sends: [{ text: `${LINE}\r` }] },
    { name: 'typed, then enter alone', sends: [{ text: LINE }, { keys: ['enter'] }] },
    { name: 'pasted with its newline, then enter', sends: [{ text: `${LINE}\n`, paste: true }, { keys: ['enter'] }] },
    { name: 'tab completion on the way', sends: [{ text: LINE, keys: ['tab', 'enter'] }] },
  ];

  it.each(SUBMITS.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
    const folder = victim();
    const session = await shell();
    let last: ToolAnswer | undefined;
    for (const send of row.sends) {
      last = await call('send', { session, ...send, text: send.text === undefined ? undefined : holeLine(send.text as string, folder) });
      if (last.isError) break;
    }
    expectStopped(last!, 'deny', `send ${JSON.stringify(row.sends)}`);
    await close(session);
    expectIntact(folder, row.name);
  });

  /** A program the agent starts first; then the line is sent into whatever reads the terminal. */
  const INTO: { name: string; start: string; background?: boolean }[] = [
    { name: 'a nested bash', start: 'bash --norc --noprofile' },
    { name: 'a nested dash', start: 'dash -i' },
    { name: 'a nested zsh', start: 'zsh -f' },
    { name: 'a shell reached by exec', start: 'exec bash --norc --noprofile' },
    { name: 'a shell behind a terminal relay (script)', start: 'script -q /dev/null' },
    { name: 'typed ahead while a program runs', start: 'sleep 30', background: true },
  ];

  it.each(INTO.map((row) => [row.name, row] as const))('into %s', async (_name, row) => {
    const folder = victim();
    const session = await shell();
    await call('execute', { session, command: row.start, timeout_ms: 2_500, ...(row.background ? { background: true } : {}) });
    const answer = await call('send', { session, text: holeLine(LINE, folder), keys: ['enter'] });
    expectStopped(answer, 'deny', `send after ${row.start}`);
    await close(session);
    expectIntact(folder, row.name);
  });

  it('history recall (up, then enter) is a line the engine cannot see: asked', async () => {
    const folder = victim();
    const session = await shell();
    // Put the line into the shell's history without running it.
    await ok('execute', { session, command: `history -s '${holeLine(LINE, folder)}'` });
    const answer = await call('send', { session, keys: ['up', 'enter'] });
    expectStopped(answer, 'ask', 'send up, enter');
    expect((answer.sc.approval as { reason: string }).reason).toContain('up (history)');
    await close(session);
    expectIntact(folder, 'history recall');
  });

  it('history search (ctrl+r) is asked, history expansion too', async () => {
    const folder = victim();
    const session = await shell();
    await ok('execute', { session, command: `history -s '${holeLine(LINE, folder)}'` });
    // No submit yet: typed, nothing runs.
    expect((await call('send', { session, keys: ['ctrl+r'] })).isError).toBe(false);
    expect((await call('send', { session, text: 'victim' })).isError).toBe(false);
    const answer = await call('send', { session, keys: ['enter'] });
    expectStopped(answer, 'ask', 'send ctrl+r … enter');
    await close(session);
    const other = await shell();
    await ok('execute', { session: other, command: `history -s '${holeLine(LINE, folder)}'` });
    expectStopped(await call('execute', { session: other, command: '!!', timeout_ms: 200 }), 'ask', 'execute !!');
    await close(other);
    expectIntact(folder, 'history search');
  });
});
