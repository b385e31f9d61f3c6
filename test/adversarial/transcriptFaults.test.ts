/**
 * The adversarial review, "Transcript write failure (disk full)": real write errors, no test hook.
 *
 * - In-process: a session whose `output.log` is a symlink to `/dev/full`, where every write
 *   fails with ENOSPC from the first byte on.
 * - A real `switchboard serve` whose file-size limit is lowered with `prlimit` after it
 *   started: `output.log` fails with EFBIG in the middle of a command's output (a partial
 *   write), while the hub's small files (meta.json, commands.jsonl, audit.jsonl) still fit.
 *
 * Either way the session goes on (exact output, live reads), the hub says it once, and
 * meta.json records where output.log stops.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TerminalSession } from '../../src/core/session/terminalSession.js';
import { COMMANDS_LOG, META_FILE, OUTPUT_LOG, Transcript, sessionMeta, type SessionMeta } from '../../src/core/transcript/transcript.js';
import type { CommandRecord } from '../../src/core/types.js';
import { startBashSession } from '../integration/helpers/core.js';
import type { HubProcess } from '../integration/helpers/hubProcess.js';
import { expectCleanLog, expectHubFine, expectNoLeak, RawHttp, startIsolatedHub, until } from './helpers.js';

const agent = { kind: 'agent', client: 'transcript-faults 1.0' } as const;
const WARNING = /writing output\.log failed/;

function commandsOf(dir: string): CommandRecord[] {
  return fs
    .readFileSync(path.join(dir, COMMANDS_LOG), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as CommandRecord);
}

function metaOf(dir: string): SessionMeta {
  return JSON.parse(fs.readFileSync(path.join(dir, META_FILE), 'utf8')) as SessionMeta;
}

describe('output.log on a full disk (/dev/full, in-process)', () => {
  let root: string;
  let session: TerminalSession | undefined;

  afterEach(async () => {
    await session?.close();
    session = undefined;
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('the session goes on with exact output and live reads; one warning; meta.json says where the log stops', async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-adv-full-'));
    const home = path.join(root, 'home');
    const dir = path.join(root, 'sessions', 'full01');
    fs.mkdirSync(home);
    fs.mkdirSync(dir, { recursive: true });
    fs.symlinkSync('/dev/full', path.join(dir, OUTPUT_LOG));
    const warnings: string[] = [];
    const warn = (message: string): void => void warnings.push(message);

    const transcript = new Transcript(dir, warn, { cols: 100, rows: 30 });
    session = await startBashSession({ id: 'full01', home, creator: agent, transcript, onWarning: warn, scrollback: 1_000, headLines: 200 });
    // As the session manager does once the session is up.
    transcript.writeMeta(sessionMeta(session.info(), home, session.integrationNonce));
    // The prompt's bytes were the first write; it failed by now or fails soon.
    await until(() => warnings.length > 0, 10_000, 'the write failure to be reported');

    const first = await session.execute({ command: "printf 'exact-%s\\n' one two", timeoutMs: 15_000, maxLines: 50 });
    expect(first).toMatchObject({ status: 'completed', exit_code: 0, output: 'exact-one\nexact-two' });
    // More output than the head kept in memory, after the failure: still complete.
    const big = await session.execute({ command: 'seq 1 5000', timeoutMs: 15_000, maxLines: 10 });
    expect(big).toMatchObject({ status: 'completed', exit_code: 0, total_lines: 5000 });
    expect(big.output.startsWith('1\n2\n3\n4\n5\n')).toBe(true);
    expect(big.output.endsWith('4996\n4997\n4998\n4999\n5000')).toBe(true);

    // Live reads come from the emulator, not from the file.
    const screen = await session.read({ clientId: 'reader', view: 'screen', format: 'plain' });
    expect(screen.content).toContain('5000');
    const newer = await session.read({ clientId: 'reader', view: 'new', format: 'plain' });
    expect(newer.state).toBe('idle');
    const last = await session.read({ clientId: 'reader', view: 'command', format: 'plain', offset: 0, limit: 3 });
    expect(last).toMatchObject({ content: '1\n2\n3', total_lines: 5000, seq: 2 });
    expect((await session.execute({ command: 'echo still-$((6*7))', timeoutMs: 15_000, maxLines: 10 })).output).toBe('still-42');

    // Nothing waits for a disk that will never take the bytes, and nothing is queued.
    await transcript.flush();
    expect(transcript.pendingBytes).toBe(0);
    expect(transcript.size).toBeGreaterThan(20_000);

    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(WARNING);
    expect(warnings[0]).toContain('ENOSPC');
    expect(warnings[0]).toContain('full01');

    const ended = session;
    session = undefined;
    await ended.close();
    // commands.jsonl is a healthy file: every command is recorded, in order.
    expect(commandsOf(dir).map((c) => [c.seq, c.exit_code])).toEqual([
      [1, 0],
      [2, 0],
      [3, 0],
    ]);
    expect(metaOf(dir)).toMatchObject({ id: 'full01', transcript_failed_at: 0, transcript_error: 'ENOSPC' });
    expect(warnings).toHaveLength(1);
  });
});

describe('output.log past the hub process file-size limit (a real serve, EFBIG mid-output)', () => {
  /** RLIMIT_FSIZE for the hub, set after it started; its own files stay far below it. */
  const LIMIT = 256 * 1024;
  let hub: HubProcess;
  let stopHub: () => Promise<string>;
  let http: RawHttp;

  beforeAll(async () => {
    ({ hub, cleanup: stopHub } = await startIsolatedHub());
    http = await new RawHttp(hub).initialize('transcript-faults');
  });

  afterAll(async () => {
    await http?.close();
    if (hub) {
      expectCleanLog(await stopHub(), hub);
    }
  });

  function warningsIn(log: string): string[] {
    return log.split('\n').filter((line) => WARNING.test(line));
  }

  it('sessions go on, the hub logs one warning, meta.json and commands.jsonl stay right', async () => {
    const opened = await http.ok('open', { name: 'filling' });
    const id = opened.session as string;
    const dir = path.join(hub.home, 'sessions', id);
    execFileSync('prlimit', ['--pid', String(hub.pid), `--fsize=${LIMIT}:`]);

    // ~589 KB of output: output.log fills up to the limit in the middle of it.
    const big = await http.ok('execute', { session: id, command: 'seq 1 100000', max_lines: 10 });
    expect(big).toMatchObject({ status: 'completed', exit_code: 0, total_lines: 100000 });
    expect(String(big.output).startsWith('1\n2\n3\n4\n5\n')).toBe(true);
    expect(String(big.output).endsWith('99997\n99998\n99999\n100000')).toBe(true);
    await until(() => warningsIn(hub.stderr()).length > 0, 10_000, 'the hub to log the write failure');

    // The session goes on: live reads (the last command's head is kept in memory), exact output.
    const page = await http.ok('read', { session: id, view: 'command', seq: 1, offset: 0, limit: 3 });
    expect(page).toMatchObject({ content: '1\n2\n3', total_lines: 100000 });
    expect(await http.ok('execute', { session: id, command: 'echo after-$((6*7))' })).toMatchObject({ status: 'completed', output: 'after-42' });
    const screen = await http.ok('read', { session: id, view: 'screen' });
    expect(String(screen.content)).toContain('after-42');
    // So does a session opened after the failure.
    const other = await http.ok('open', { name: 'other' });
    expect(await http.ok('execute', { session: other.session, command: 'echo other-ok' })).toMatchObject({ status: 'completed', output: 'other-ok' });

    const closed = await http.call('kill', { session: id, close: true });
    expect(closed.isError).toBe(false);
    await until(() => fs.existsSync(path.join(dir, META_FILE)) && metaOf(dir).closed_at !== null, 10_000, 'meta.json to record the close');

    // output.log holds exactly what fitted; meta.json says so, and how much there was.
    const kept = fs.statSync(path.join(dir, OUTPUT_LOG)).size;
    expect(kept).toBe(LIMIT);
    const meta = metaOf(dir);
    expect(meta).toMatchObject({ transcript_failed_at: LIMIT, transcript_error: 'EFBIG' });
    expect(meta.output_bytes).toBeGreaterThan(588_895);
    expect(meta.transcript_truncated_at).toBeUndefined();
    // commands.jsonl still fits: both commands, in order, with their exit codes.
    expect(commandsOf(dir).map((c) => [c.seq, c.command, c.exit_code])).toEqual([
      [1, 'seq 1 100000', 0],
      [2, 'echo after-$((6*7))', 0],
    ]);

    await expectHubFine(hub);
    const listed = await http.ok('list', { include_closed: true });
    expect((listed.sessions as { id: string; state: string }[]).find((s) => s.id === id)).toMatchObject({ state: 'exited' });
    // Exactly one warning, for the one session whose transcript failed; no leak in it.
    const warnings = warningsIn(hub.stderr());
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(id);
    expect(warnings[0]).toContain('EFBIG');
    expectNoLeak(warnings[0] ?? '', hub, 'the warning');
  });
});
