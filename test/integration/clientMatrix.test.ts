/**
 * The clients hosts actually embed (docs/design.md §3.5, §7): one agent scenario suite run
 * through
 *
 *   - the TypeScript SDK 1.x client (`@modelcontextprotocol/sdk`, what most hosts embed) over the
 *     stdio shim, `switchboard mcp`;
 *   - the 2.x client (`@modelcontextprotocol/client`) over the shim;
 *   - the 1.x client over HTTP (`/mcp`) with the bearer token;
 *   - the 2.x client pinned to the 2026-07-28 revision (`server/discover`, a `_meta` envelope on
 *     every request, no `initialize`) over the shim and over HTTP.
 *
 * Each client lists the tools first, as every host does, and finds the annotations hosts act on; from then on the 1.x client checks
 * every `structuredContent` against the tool's `outputSchema`, errors included, and turns a
 * mismatch into a protocol error that replaces the whole answer. So every error path of every
 * tool is driven here and must arrive as `CODE: sentence`.
 *
 * And because hosts show the model either only the text or only
 * `JSON.stringify(structuredContent)`, every success of the suite is checked to stand alone in
 * each rendering (`expectStandsAlone`).
 *
 * Each client gets its own real hub (`switchboard serve`, real shells), so the session limit and
 * the sessions seen are its own. Runs against dist/: `npm run build` first (`npm test` does).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { open as openFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, removeHome, ROOT, startHub, type HubProcess } from './helpers/hubProcess.js';
import { toolAnswer, type ToolAnswer } from './helpers/toolAnswer.js';
import { personCookie, UiClient } from './helpers/uiClient.js';

const MAX_SESSIONS = 8;
const TOOLS = ['execute', 'history', 'kill', 'list', 'open', 'read', 'screenshot', 'send'];

/**
 * The hints hosts act on (docs/design.md §3.6): Claude Code runs read-only tools in parallel and
 * allows only them in plan mode, VS Code runs them without asking.
 */
const LOOKS_ONLY = { readOnlyHint: true, idempotentHint: true, openWorldHint: false };
const RUNS = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };
const ANNOTATIONS: Record<string, unknown> = {
  list: LOOKS_ONLY,
  read: LOOKS_ONLY,
  history: LOOKS_ONLY,
  screenshot: LOOKS_ONLY,
  execute: RUNS,
  open: RUNS,
  send: RUNS,
  kill: RUNS, // destructive and open world, as the tools that run (docs/design.md §3.6)
};
/** How often calls tell their progress in these hubs (setting progressIntervalMs): a few ticks per scenario, not 5 s each. */
const PROGRESS_INTERVAL_MS = 250;

/** A `notifications/progress` as the client's `onprogress` gets it. */
interface ProgressNote {
  progress: number;
  total?: number;
  message?: string;
}

/** What reached the client, in order, before its SDK handled it: progress notes and answers. */
type WireEvent = { kind: 'progress'; token: unknown; message: string } | { kind: 'response'; id: unknown };

/** What the suite needs of a client, whichever SDK line and transport it is. */
interface AgentClient {
  /** Every progress note and answer as it arrived (see `tapWire`). */
  readonly wire: WireEvent[];
  listTools(): Promise<{ name: string; outputSchema?: unknown; annotations?: unknown }[]>;
  call(name: string, args: Record<string, unknown>): Promise<ToolAnswer>;
  /** A call that sends a progress token; `onProgress` gets each notification as it arrives. */
  callWithProgress(name: string, args: Record<string, unknown>, onProgress: (note: ProgressNote) => void): Promise<ToolAnswer>;
  close(): Promise<void>;
}

interface Variant {
  name: string;
  connect(hub: HubProcess): Promise<AgentClient>;
}

const INFO = { name: 'client-matrix', version: '1.0.0' };
/** The modern revision, pinned: connecting fails unless `server/discover` offers exactly it. */
const PINNED = { versionNegotiation: { mode: { pin: '2026-07-28' } } };

function shimCommand(hub: HubProcess): { command: string; args: string[]; env: Record<string, string>; cwd: string } {
  return { command: process.execPath, args: [BIN, 'mcp'], env: cleanEnv({ SWITCHBOARD_HOME: hub.home }), cwd: ROOT };
}

/** The 1.x client throws a protocol error where a strict host would: that fails the test. */
/**
 * Records what arrives on the client's transport before the SDK dispatches it. Both SDK lines run
 * a notification's handler a microtask after it arrives but an answer's at once, and drop a
 * progress note whose call was answered meanwhile (modelcontextprotocol/typescript-sdk#2580): a
 * note sent just before the result can arrive in the same read and never reach `onprogress`.
 * Whether the hub sent it before the result is seen here.
 */
