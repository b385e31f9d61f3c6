/**
 * history.db's queries (src/hub/history/historyDb.ts, historyQuery.ts) on a real SQLite file: the
 * filters of the `history` tool, and user words that must never become FTS5 syntax.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HistoryDb, type HistoryRow } from '../../../../src/hub/history/historyDb.js';
import { ftsQuery, likePattern } from '../../../../src/hub/history/historyQuery.js';
import { parseSince } from '../../../../src/mcp/historyFilters.js';
import type { HistoryQuery } from '../../../../src/core/types.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function openDb(): HistoryDb {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-historydb-'));
  dirs.push(dir);
  return new HistoryDb(path.join(dir, 'history.db'), { busyTimeoutMs: 1_000 });
}

let clock = Date.parse('2025-01-01T00:00:00Z');
function row(command: string, extra: Partial<HistoryRow> = {}): HistoryRow {
  clock += 1_000;
  return {
    session: 's1',
    session_name: null,
    seq: clock / 1_000,
    command,
    cwd: '/home/me/project',
    exit_code: 0,
    started_at: clock,
    duration_ms: 5,
    creator: 'claude-code 2.1.0',
    output_head: '',
    output_start_byte: 0,
    output_end_byte: 10,
    ...extra,
  };
}

const any = (extra: Partial<HistoryQuery> = {}): HistoryQuery => ({ status: 'any', limit: 50, ...extra });
const commandsOf = (db: HistoryDb, query: Partial<HistoryQuery>): string[] => db.search(any(query)).commands.map((c) => c.command);

describe('HistoryDb', () => {
  it('matches words as word prefixes, all of them, newest first', () => {
    const db = openDb();
    db.add([row('npm test'), row('npm run build'), row('git push --force'), row('npx vitest run')]);
    expect(commandsOf(db, { text: 'npm' })).toEqual(['npm run build', 'npm test']);
    expect(commandsOf(db, { text: 'np' })).toEqual(['npx vitest run', 'npm run build', 'npm test']);
    expect(commandsOf(db, { text: 'run npm' })).toEqual(['npm run build']);
    expect(commandsOf(db, { text: '--force' })).toEqual(['git push --force']);
    expect(db.search(any({ text: 'npm', limit: 1 }))).toMatchObject({ total: 2, commands: [{ command: 'npm run build' }] });
    db.close();
  });

  it('takes any punctuation as text: no word is ever FTS5 syntax', () => {
    const db = openDb();
    db.add([row('echo "a|b" && cat x > y'), row('grep -E "(foo|bar)*" file'), row('ls 100% done_file')]);
    const nasty = [
      '"',
      '""',
      '"*',
      '*',
      '(',
      ')',
      'AND',
      'OR',
      'NOT',
      'NEAR(',
      'NEAR(a b, 2)',
      'a:b',
      '^start',
      '-x',
      '+',
      '{a b}',
      "'",
      ';',
      '\\',
      '%',
      '_',
      'col:"x"',
      '\u0000',
      '🙂',
    ];
    for (const text of nasty) expect(() => db.search(any({ text })), text).not.toThrow();
    expect(commandsOf(db, { text: '&&' })).toEqual(['echo "a|b" && cat x > y']);
    expect(commandsOf(db, { text: '(foo|bar)*' })).toEqual(['grep -E "(foo|bar)*" file']);
    expect(commandsOf(db, { text: '%' })).toEqual(['ls 100% done_file']);
    expect(commandsOf(db, { text: '_' })).toEqual(['ls 100% done_file']);
    expect(commandsOf(db, { text: 'OR' })).toEqual([]);
    db.close();
  });

  it('filters by folder and below (not a sibling sharing its prefix), status, session id or name, client, since', () => {
    const db = openDb();
    db.add([
      row('in project', { cwd: '/p' }),
      row('below project', { cwd: '/p/src', exit_code: 2 }),
      row('sibling', { cwd: '/p-other', session: 's2', session_name: 'builds', creator: 'person' }),
      row('unknown exit', { cwd: '/q', exit_code: null, seq: 9999 }),
    ]);
    expect(commandsOf(db, { cwd: '/p' })).toEqual(['below project', 'in project']);
    expect(commandsOf(db, { cwd: '/' })).toHaveLength(4);
    expect(commandsOf(db, { status: 'failed' })).toEqual(['below project']);
    expect(commandsOf(db, { status: 'succeeded' })).toEqual(['sibling', 'in project']);
    expect(commandsOf(db, { session: 'builds' })).toEqual(['sibling']);
    expect(commandsOf(db, { session: 's2' })).toEqual(['sibling']);
    expect(commandsOf(db, { client: 'person' })).toEqual(['sibling']);
    expect(commandsOf(db, { client: 'Claude-Code' })).toHaveLength(3);
    expect(commandsOf(db, { client: 'claude' })).toEqual([]);
    const latest = db.search(any({ limit: 1 })).commands[0]!;
    expect(commandsOf(db, { since: Date.parse(latest.started_at) })).toEqual(['unknown exit']);
    db.close();
  });

  it('indexes a (session, seq) once; retention removes a session', () => {
    const db = openDb();
    const first = row('once', { seq: 1 });
    expect(db.add([first, first, { ...first, command: 'again' }])).toBe(1);
    db.add([row('other', { session: 's2', seq: 1 })]);
    expect(db.indexed()).toEqual({ s1: { count: 1, maxSeq: 1 }, s2: { count: 1, maxSeq: 1 } });
    db.remove(['s1']);
    expect(commandsOf(db, {})).toEqual(['other']);
    expect(commandsOf(db, { text: 'once' })).toEqual([]);
    db.close();
  });
});

describe('ftsQuery', () => {
  it('quotes every word as a prefix phrase, doubling quotes; punctuation-only words are literals', () => {
    expect(ftsQuery('npm "te st')).toEqual({ match: '"npm"* """te"* "st"*', literals: [] });
    expect(ftsQuery('| && grep')).toEqual({ match: '"grep"*', literals: ['|', '&&'] });
    expect(ftsQuery('  ')).toEqual({ match: null, literals: [] });
    expect(likePattern('50%_a\\')).toBe('%50\\%\\_a\\\\%');
  });
});

describe('parseSince', () => {
  const now = Date.parse('2025-06-01T12:00:00Z');
  it('takes an age or an ISO time, and names both forms when it gets neither', () => {
    expect(parseSince('30m', now)).toBe(now - 30 * 60_000);
    expect(parseSince('2h', now)).toBe(now - 2 * 3_600_000);
    expect(parseSince(' 7D ', now)).toBe(now - 7 * 86_400_000);
    expect(parseSince('2025-05-31T09:00:00Z', now)).toBe(Date.parse('2025-05-31T09:00:00Z'));
    expect(parseSince('2025-05-31', now)).toBe(Date.parse('2025-05-31'));
    for (const bad of ['yesterday', '30', 'm30', '2025-13-45', '']) {
      expect(() => parseSince(bad, now), bad).toThrow(/since: ".*" is not a time; pass an ISO time .* or an age: .*30m, 2h, 7d/);
    }
  });
});
