/**
 * The person's side over `/ws` (docs/design.md §2.8 control, §4.3 endpoints, §5.2 window, §5.4 flow
 * control, §5.5 settings): a real `switchboard serve`, the official MCP client over HTTP as the
 * agent, and real WebSocket clients (`ws`) speaking src/ui-protocol/ as the page does. Runs
 * against dist/: `npm run build` first.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { Client, StreamableHTTPClientTransport, type Tool } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { ClientMessage, HubMessage } from '../../src/ui-protocol/index.js';
import { BIN, cleanEnv, removeHome, ROOT, startHub, type HubProcess } from './helpers/hubProcess.js';
import { whenFile } from './helpers/fileWatch.js';
import { residentKb } from './helpers/processState.js';
import { toolAnswer } from './helpers/toolAnswer.js';
import { get, UiClient, type Frame, type Snapshot } from './helpers/uiClient.js';

const AGENT = { name: 'ui-bridge-agent', version: '3.2.1' };

/** Upgrade attempt with the `ws` client: the HTTP status when refused, 101 when accepted. */
function tryUpgrade(port: number, headers: Record<string, string>, origin?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, { headers, ...(origin ? { origin } : {}) });
    ws.on('unexpected-response', (_req, res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.on('open', () => {
      resolve(101);
      ws.close();
    });
    ws.on('error', (error) => (error.message.includes('Unexpected server response') ? undefined : reject(error)));
  });
}

/** Frames after each snapshot are numbered snapshot.seq + 1, + 2, …; stale ones never arrive. */
function assertNumbered(messages: HubMessage[], session: string): void {
  let expected: number | null = null;
  for (const m of messages) {
    if (m.type === 'snapshot' && m.session === session) {
      if (expected !== null) expect(m.seq).toBeGreaterThanOrEqual(expected);
      expected = m.seq + 1;
    } else if (m.type === 'frame' && m.session === session) {
      expect(expected, 'a frame before any snapshot').not.toBeNull();
      expect(m.seq).toBe(expected);
      expected = m.seq + 1;
    }
  }
}

/**
 * The frames after each snapshot carry the output exactly: the first starts where the snapshot
 * ends (its `through`), each next one where the one before it ended, and each holds output.log's
 * bytes there (checked up to what the file holds yet). For ASCII output, where a frame's bytes
 * are the PTY's. Returns the bytes compared.
 */
function assertFramesMatchTranscript(messages: HubMessage[], session: string, transcript: Buffer): number {
  let at: number | null = null;
  let compared = 0;
  for (const m of messages) {
    if (m.type === 'snapshot' && m.session === session) at = m.through;
    if (m.type !== 'frame' || m.session !== session) continue;
    const start = m.end - m.data.length;
    expect(at, `frame ${m.seq} before any snapshot`).not.toBeNull();
    expect(start, `frame ${m.seq} starts where the snapshot or the frame before it ended`).toBe(at);
    at = m.end;
    if (m.end > transcript.length) continue;
    if (!transcript.subarray(start, m.end).equals(m.data)) expect.fail(`frame ${m.seq} differs from output.log [${start}, ${m.end})`);
    compared += m.data.length;
  }
  return compared;
}

/** Where `text` ends in output.log (it must be there). */
function endOf(transcript: Buffer, text: string): number {
  const at = transcript.indexOf(text);
  expect(at, `"${text}" in output.log`).toBeGreaterThanOrEqual(0);
  return at + Buffer.byteLength(text);
}

/** output.log of `session` under the hub's state dir, once it holds at least `bytes` bytes (written in batches). */
async function transcriptOf(home: string, session: string, bytes = 0): Promise<Buffer> {
  const log = (readdirSync(home, { recursive: true }) as string[]).find((f) => f.endsWith(path.join(session, 'output.log')));
  if (!log) throw new Error(`no output.log for ${session} under ${home}`);
  const file = path.join(home, log);
  await whenFile(file, () => statSync(file).size >= bytes, `output.log to hold ${bytes} bytes`);
  return readFileSync(file);
}

/**
 * Resolves once `text` has arrived in `client`'s frames for `session` since message `from`;
 * rejects at once if the viewer is told it is behind meanwhile (it would see `text` only in a
 * snapshot). Incremental (a marker may be split between two frames): only new frames are decoded.
 */
async function whenFramesShow(client: UiClient, session: string, text: string, from: number, timeoutMs = 20_000): Promise<void> {
  let index = from;
  let tail = '';
  let behind = false;
  await client.waitFor(
    () => {
      for (; index < client.messages.length; index++) {
        const m = client.messages[index]!;
        if (m.type === 'behind' && m.session === session) return (behind = true);
        if (m.type !== 'frame' || m.session !== session) continue;
        const seen = tail + Buffer.from(m.data).toString('latin1');
        if (seen.includes(text)) return true;
        tail = seen.slice(-text.length);
      }
      return false;
    },
    `"${text}" in the frames of ${session}`,
    { from, timeoutMs },
  );
  if (behind) throw new Error(`the viewer was told it is behind before "${text}" arrived in its frames`);
}