function tapWire(transport: { onmessage?: (message: never, extra?: never) => void } | undefined): WireEvent[] {
  const wire: WireEvent[] = [];
  if (!transport) throw new Error('the client has no transport to tap');
  const dispatch = transport.onmessage;
  transport.onmessage = (message: never, extra?: never) => {
    const record = message as { method?: string; id?: unknown; params?: { progressToken?: unknown; message?: string } };
    if (record.method === 'notifications/progress') wire.push({ kind: 'progress', token: record.params?.progressToken, message: record.params?.message ?? '' });
    else if (record.method === undefined && record.id !== undefined) wire.push({ kind: 'response', id: record.id });
    dispatch?.(message, extra);
  };
  return wire;
}

function v1(client: ClientV1): AgentClient {
  return {
    wire: tapWire(client.transport as never),
    listTools: async () => (await client.listTools()).tools,
    call: async (name, args) => toolAnswer(await client.callTool({ name, arguments: args })),
    callWithProgress: async (name, args, onprogress) => toolAnswer(await client.callTool({ name, arguments: args }, undefined, { onprogress })),
    close: () => client.close(),
  };
}

function v2(client: ClientV2): AgentClient {
  return {
    wire: tapWire(client.transport as never),
    listTools: async () => (await client.listTools()).tools,
    call: async (name, args) => toolAnswer(await client.callTool({ name, arguments: args })),
    callWithProgress: async (name, args, onprogress) => toolAnswer(await client.callTool({ name, arguments: args }, { onprogress })),
    close: () => client.close(),
  };
}

/** A pinned client really speaks 2026-07-28: no `initialize` was sent. */
function modern(client: ClientV2): ClientV2 {
  expect(client.getProtocolEra()).toBe('modern');
  expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
  return client;
}

const VARIANTS: Variant[] = [
  {
    name: 'SDK 1.x client over the stdio shim',
    async connect(hub) {
      const client = new ClientV1(INFO);
      await client.connect(new StdioV1({ ...shimCommand(hub), stderr: 'pipe' }));
      return v1(client);
    },
  },
  {
    name: 'SDK 2.x client over the stdio shim',
    async connect(hub) {
      const client = new ClientV2(INFO);
      await client.connect(new StdioV2({ ...shimCommand(hub), stderr: 'pipe' }));
      return v2(client);
    },
  },
  {
    name: 'SDK 2.x client pinned to 2026-07-28 over the stdio shim',
    async connect(hub) {
      const client = new ClientV2(INFO, PINNED);
      await client.connect(new StdioV2({ ...shimCommand(hub), stderr: 'pipe' }));
      return v2(modern(client));
    },
  },
  {
    name: 'SDK 1.x client over HTTP with the token',
    async connect(hub) {
      const client = new ClientV1(INFO);
      const url = new URL(`http://127.0.0.1:${hub.port}/mcp`);
      await client.connect(new HttpV1(url, { requestInit: { headers: { Authorization: `Bearer ${hub.token}` } } }));
      return v1(client);
    },
  },
  {
    name: 'SDK 2.x client pinned to 2026-07-28 over HTTP with the token',
    async connect(hub) {
      const client = new ClientV2(INFO, PINNED);
      const url = new URL(`http://127.0.0.1:${hub.port}/mcp`);
      await client.connect(new HttpV2(url, { requestInit: { headers: { Authorization: `Bearer ${hub.token}` } } }));
      return v2(modern(client));
    },
  },
];

/**
 * A success as a host that shows only the text, and as one that shows only
 * `JSON.stringify(structuredContent)`, would give it to the model: each carries the output,
 * the exit code or state, and the next step.
 */
