/**
 * `switchboard config` and `switchboard status`, run as real processes with a temp HOME and
 * SWITCHBOARD_HOME (dist/ must be built).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, connectRaw, initializeRaw, removeHome, ROOT, startHub, tempHome, type HubProcess } from './helpers/hubProcess.js';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function switchboard(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: cleanEnv(env), cwd: ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const homes: string[] = [];
function home(): string {
  const dir = tempHome('sb-cli-');
  homes.push(dir);
  return dir;
}

afterAll(() => {
  for (const dir of homes) removeHome(dir);
});

describe('switchboard config', () => {
  const shim = { command: process.execPath, args: [BIN, 'mcp'] };

  it('prints each host’s entry launching the shim with absolute paths', async () => {
    const HOME = home();
    const env = { HOME, XDG_CONFIG_HOME: '' };
    const claude = await switchboard(['config', 'claude-code'], env);
    expect(claude.code).toBe(0);
    expect(JSON.parse(claude.stdout)).toEqual({ mcpServers: { switchboard: { type: 'stdio', ...shim } } });
    expect(claude.stderr).toContain(path.join(HOME, '.claude.json'));
    const cursor = JSON.parse((await switchboard(['config', 'cursor'], env)).stdout);
    expect(cursor).toEqual({ mcpServers: { switchboard: shim } });
    const vscode = JSON.parse((await switchboard(['config', 'vscode'], env)).stdout);
    expect(vscode).toEqual({ servers: { switchboard: { type: 'stdio', ...shim } } });
    const desktop = JSON.parse((await switchboard(['config', 'claude-desktop'], env)).stdout);
    expect(desktop).toEqual({ mcpServers: { switchboard: shim } });
    expect(path.isAbsolute(shim.command) && path.isAbsolute(shim.args[0])).toBe(true);
  });

  it('carries SWITCHBOARD_HOME over so the shim reaches the same hub', async () => {
    const HOME = home();
    const state = path.join(HOME, 'state');
    const out = JSON.parse((await switchboard(['config', 'cursor'], { HOME, SWITCHBOARD_HOME: state })).stdout);
    expect(out.mcpServers.switchboard.env).toEqual({ SWITCHBOARD_HOME: state });
  });

  it('--install merges into each host’s file and keeps everything else', async () => {
    const HOME = home();
    const env = { HOME, XDG_CONFIG_HOME: '' };
    const claudeFile = path.join(HOME, '.claude.json');
    writeFileSync(claudeFile, JSON.stringify({ numStartups: 3, projects: { '/x': { mcpServers: {} } }, mcpServers: { other: { command: 'other' } } }), { mode: 0o600 });
    const installed = await switchboard(['config', 'claude-code', '--install'], env);
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).toBe('');
    const merged = JSON.parse(readFileSync(claudeFile, 'utf8'));
    expect(merged).toEqual({
      numStartups: 3,
      projects: { '/x': { mcpServers: {} } },
      mcpServers: { other: { command: 'other' }, switchboard: { type: 'stdio', ...shim } },
    });
    expect(statSync(claudeFile).mode & 0o777).toBe(0o600);
    const again = await switchboard(['config', 'claude-code', '--install'], env);
    expect(again.stderr).toContain('Already up to date');

    // Files that do not exist yet are created, with their folders.
    expect((await switchboard(['config', 'cursor', '--install'], env)).code).toBe(0);
    expect(JSON.parse(readFileSync(path.join(HOME, '.cursor', 'mcp.json'), 'utf8'))).toEqual({ mcpServers: { switchboard: shim } });
    expect((await switchboard(['config', 'vscode', '--install'], env)).code).toBe(0);
    const vscodeFile = process.platform === 'darwin' ? path.join(HOME, 'Library', 'Application Support', 'Code', 'User', 'mcp.json') : path.join(HOME, '.config', 'Code', 'User', 'mcp.json');
    expect(JSON.parse(readFileSync(vscodeFile, 'utf8'))).toEqual({ servers: { switchboard: { type: 'stdio', ...shim } } });
    expect((await switchboard(['config', 'claude-desktop', '--install'], env)).code).toBe(0);
    const desktopFile =
      process.platform === 'darwin'
        ? path.join(HOME, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json')
        : path.join(HOME, '.config', 'Claude', 'claude_desktop_config.json');
    expect(JSON.parse(readFileSync(desktopFile, 'utf8'))).toEqual({ mcpServers: { switchboard: shim } });
  });

  it('refuses to rewrite a file it cannot parse, and unknown hosts', async () => {
    const HOME = home();
    const file = path.join(HOME, '.cursor', 'mcp.json');
    mkdirSync(path.dirname(file), { recursive: true });
    const jsonc = '{\n  // my servers\n  "mcpServers": {}\n}\n';
    writeFileSync(file, jsonc);
    const refused = await switchboard(['config', 'cursor', '--install'], { HOME });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('not plain JSON');
    expect(readFileSync(file, 'utf8')).toBe(jsonc);
    const unknown = await switchboard(['config', 'emacs'], { HOME });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown host');
  });
});

describe('switchboard status', () => {
  let hub: HubProcess;
  beforeAll(async () => {
    hub = await startHub({ home: home() });
  });
  afterAll(async () => {
    expect(await hub?.stop()).toBe(0);
  });

  it('exits 3 when no hub runs, or when hub.json names a dead pid', async () => {
    const state = home();
    const none = await switchboard(['status'], { SWITCHBOARD_HOME: state });
    expect(none.code).toBe(3);
    expect(none.stdout).toContain('No Switchboard hub is running');
    writeFileSync(path.join(state, 'hub.json'), JSON.stringify({ pid: 2 ** 22 + 12345, started_at: 'x', socket: path.join(state, 'hub.sock'), port: 1, version: '0' }));
    const stale = await switchboard(['status', '--json'], { SWITCHBOARD_HOME: state });
    expect(stale.code).toBe(3);
    expect(JSON.parse(stale.stdout)).toMatchObject({ running: false, reason: expect.stringContaining('not running') });
  });

  it('reports the running hub, where it listens, and its sessions', async () => {
    const client = await connectRaw(hub.socket, hub.token);
    await initializeRaw(client, 'status-test');
    const run = await client.request('tools/call', { name: 'execute', arguments: { command: 'echo status' } });
    const session = (run.result as { structuredContent: { session: string } }).structuredContent.session;
    client.close();

    const text = await switchboard(['status'], { SWITCHBOARD_HOME: hub.home });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`pid ${hub.pid}`);
    expect(text.stdout).toContain(`http://127.0.0.1:${hub.port}/`);
    expect(text.stdout).toContain(hub.socket);
    expect(text.stdout).toContain(session);
    expect(text.stdout).not.toContain(hub.token);

    const json = await switchboard(['status', '--json'], { SWITCHBOARD_HOME: hub.home });
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(report).toMatchObject({ running: true, pid: hub.pid, port: hub.port, socket: hub.socket });
    expect(report.sessions.map((s: { id: string }) => s.id)).toContain(session);
    expect(existsSync(path.join(hub.home, 'hub.json'))).toBe(true);
  });
});
