/**
 * `switchboard serve` as a person sets it up (issue 28 item 6): `--port N` for one run.
 * Real processes, real HTTP.
 * Runs against dist/: `npm run build` first.
 */
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, removeHome, ROOT, startHub, tempHome } from './helpers/hubProcess.js';
import { within } from './helpers/within.js';

const homes: string[] = [];
const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  for (const home of homes.splice(0)) removeHome(home);
});

function home(): string {
  const dir = tempHome('sb-serve-');
  homes.push(dir);
  return dir;
}

/** A port something else listens on (closed after the test). */
async function busyPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as net.AddressInfo).port;
}

/** A port nothing listens on right now. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Runs `switchboard <args>` to its end (bounded): exit code, stdout, stderr. */
async function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { env: cleanEnv(env), cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  cleanups.push(() => void (child.exitCode === null && child.kill('SIGKILL')));
  const code = await within(new Promise<number | null>((resolve) => child.once('close', resolve)), 20_000, `switchboard ${args.join(' ')} to exit`);
  return { code, stdout, stderr };
}

describe('switchboard serve --port', () => {
  it('serves HTTP on the port given for this run, over SWITCHBOARD_PORT and settings.json', async () => {
    const dir = home();
    writeFileSync(path.join(dir, 'settings.json'), JSON.stringify({ port: await busyPort() }));
    const port = await freePort();
    const hub = await startHub({ home: dir, args: ['--port', String(port)], env: { SWITCHBOARD_PORT: String(await busyPort()) } });
    try {
      expect(hub.port).toBe(port);
      expect(hub.stderr()).toContain(`port ${port},`);
      expect(hub.stderr()).not.toContain('in use');
      const answer = await fetch(`http://127.0.0.1:${port}/`);
      expect(answer.status).toBe(401); // our hub, asking for its token
      expect(await answer.text()).toContain('Missing or invalid token');
    } finally {
      expect(await hub.stop()).toBe(0);
    }
  });

  it('--port=0 takes a free port, even when SWITCHBOARD_PORT names a busy one', async () => {
    const busy = await busyPort();
    const hub = await startHub({ home: home(), args: ['--port=0'], env: { SWITCHBOARD_PORT: String(busy) } });
    try {
      expect(hub.port).toBeGreaterThan(0);
      expect(hub.port).not.toBe(busy);
      expect(hub.stderr()).not.toContain('in use'); // no fallback from a busy port: 0 was asked for
      expect((await fetch(`http://127.0.0.1:${hub.port}/`)).status).toBe(401);
    } finally {
      expect(await hub.stop()).toBe(0);
    }
  });

  it('refuses a port in use when it was asked for, saying what to do, and leaves no hub behind', async () => {
    const dir = home();
    const busy = await busyPort();
    const { code, stderr } = await runCli(['serve', '--port', String(busy)], { SWITCHBOARD_HOME: dir });
    expect(code).toBe(1);
    expect(stderr).toContain(`port ${busy} on 127.0.0.1 is in use`);
    expect(stderr).toContain('0 for a free one');
    expect(existsSync(path.join(dir, 'hub.json'))).toBe(false);
    expect(existsSync(path.join(dir, 'hub.sock'))).toBe(false);
  });

  it('refuses bad --port values before starting anything, saying what is allowed', async () => {
    const dir = path.join(home(), 'never-created');
    // Every shape of bad value is in test/unit/commands/serveArgs.test.ts; here, the real command.
    for (const value of ['abc', '65536', '']) {
      const { code, stderr, stdout } = await runCli(['serve', `--port=${value}`], { SWITCHBOARD_HOME: dir });
      expect(code, value).toBe(2);
      expect(stderr, value).toContain(`--port "${value}" is not a port: give a whole number from 1 to 65535, or 0 for a free port.`);
      expect(stderr, value).toContain('Usage: switchboard serve [--port N]');
      expect(stdout).toBe('');
    }
    const missing = await runCli(['serve', '--port'], { SWITCHBOARD_HOME: dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--port needs a value: give a whole number from 1 to 65535, or 0 for a free port');
    const twice = await runCli(['serve', '--port', '0', '--port', '0'], { SWITCHBOARD_HOME: dir });
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain('--port is given twice');
    const other = await runCli(['serve', '--verbose'], { SWITCHBOARD_HOME: dir });
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('unexpected argument "--verbose"; the only option is --port N.');
    expect(existsSync(dir)).toBe(false); // no state dir, no lock, no hub
  });

  it('--help lists --port, and the command list names serve [--port N] and ui', async () => {
    const help = await runCli(['serve', '--help'], { SWITCHBOARD_HOME: home() });
    expect(help.code).toBe(0);
    expect(help.stderr).toContain('--port N');
    expect(help.stderr).toContain('0 for a free one');
    const usage = await runCli(['--help'], {});
    expect(usage.stderr).toContain('serve [--port N]');
    expect(usage.stderr).toMatch(/^ {2}ui {8}Open the running hub's UI/m);
  });
});
