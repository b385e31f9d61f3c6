/**
 * Interactive programs, prompts, reads, progress, cancellation and the audit log (docs/design.md
 * §2.6, §3.2–3.4, §4.6), through the official MCP client driving the real
 * shim (`node bin/switchboard.js mcp`), which starts and forwards to a real hub (`serve`) in a temp
 * SWITCHBOARD_HOME. Runs against dist/: `npm run build` first.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { whenFile } from './helpers/fileWatch.js';
import { stopHubIn } from './helpers/hubCleanup.js';
import { cleanEnv } from './helpers/hubProcess.js';
import { toolAnswer, type ToolAnswer } from './helpers/toolAnswer.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'switchboard.js');
/** Both connections name themselves alike: `read` view `new` must still keep them apart. */
const CLIENT = { name: 'mcp-interactive-test', version: '1.0.0' };

interface Conn {
  client: Client;
  call(name: string, args?: Record<string, unknown>): Promise<ToolAnswer>;
  /** A call that must succeed. */
  ok(name: string, args?: Record<string, unknown>): Promise<Record<string, unknown>>;
}

const home = mkdtempSync(path.join(tmpdir(), 'sb-mcpi-home-'));
const work = mkdtempSync(path.join(tmpdir(), 'sb-mcpi-work-'));
const env = cleanEnv({ SWITCHBOARD_HOME: home, SWITCHBOARD_PORT: '0' });
const clients: Client[] = [];
/** Every tools/call made, so the audit log can be checked line for line. */
let callCount = 0;

async function connect(): Promise<Conn> {
  if (!existsSync(path.join(ROOT, 'dist', 'src', 'cli.js'))) throw new Error('dist/ is missing: run `npm run build` first.');
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env, cwd: ROOT, stderr: 'pipe' });
  const client = new Client(CLIENT);
  await client.connect(transport);
  clients.push(client);
  const call = async (name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> => {
    callCount++;
    return toolAnswer(await client.callTool({ name, arguments: args }));
  };
  const ok = async (name: string, args: Record<string, unknown> = {}): Promise<Record<string, unknown>> => {
    const result = await call(name, args);
    if (result.isError) throw new Error(`${name} ${JSON.stringify(args)} failed: ${result.text}`);
    return result.sc;
  };
  return { client, call, ok };
}

let a: Conn;

