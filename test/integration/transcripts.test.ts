/**
 * Transcripts and history (docs/design.md §2.7) with real shells: output.log holds every byte the
 * PTY produced, commands.jsonl slices it per command, closed sessions survive a hub restart until
 * retention removes them, and the asciicast export replays output.log exactly.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { asciicastLines } from '../../src/core/transcript/asciicast.js';
import { readClosedSession } from '../../src/core/session/closedSessionReader.js';
import { SessionManager, type CoreSettings } from '../../src/core/session/sessionManager.js';
import { SessionStore } from '../../src/core/transcript/sessionStore.js';
import type { TerminalSession } from '../../src/core/session/terminalSession.js';
import { META_FILE, OUTPUT_LOG, TIMING_LOG, Transcript, type SessionMeta } from '../../src/core/transcript/transcript.js';
import type { CommandRecord } from '../../src/core/types.js';
import { agent, tempHome, testSettings } from './helpers/core.js';
import { shellPath } from './helpers/shells.js';

const managers: SessionManager[] = [];

afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.dispose()));
});

/** A manager on `stateDir` (a new one on the same dir is a hub restart). */
function managerOn(dirs: { home: string; stateDir: string }, settings: Partial<CoreSettings> = {}): SessionManager {
  const manager = new SessionManager({
    settings: testSettings(settings),
    stateDir: dirs.stateDir,
    baseEnv: { PATH: process.env.PATH, HOME: dirs.home, LANG: 'C.UTF-8', USER: process.env.USER ?? 'root' },
    onWarning: () => {},
  });
  managers.push(manager);
  return manager;
}

async function run(session: TerminalSession, command: string): Promise<void> {
  const result = await session.execute({ command, timeoutMs: 15_000, maxLines: 50 });
  expect(result.status).toBe('completed');
}

function sessionDir(stateDir: string, id: string): string {
  return path.join(stateDir, 'sessions', id);
}

function readMeta(stateDir: string, id: string): SessionMeta {
  return JSON.parse(fs.readFileSync(path.join(sessionDir(stateDir, id), META_FILE), 'utf8')) as SessionMeta;
}

function writeMeta(stateDir: string, id: string, meta: SessionMeta): void {
  fs.writeFileSync(path.join(sessionDir(stateDir, id), META_FILE), JSON.stringify(meta));
}

async function castOf(dir: string): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of asciicastLines(dir)) lines.push(line);
  return lines
    .join('')
    .split('\n')
    .filter((line) => line.length > 0);
}

const X_COMMAND = "head -c 100000 /dev/zero | tr '\\0' x";
const X_RUN = 'x'.repeat(100_000);