function expectStandsAlone(tool: string, answer: ToolAnswer): void {
  const { text, sc } = answer;
  const json = JSON.stringify(sc);
  const context = `${tool}: text ${JSON.stringify(text)} / structuredContent ${json}`;
  // The output: whatever the text shows of it, structuredContent holds whole.
  const output = [sc.output, sc.content].find((o): o is string => typeof o === 'string' && o !== '');
  if (output !== undefined) expect(text, context).toContain(output);
  else if (typeof sc.screen === 'string' && sc.screen !== '') expect(text, context).toContain(sc.screen);
  // The exit code and the state.
  if (typeof sc.exit_code === 'number') expect(text, context).toMatch(new RegExp(`\\b(exit|code) ${sc.exit_code}\\b`));
  if (sc.status === 'running') expect(text, context).toContain('still running');
  if (sc.status === 'awaiting_input' || sc.state === 'awaiting_input') {
    expect(text, context).toMatch(sc.secret === true ? /password prompt/ : /waiting for (keyboard )?input/);
    // What kind of input, in both: the key, and the text naming it.
    expect(['line', 'secret', 'screen'], context).toContain(sc.input_kind);
    expect(text, context).toContain(`input_kind ${sc.input_kind as string}`);
  }
  if (typeof sc.state === 'string' && tool !== 'kill') expect(text, context).toContain(sc.state === 'exited' ? 'exited' : sc.state);
  // The next step: a call the text names is in `next`, and `next` is in the text.
  const footer = output !== undefined ? text.replace(output, '') : text;
  const namesACall = /\b(execute|open|send|read|kill) \{/.test(footer);
  expect(namesACall, `${context}: the text names a call exactly when next is set`).toBe(sc.next !== undefined);
  if (sc.next !== undefined) {
    expect(typeof sc.next, context).toBe('string');
    expect(text, context).toContain(sc.next as string);
    expect(json, context).toContain(JSON.stringify(sc.next));
  }
  if (sc.status === 'running' || sc.status === 'awaiting_input' || sc.state === 'awaiting_input') expect(sc.next, context).toBeDefined();
  // Input warnings.
  expect(text.includes('[warning: '), context).toBe(Array.isArray(sc.warnings));
}

/** Progress notes as they arrive, and a bounded wait for one that shows something. */
function progressLog(): {
  notes: ProgressNote[];
  onProgress: (note: ProgressNote) => void;
  until(check: (message: string) => boolean, what: string): Promise<number>;
} {
  const notes: ProgressNote[] = [];
  const listeners = new Set<() => void>();
  return {
    notes,
    onProgress: (note) => {
      notes.push(note);
      for (const listener of [...listeners]) listener();
    },
    /** Resolves with the index of the first note whose message passes `check`. */
    until: (check, what) =>
      new Promise((resolve, reject) => {
        const test = (): void => {
          const index = notes.findIndex((note) => check(note.message ?? ''));
          if (index === -1) return;
          clearTimeout(timer);
          listeners.delete(test);
          resolve(index);
        };
        const timer = setTimeout(() => {
          listeners.delete(test);
          reject(new Error(`no progress note came for ${what} within 15 s; notes:\n${notes.map((note) => note.message).join('\n')}`));
        }, 15_000);
        listeners.add(test);
        test();
      }),
  };
}

function expectIncreasing(notes: ProgressNote[]): void {
  for (let i = 1; i < notes.length; i++) expect(notes[i]!.progress, JSON.stringify(notes)).toBeGreaterThan(notes[i - 1]!.progress);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe.each(VARIANTS)('the agent scenarios through the $name', (variant) => {
  let hub: HubProcess;
  let agent: AgentClient;
  let work: string;
  /** Every success of the suite, checked to stand alone in each rendering at the end. */
  const successes: { tool: string; answer: ToolAnswer }[] = [];

  const call = async (tool: string, args: Record<string, unknown>): Promise<ToolAnswer> => {
    const answer = await agent.call(tool, args);
    if (!answer.isError) successes.push({ tool, answer });
    return answer;
  };
  const ok = async (tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const answer = await call(tool, args);
    if (answer.isError) throw new Error(`${tool} ${JSON.stringify(args)} failed: ${answer.text}`);
    return answer.sc;
  };
  const refused = async (tool: string, args: Record<string, unknown>, code: string): Promise<ToolAnswer> => {
    const answer = await call(tool, args);
    expect(answer.isError, `${tool} ${JSON.stringify(args)}: ${answer.text}`).toBe(true);
    expect(answer.error?.code, answer.text).toBe(code);
    return answer;
  };

  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'sb-matrix-'));
    // The person's policy: harmless lines only (`true` ignores its words), one denied and one
    // asked about (docs/design.md §2.9); no rule is about echo, which the suite's other lines use.
    const policy = [
      { match: 'true deny-me*', action: 'deny', reason: 'the matrix says no' },
      { match: 'true approve-me*', action: 'ask' },
    ];
    hub = await startHub({
      env: {
        SWITCHBOARD_MAX_SESSIONS: String(MAX_SESSIONS),
        SWITCHBOARD_POLICY: JSON.stringify(policy),
        SWITCHBOARD_PROGRESS_INTERVAL_MS: String(PROGRESS_INTERVAL_MS),
      },
    });
    agent = await variant.connect(hub);
    // As every host does before calling: the 1.x client keeps the output schemas it lists.
    const tools = await agent.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
    // screenshot alone has none: hosts drop an image that comes with structured content (§3.1).
    for (const tool of tools) expect(tool.outputSchema !== undefined, tool.name).toBe(tool.name !== 'screenshot');
    // Every hint explicit, as hosts read them (docs/design.md §3.6).
    for (const tool of tools) expect(tool.annotations, tool.name).toEqual(ANNOTATIONS[tool.name]);
  }, 30_000);

  afterAll(async () => {
    await agent?.close();
    await hub?.stop();
    if (hub) removeHome(hub.home);
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('execute: a command that succeeds, and one that fails, with their exact output and exit code', async () => {
    const passed = await call('execute', { command: "printf 'alpha\\nbeta\\n'", cwd: work });
    expect(passed.sc).toMatchObject({ status: 'completed', exit_code: 0, output: 'alpha\nbeta', cwd: work });
    const failed = await call('execute', { command: "sh -c 'echo broke >&2; exit 3'", session: passed.sc.session });
    expect(failed.sc).toMatchObject({ status: 'completed', exit_code: 3, output: 'broke' });
    expect(failed.text).toMatch(/\[exit 3, /);
  });

  it('execute running, SESSION_BUSY meanwhile, then read with wait.exit returns the exit code in one call', async () => {
    const fifo = path.join(work, 'release');
    execFileSync('mkfifo', [fifo]);
    // The command ends when the test says so: the timeout is sure to come first.
    const started = await ok('execute', { command: `cat ${fifo}; sh -c 'exit 4'`, cwd: work, timeout_ms: 300 });
    expect(started).toMatchObject({ status: 'running', exit_code: null });
    const session = started.session as string;
    expect(started.next).toContain(`read {"session":"${session}","view":"command","seq":${started.command_seq},"wait":{"exit":true}}`);

    const busy = await refused('execute', { command: 'echo too soon', session }, 'SESSION_BUSY');
    expect(busy.text).toMatch(/^SESSION_BUSY: Session \w+ is still running `cat /);
    expect(busy.error).toMatchObject({ command: expect.stringContaining(`cat ${fifo}`) });

    const waiting = call('read', { session, view: 'command', wait: { exit: true } });
    await writeFile(fifo, 'go\n');
    const finished = await waiting;
    expect(finished.sc).toMatchObject({ content: 'go', exit_code: 4, seq: started.command_seq, waited: 'exit' });
    expect(finished.sc.duration_ms).toEqual(expect.any(Number));
    expect(finished.sc.next).toBeUndefined();
  });

  it('execute awaiting_input, then send answers it', async () => {
    const asked = await ok('execute', { command: 'read -p "Name? " name && echo "hello $name"', cwd: work });
    expect(asked).toMatchObject({ status: 'awaiting_input', input_kind: 'line', exit_code: null, secret: false });
    const session = asked.session as string;
    expect(asked.output).toContain('Name?');
    expect(asked.next).toContain(`send {"session":"${session}","text":"…","keys":["enter"]}`);

    const answered = await ok('send', { session, text: 'ada', keys: ['enter'], wait: { exit: true } });
    expect(answered).toMatchObject({ output: expect.stringContaining('hello ada'), state: 'idle', waited: 'exit' });
    const command = await ok('read', { session, view: 'command' });
    expect(command).toMatchObject({ content: 'Name? ada\nhello ada', exit_code: 0 });
  });

  it("a password prompt is the person's: SECRET_PROMPT for the agent, and kill ends it", async () => {
    const asked = await ok('execute', { command: 'read -s -p "Password: " pw', cwd: work });
    expect(asked).toMatchObject({ status: 'awaiting_input', input_kind: 'secret', secret: true });
    const session = asked.session as string;
    expect(asked.next).toMatch(/ask the person/);
    const typed = await refused('send', { session, text: 'hunter2', keys: ['enter'] }, 'SECRET_PROMPT');
    expect(typed.text).toMatch(/^SECRET_PROMPT: Session \w+ is at a password prompt/);
    const killed = await ok('kill', { session });
    expect(killed).toMatchObject({ ended_by: 'SIGINT', state: 'idle', session });
  });

  it('a pager is input_kind screen; an execute into a REPL at its prompt is not run and says how to answer', async () => {
    const paged = await ok('execute', { command: 'seq 1 200 | less', cwd: work, timeout_ms: 20_000 });
    expect(paged).toMatchObject({ status: 'awaiting_input', input_kind: 'screen', secret: false });
    const session = paged.session as string;
    expect(paged.next).toContain(`read {"session":"${session}","view":"screen"}`);
    expect(await ok('send', { session, keys: ['q'], wait: { exit: true } })).toMatchObject({ state: 'idle', waited: 'exit' });

    const repl = await ok('execute', { command: 'python3 -q', session, timeout_ms: 20_000 });
    expect(repl).toMatchObject({ status: 'awaiting_input', input_kind: 'line' });
    const notRun = await ok('execute', { command: 'echo typed?', session });
    expect(notRun).toMatchObject({ status: 'awaiting_input', input_kind: 'line', not_run: true, command_seq: repl.command_seq });
    expect(notRun.next).toContain(`send {"session":"${session}","text":"…","keys":["enter"]}`);
    const listed = (await ok('list', {})).sessions as { id: string; input_kind?: string }[];
    expect(listed.find((s) => s.id === session)?.input_kind).toBe('line');
    expect(await ok('send', { session, text: 'exit()', keys: ['enter'], wait: { exit: true } })).toMatchObject({ state: 'idle' });
  });

  it('open a program, send it a line, read the screen', async () => {
    const opened = await ok('open', { program: 'python3', args: ['-q'], cwd: work });
    const session = opened.session as string;
    expect(opened.next).toContain(`send {"session":"${session}","text":"…"}`);
    const sent = await ok('send', { session, text: 'print(6 * 7)', keys: ['enter'], wait: { pattern: '^42$' } });
    expect(sent).toMatchObject({ waited: 'pattern' });
    const screen = await ok('read', { session, view: 'screen' });
    expect((screen.content as string).split('\n')).toContain('42');
    expect(screen.cursor).toEqual({ row: expect.any(Number), col: expect.any(Number) });
    expect(await ok('send', { session, resize: { rows: 30, cols: 90 }, wait: { absent: 'Traceback' } })).toMatchObject({ waited: 'absent' });
    expect(await ok('read', { session, view: 'screen' })).toMatchObject({ lines: 30 });
    expect(await ok('kill', { session, close: true })).toMatchObject({ state: 'exited' });
  });

  it('screenshot: the PNG arrives as image content with one line of text and no structuredContent; read styled gives rows of runs', async () => {
    const opened = await ok('open', { program: 'sh', args: ['-c', "printf '\\033[1;31mFAIL\\033[0m ok\\n'; exec cat"], cwd: work });
    const session = opened.session as string;
    const styled = await ok('read', { session, view: 'screen', format: 'styled', wait: { pattern: 'FAIL' } });
    expect((styled.content as { rows: unknown[][] }).rows[0]).toEqual([{ text: 'FAIL', fg: 1, bold: true }, { text: ' ok' }]);
    expect(styled.cursor).toEqual({ row: 1, col: 0 });
    const text = await agent.call('read', { session, view: 'screen', format: 'styled' });
    expect(text.text).toMatch(/^⟦fg=1,bold⟧FAIL⟦\/⟧ ok\n/);

    const file = path.join(work, 'shot.png');
    const shot = await agent.call('screenshot', { session, path: file });
    expect(shot.isError, shot.text).toBe(false);
    expect(shot.structured).toBe(false);
    expect(shot.content.map((c) => c.type).sort()).toEqual(['image', 'text']);
    const image = shot.content.find((c) => c.type === 'image')!;
    expect(image.mimeType).toBe('image/png');
    const png = Buffer.from(image.data!, 'base64');
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect(readFileSync(file).equals(png)).toBe(true);
    expect(shot.text).toBe(`Screenshot of session ${session}: 120×32 cells, 1096×560 px PNG, cursor row 1 col 0; written to ${file}.`);
    expect(shot.text.split('\n')).toHaveLength(1);

    const relative = await agent.call('screenshot', { session, path: 'shot.png' });
    expect(relative.error?.code).toBe('INVALID_ARGUMENT');
    expect(relative.text).toMatch(/^INVALID_ARGUMENT: path: "shot.png" is not absolute/);
    const unwritable = await agent.call('screenshot', { session, path: path.join(work, 'no', 'dir', 'x.png') });
    expect(unwritable.text).toMatch(/^INVALID_ARGUMENT: path: cannot write .* its folder does not exist/);
    const missing = await agent.call('screenshot', { session: 'no-such-session' });
    expect(missing.error?.code).toBe('SESSION_NOT_FOUND');
    await ok('kill', { session, close: true });
  });

  it('kill stops a running command and says which signal ended it', async () => {
    const running = await ok('execute', { command: 'sleep 60', cwd: work, timeout_ms: 300 });
    expect(running.status).toBe('running');
    const killed = await call('kill', { session: running.session });
    expect(killed.sc).toMatchObject({ ended_by: 'SIGINT', state: 'idle' });
    expect(killed.text).toContain('ended by SIGINT');
  });

  it('history finds an earlier command and names the read call that returns its whole output', async () => {
    const found = await ok('history', { query: 'printf alpha', cwd: work });
    const commands = found.commands as { session: string; seq: number; command: string; exit_code: number; output_head: string; next: string }[];
    expect(found.total).toBe(1);
    expect(commands[0]).toMatchObject({ command: "printf 'alpha\\nbeta\\n'", exit_code: 0, output_head: 'alpha\nbeta' });
    expect(found.next).toContain(commands[0]!.next);
    const { session, seq } = commands[0]!;
    expect(await ok('read', { session, view: 'command', seq })).toMatchObject({ content: 'alpha\nbeta', exit_code: 0 });
  });

  it('warns about a parameter it does not know, in both renderings', async () => {
    const answer = await call('execute', { command: 'true', cwd: work, colour: 'blue' });
    expect(answer.sc.warnings).toEqual([expect.stringContaining('colour')]);
    expect(answer.text).toMatch(/\[warning: .*colour/);
  });

  it('SESSION_NOT_FOUND, SESSION_EXITED and SPAWN_FAILED arrive as CODE: sentence', async () => {
    for (const tool of ['read', 'send', 'kill']) {
      const missing = await refused(tool, { session: 'no-such-session', text: 'x' }, 'SESSION_NOT_FOUND');
      expect(missing.text).toMatch(/^SESSION_NOT_FOUND: No session "no-such-session"\. Call list/);
    }
    await refused('execute', { command: 'true', session: 'no-such-session' }, 'SESSION_NOT_FOUND');

    const opened = await ok('open', { cwd: work });
    await ok('kill', { session: opened.session, close: true });
    const gone = await refused('execute', { command: 'true', session: opened.session }, 'SESSION_EXITED');
    expect(gone.text).toMatch(/^SESSION_EXITED: Session \w+ has exited/);
    await refused('send', { session: opened.session, text: 'x' }, 'SESSION_EXITED');

    const spawn = await refused('open', { program: '/no/such/program' }, 'SPAWN_FAILED');
    expect(spawn.text).toMatch(/^SPAWN_FAILED: program: "\/no\/such\/program" was not found/);
  });

  it('COMMAND_DENIED by a rule, with no UI open, arrives as CODE: sentence naming the rule; nothing is typed', async () => {
    const denied = await refused('execute', { command: 'true deny-me please', cwd: work }, 'COMMAND_DENIED');
    expect(denied.text).toMatch(/^COMMAND_DENIED: The person's policy denies this \(rule 0, true deny-me\*\): .*the matrix says no/);
    expect(denied.error).toMatchObject({ by: 'policy', rule: { index: 0, match: 'true deny-me*' } });
    const opened = await ok('open', { cwd: work });
    await refused('send', { session: opened.session, text: 'true deny-me typed', keys: ['enter'] }, 'COMMAND_DENIED');
    await ok('kill', { session: opened.session, close: true });
  });

  it('awaiting_approval passes the 1.x client’s schema check, says next in both renderings, and reserves the session', async () => {
    const waiting = await ok('execute', { command: 'true approve-me matrix', cwd: work, timeout_ms: 100 });
    expect(waiting).toMatchObject({ status: 'awaiting_approval', exit_code: null, output: '' });
    expect(waiting.next).toContain(`read {"session":"${waiting.session as string}","view":"command","wait":{"exit":true}}`);
    const busy = await refused('execute', { command: 'true', session: waiting.session }, 'SESSION_BUSY');
    expect(busy.text).toContain((waiting.approval as { id: string }).id);
    const read = await ok('read', { session: waiting.session, wait: { exit: true, timeout_ms: 100 } });
    expect(read).toMatchObject({ waited: 'timeout' });
    // Closing the session withdraws it.
    await ok('kill', { session: waiting.session, close: true });
  });

  it('INVALID_ARGUMENT names the parameter, the value and what is allowed, for every tool', async () => {
    const session = (await ok('execute', { command: 'true', cwd: work })).session;
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['execute', { command: 'true', timeout_ms: 'soon' }, /^INVALID_ARGUMENT: timeout_ms: "soon" .*integer from 1 to 86400000/],
      ['execute', {}, /^INVALID_ARGUMENT: command is required/],
      ['open', { cols: 0 }, /^INVALID_ARGUMENT: cols: 0 /],
      ['send', { session, keys: ['ctrl+q+z'] }, /^INVALID_ARGUMENT: keys/],
      ['read', { session, view: 'sideways' }, /^INVALID_ARGUMENT: view: "sideways" /],
      ['read', { session, wait: { pattern: '(unclosed' } }, /^INVALID_ARGUMENT: wait\.pattern/],
      ['read', { session, wait: { absent: '(unclosed' } }, /^INVALID_ARGUMENT: wait\.absent/],
      ['send', { session, resize: { rows: 1, cols: 80 } }, /^INVALID_ARGUMENT: resize\.rows: 1 .*integer from 2 to 500/],
      ['list', { include_closed: 'perhaps' }, /^INVALID_ARGUMENT: include_closed: "perhaps" /],
      ['kill', { session, signal: 'SIGFOO' }, /^INVALID_ARGUMENT: signal: "SIGFOO" /],
      ['screenshot', { session, theme: 'neon' }, /^INVALID_ARGUMENT: theme: "neon" /],
      ['read', { session, format: 'fancy' }, /^INVALID_ARGUMENT: format: "fancy" .*styled/],
      ['history', { since: 'last week' }, /^INVALID_ARGUMENT: since: "last week" is not a time; .*30m, 2h, 7d/],
    ];
    for (const [tool, args, text] of cases) {
      const answer = await refused(tool, args, 'INVALID_ARGUMENT');
      expect(answer.text, `${tool} ${JSON.stringify(args)}`).toMatch(text);
    }
  });

  it('SESSION_CONTROLLED_BY_USER once the person takes over; reading still works', async () => {
    const mine = await ok('execute', { command: 'echo mine', cwd: work });
    const session = mine.session as string;
    const person = await UiClient.connect(hub, await personCookie(hub));
    try {
      expect(await person.request({ type: 'takeOver', session })).toMatchObject({ type: 'done' });
      const execute = await refused('execute', { command: 'echo again', session }, 'SESSION_CONTROLLED_BY_USER');
      expect(execute.text).toMatch(/^SESSION_CONTROLLED_BY_USER: The person has taken over session/);
      await refused('send', { session, text: 'x' }, 'SESSION_CONTROLLED_BY_USER');
      await refused('send', { session, resize: { rows: 30, cols: 90 } }, 'SESSION_CONTROLLED_BY_USER');
      expect(await ok('read', { session, view: 'command' })).toMatchObject({ content: 'mine', exit_code: 0 });
      expect(await person.request({ type: 'handBack', session })).toMatchObject({ type: 'done' });
      expect(await ok('execute', { command: 'echo back', session })).toMatchObject({ output: 'back' });
    } finally {
      person.close();
    }
  });

  it('LIMIT_REACHED names the setting; closing a session makes room', async () => {
    const live = ((await ok('list', {})).sessions as { state: string }[]).filter((s) => s.state !== 'exited').length;
    const opened: string[] = [];
    for (let i = live; i < MAX_SESSIONS; i++) opened.push((await ok('open', { program: 'cat' })).session as string);
    const full = await refused('open', { program: 'cat' }, 'LIMIT_REACHED');
    expect(full.text).toMatch(new RegExp(`^LIMIT_REACHED: There are already ${MAX_SESSIONS} open sessions \\(setting maxSessions\\)`));
    for (const session of opened) await ok('kill', { session, close: true });
    expect(await ok('open', { program: 'cat' })).toMatchObject({ state: expect.any(String) });
  });

  /**
   * Progress as a host's `onprogress` sees it (docs/design.md §3.4): each note says the state (a
   * running command by its line), the whole seconds since the call started and the output's last
   * line; `progress` increases. The command prints a line when the test writes one to its FIFO,
   * and the test waits for a note showing it: over several intervals, on events only.
   */
  it('progress: execute and read with a wait tell the command, the time and its latest line while it runs', async () => {
    const fifo = path.join(work, 'progress-lines');
    execFileSync('mkfifo', [fifo]);
    // Not a terminal read: the loop runs (`running`) until the test writes `end`.
    const command = `while IFS= read -r line; do [ "$line" = end ] && break; echo "PASS $line"; done < ${fifo}`;
    const named = `${command.slice(0, 59)}…`; // a note names a long command by its start
    const log = progressLog();
    const running = agent.callWithProgress('execute', { command, cwd: work, timeout_ms: 60_000 }, log.onProgress);
    const writer = await openFile(fifo, 'w'); // opens once the loop reads the FIFO
    try {
      await writer.write('src/a.test.ts\n');
      const first = await log.until((note) => note.endsWith(' · PASS src/a.test.ts'), 'a note quoting PASS src/a.test.ts');
      await writer.write('src/b.test.ts\n');
      const second = await log.until((note) => note.endsWith(' · PASS src/b.test.ts'), 'a note quoting PASS src/b.test.ts');
      expect(second).toBeGreaterThan(first);
      await writer.write('end\n');
    } finally {
      await writer.close();
    }
    const done = await running;
    expect(done.sc).toMatchObject({ status: 'completed', exit_code: 0, output: 'PASS src/a.test.ts\nPASS src/b.test.ts' });
    expect(log.notes.length).toBeGreaterThanOrEqual(2);
    for (const note of log.notes) expect(note.message).toMatch(new RegExp(`^${escapeRegExp(named)} · \\d+ s( · PASS src/[ab]\\.test\\.ts)?$`));
    expectIncreasing(log.notes);

    // A read that waits on a running command tells the same.
    const started = await ok('execute', { command, cwd: work, timeout_ms: 100 });
    expect(started.status).toBe('running');
    const reading = progressLog();
    const waiting = agent.callWithProgress('read', { session: started.session, view: 'command', wait: { exit: true, timeout_ms: 60_000 } }, reading.onProgress);
    const again = await openFile(fifo, 'w');
    try {
      await again.write('src/c.test.ts\n');
      await reading.until(
        (note) => note.startsWith(`${named} · `) && note.endsWith(' s · PASS src/c.test.ts'),
        'a note of the read quoting PASS src/c.test.ts',
      );
      await again.write('end\n');
    } finally {
      await again.close();
    }
    expect((await waiting).sc).toMatchObject({ content: 'PASS src/c.test.ts', exit_code: 0, waited: 'exit' });
    expectIncreasing(reading.notes);
  });

  it('progress: waiting for input or for the person is told before the result, not at the next tick', async () => {
    // The call waits for the person for half an interval: no tick falls between the ask and the result.
    const order: string[] = [];
    const session = (await ok('open', { cwd: work })).session;
    const approval = await agent.callWithProgress('execute', { command: 'true approve-me progress', session, timeout_ms: PROGRESS_INTERVAL_MS / 2 }, (note) =>
      order.push(note.message ?? ''),
    );
    order.push('result');
    expect(approval.sc.status).toBe('awaiting_approval');
    expect(order.slice(-2).join('\n')).toMatch(/^awaiting approval · \d+ s · rule 1 true approve-me\*\nresult$/);
    await ok('kill', { session, close: true }); // withdraws it

    // The result follows the note at once, so it is checked on the wire (tapWire: the SDKs may drop it after).
    order.length = 0;
    const from = agent.wire.length;
    const asked = await agent.callWithProgress('execute', { command: 'read -p "Name? " name', cwd: work }, (note) => order.push(note.message ?? ''));
    expect(asked.sc).toMatchObject({ status: 'awaiting_input', input_kind: 'line' });
    const wire = agent.wire.slice(from);
    const told = wire.findIndex((event) => event.kind === 'progress' && /^awaiting input \(line\) · \d+ s · Name\?$/.test(event.message));
    expect(told, JSON.stringify(wire)).toBeGreaterThanOrEqual(0);
    const token = (wire[told] as { token: unknown }).token;
    const answered = wire.findIndex((event) => event.kind === 'response' && String(event.id) === String(token));
    expect(answered, JSON.stringify(wire)).toBeGreaterThan(told);
    // Before that, the notes named the command and quoted its prompt.
    for (const event of wire.slice(0, told)) if (event.kind === 'progress') expect(event.message).toMatch(/^read -p "Name\? " name · \d+ s( · Name\?)?$/);
    await ok('kill', { session: asked.sc.session, close: true });
  });

  it('every success of the suite stands alone as text and as structuredContent', () => {
    expect(successes.length).toBeGreaterThan(20);
    for (const { tool, answer } of successes) expectStandsAlone(tool, answer);
  });
});
