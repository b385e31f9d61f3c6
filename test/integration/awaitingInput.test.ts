/**
 * Every kind of waiting for the terminal is seen, with its `input_kind`, and nothing else is
 * (docs/design.md §2.6): one row per real program, through the SDK
 * 2.x client over the real shim (`switchboard mcp`) into a real hub (`serve`).
 *
 * Each waiting row runs with a 20 s `timeout_ms`: reaching it would answer `running`, so
 * `awaiting_input` is itself the proof that the wait was seen before the timeout. Each
 * false-alarm row runs with a 3 s `timeout_ms`, past a probe or two: `running` is the answer.
 * After each row the program is ended and the session runs a command again. Rows run in
 * parallel, each in its own session. Runs against dist/: `npm run build` first.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, removeHome, ROOT, startHub, type HubProcess } from './helpers/hubProcess.js';
import { toolAnswer, type ToolAnswer } from './helpers/toolAnswer.js';

/** Long enough that only a detection answers `awaiting_input`. */
const WAITING_TIMEOUT_MS = 20_000;
/** Past the quiet period and a probe or two: a false alarm would have answered by then. */
const QUIET_TIMEOUT_MS = 3_000;
const ROW_TIMEOUT_MS = 60_000;

let hub: HubProcess;
let client: Client;
let work: string;

async function call(name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  return toolAnswer(await client.callTool({ name, arguments: args }));
}

async function ok(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const answer = await call(name, args);
  if (answer.isError) throw new Error(`${name} ${JSON.stringify(args)} failed: ${answer.text}`);
  return answer.sc;
}

/** A shell session of its own for one row (rows run in parallel). */
async function shell(): Promise<string> {
  return (await ok('open', { cwd: work })).session as string;
}

/** The session is back at its shell's prompt and runs a command again. */
async function usable(session: string): Promise<void> {
  const again = await ok('execute', { session, command: 'echo usable', timeout_ms: 10_000 });
  expect(again).toMatchObject({ status: 'completed', exit_code: 0, output: 'usable' });
}

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'sb-await-'));
  // A HOME of the test's own (no rc file of the machine's): the shells' and vim's files go there.
  mkdirSync(path.join(work, 'home'));
  hub = await startHub({ env: { HOME: path.join(work, 'home') } });
  client = new Client({ name: 'awaiting-input-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env: cleanEnv({ SWITCHBOARD_HOME: hub.home }), cwd: ROOT, stderr: 'pipe' }),
  );
}, 30_000);

afterAll(async () => {
  await client?.close();
  await hub?.stop();
  if (hub) removeHome(hub.home);
  if (work) rmSync(work, { recursive: true, force: true });
});

interface WaitingRow {
  name: string;
  command: string;
  kind: 'line' | 'secret' | 'screen';
  /** Ends the program; the command's D mark must follow. */
  end: { text?: string; keys?: string[] } | 'kill';
  /** A program at its own prompt: a later execute into the session says so (item 5). */
  atItsPrompt?: boolean;
}

const WAITING: WaitingRow[] = [
  { name: 'bash read -p', command: 'read -p \'name? \' x; echo "got:$x"', kind: 'line', end: { text: 'ada', keys: ['enter'] } },
  { name: 'bash read -s -p (secret)', command: "read -s -p 'pw: ' x", kind: 'secret', end: 'kill' },
  { name: 'a [Y/n] question via read', command: "read -p 'Continue? [Y/n] ' a", kind: 'line', end: { text: 'y', keys: ['enter'] } },
  { name: 'python3 input()', command: 'python3 -c \'print(input("name? "))\'', kind: 'line', end: { text: 'ada', keys: ['enter'] } },
  { name: 'python3 getpass (secret)', command: "python3 -c 'import getpass; getpass.getpass()'", kind: 'secret', end: 'kill' },
  { name: 'python3 REPL', command: 'python3', kind: 'line', end: { text: 'exit()', keys: ['enter'] }, atItsPrompt: true },
  {
    name: 'node readline question',
    command: `node -e 'require("readline").createInterface({input:process.stdin,output:process.stdout}).question("node? ",()=>process.exit(0))'`,
    kind: 'line',
    end: { text: 'yes', keys: ['enter'] },
  },
  {
    // Line mode, so only the select's highest fd (nfds - 1) being the terminal tells.
    name: 'python3 select() on stdin in line mode',
    command: `python3 -c 'import select,sys; select.select([sys.stdin],[],[]); print("got", sys.stdin.readline().strip())'`,
    kind: 'line',
    end: { text: 'ada', keys: ['enter'] },
  },
  {
    // Line mode, in epoll: the epoll set holding the terminal tells.
    name: 'node reading stdin in line mode',
    command: `node -e 'process.stdin.once("data", (d) => { console.log("got", String(d).trim()); process.exit(0); })'`,
    kind: 'line',
    end: { text: 'ada', keys: ['enter'] },
  },
  { name: 'node REPL', command: 'node', kind: 'line', end: { text: '.exit', keys: ['enter'] }, atItsPrompt: true },
  { name: 'nested bash --norc', command: 'bash --norc', kind: 'line', end: { text: 'exit', keys: ['enter'] }, atItsPrompt: true },
  { name: 'nested zsh -f', command: 'zsh -f', kind: 'line', end: { text: 'exit', keys: ['enter'] } },
  { name: 'nested fish --no-config', command: 'fish --no-config', kind: 'line', end: { text: 'exit', keys: ['enter'] } },
  { name: 'vim', command: 'vim -n vim-row.txt', kind: 'screen', end: { text: ':q!', keys: ['enter'] } },
  { name: 'seq 1 1000 | less (screen, not secret)', command: 'seq 1 1000 | less', kind: 'screen', end: { keys: ['q'] } },
  { name: 'htop', command: 'htop', kind: 'screen', end: { keys: ['q'] } },
];