describe('transcripts', () => {
  it('keeps every PTY byte and one sliceable record per command', async () => {
    const dirs = tempHome();
    const manager = managerOn(dirs);
    const session = await manager.open({ creator: agent, name: 'bytes' });
    await run(session, 'echo hello-$((6*7))');
    await run(session, X_COMMAND);
    await session.execute({ command: '(exit 3)', timeoutMs: 10_000, maxLines: 10 });
    await session.close();

    const dir = sessionDir(dirs.stateDir, session.id);
    const log = fs.readFileSync(path.join(dir, OUTPUT_LOG));
    const meta = readMeta(dirs.stateDir, session.id);
    expect(log.length).toBe(meta.output_bytes);
    expect(meta.transcript_truncated_at).toBeUndefined();
    // The x's went through no line discipline (no newline): exactly 100 000 of them, in one run.
    const text = log.toString('latin1');
    expect(text.match(/x+/g)?.some((run) => run.length === 100_000)).toBe(true);
    expect(text.includes('x'.repeat(100_001))).toBe(false);

    expect(meta).toMatchObject({ id: session.id, name: 'bytes', creator: agent, program: shellPath('bash'), rows: 30, cols: 100 });
    expect(meta.closed_at).toEqual(expect.any(String));
    expect(fs.statSync(path.join(dir, META_FILE)).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);

    const records = fs
      .readFileSync(path.join(dir, 'commands.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as CommandRecord);
    expect(records.map((r) => [r.command, r.exit_code])).toEqual([
      ['echo hello-$((6*7))', 0],
      [X_COMMAND, 0],
      ['(exit 3)', 3],
    ]);
    const slice = (r: CommandRecord): string => log.subarray(r.output_start_byte, r.output_end_byte ?? undefined).toString('latin1');
    expect(slice(records[0]!)).toContain('hello-42');
    expect(slice(records[0]!)).not.toContain('xxxx');
    expect(slice(records[1]!)).toContain(X_RUN);
    expect(slice(records[1]!)).not.toContain('hello-42');
    for (const r of records) expect(r.output_end_byte).toBeGreaterThanOrEqual(r.output_start_byte);

    // The store reads the same, by id.
    const store = manager.store!;
    expect(store.commands(session.id)).toEqual(records);
    const r1 = records[1]!;
    expect(store.readOutput(session.id, r1.output_start_byte, r1.output_end_byte!).toString('latin1')).toBe(slice(r1));
    expect(store.readOutput(session.id, log.length - 10, log.length + 1000).length).toBe(10);
  });

  it('lists closed sessions with their commands after a hub restart, without duplicates', async () => {
    const dirs = tempHome();
    const first = managerOn(dirs);
    const closed = await first.open({ creator: agent, name: 'before-restart' });
    await run(closed, 'echo kept-across-restart');
    const live = await first.open({ creator: { kind: 'user' } });
    await closed.close();
    expect(first.list(true).filter((s) => s.id === closed.id)).toHaveLength(1);
    await first.dispose(); // the hub stops: `live` closes with it

    const second = managerOn(dirs);
    expect(second.list(false)).toEqual([]);
    const listed = second.list(true);
    expect(listed.map((s) => s.id).sort()).toEqual([closed.id, live.id].sort());
    const info = listed.find((s) => s.id === closed.id)!;
    expect(info).toMatchObject({ name: 'before-restart', state: 'exited', creator: agent, command: null });
    expect(info.closed_at).toEqual(expect.any(String));
    expect(second.store!.commands(closed.id).map((r) => r.command)).toEqual(['echo kept-across-restart']);
    expect(second.store!.info('before-restart')?.id).toBe(closed.id);

    // A session this hub opens and closes is listed once, not again from disk.
    const fresh = await second.open({ creator: agent });
    expect(second.list(true).filter((s) => s.id === fresh.id)).toMatchObject([{ state: 'idle' }]);
    await fresh.close();
    expect(second.list(true).filter((s) => s.id === fresh.id)).toMatchObject([{ state: 'exited' }]);
    expect(new Set(second.list(true).map((s) => s.id)).size).toBe(3);
  });

  it('reports a session the dead hub never closed as exited at its last output', async () => {
    const dirs = tempHome();
    const first = managerOn(dirs);
    const session = await first.open({ creator: agent });
    await run(session, 'echo before-the-crash');
    await first.dispose();
    // What a SIGKILLed hub leaves: meta.json as written at open (no closed_at, no exit code).
    const meta = readMeta(dirs.stateDir, session.id);
    writeMeta(dirs.stateDir, session.id, { ...meta, closed_at: null, exit_code: null });
    const lastWrite = new Date('2030-01-02T03:04:05.000Z');
    fs.utimesSync(path.join(sessionDir(dirs.stateDir, session.id), OUTPUT_LOG), lastWrite, lastWrite);

    const info = managerOn(dirs)
      .list(true)
      .find((s) => s.id === session.id);
    expect(info).toMatchObject({ state: 'exited', exit_code: null, closed_at: lastWrite.toISOString() });
  });

  it('retention removes old, then oldest closed sessions over the byte budget, never live ones', async () => {
    const dirs = tempHome();
    const manager = managerOn(dirs);
    const old = await manager.open({ creator: agent, name: 'old' });
    const older = await manager.open({ creator: agent, name: 'recent-1' });
    const newer = await manager.open({ creator: agent, name: 'recent-2' });
    const live = await manager.open({ creator: agent, name: 'live' });
    await run(live, X_COMMAND);
    for (const s of [old, older, newer]) await s.close();
    const now = Date.now();
    const at = (daysAgo: number): string => new Date(now - daysAgo * 86_400_000).toISOString();
    writeMeta(dirs.stateDir, old.id, { ...readMeta(dirs.stateDir, old.id), closed_at: at(30) });
    writeMeta(dirs.stateDir, older.id, { ...readMeta(dirs.stateDir, older.id), closed_at: at(2) });
    writeMeta(dirs.stateDir, newer.id, { ...readMeta(dirs.stateDir, newer.id), closed_at: at(1) });
    const store = manager.store!;

    // Days: only the 30-day-old one goes.
    expect(store.applyRetention({ days: 14, bytes: 1e12 }).removed).toEqual([old.id]);
    expect(fs.existsSync(sessionDir(dirs.stateDir, old.id))).toBe(false);
    expect(manager.list(true).map((s) => s.id)).not.toContain(old.id);

    // Bytes: the live session alone (100 kB of x) is over budget: the closed ones go, oldest first.
    const result = store.applyRetention({ days: 14, bytes: 50_000 });
    expect(result.removed).toEqual([older.id, newer.id]);
    expect(fs.existsSync(sessionDir(dirs.stateDir, live.id))).toBe(true);
    await run(live, 'echo still-recording');
    await live.close(); // flushes the transcript: writes are asynchronous until then
    expect(fs.readFileSync(path.join(sessionDir(dirs.stateDir, live.id), OUTPUT_LOG), 'latin1')).toContain('still-recording');
    expect(manager.list(true).map((s) => s.id)).toEqual([live.id]);
  });

  it('applies retention when a hub starts', async () => {
    const dirs = tempHome();
    const first = managerOn(dirs);
    const session = await first.open({ creator: agent });
    await first.dispose();
    writeMeta(dirs.stateDir, session.id, { ...readMeta(dirs.stateDir, session.id), closed_at: new Date(Date.now() - 20 * 86_400_000).toISOString() });
    const second = managerOn(dirs, { retentionDays: 14 });
    expect(fs.existsSync(sessionDir(dirs.stateDir, session.id))).toBe(false);
    expect(second.list(true)).toEqual([]);
  });

  it('stops growing output.log at transcriptMaxBytes, counts on and marks the cut in meta.json', async () => {
    const dirs = tempHome();
    const manager = managerOn(dirs, { transcriptMaxBytes: 10_000 });
    const session = await manager.open({ creator: agent });
    await run(session, X_COMMAND);
    await session.close();
    const meta = readMeta(dirs.stateDir, session.id);
    expect(fs.statSync(path.join(sessionDir(dirs.stateDir, session.id), OUTPUT_LOG)).size).toBe(10_000);
    expect(meta.transcript_truncated_at).toBe(10_000);
    expect(meta.output_bytes).toBeGreaterThan(100_000);
  });

  it('read view=command says where output.log stops instead of replaying past it, live and closed', async () => {
    const dirs = tempHome();
    const manager = managerOn(dirs, { transcriptMaxBytes: 20_000, headLines: 10 });
    const session = await manager.open({ creator: agent });
    await run(session, 'seq 1 5000'); // command 1, ~29 KB: the cap falls inside it
    await run(session, 'echo after'); // command 2, all of it past the cap
    await run(session, 'true'); // so that command 2 is no longer the one on screen
    const page = await session.read({ clientId: 'test', view: 'command', format: 'plain', seq: 1, offset: 0, limit: 5000 });
    expect(page.truncated).toBe(true);
    expect((page.content as string).split('\n')[0]).toMatch(/output\.log stops inside this command's output \(it reached the transcriptMaxBytes setting\)/);
    expect((page.content as string).split('\n').slice(1, 4)).toEqual(['1', '2', '3']);
    await expect(session.read({ clientId: 'test', view: 'command', format: 'plain', seq: 2, offset: 0, limit: 10 })).rejects.toThrow(
      /not on disk: session \w+'s output\.log stops at byte 20000 because it reached the transcriptMaxBytes setting/,
    );
    await session.close();
    const closed = await readClosedSession(
      new SessionStore(path.join(dirs.stateDir, 'sessions')),
      session.id,
      { clientId: 'test', view: 'command', format: 'plain', seq: 1, offset: 0, limit: 5000 },
      1_000,
    );
    expect(closed.content).toBe(page.content);
  });
});

describe('asciicast export', () => {
  it('replays output.log exactly: valid JSON lines, the right size, monotonic times', async () => {
    const dirs = tempHome();
    const manager = managerOn(dirs);
    const openedFrom = Date.now();
    const session = await manager.open({ creator: agent, name: 'cast', cols: 90, rows: 25 });
    await run(session, "echo fir''st; sleep 0.3; echo sec''ond"); // the echoed line never matches
    // 500 kB of multi-byte characters: many fall across the exporter's 64 KB slices.
    await run(session, "yes '€😀é' | head -n 50000");
    await session.close();
    const dir = sessionDir(dirs.stateDir, session.id);

    const lines = await castOf(dir);
    const parsed = lines.map((line) => JSON.parse(line) as unknown);
    const header = parsed[0] as Record<string, unknown>;
    expect(header).toMatchObject({ version: 2, width: 90, height: 25, title: 'cast', env: { TERM: 'xterm-256color', SHELL: shellPath('bash') } });
    // When the session started: the transcript's start (its timing log), taken while it opened,
    // before the session object was made (an order on one clock, not a tolerance).
    const startedAt = (JSON.parse(fs.readFileSync(path.join(dir, TIMING_LOG), 'utf8').split('\n')[0]!) as { started_at: number }).started_at;
    expect(header.timestamp).toBe(Math.floor(startedAt / 1000));
    expect(startedAt).toBeGreaterThanOrEqual(openedFrom);
    expect(startedAt).toBeLessThanOrEqual(Date.parse(readMeta(dirs.stateDir, session.id).created_at));

    const events = parsed.slice(1) as [number, string, string][];
    let last = 0;
    for (const [time, code, data] of events) {
      expect(time).toBeGreaterThanOrEqual(last);
      expect(code).toBe('o');
      expect(typeof data).toBe('string');
      last = time;
    }
    const played = events.map(([, , data]) => data).join('');
    const expected = new TextDecoder().decode(fs.readFileSync(path.join(dir, OUTPUT_LOG)));
    expect(played).toBe(expected);
    expect(played).not.toContain('\uFFFD');
    expect(played).toContain('€😀é');
    // The pause between first and second is in the timing.
    const timeOf = (text: string): number | undefined => {
      let seen = '';
      return events.find(([, , data]) => (seen += data).includes(text))?.[0];
    };
    const firstAt = timeOf('first\r\n');
    const secondAt = timeOf('second\r\n');
    expect(firstAt).toBeDefined();
    expect(secondAt! - firstAt!).toBeGreaterThanOrEqual(0.25);
  });

  it('places resize events between the output before and after them', async () => {
    const dirs = tempHome();
    const dir = path.join(dirs.stateDir, 'sessions', 'resized');
    const transcript = new Transcript(dir, () => {}, { cols: 80, rows: 24 });
    const utf8 = new TextEncoder().encode('before €');
    transcript.append(utf8.subarray(0, 8)); // "before " and the first byte of €
    transcript.resize(132, 40);
    transcript.append(utf8.subarray(8)); // the rest of €
    transcript.append(new TextEncoder().encode(' after'));
    await transcript.close();
    expect(fs.readFileSync(path.join(dir, TIMING_LOG), 'utf8')).toContain('"r",132,40');

    const parsed = (await castOf(dir)).map((line) => JSON.parse(line) as unknown);
    expect(parsed[0]).toMatchObject({ version: 2, width: 80, height: 24 });
    expect(parsed.slice(1).map((e) => (e as unknown[]).slice(1))).toEqual([
      ['o', 'before '],
      ['r', '132x40'],
      ['o', '€ after'],
    ]);
  });

  it('exports what a session holds without meta.json or timing (older transcripts)', async () => {
    const store = new SessionStore(path.join(tempHome().stateDir, 'sessions'));
    const dir = store.sessionDir('bare');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, OUTPUT_LOG), 'plain bytes\r\n');
    const parsed = (await castOf(dir)).map((line) => JSON.parse(line) as unknown);
    expect(parsed).toEqual([expect.objectContaining({ version: 2, width: 80, height: 24 }), [0, 'o', 'plain bytes\r\n']]);
    expect(store.listClosed()).toEqual([]);
  });
});
