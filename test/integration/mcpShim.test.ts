/**
 * The agent's path end to end: the official MCP client (`@modelcontextprotocol/client` over
 * `StdioClientTransport`) driving the real shim, `node bin/switchboard.js mcp`, which runs real
 * shells in real PTYs. Runs against dist/: `npm run build` first (`npm test` does).
 *
 * One shim per shell, shared by that shell's tests, each with its own SWITCHBOARD_HOME.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alive } from './helpers/processState.js';
import { stopHubIn } from './helpers/hubCleanup.js';
import { testEnv } from './helpers/hermeticEnv.js';
import { shellPath } from './helpers/shells.js';
import { toolAnswer, type ToolAnswer } from './helpers/toolAnswer.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'switchboard.js');
const CLIENT = { name: 'mcp-shim-test', version: '9.8.7' };

interface Shim {
  call(name: string, args?: Record<string, unknown>): Promise<ToolAnswer>;
  /** `execute` that must succeed; checks the output is clean (no escape byte, no marker). */
  exec(args: Record<string, unknown>): Promise<ExecResult>;
  client: Client;
  transport: StdioClientTransport;
  stderr(): string;
  /** Protocol errors the client saw (e.g. a stdout line that is not JSON-RPC). */
  errors: Error[];
  close(): Promise<void>;
}

interface ExecResult {
  status: string;
  exit_code: number | null;
  output: string;
  truncated: boolean;
  total_lines: number;
  cwd: string | null;
  session: string;
  text: string;
}

const cleanups: string[] = [];

function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  cleanups.push(dir);
  return dir;
}

async function startShim(shell: string, extraEnv: Record<string, string> = {}): Promise<Shim> {
  if (!existsSync(path.join(ROOT, 'dist', 'src', 'cli.js'))) throw new Error('dist/ is missing: run `npm run build` first.');
  const env = testEnv({
    SWITCHBOARD_HOME: tempDir('sb-mcp-home-'),
    // 0: the hub the shim starts picks a free port, so parallel test hubs never collide.
    SWITCHBOARD_PORT: '0',
    SHELL: shell,
    // Escalation waits (INT → TERM → KILL) of 300 ms keep the kill test fast.
    SWITCHBOARD_KILL_WAIT_MS: '300',
    ...extraEnv,
  });
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env, cwd: ROOT, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client(CLIENT);
  await client.connect(transport);
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);

  const call = async (name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> => {
    return toolAnswer(await client.callTool({ name, arguments: args }));
  };
  const exec = async (args: Record<string, unknown>): Promise<ExecResult> => {
    const result = await call('execute', args);
    if (result.isError) throw new Error(`execute ${JSON.stringify(args)} failed: ${result.text}\nshim stderr:\n${stderr}`);
    const sc = result.sc as unknown as ExecResult;
    expect(sc.output).not.toContain('\x1b');
    expect(sc.output).not.toContain('133;');
    expect(sc.output).not.toContain('\x07');
    return { ...sc, text: result.text };
  };
  return { call, exec, client, transport, stderr: () => stderr, errors, close: () => client.close() };
}

afterAll(async () => {
  await Promise.all(cleanups.map((dir) => stopHubIn(dir)));
  for (const dir of cleanups) rmSync(dir, { recursive: true, force: true });
});

// ---- the same exact-output checks in every shell ---------------------------------------------

const SHELLS = ['bash', 'zsh', 'fish', 'sh'] as const;