describe('the UI bridge on /ws', () => {
  let hub: HubProcess;
  let agent: Client;
  let cookie: string;
  let session: string;
  const clients: UiClient[] = [];

  const call = async (name: string, args: Record<string, unknown>): Promise<{ isError: boolean; text: string; sc: Record<string, unknown> }> => {
    return toolAnswer(await agent.callTool({ name, arguments: args }));
  };
  const listed = async (id: string): Promise<Record<string, unknown>> => {
    const { sc } = await call('list', {});
    const found = (sc.sessions as Record<string, unknown>[]).find((s) => s.id === id);
    if (!found) throw new Error(`session ${id} is not listed`);
    return found;
  };
  const connect = async (options: { autoAck?: boolean } = {}): Promise<UiClient> => {
    const client = await UiClient.connect(hub, cookie, options);
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    hub = await startHub();
    agent = new Client(AGENT);
    await agent.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${hub.port}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${hub.token}` } } }),
    );
    const login = await get(hub.port, `/?key=${hub.uiKey}`);
    cookie = String(login.headers['set-cookie']?.[0] ?? '').split(';')[0]!;
    const opened = await call('execute', { command: 'true' });
    expect(opened.isError, opened.text).toBe(false);
    session = opened.sc.session as string;
  });

  afterAll(async () => {
    for (const client of clients) client.close();
    await agent?.close();
    if (hub) {
      expect(await hub.stop()).toBe(0);
      removeHome(hub.home);
    }
  });

  it('refuses the upgrade without the token or cookie, or with a foreign or missing Origin: never 101', async () => {
    const origin = `http://127.0.0.1:${hub.port}`;
    expect(await tryUpgrade(hub.port, {}, origin)).toBe(401);
    expect(await tryUpgrade(hub.port, { Cookie: `${cookie}x` }, origin)).toBe(401);
    expect(await tryUpgrade(hub.port, { Cookie: cookie }, 'https://evil.example')).toBe(403);
    expect(await tryUpgrade(hub.port, { Cookie: cookie }, `http://127.0.0.1:${hub.port + 1}`)).toBe(403);
    expect(await tryUpgrade(hub.port, { Cookie: cookie })).toBe(403);
    expect(await tryUpgrade(hub.port, { Cookie: cookie }, origin)).toBe(101);
    expect(await tryUpgrade(hub.port, { Authorization: `Bearer ${hub.token}` }, `http://localhost:${hub.port}`)).toBe(101);
  });

  it('trades /?key= for an HttpOnly SameSite=Strict cookie and a redirect without the key; serves the page with a strict CSP', async () => {
    const login = await get(hub.port, `/?key=${hub.uiKey}`);
    expect(login.status).toBe(303);
    expect(login.headers.location).toBe('/');
    const setCookie = String(login.headers['set-cookie']?.[0] ?? '');
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    expect(setCookie).toMatch(/Path=\//);
    expect((await get(hub.port, '/?key=wrong')).status).toBe(401);
    expect((await get(hub.port, `/?token=${hub.token}`)).status).toBe(401);
    expect((await get(hub.port, '/')).status).toBe(401);
    const page = await get(hub.port, '/', { Cookie: cookie });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toMatch(/default-src '(self|none)'/);
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    // Nothing outside the renderer's files: no dot segments, no hidden files, no state dir.
    for (const probe of ['/%2e%2e/%2e%2e/package.json', '/../token', '/.env', '/x/../../token', '/token', '/hub.json']) {
      expect((await get(hub.port, probe, { Cookie: cookie })).status, probe).toBe(404);
    }
    expect((await get(hub.port, '/app.js')).status).toBe(401);
    if (existsSync(path.join(ROOT, 'dist', 'renderer', 'app.js'))) {
      const script = await get(hub.port, '/app.js', { Cookie: cookie });
      expect(script.status).toBe(200);
      expect(script.headers['content-type']).toMatch(/^text\/javascript/);
      expect((await get(hub.port, '/app.css', { Cookie: cookie })).headers['content-type']).toMatch(/^text\/css/);
    }
  });

  it('answers invalid messages with an error and keeps the connection', async () => {
    const ui = await connect();
    let from = ui.mark();
    ui.send('not json');
    expect(await ui.waitFor((m) => m.type === 'error', 'an error', { from })).toMatchObject({ code: 'BAD_MESSAGE' });
    from = ui.mark();
    ui.send({ type: 'launchMissiles', session: session });
    expect(await ui.waitFor((m) => m.type === 'error', 'an error', { from })).toMatchObject({ code: 'BAD_MESSAGE', for: 'launchMissiles' });
    from = ui.mark();
    ui.send({ type: 'resize', session, cols: -3, rows: 'x' } as Record<string, unknown>);
    expect(await ui.waitFor((m) => m.type === 'error', 'an error', { from })).toMatchObject({ code: 'BAD_MESSAGE', for: 'resize' });
    ui.ws.send(Buffer.from([1, 2, 3]), { binary: true });
    expect(await ui.request({ type: 'subscribe', session: 'no-such-session' })).toMatchObject({ type: 'error', code: 'SESSION_NOT_FOUND' });
    expect(ui.closed).toBe(false);
    expect(ui.invalid).toEqual([]);
  });

  it('lists the agent session, then streams a snapshot and numbered frames of what the agent runs', async () => {
    const ui = await connect();
    const sessions = ui.messages.find((m) => m.type === 'sessions');
    const listedHere = sessions?.type === 'sessions' ? sessions.sessions.find((s) => s.id === session) : undefined;
    expect(listedHere).toMatchObject({ creator: { kind: 'agent', client: `${AGENT.name} ${AGENT.version}` }, controller: 'agent' });

    const from = ui.mark();
    ui.send({ type: 'subscribe', session });
    const snapshot = await ui.waitFor<Snapshot>((m) => m.type === 'snapshot' && m.session === session, 'the snapshot', { from });
    const commands = await ui.waitFor((m) => m.type === 'commands' && m.session === session, 'the timeline', { from });
    expect(commands.type === 'commands' && commands.records.length).toBeGreaterThanOrEqual(1);
    const info = await listed(session);
    expect([snapshot.cols, snapshot.rows]).toEqual([info.cols, info.rows]);

    const ran = await call('execute', { command: 'echo visible-$((70+7))', session });
    expect(ran.sc.output).toBe('visible-77');
    await ui.waitForText(session, 'visible-77', from);
    const record = await ui.waitFor((m) => m.type === 'command' && m.session === session && m.record.command.includes('visible'), 'the command record', {
      from,
    });
    expect(record).toMatchObject({ record: { exit_code: 0 } });
    const frames = ui.messages.slice(from).filter((m): m is Frame => m.type === 'frame' && m.session === session);
    expect(frames.length).toBeGreaterThan(0);
    expect(frames[0]!.seq).toBe(snapshot.seq + 1);
    expect(frames.every((f) => f.end > snapshot.through)).toBe(true);
    assertNumbered(ui.messages, session);
  });

  it('never resizes the agent PTY for a watcher; after take over the person is in control, their size wins, and hand back keeps it', async () => {
    const ui = await connect();
    const before = await listed(session);
    ui.send({ type: 'subscribe', session });
    // Processed in order: once the next request is answered, the resize was handled.
    ui.send({ type: 'resize', session, cols: 77, rows: 19 });
    expect(await ui.request({ type: 'input', session, data: 'echo nope\r' })).toMatchObject({ type: 'error', code: 'NOT_IN_CONTROL' });
    const watched = await listed(session);
    expect([watched.cols, watched.rows]).toEqual([before.cols, before.rows]);

    const from = ui.mark();
    expect(await ui.request({ type: 'takeOver', session })).toMatchObject({ type: 'done', for: 'takeOver' });
    await ui.waitFor((m) => m.type === 'sessionChanged' && m.session.id === session && m.session.controller === 'user', 'controller user', { from });
    const taken = await listed(session);
    expect([taken.controller, taken.cols, taken.rows]).toEqual(['user', 77, 19]);

    const refused = await call('execute', { command: 'echo agent-blocked', session });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/^SESSION_CONTROLLED_BY_USER/);

    const typedFrom = ui.mark();
    ui.send({ type: 'input', session, data: 'echo typed-by-person-$((6*7))\r' });
    await ui.waitForText(session, 'typed-by-person-42', typedFrom);
    const tools = await agent.listTools();
    if (tools.tools.some((t) => t.name === 'read')) {
      const screen = await call('read', { session, view: 'screen' });
      expect(String(screen.sc.content)).toContain('typed-by-person-42');
    }

    expect(await ui.request({ type: 'handBack', session })).toMatchObject({ type: 'done', for: 'handBack' });
    const back = await call('execute', { command: 'echo agent-again', session });
    expect(back.isError, back.text).toBe(false);
    expect(back.sc.output).toBe('agent-again');
    const after = await listed(session);
    expect([after.controller, after.cols, after.rows]).toEqual(['agent', 77, 19]);
    // A watcher's resize after hand back changes nothing again.
    ui.send({ type: 'resize', session, cols: 90, rows: 25 });
    await ui.request({ type: 'subscribe', session: 'no-such-session' });
    const still = await listed(session);
    expect([still.cols, still.rows]).toEqual([77, 19]);
  });

  it('interrupts a running sleep back to idle', async () => {
    const ui = await connect();
    const running = await call('execute', { command: 'sleep 1000', session, timeout_ms: 300 });
    expect(running.sc.status).toBe('running');
    const from = ui.mark();
    expect(await ui.request({ type: 'interrupt', session })).toMatchObject({ type: 'done', for: 'interrupt' });
    await ui.waitFor((m) => m.type === 'sessionChanged' && m.session.id === session && m.session.state === 'idle', 'state idle', { from });
    expect((await listed(session)).state).toBe('idle');
  });

  it('shows a secret prompt as "needs you"; what the person types there is in no file of the state dir', async () => {
    const ui = await connect();
    const from = ui.mark();
    ui.send({ type: 'subscribe', session });
    const asked = await call('execute', { command: "read -rs -p 'pw: ' pw; echo; echo got-${#pw}-chars", session, timeout_ms: 15_000 });
    expect(asked.sc.status).toBe('awaiting_input');
    expect(asked.sc.secret).toBe(true);
    await ui.waitFor(
      (m) => m.type === 'sessionChanged' && m.session.id === session && m.session.secret === true && m.session.input_kind === 'secret',
      'needs you',
      { from },
    );
    expect(await ui.request({ type: 'takeOver', session })).toMatchObject({ type: 'done' });
    const typed = ui.mark();
    ui.send({ type: 'input', session, data: 'hunter2-not-logged\r' });
    await ui.waitForText(session, 'got-18-chars', from);
    // The command's end comes after its last output: the tests after this one use the session.
    await ui.waitFor((m) => m.type === 'sessionChanged' && m.session.id === session && m.session.state === 'idle', 'state idle', { from: typed });
    expect(await ui.request({ type: 'handBack', session })).toMatchObject({ type: 'done' });
    const files = (readdirSync(hub.home, { recursive: true }) as string[]).map((f) => path.join(hub.home, f)).filter((f) => statSync(f).isFile());
    for (const file of files) expect(readFileSync(file).includes('hunter2'), file).toBe(false);
  });

  it('survives a flood: a viewer that stops acking falls behind and gets a fresh snapshot when it acks, another stays live, memory stays bounded', async () => {
    const live = await connect({ autoAck: true });
    const lagging = await connect({ autoAck: false });
    const liveFrom = live.mark();
    const lagFrom = lagging.mark();
    live.send({ type: 'subscribe', session });
    lagging.send({ type: 'subscribe', session });
    await live.waitFor((m) => m.type === 'snapshot' && m.session === session, 'snapshot (live)', { from: liveFrom });
    await lagging.waitFor((m) => m.type === 'snapshot' && m.session === session, 'snapshot (lagging)', { from: lagFrom });
    // A third viewer stops reading its socket altogether (a frozen tab).
    const stalled = await connect();
    const stalledFrom = stalled.mark();
    stalled.send({ type: 'subscribe', session });
    await stalled.waitFor((m) => m.type === 'snapshot' && m.session === session, 'snapshot (stalled)', { from: stalledFrom });
    (stalled.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    const rssBefore = residentKb(hub.pid);

    const flood = await call('execute', { command: 'yes | head -n 300000; echo flood-done-$((1+1))', session, timeout_ms: 60_000, max_lines: 5 });
    expect(flood.isError, flood.text).toBe(false);
    expect(flood.sc.status).toBe('completed');

    // The lagging viewer was cut off at the high watermark, not fed the whole backlog.
    await lagging.waitFor((m) => m.type === 'behind' && m.session === session, 'behind', { from: lagFrom });
    const lagFrames = lagging.messages.slice(lagFrom).filter((m): m is Frame => m.type === 'frame' && m.session === session);
    const unacked = lagFrames.reduce((sum, f) => sum + f.data.length, 0);
    expect(unacked).toBeLessThan(200_000);
    // The live viewer saw the end of it, in order.
    await live.waitForText(session, 'flood-done-2', liveFrom, 20_000);
    assertNumbered(live.messages, session);

    // Acking again brings a fresh snapshot (not the backlog), then live frames.
    const resumeFrom = lagging.mark();
    lagging.autoAck = true;
    lagging.send({ type: 'ack', session, bytes: unacked });
    const fresh = await lagging.waitFor<Snapshot>((m) => m.type === 'snapshot' && m.session === session, 'a fresh snapshot', { from: resumeFrom });
    expect(fresh.seq).toBeGreaterThan(lagFrames.at(-1)?.seq ?? 0);
    expect(fresh.data).toContain('flood-done-2');
    const more = await call('execute', { command: 'echo after-$((2+3))', session });
    expect(more.sc.output).toBe('after-5');
    await lagging.waitForText(session, 'after-5', resumeFrom);
    await live.waitForText(session, 'after-5', liveFrom);
    assertNumbered(lagging.messages, session);

    // ~1.2 MB of output: the hub holds no per-viewer backlog (bounded by the watermarks).
    expect(residentKb(hub.pid) - rssBefore).toBeLessThan(150 * 1024);
    // The frames held the output's bytes, each from where its snapshot or the frame before it
    // ended. The live viewer's last frame reaches past the flood's end, so every byte from its
    // latest snapshot (the subscription's, or a catch-up one if the flood outran its acks: the
    // flood is faster than any viewer, so whether it did depends on the machine) to the end of
    // the flood arrived as frames. That a viewer which keeps up gets every byte of a large output
    // as frames, with no snapshot in between, is the next test's (paced, so it cannot be outrun).
    const liveFrames = live.messages.filter((m): m is Frame => m.type === 'frame' && m.session === session);
    const transcript = await transcriptOf(hub.home, session, liveFrames.at(-1)!.end);
    assertFramesMatchTranscript(live.messages, session, transcript);
    expect(liveFrames.at(-1)!.end).toBeGreaterThanOrEqual(endOf(transcript, 'flood-done-2'));
    assertFramesMatchTranscript(lagging.messages, session, transcript);
    expect(live.invalid).toEqual([]);
    expect(lagging.invalid).toEqual([]);
  });

  it('a viewer that keeps acking stays live: every byte of 900 KB of output arrives as frames matching output.log, with no behind and no second snapshot', async () => {
    // The output comes in 45 bursts of 20 KB, each let go (through a FIFO the loop reads) once
    // this viewer has received and acked the one before. (`until read`: a read that opened the
    // FIFO while the last writer was still closing gets end-of-file, not the next line.) A burst arrives at the PTY's full
    // speed, but the viewer's unacked bytes stay below the high watermark (100 000) however
    // slowly this machine runs the test: the claim cannot depend on the machine's speed, as it
    // would under one unpaced flood.
    const CHUNKS = 45;
    // Beside the state folder, not in it: the agent's sandboxed session may not see that one.
    const gate = path.join(mkdtempSync(path.join(tmpdir(), 'sb-paced-')), 'paced-gate');
    execFileSync('mkfifo', [gate]);
    const viewer = await connect({ autoAck: true });
    const from = viewer.mark();
    viewer.send({ type: 'subscribe', session });
    const snapshot = await viewer.waitFor<Snapshot>((m) => m.type === 'snapshot' && m.session === session, 'snapshot', { from });
    const command = `for i in $(seq 1 ${CHUNKS}); do yes | head -n 6667; echo chunk-$i-end; until read -r _ < ${gate}; do :; done; done; echo paced-done-$((2+2))`;
    let shown = viewer.mark(); // the first burst goes at once
    const started = await call('execute', { command, session, timeout_ms: 300, max_lines: 2 });
    expect(started.sc.status).toBe('running');
    for (let i = 1; i <= CHUNKS; i++) {
      await whenFramesShow(viewer, session, `chunk-${i}-end`, shown);
      shown = viewer.mark();
      await writeFile(gate, '\n'); // opens when the loop reads the FIFO: the next burst goes
    }
    await whenFramesShow(viewer, session, 'paced-done-4', shown);
    const finished = await call('read', { session, view: 'command', wait: { exit: true, timeout_ms: 10_000 } });
    expect(finished.sc).toMatchObject({ waited: 'exit', state: 'idle' });

    // One copy of what arrived, judged whole: frames still come (the prompt after the command),
    // and a later copy would hold frames past the lastEnd taken from this one.
    const received = viewer.messages.slice(from);
    const since = received.filter((m) => 'session' in m && m.session === session);
    expect(since.filter((m) => m.type === 'behind')).toEqual([]);
    expect(since.filter((m) => m.type === 'snapshot')).toHaveLength(1);
    assertNumbered(received, session);
    const frames = since.filter((m): m is Frame => m.type === 'frame');
    const lastEnd = frames.at(-1)!.end;
    const transcript = await transcriptOf(hub.home, session, lastEnd);
    // Contiguous from the snapshot on, equal to output.log, through the end of the output.
    expect(assertFramesMatchTranscript(received, session, transcript)).toBe(lastEnd - snapshot.through);
    expect(lastEnd).toBeGreaterThanOrEqual(endOf(transcript, 'paced-done-4'));
    expect(lastEnd - snapshot.through).toBeGreaterThan(CHUNKS * 20_000);
    expect(viewer.invalid).toEqual([]);
    rmSync(path.dirname(gate), { recursive: true, force: true });
  });

  it('under an endless flood, a viewer that keeps falling behind gets a fresh snapshot at most every 2 s, and the final screen once it stops', async () => {
    const slow = await connect({ autoAck: false });
    slow.ackWhenBehind = true;
    const from = slow.mark();
    slow.send({ type: 'subscribe', session });
    await slow.waitFor((m) => m.type === 'snapshot' && m.session === session, 'snapshot', { from });
    const started = await call('execute', { command: 'yes endless-flood', session, timeout_ms: 300, max_lines: 2 });
    expect(started.sc.status).toBe('running');
    await slow.waitFor((m) => m.type === 'behind' && m.session === session, 'behind', { from });
    const floodFrom = slow.mark();
    const floodStart = Date.now();
    // Behind again and again for a window of at least 3 s: the hub serializes the scrollback at
    // most once per 2 s for this viewer, not at every ack. A rate, so the bound comes from the
    // window as observed (a busy machine stretches it, and allows it more snapshots), and the
    // unit test (sessionViewer.test.ts) checks the interval itself on a fake clock.
    await slow.waitFor(() => Date.now() - floodStart > 3_000, 'three seconds of flood', { from: floodFrom, timeoutMs: 10_000 });
    const windowMs = Date.now() - floodStart;
    const during = slow.messages.slice(floodFrom).filter((m) => m.type === 'snapshot' && m.session === session).length;
    const behinds = slow.messages.slice(floodFrom).filter((m) => m.type === 'behind' && m.session === session).length;
    expect(during).toBeGreaterThanOrEqual(1);
    expect(during).toBeLessThanOrEqual(1 + Math.floor(windowMs / 2_000));
    expect(behinds).toBeLessThanOrEqual(during + 1);
    expect((await call('kill', { session, signal: 'SIGINT' })).isError).toBe(false);
    // The flood's end is the D mark: wait for it, as an agent would when kill answers before the
    // job was seen ending (ended_by null: its 300 ms wait is short while the hub parses a flood).
    expect((await call('read', { session, view: 'command', wait: { exit: true, timeout_ms: 10_000 } })).sc).toMatchObject({ waited: 'exit' });
    const done = await call('execute', { command: 'echo flood-stopped-$((5+5))', session });
    expect(done.sc.output).toBe('flood-stopped-10');
    // The flood is over: the viewer catches up at once (not after the interval) and shows the end.
    await slow.waitForText(session, 'flood-stopped-10', floodFrom, 5_000);
    assertNumbered(slow.messages, session);
    expect(slow.invalid).toEqual([]);
  });

  it("opens and closes the person's own terminal", async () => {
    const ui = await connect();
    const opened = await ui.request({ type: 'openTerminal', cols: 100, rows: 30 });
    expect(opened).toMatchObject({ type: 'done', for: 'openTerminal' });
    const id = opened.type === 'done' ? opened.session! : '';
    const mine = await listed(id);
    expect(mine).toMatchObject({ creator: { kind: 'user' }, controller: 'user', cols: 100, rows: 30 });
    const from = ui.mark();
    ui.send({ type: 'subscribe', session: id });
    await ui.waitFor((m) => m.type === 'snapshot' && m.session === id, 'snapshot', { from });
    ui.send({ type: 'input', session: id, data: 'echo mine-$((3*3))\r' });
    await ui.waitForText(id, 'mine-9', from);
    expect(await ui.request({ type: 'close', session: id })).toMatchObject({ type: 'done', for: 'close' });
    await ui.waitFor((m) => m.type === 'sessionRemoved' && m.id === id, 'sessionRemoved', { from });
  });

  it("shows the hub's settings and saves a change: maxLines for the agent's next execute at once, bodyLimitBytes at the next start; refuses what is invalid, held by the environment or unknown", async () => {
    type Settings = Extract<HubMessage, { type: 'hubSettings' }>;
    const ui = await connect();
    const file = path.join(hub.home, 'settings.json');
    const onDisk = (): string | null => (existsSync(file) ? readFileSync(file, 'utf8') : null);
    let from = ui.mark();
    ui.send({ type: 'getSettings' });
    const shown = await ui.waitFor<Settings>((m) => m.type === 'hubSettings', 'the hub settings', { from });
    const byKey = new Map(shown.settings.map((s) => [s.key, s]));
    expect(byKey.get('maxLines')).toMatchObject({ kind: 'number', value: 200, saved: 200, default: 200, applies: 'calls', inFile: false });
    expect(byKey.get('port')).toMatchObject({ env: 'SWITCHBOARD_PORT', value: 0, applies: 'restart' });

    const before = onDisk();
    for (const [changes, says] of [
      [{ maxLines: 99_999 }, /maxLines must be at most 10000/],
      [{ port: 8000 }, /SWITCHBOARD_PORT/],
      [{ nope: 1 }, /no setting "nope"/],
    ] as const) {
      const answer = await ui.request({ type: 'setSettings', changes });
      expect(answer).toMatchObject({ type: 'error', code: 'INVALID_ARGUMENT', for: 'setSettings' });
      expect(answer.type === 'error' ? answer.message : '').toMatch(says);
    }
    expect(await ui.request({ type: 'setSettings', changes: {} } as ClientMessage)).toMatchObject({ type: 'error', code: 'BAD_MESSAGE' });
    expect(onDisk()).toBe(before);

    const other = await connect();
    const otherFrom = other.mark();
    // An MCP host connected through the shim before the change: it is told the tool list
    // changed, and the listing names the new default.
    let listChanged!: (tools: Tool[]) => void;
    const relisted = new Promise<Tool[]>((resolve) => (listChanged = resolve));
    const host = new Client(
      { name: 'settings-watcher', version: '1.0.0' },
      { listChanged: { tools: { onChanged: (error, tools) => (error ? undefined : listChanged(tools ?? [])) } } },
    );
    await host.connect(
      new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env: cleanEnv({ SWITCHBOARD_HOME: hub.home }), cwd: ROOT, stderr: 'ignore' }),
    );
    const maxLinesText = (tools: Tool[]): string => JSON.stringify(tools.find((tool) => tool.name === 'execute')?.inputSchema.properties?.max_lines);
    expect(maxLinesText((await host.listTools()).tools)).toContain('default 200');
    from = ui.mark();
    expect(await ui.request({ type: 'setSettings', changes: { maxLines: 4, bodyLimitBytes: 8 * 1024 * 1024 } })).toMatchObject({
      type: 'done',
      for: 'setSettings',
    });
    const told = await Promise.race([relisted, new Promise<null>((resolve) => setTimeout(() => resolve(null), 10_000).unref())]);
    expect(told, 'the connected host was not told the tool list changed within 10 s').not.toBeNull();
    expect(maxLinesText(told ?? [])).toContain('default 4');
    await host.close();
    const saved = await ui.waitFor<Settings>((m) => m.type === 'hubSettings', 'the settings after the change', { from });
    // Another open settings page shows the change too.
    const seen = await other.waitFor<Settings>((m) => m.type === 'hubSettings', 'the change, on the other UI', { from: otherFrom });
    expect(seen.settings.find((s) => s.key === 'maxLines')).toMatchObject({ value: 4 });
    expect(saved.settings.find((s) => s.key === 'maxLines')).toMatchObject({ value: 4, saved: 4, inFile: true });
    // The endpoints keep what they started with; the file holds the new value for the next start.
    expect(saved.settings.find((s) => s.key === 'bodyLimitBytes')).toMatchObject({ value: 4 * 1024 * 1024, saved: 8 * 1024 * 1024 });
    expect(JSON.parse(onDisk() ?? '{}')).toEqual({ maxLines: 4, bodyLimitBytes: 8 * 1024 * 1024 });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const short = await call('execute', { command: 'seq 1 10' });
    expect(short.sc).toMatchObject({ exit_code: 0, total_lines: 10, truncated: true });
    expect(String(short.sc.output).split('\n')).toEqual(expect.arrayContaining(['1', '2', '9', '10']));
    expect(String(short.sc.output).split('\n')).not.toContain('5');

    // Back to the defaults: out of the file, and in force at once.
    expect(await ui.request({ type: 'setSettings', changes: { maxLines: null, bodyLimitBytes: null } })).toMatchObject({ type: 'done' });
    expect(JSON.parse(onDisk() ?? '{}')).toEqual({});
    const whole = await call('execute', { command: 'seq 1 10' });
    expect(whole.sc).toMatchObject({ total_lines: 10, truncated: false });
  });

  it('applies settings.json edited by hand while it runs, like a change on the page; an edit that does not load keeps the settings in force and says why', async () => {
    type Settings = Extract<HubMessage, { type: 'hubSettings' }>;
    const ui = await connect();
    const file = path.join(hub.home, 'settings.json');
    const maxLines = (view: Settings): unknown => view.settings.find((s) => s.key === 'maxLines')?.value;
    let from = ui.mark();
    writeFileSync(file, JSON.stringify({ maxLines: 4 }));
    const applied = await ui.waitFor<Settings>((m) => m.type === 'hubSettings' && maxLines(m) === 4, 'the hand edit, applied', { from });
    expect(applied.problem).toBeUndefined();
    expect((await call('execute', { command: 'seq 1 10' })).sc).toMatchObject({ total_lines: 10, truncated: true });

    for (const [text, says] of [
      ['{ "maxLines": 40,', /is not valid JSON/],
      [JSON.stringify({ maxLines: 99_999 }), /maxLines must be at most 10000/],
    ] as const) {
      from = ui.mark();
      writeFileSync(file, text);
      const refused = await ui.waitFor<Settings>((m) => m.type === 'hubSettings' && m.problem !== undefined, 'the edit that does not load', { from });
      expect(refused.problem).toMatch(says);
      expect(maxLines(refused)).toBe(4); // in force, unchanged
    }
    await hub.waitForStderr('changed but was not applied');
    expect((await call('execute', { command: 'seq 1 10' })).sc).toMatchObject({ truncated: true });

    // The file removed: every setting back to its default.
    from = ui.mark();
    rmSync(file);
    await ui.waitFor<Settings>((m) => m.type === 'hubSettings' && maxLines(m) === 200 && m.problem === undefined, 'the defaults', { from });
    expect((await call('execute', { command: 'seq 1 10' })).sc).toMatchObject({ total_lines: 10, truncated: false });
  });

  it("writes the person's actions to audit.jsonl, typing as byte counts only", async () => {
    const lines = readFileSync(path.join(hub.home, 'audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((entry) => entry.actor === 'person');
    const actions = lines.map((entry) => entry.action);
    for (const action of ['take_over', 'hand_back', 'interrupt', 'input', 'open_terminal', 'close', 'change_settings']) expect(actions).toContain(action);
    // Which settings changed, never to what.
    expect(lines.find((entry) => entry.action === 'change_settings')).toEqual({
      time: expect.any(String),
      actor: 'person',
      action: 'change_settings',
      channel: 'window',
      settings: ['maxLines', 'bodyLimitBytes'],
    });
    const input = lines.find((entry) => entry.action === 'input' && entry.session === session);
    expect(input).toMatchObject({ session, bytes: Buffer.byteLength('echo typed-by-person-$((6*7))\r') });
    for (const entry of lines) expect(typeof entry.time).toBe('string');
    const raw = readFileSync(path.join(hub.home, 'audit.jsonl'), 'utf8');
    expect(raw).not.toContain('typed-by-person');
    expect(raw).not.toContain('mine-');
  });

  it('replaces the token when the person asks: the old one opens nothing new, connections already open carry on', async () => {
    const ui = await connect();
    const old = hub.token;
    const from = ui.mark();
    // Marker files before and after: the token's age is a reading of the same file-system clock.
    const stamp = (name: string): number => (writeFileSync(path.join(hub.home, name), ''), statSync(path.join(hub.home, name)).mtimeMs);
    const before = stamp('before-rotation');
    expect(await ui.request({ type: 'rotateToken' })).toMatchObject({ type: 'done', for: 'rotateToken' });
    const rotated = await ui.waitFor<Extract<HubMessage, { type: 'tokenRotated' }>>((m) => m.type === 'tokenRotated', 'tokenRotated', { from });
    const fresh = readFileSync(path.join(hub.home, 'token'), 'utf8').trim();
    const freshKey = readFileSync(path.join(hub.home, 'ui-key'), 'utf8').trim();
    expect(fresh).not.toBe(old);
    expect(freshKey).not.toBe(hub.uiKey);
    // A browser page (signed in with the cookie) gets the new UI key to renew its cookie with; never the token.
    expect(rotated.key).toBe(freshKey);
    expect(JSON.stringify(ui.messages.slice(from))).not.toContain(fresh);
    const settings = await ui.waitFor<Extract<HubMessage, { type: 'hubSettings' }>>((m) => m.type === 'hubSettings', 'the token age on the settings page', {
      from,
    });
    const after = stamp('after-rotation');
    // (The page is sent whole milliseconds; the markers' times have fractions.)
    expect(settings.tokenWrittenAt).toBeGreaterThanOrEqual(Math.floor(before));
    expect(settings.tokenWrittenAt).toBeLessThanOrEqual(Math.ceil(after));
    expect((await get(hub.port, '/mcp', { Authorization: `Bearer ${old}` })).status).toBe(401);
    expect((await get(hub.port, `/?key=${hub.uiKey}`)).status).toBe(401);
    expect((await get(hub.port, '/', { Cookie: cookie })).status).toBe(401);
    expect((await get(hub.port, `/?key=${freshKey}`)).status).toBe(303);
    expect(await tryUpgrade(hub.port, { Authorization: `Bearer ${old}` }, `http://127.0.0.1:${hub.port}`)).toBe(401);
    expect(await tryUpgrade(hub.port, { Authorization: `Bearer ${fresh}` }, `http://127.0.0.1:${hub.port}`)).toBe(101);
    // This page's connection stays open.
    const again = ui.mark();
    ui.send({ type: 'getSettings', req: 77 });
    await ui.waitFor((m) => m.type === 'hubSettings' && m.req === 77, 'an answer on the open connection', { from: again });
    // The address `serve` printed holds the old token: it says so (the token itself only on a terminal).
    await hub.waitForStderr('the token and the UI key were replaced; the UI is now at');
    expect(hub.stderr()).not.toContain(fresh);
    expect(hub.stderr()).not.toContain(freshKey);
    const entry = readFileSync(path.join(hub.home, 'audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((line) => line.action === 'rotate_token');
    expect(entry).toEqual({ time: expect.any(String), actor: 'person', action: 'rotate_token', channel: 'window' });
  });
});