describe.concurrent('a program waiting for the terminal is awaiting_input with its input_kind, before the timeout', () => {
  it.each(WAITING)(
    '$name',
    async (row) => {
      const session = await shell();
      const asked = await ok('execute', { session, command: row.command, timeout_ms: WAITING_TIMEOUT_MS });
      expect(asked, row.name).toMatchObject({ status: 'awaiting_input', input_kind: row.kind, secret: row.kind === 'secret', exit_code: null });
      const seq = asked.command_seq;
      const next = asked.next as string;
      if (row.kind === 'line') expect(next).toContain(`send {"session":"${session}","text":"…","keys":["enter"]}`);
      if (row.kind === 'screen') expect(next).toContain(`read {"session":"${session}","view":"screen"}`);
      if (row.kind === 'secret') expect(next).toMatch(/ask the person/);

      // The session says so too: read's status, and list.
      const state = await ok('read', { session, view: 'screen' });
      expect(state).toMatchObject({ state: 'awaiting_input', input_kind: row.kind });
      const listed = (await ok('list', {})).sessions as { id: string; state: string; input_kind?: string }[];
      expect(listed.find((s) => s.id === session)).toMatchObject({ state: 'awaiting_input', input_kind: row.kind });

      if (row.kind === 'screen') {
        // A full-screen program's wait stands through its redraws (htop's meters redraw every 1.5 s):
        // a read waiting a while sees no new wait begin, only its own timeout.
        const later = await ok('read', { session, view: 'screen', wait: { timeout_ms: 2_500 } });
        expect(later).toMatchObject({ waited: 'timeout', state: 'awaiting_input', input_kind: 'screen' });
      }

      if (row.atItsPrompt) {
        // Item 5: a later execute is not typed into the program, and is not SESSION_BUSY forever.
        const again = await ok('execute', { session, command: 'echo not typed', timeout_ms: WAITING_TIMEOUT_MS });
        expect(again).toMatchObject({ status: 'awaiting_input', input_kind: 'line', not_run: true, command_seq: seq });
        expect(again.next).toMatch(/^your command was not run: /);
        expect(again.next).toContain(`send {"session":"${session}","text":"…","keys":["enter"]}`);
        // Answering it: the program prints, and is back at its prompt, waiting again.
        const probe = row.command === 'python3' ? 'print(6*7)' : row.command === 'node' ? '6*7' : 'echo $((6*7))';
        const answered = await ok('send', { session, text: probe, keys: ['enter'], wait: { timeout_ms: WAITING_TIMEOUT_MS } });
        expect(answered).toMatchObject({ waited: 'awaiting_input', state: 'awaiting_input', input_kind: 'line' });
        expect(answered.output).toMatch(/^42$/m);
      }

      if (row.end === 'kill') await ok('kill', { session });
      else await ok('send', { session, ...row.end, wait: { exit: true, timeout_ms: 10_000 } });
      await usable(session);
      await ok('kill', { session, close: true });
    },
    ROW_TIMEOUT_MS,
  );
});

interface QuietRow {
  name: string;
  command: (dir: string) => string;
}

const QUIET: QuietRow[] = [
  { name: 'python3 -m http.server 0 (accepting on its socket)', command: () => 'python3 -m http.server 0 --bind 127.0.0.1' },
  { name: 'sleep 30', command: () => 'sleep 30' },
  { name: "a build in wait4 (bash -c 'sleep 30; true')", command: () => "bash -c 'sleep 30; true'" },
  { name: 'tail -f of a file', command: (dir) => `tail -f ${path.join(dir, 'tailed.log')}` },
  { name: 'a process reading a pipe (sleep 30 | cat)', command: () => 'sleep 30 | cat' },
];

describe.concurrent('a process waiting on anything else stays running (no false alarm)', () => {
  it.each(QUIET)(
    '$name',
    async (row) => {
      writeFileSync(path.join(work, 'tailed.log'), 'first\n');
      const session = await shell();
      const started = await ok('execute', { session, command: row.command(work), timeout_ms: QUIET_TIMEOUT_MS });
      expect(started, row.name).toMatchObject({ status: 'running', exit_code: null });
      expect(started.input_kind).toBeUndefined();
      const listed = (await ok('list', {})).sessions as { id: string; state: string }[];
      expect(listed.find((s) => s.id === session)?.state).toBe('running');
      // A genuinely running command still answers SESSION_BUSY, naming it.
      const busy = await call('execute', { session, command: 'echo too soon' });
      expect(busy.error?.code, busy.text).toBe('SESSION_BUSY');
      expect(busy.text).toContain(row.command(work));

      await ok('kill', { session });
      await usable(session);
      await ok('kill', { session, close: true });
    },
    ROW_TIMEOUT_MS,
  );
});