beforeAll(async () => {
  a = await connect();
});

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await stopHubIn(home);
  rmSync(home, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

describe('the tools through the shim', () => {
  it('lists the tools with titles, annotations, and fits the token budget', async () => {
    const listed = await a.client.listTools();
    const names = listed.tools.map((t) => t.name).sort();
    expect(names).toEqual(['execute', 'history', 'kill', 'list', 'open', 'read', 'screenshot', 'send']);
    for (const tool of listed.tools) {
      expect(tool.title, tool.name).toBeTruthy();
      // The tool's own title is what hosts show; annotations carry only the hints (src/mcp/annotations.ts).
      expect(tool.annotations?.title, tool.name).toBeUndefined();
      // screenshot alone has none: hosts drop an image that comes with structured content.
      expect(tool.outputSchema !== undefined, tool.name).toBe(tool.name !== 'screenshot');
    }
    const byName = new Map(listed.tools.map((t) => [t.name, t]));
    expect(byName.get('read')?.annotations?.readOnlyHint).toBe(true);
    expect(byName.get('screenshot')?.annotations?.readOnlyHint).toBe(true);
    expect(byName.get('history')?.annotations?.readOnlyHint).toBe(true);
    expect(byName.get('list')?.annotations?.readOnlyHint).toBe(true);
    expect(a.client.getInstructions()).toMatch(/awaiting_input/);
  });

  it('the whole tools/list answer (every tool, description and schema) stays under 10 000 characters of JSON', async () => {
    // docs/design.md §3.6: models pay for every word on every turn. The figure is recorded there.
    const size = JSON.stringify(await a.client.listTools()).length;
    console.info(`tools/list: ${size} characters of JSON for 8 tools`);
    expect(size).toBeLessThan(10_000);
  });

  it('python3 REPL: open, send 6*7 + Enter, wait for 42', async () => {
    const opened = await a.ok('open', { program: 'python3', cwd: work });
    expect(opened).toMatchObject({ program: 'python3', state: 'running', session: expect.any(String), pid: expect.any(Number) });
    const sent = await a.ok('send', { session: opened.session, text: '6*7', keys: 'enter', wait: { pattern: '^42$', timeout_ms: 8_000 } });
    expect(sent.waited).toBe('pattern');
    expect(sent.output).toMatch(/^42$/m);
    await a.ok('kill', { session: opened.session, close: true });
  });

  it('vim: read the screen with the cursor, insert, Escape, :wq + Enter → the file has it, exit 0', async () => {
    const file = path.join(work, 'note.txt');
    writeFileSync(file, 'first line\n');
    const opened = await a.ok('open', { program: 'vim', args: ['-u', 'NONE', '-i', 'NONE', '-n', file], rows: 24, cols: 80 });
    expect(opened).toMatchObject({ rows: 24, cols: 80 });
    const screen = await a.ok('read', { session: opened.session, view: 'screen', wait: { pattern: 'first line', timeout_ms: 8_000 } });
    expect(screen.content).toMatch(/^first line/);
    expect(screen.cursor).toEqual({ row: 0, col: 0 });
    await a.ok('send', { session: opened.session, text: 'Oadded by agent' });
    await a.ok('send', { session: opened.session, keys: ['escape'] });
    const quit = await a.ok('send', { session: opened.session, text: ':wq', keys: ['enter'], wait: { exit: true, timeout_ms: 8_000 } });
    expect(quit).toMatchObject({ state: 'exited', exit_code: 0, waited: 'exit' });
    expect(readFileSync(file, 'utf8')).toBe('added by agent\nfirst line\n');
  });

  it('vim with set mouse=a: a mouse click (given as x/y, "left-click") moves the cursor to that cell; an error where no mouse is on', async () => {
    const file = path.join(work, 'mouse.txt');
    writeFileSync(file, 'one\ntwo\nthree words here\n');
    const opened = await a.ok('open', { program: 'vim', args: ['-N', '-u', 'NONE', '-i', 'NONE', '-n', '-c', 'set mouse=a', file], rows: 24, cols: 80 });
    const session = opened.session;
    await a.ok('read', { session, view: 'screen', wait: { pattern: 'three words', timeout_ms: 8_000 } });
    // vim reads the first input after start-up as answers to its terminal queries: a command first.
    await a.ok('send', { session, text: ':echo "ready"', keys: ['enter'], wait: { pattern: '^ready', timeout_ms: 8_000 } });
    const clicked = await a.call('send', { session, mouse: { type: 'left-click', y: 3, x: 7 } });
    expect(clicked.isError, clicked.text).toBe(false);
    const at = await a.ok('read', { session, view: 'screen' });
    expect(at.cursor).toEqual({ row: 2, col: 6 });
    await a.ok('kill', { session, close: true });

    const shell = await a.ok('open', { cwd: work });
    const refused = await a.call('send', { session: shell.session, mouse: { action: 'click', row: 1, col: 1 } });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/^INVALID_ARGUMENT: The program in session \S+ has not turned on mouse reporting/);
    const bad = await a.call('send', { session: shell.session, mouse: { action: 'tap-dance', row: 1, col: 1 } });
    expect(bad.text).toMatch(/^INVALID_ARGUMENT: mouse\.action: "tap-dance" is not allowed; use one of click, double_click, drag, scroll/);
    await a.ok('kill', { session: shell.session, close: true });
  });

  it('read -r: execute returns awaiting_input, not at its timeout; send abc + Enter shows got:abc', async () => {
    // Waiting out the 20 s timeout would answer `running`: `awaiting_input` is the detection.
    const r = await a.ok('execute', { command: 'read -r x; echo "got:$x"', cwd: work, timeout_ms: 20_000 });
    expect(r.status).toBe('awaiting_input');
    expect(r.secret ?? false).toBe(false);
    const sent = await a.ok('send', { session: r.session, text: 'abc', keys: ['enter'], wait: { exit: true } });
    expect(sent.output).toContain('got:abc');
    expect(sent.state).toBe('idle');
  });

  it('a getpass prompt is awaiting_input with secret: true, and send is refused with SECRET_PROMPT', async () => {
    const r = await a.ok('execute', { command: "python3 -c 'import getpass; getpass.getpass()'", cwd: work, timeout_ms: 20_000 });
    expect(r).toMatchObject({ status: 'awaiting_input', secret: true });
    const sent = await a.call('send', { session: r.session, text: 'hunter2', keys: ['enter'] });
    expect(sent.isError).toBe(true);
    expect(sent.error?.code).toBe('SECRET_PROMPT');
    expect(sent.text).toMatch(/^SECRET_PROMPT: /);
    await a.ok('kill', { session: r.session, close: true });
  });

  it('read view new returns each line once per client, also for two connections of one host', async () => {
    const b = await connect();
    const { session } = await a.ok('open', { cwd: work });
    await a.ok('read', { session });
    await b.ok('read', { session });
    await a.ok('execute', { command: "printf 'L%s\\n' 1 2 3", session });
    const count = (text: unknown): number =>
      String(text)
        .split('\n')
        .filter((line) => line === 'L2').length;
    const firstA = await a.ok('read', { session, view: 'new' });
    expect(count(firstA.content)).toBe(1);
    expect(count((await a.ok('read', { session, view: 'new' })).content)).toBe(0);
    expect(count((await b.ok('read', { session, view: 'new' })).content)).toBe(1);
    expect(count((await b.ok('read', { session, view: 'new' })).content)).toBe(0);
  });

  it('history pages back with offset; command pages a 200 000-line output', async () => {
    const { session } = await a.ok('open', { cwd: work });
    await a.ok('execute', { command: 'seq 1 50', session });
    // The prompt is drawn just after the command's end mark: let the screen settle first.
    await a.ok('read', { session, view: 'screen', wait: { idle_ms: 300 } });
    const all = String((await a.ok('read', { session, view: 'history', limit: 100_000 })).content).split('\n');
    const page = await a.ok('read', { session, view: 'history', offset: 10, limit: 5 });
    expect(String(page.content).split('\n')).toEqual(all.slice(-15, -10));
    expect(page).toMatchObject({ lines: 5, total_lines: all.length, truncated: true });

    const big = await a.ok('execute', { command: 'seq 1 200000', session });
    expect(big).toMatchObject({ exit_code: 0, total_lines: 200_000, truncated: true });
    const head = await a.ok('read', { session, view: 'command', offset: 0, limit: 3 });
    expect(head).toMatchObject({ content: '1\n2\n3', lines: 3, total_lines: 200_000, truncated: true });
    const middle = await a.ok('read', { session, view: 'command', seq: big.command_seq, offset: 100_000, limit: 2 });
    expect(middle.content).toBe('100001\n100002');
    const tail = await a.ok('read', { session, view: 'command', offset: '199997', limit: '10' });
    expect(tail).toMatchObject({ content: '199998\n199999\n200000', lines: 3, truncated: false });
  });

  it('an invalid regex is INVALID_ARGUMENT', async () => {
    const { session } = await a.ok('open', { cwd: work });
    const r = await a.call('read', { session, wait: { pattern: '(unclosed' } });
    expect(r.isError).toBe(true);
    expect(r.error?.code).toBe('INVALID_ARGUMENT');
    expect(r.text).toContain('wait.pattern');
    const timeout = await a.call('send', { session, keys: 'enter', wait: { timeout_ms: 3_600_000 } });
    expect(timeout.error).toMatchObject({ code: 'INVALID_ARGUMENT', parameter: 'wait.timeout_ms' });
  });

  it('open with cols 0 is INVALID_ARGUMENT naming cols and its range, and opens nothing', async () => {
    const before = ((await a.ok('list', { include_closed: true })).sessions as unknown[]).length;
    const r = await a.call('open', { program: 'python3', cols: 0 });
    expect(r.isError).toBe(true);
    expect(r.error).toMatchObject({ code: 'INVALID_ARGUMENT', parameter: 'cols', value: 0 });
    expect(r.text).toContain('from 10 to 1000');
    const after = ((await a.ok('list', { include_closed: true })).sessions as unknown[]).length;
    expect(after).toBe(before);
  });

  it('a long execute, and a read that waits, send progress notifications when asked', async () => {
    const { session } = await a.ok('open', { cwd: work });
    const executeProgress: { progress: number; message?: string }[] = [];
    const readProgress: { progress: number; message?: string }[] = [];
    callCount += 2;
    const [executed, read] = await Promise.all([
      a.client.callTool({ name: 'execute', arguments: { command: 'sleep 6', session } }, { onprogress: (p) => executeProgress.push(p) }),
      a.client.callTool(
        { name: 'read', arguments: { session, wait: { pattern: 'never-shows-up', timeout_ms: 5_600 } } },
        { onprogress: (p) => readProgress.push(p) },
      ),
    ]);
    expect((executed.structuredContent as { status: string }).status).toBe('completed');
    expect(executeProgress.length).toBeGreaterThanOrEqual(1);
    expect(executeProgress[0]!.message).toMatch(/^sleep 6 · \d+ s$/); // the command, the time; it prints no line
    expect((read.structuredContent as { waited: string }).waited).toBe('timeout');
    expect(read.isError).not.toBe(true);
    expect(readProgress.length).toBe(1);
    expect(readProgress[0]!.message).toMatch(/^sleep 6 · \d+ s$/); // what the session it waits on runs
  }, 15_000);

  it('cancelling a read that waits ends the call on the abort, not at its timeout, and ends the wait in the hub', async () => {
    const { session } = await a.ok('open', { cwd: work });
    const controller = new AbortController();
    callCount++;
    const pending = a.client.callTool(
      { name: 'read', arguments: { session, wait: { pattern: 'never-shows-up', timeout_ms: 60_000 } } },
      { signal: controller.signal },
    );
    // The shim and the hub take one connection's messages in order: once this answer is back,
    // the read is in the hub and waiting.
    await a.ok('list');
    controller.abort();
    // The call ends on the abort (its wait has 60 s to go: an answer would be `waited: timeout`).
    await expect(pending).rejects.toThrow(/abort/i);
    // The hub's side stopped too: the read is audited as cancelled, well before its 60 s timeout.
    await whenAudited(
      () => auditLines().some((l) => l.tool === 'read' && l.session === session && l.outcome === 'cancelled'),
      'the cancelled read in the audit log',
      20_000,
    );
  });

  it('cancelling an execute interrupts the command; the shell is usable right after', async () => {
    const { session } = await a.ok('open', { cwd: work });
    const controller = new AbortController();
    callCount++;
    const pending = a.client.callTool(
      { name: 'execute', arguments: { command: 'echo cancel-$((1+1))-started; sleep 100', session } },
      { signal: controller.signal },
    );
    // Running once its first line is out (the echoed command line reads "$((1+1))", not "2").
    await a.ok('read', { session, wait: { pattern: 'cancel-2-started', timeout_ms: 10_000 } });
    controller.abort();
    await expect(pending).rejects.toThrow();
    await whenAudited(
      () => auditLines().some((l) => l.tool === 'execute' && l.session === session && l.outcome === 'cancelled'),
      'the cancelled execute',
      20_000,
    );
    // sleep 100 ended, within the read's 5 s, only because it was interrupted.
    const waited = await a.ok('read', { session, view: 'command', wait: { exit: true, timeout_ms: 5_000 } });
    expect(waited).toMatchObject({ waited: 'exit', state: 'idle' });
    const after = await a.ok('execute', { command: 'echo still-here', session, timeout_ms: 5_000 });
    expect(after).toMatchObject({ status: 'completed', output: 'still-here' });
  });

  it('audit.jsonl: one 0600 line per call with client, tool, outcome and duration, never the text', async () => {
    await whenAudited(() => auditLines().length >= callCount, 'every call to be audited', 2_000);
    const lines = auditLines();
    expect(lines.length).toBe(callCount);
    expect(statSync(path.join(home, 'audit.jsonl')).mode & 0o777).toBe(0o600);
    for (const line of lines) {
      expect(line).toMatchObject({
        time: expect.any(String),
        client: `${CLIENT.name} ${CLIENT.version}`,
        tool: expect.any(String),
        duration_ms: expect.any(Number),
      });
      expect(['ok', 'error', 'cancelled']).toContain(line.outcome);
    }
    expect(lines.find((l) => l.tool === 'send' && l.code === 'SECRET_PROMPT')).toMatchObject({ code: 'SECRET_PROMPT', bytes: 7, keys: 1 });
    expect(lines.find((l) => l.tool === 'open' && l.outcome === 'error')).toMatchObject({ code: 'INVALID_ARGUMENT', session: null });
    // A mouse send names its action, never where.
    expect(lines.find((l) => l.tool === 'send' && l.mouse !== undefined)).toEqual({
      time: expect.any(String),
      actor: 'agent',
      client: expect.any(String),
      tool: 'send',
      session: expect.any(String),
      outcome: 'ok',
      duration_ms: expect.any(Number),
      bytes: 0,
      keys: 0,
      mouse: 'click',
    });
    const raw = readFileSync(path.join(home, 'audit.jsonl'), 'utf8');
    // Each checked command line has its policy decision beside it (docs/design.md §4.6), never the line.
    const decisions = raw
      .split('\n')
      .filter((l) => l.includes('"actor":"policy"'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(decisions.length).toBeGreaterThan(0);
    for (const decision of decisions) expect(decision).toMatchObject({ decision: 'allow' });
    for (const secret of ['hunter2', 'getpass', 'got:', '6*7', 'seq 1', 'added by agent', 'never-shows-up']) expect(raw).not.toContain(secret);
  });
});

function auditLines(): Record<string, unknown>[] {
  const file = path.join(home, 'audit.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.actor === 'agent'); // tool calls; the person's actions and policy decisions are lines of their own
}

/** Resolves once `check` holds for audit.jsonl, re-checked as the hub writes it (no polling). */
function whenAudited(check: () => boolean, what: string, timeoutMs: number): Promise<void> {
  return whenFile(path.join(home, 'audit.jsonl'), check, what, timeoutMs);
}
