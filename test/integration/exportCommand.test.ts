/**
 * `switchboard export <session> [file]` as a person runs it: the compiled CLI
 * (`node bin/switchboard.js`, so `npm run build` first; `npm test` does) on a state directory
 * that a SessionManager in this process filled with a real shell session.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionManager } from '../../src/core/session/sessionManager.js';
import { OUTPUT_LOG } from '../../src/core/transcript/transcript.js';
import { agent, tempHome, testSettings } from './helpers/core.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'switchboard.js');

let stateDir: string;
let work: string;
let sessionId: string;

beforeAll(async () => {
  const dirs = tempHome();
  stateDir = dirs.stateDir;
  work = path.join(path.dirname(stateDir), 'work');
  fs.mkdirSync(work);
  const manager = new SessionManager({
    settings: testSettings({ cols: 88, rows: 22 }),
    stateDir,
    baseEnv: { PATH: process.env.PATH, HOME: dirs.home, LANG: 'C.UTF-8', USER: process.env.USER ?? 'root' },
    onWarning: () => {},
  });
  try {
    const session = await manager.open({ creator: agent, name: 'to-export' });
    sessionId = session.id;
    await session.execute({ command: "printf 'exported-%s\\n' ok", timeoutMs: 10_000, maxLines: 10 });
    await session.close();
  } finally {
    await manager.dispose();
  }
});

afterAll(() => {
  fs.rmSync(path.dirname(stateDir), { recursive: true, force: true });
});

function cli(args: string[], cwd = work): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [BIN, 'export', ...args], {
    cwd,
    env: { ...process.env, SWITCHBOARD_HOME: stateDir },
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function checkCast(text: string): void {
  const lines = text
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as unknown);
  expect(lines[0]).toMatchObject({ version: 2, width: 88, height: 22, title: 'to-export' });
  const played = (lines.slice(1) as [number, string, string][]).map(([, , data]) => data).join('');
  expect(played).toBe(fs.readFileSync(path.join(stateDir, 'sessions', sessionId, OUTPUT_LOG), 'utf8'));
  expect(played).toContain('exported-ok');
}

describe('switchboard export', () => {
  it('writes <id>.cast in the current directory by default', () => {
    const result = cli([sessionId]);
    expect(result.stderr).toContain('Wrote');
    expect(result.status).toBe(0);
    expect(result.stdout).toBe('');
    checkCast(fs.readFileSync(path.join(work, `${sessionId}.cast`), 'utf8'));
  });

  it('finds the session by name and writes the named file', () => {
    const file = path.join(work, 'named.cast');
    const result = cli(['to-export', file]);
    expect(result.status).toBe(0);
    checkCast(fs.readFileSync(file, 'utf8'));
    expect(fs.readdirSync(work).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('writes to stdout with -', () => {
    const result = cli([sessionId, '-']);
    expect(result.status).toBe(0);
    checkCast(result.stdout);
  });

  it('says so when the session is unknown', () => {
    const result = cli(['no-such-session', path.join(work, 'never.cast')]);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/no session "no-such-session"/);
    expect(fs.existsSync(path.join(work, 'never.cast'))).toBe(false);
  });

  it('says why the file cannot be written', () => {
    const missing = cli([sessionId, path.join(work, 'no-such-dir', 'x.cast')]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/cannot write .*x\.cast: the directory .*no-such-dir does not exist/);
    const directory = cli([sessionId, work]);
    expect(directory.status).toBe(1);
    expect(directory.stderr).toMatch(/it is a directory/);
  });

  it('prints usage without a session', () => {
    const result = cli([]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('Usage: switchboard export <session> [file]');
  });
});