describe.each(SHELLS)('execute through the shim with SHELL=%s', (name) => {
  let shim: Shim;
  const isFish = name === 'fish';

  beforeAll(async () => {
    shim = await startShim(shellPath(name));
  });
  afterAll(async () => {
    await shim?.close();
  });

  it('echo hi → "hi", exit 0', async () => {
    const r = await shim.exec({ command: 'echo hi' });
    expect(r).toMatchObject({ status: 'completed', exit_code: 0, output: 'hi', truncated: false, total_lines: 1 });
    expect(r.text).toContain('hi');
    expect(r.text).toContain('exit 0');
  });

  it('false → exit 1', async () => {
    const r = await shim.exec({ command: 'false' });
    expect(r).toMatchObject({ status: 'completed', exit_code: 1, output: '' });
  });

  it('exit 42 in a subshell → exit 42', async () => {
    const r = await shim.exec({ command: isFish ? "bash -c 'exit 42'" : '(exit 42)' });
    expect(r).toMatchObject({ status: 'completed', exit_code: 42 });
  });

  it('cd /usr, then pwd in the same session → /usr, with cwd reported', async () => {
    const cd = await shim.exec({ command: 'cd /usr' });
    expect(cd.cwd).toBe('/usr');
    const pwd = await shim.exec({ command: 'pwd', session: cd.session });
    expect(pwd).toMatchObject({ status: 'completed', exit_code: 0, output: '/usr', cwd: '/usr', session: cd.session });
  });

  it('printf without a trailing newline', async () => {
    const r = await shim.exec({ command: 'printf abc' });
    expect(r).toMatchObject({ exit_code: 0, output: 'abc' });
  });

  it('a \\r progress bar comes back as its final state only', async () => {
    const r = await shim.exec({ command: "printf '\\r33%%'; sleep 0.1; printf '\\r66%%'; sleep 0.1; printf '\\r99%%'" });
    expect(r).toMatchObject({ exit_code: 0, output: '99%' });
  });
});

// ---- the rest of the contract, in bash -------------------------------------------------------

describe('the MCP contract through the shim (bash)', () => {
  let shim: Shim;

  beforeAll(async () => {
    shim = await startShim(shellPath('bash'));
  });
  afterAll(async () => {
    await shim?.close();
  });

  it('lists the tools with titles, annotations and short schemas', async () => {
    const { tools } = await shim.client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect([...byName.keys()].sort()).toEqual(['execute', 'history', 'kill', 'list', 'open', 'read', 'screenshot', 'send']);
    for (const tool of tools) {
      expect(tool.title).toBeTruthy();
      expect(tool.description).toBeTruthy();
      expect(tool.outputSchema !== undefined, tool.name).toBe(tool.name !== 'screenshot');
      for (const [key, field] of Object.entries((tool.inputSchema.properties ?? {}) as Record<string, { description?: string }>)) {
        expect(field.description, `${tool.name}.${key} has a description`).toBeTruthy();
      }
    }
    expect(byName.get('list')?.annotations?.readOnlyHint).toBe(true);
    expect(byName.get('read')?.annotations?.readOnlyHint).toBe(true);
    expect(byName.get('screenshot')?.annotations?.readOnlyHint).toBe(true);
    expect(byName.get('history')?.annotations?.readOnlyHint).toBe(true);
    expect(byName.get('kill')?.annotations?.destructiveHint).toBe(true);
    expect(shim.client.getInstructions()).toMatch(/execute/);
  });

  it('seq 1 200000: exit 0, every line counted, head and tail kept, bounded size', async () => {
    const r = await shim.exec({ command: 'seq 1 200000' });
    expect(r).toMatchObject({ status: 'completed', exit_code: 0, total_lines: 200_000, truncated: true });
    expect(r.output.startsWith('1\n2\n3\n')).toBe(true);
    expect(r.output.endsWith('199999\n200000')).toBe(true);
    expect(r.output.length).toBeLessThan(16_000);
  });

  it('a timeout returns running without killing; the busy session says so; then it is usable again', async () => {
    // `running` is the answer at the timeout: had execute waited for sleep to end, it would be `completed`.
    const first = await shim.exec({ command: 'sleep 2', timeout_ms: 400, cwd: tempDir('sb-busy-') });
    expect(first).toMatchObject({ status: 'running', exit_code: null });
    expect(first.text).toContain('running');

    const busy = await shim.call('execute', { command: 'echo no', session: first.session });
    expect(busy.isError).toBe(true);
    expect(busy.error?.code).toBe('SESSION_BUSY');
    expect(busy.text).toMatch(/^SESSION_BUSY: /);
    expect(busy.text).toContain('sleep 2');

    // read with wait.exit returns once the command finished, well before its 5 s bound.
    const waited = await shim.call('read', { session: first.session, view: 'command', wait: { exit: true, timeout_ms: 5_000 } });
    expect(waited.sc).toMatchObject({ state: 'idle', waited: 'exit' });
    const after = await shim.exec({ command: 'echo ok', session: first.session });
    expect(after).toMatchObject({ status: 'completed', exit_code: 0, output: 'ok' });
  });

  it('list shows each session with its creator from initialize, state, cwd, size and pid', async () => {
    const dir = tempDir('sb-list-');
    const r = await shim.exec({ command: 'true', cwd: dir });
    const list = await shim.call('list');
    expect(list.isError).toBe(false);
    const sessions = list.sc.sessions as Record<string, unknown>[];
    const mine = sessions.find((s) => s.id === r.session);
    expect(mine).toMatchObject({
      id: r.session,
      creator: { kind: 'agent', client: `${CLIENT.name} ${CLIENT.version}` },
      controller: 'agent',
      state: 'idle',
      cwd: dir,
      command: null,
      last_exit_code: 0,
    });
    expect(mine?.rows).toBeGreaterThan(0);
    expect(mine?.cols).toBeGreaterThan(0);
    expect(alive(mine?.pid as number)).toBe(true);
    expect(typeof mine?.created_at).toBe('string');
    expect(list.text).toContain(r.session);
  });

  it('kill escalates to SIGKILL on a job that ignores INT and TERM; the shell stays usable', async () => {
    const r = await shim.exec({ command: "trap '' INT TERM; sleep 1000", timeout_ms: 300, cwd: tempDir('sb-kill-') });
    expect(r.status).toBe('running');
    const killed = await shim.call('kill', { session: r.session });
    expect(killed.isError).toBe(false);
    // The shell is back at its prompt when kill returns: an execute right after must not be busy.
    expect(killed.sc).toMatchObject({ ended_by: 'SIGKILL', state: 'idle' });
    const after = await shim.exec({ command: 'echo alive', session: r.session });
    expect(after).toMatchObject({ status: 'completed', output: 'alive' });
  });

  it('kill with close: true ends the session; list include_closed shows it exited', async () => {
    const r = await shim.exec({ command: 'sleep 1000 &', cwd: tempDir('sb-close-') });
    const pid = ((await shim.call('list')).sc.sessions as { id: string; pid: number }[]).find((s) => s.id === r.session)!.pid;
    const closed = await shim.call('kill', { session: r.session, close: true });
    expect(closed.isError).toBe(false);
    expect(closed.sc).toMatchObject({ state: 'exited' });
    expect(alive(pid)).toBe(false);

    const open = (await shim.call('list')).sc.sessions as { id: string }[];
    expect(open.some((s) => s.id === r.session)).toBe(false);
    const all = (await shim.call('list', { include_closed: true })).sc.sessions as { id: string; state: string; closed_at?: string }[];
    expect(all.find((s) => s.id === r.session)).toMatchObject({ state: 'exited', closed_at: expect.any(String) });

    const gone = await shim.call('execute', { command: 'echo x', session: r.session });
    expect(gone.error?.code).toBe('SESSION_EXITED');
  });

  /**
   * A command that finishes only once all `count` commands of its group run at the same time:
   * it marks its arrival in `dir`, then waits for the others' marks. Run one after another,
   * the first never sees the rest and is still `running` at its timeout: what is asserted is
   * that they overlapped, not how long they took.
   */
  const barrier = (dir: string, i: number, count: number): string =>
    `touch ${dir}/${i}; until [ $(ls ${dir} | wc -l) -ge ${count} ]; do sleep 0.05; done; echo ${i}`;

  it('five executes on five sessions run in parallel', async () => {
    const sessions: string[] = [];
    for (let i = 0; i < 5; i++) sessions.push((await shim.exec({ command: 'true', cwd: tempDir('sb-par-') })).session);
    expect(new Set(sessions).size).toBe(5);
    const arrivals = tempDir('sb-par-barrier-');
    const results = await Promise.all(sessions.map((session, i) => shim.exec({ command: barrier(arrivals, i, 5), session, timeout_ms: 15_000 })));
    results.forEach((r, i) => expect(r).toMatchObject({ status: 'completed', exit_code: 0, output: String(i) }));
  });

  it('five executes without session, sent together, get five shells (none waits behind another)', async () => {
    // Idle shells of this client exist from the tests above; each call must take a different
    // one (or open one) rather than queue behind a sibling that picked the same idle shell.
    const arrivals = tempDir('sb-any-barrier-');
    const results = await Promise.all([0, 1, 2, 3, 4].map((i) => shim.exec({ command: barrier(arrivals, i, 5), timeout_ms: 15_000 })));
    results.forEach((r, i) => expect(r).toMatchObject({ status: 'completed', exit_code: 0, output: String(i) }));
    expect(new Set(results.map((r) => r.session)).size).toBe(5);
  });

  it('two concurrent executes on one session run in the order they were sent', async () => {
    const dir = tempDir('sb-order-');
    const { session } = await shim.exec({ command: 'true', cwd: dir });
    const file = path.join(dir, 'order.txt');
    const [a, b] = await Promise.all([
      shim.exec({ command: `sleep 0.5; echo first >> ${file}`, session }),
      shim.exec({ command: `echo second >> ${file}`, session }),
    ]);
    expect(a.exit_code).toBe(0);
    expect(b.exit_code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe('first\nsecond\n');
  });

  it('an unknown session is SESSION_NOT_FOUND, for execute and kill', async () => {
    for (const [tool, args] of [
      ['execute', { command: 'echo x', session: 'no-such-session' }],
      ['kill', { session: 'no-such-session' }],
    ] as const) {
      const r = await shim.call(tool, args);
      expect(r.isError).toBe(true);
      expect(r.error?.code).toBe('SESSION_NOT_FOUND');
      expect(r.text).toMatch(/^SESSION_NOT_FOUND: .*no-such-session/);
    }
  });

  it('timeout_ms "soon" is INVALID_ARGUMENT naming the parameter, the value and what is allowed', async () => {
    const r = await shim.call('execute', { command: 'echo x', timeout_ms: 'soon' });
    expect(r.isError).toBe(true);
    expect(r.error).toMatchObject({ code: 'INVALID_ARGUMENT', parameter: 'timeout_ms', value: 'soon' });
    expect(r.text).toMatch(/^INVALID_ARGUMENT: timeout_ms: "soon" .*integer from 1 to 86400000/);
  });

  it('timeout_ms "5000" is accepted, as are aliases; unknown keys come back as warnings', async () => {
    const r = await shim.exec({ command: 'echo five', timeout_ms: '5000', max_lines: '10', colour: 'blue' });
    expect(r).toMatchObject({ exit_code: 0, output: 'five' });
    const warned = await shim.call('execute', { cmd: 'echo alias', timeout_seconds: '5', colour: 'blue' });
    expect(warned.isError).toBe(false);
    expect(warned.sc.output).toBe('alias');
    const warnings = warned.sc.warnings as string[];
    expect(warnings.some((w) => w.includes('colour'))).toBe(true);
    expect(warned.text).toContain('colour');
  });

  it('out-of-range and missing values are INVALID_ARGUMENT too; cwd with an explicit session is refused', async () => {
    const range = await shim.call('execute', { command: 'echo x', max_lines: 0 });
    expect(range.error).toMatchObject({ code: 'INVALID_ARGUMENT', parameter: 'max_lines' });
    const missing = await shim.call('execute', {});
    expect(missing.error).toMatchObject({ code: 'INVALID_ARGUMENT', parameter: 'command' });
    const signal = await shim.call('kill', { session: 'x', signal: 'SIGHUP' });
    expect(signal.error).toMatchObject({ code: 'INVALID_ARGUMENT', parameter: 'signal' });
    const { session } = await shim.exec({ command: 'true' });
    const both = await shim.call('execute', { command: 'pwd', session, cwd: '/tmp' });
    expect(both.error).toMatchObject({ code: 'INVALID_ARGUMENT', parameter: 'cwd' });
  });

  it('nothing but JSON-RPC reached stdout', () => {
    // The client reports a stdout line it cannot parse through onerror; none may have occurred.
    expect(shim.errors).toEqual([]);
  });
});

describe('the shim process', () => {
  it('leaves by itself when the host closes stdin, before any signal; its sessions live on in the hub', async () => {
    const shim = await startShim(shellPath('bash'), { SWITCHBOARD_LOG: 'info' }); // the shim says why it stops
    const r = await shim.exec({ command: 'sleep 1000 &' });
    const list = (await shim.call('list')).sc.sessions as { id: string; pid: number }[];
    const pid = list.find((s) => s.id === r.session)!.pid;
    const shimPid = shim.transport.pid!;
    // Ends stdin, waits for the shim to exit, and only if it has not after 2 s sends SIGTERM
    // (the SDK's close): the shim must have started leaving on the end of stdin, the signal's
    // reason never showing. (Its stderr is complete: the SDK resolves on the child's close.)
    await shim.close();
    expect(shim.stderr()).toContain('stopping (stdin closed)');
    expect(shim.stderr()).not.toMatch(/stopping \(SIG/);
    expect(alive(shimPid)).toBe(false);
    expect(alive(pid)).toBe(true); // the hub owns the session, not the shim
  });
});
