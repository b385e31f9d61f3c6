/**
 * `switchboard serve` as a person sets it up: `--port N` for one run, and the
 * UI link on the banner — a link with the person's UI key that opens as it is on a real terminal
 * (a PTY), the token never printed, and no key when the banner goes to a pipe or a file (hub.log). Real processes, real HTTP.
 * Runs against dist/: `npm run build` first.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import * as pty from 'node-pty';
import { afterEach, describe, expect, it } from 'vitest';
import { whenFile } from './helpers/fileWatch.js';
import { BIN, cleanEnv, removeHome, ROOT, startHub, tempHome } from './helpers/hubProcess.js';
import { within } from './helpers/within.js';

const LISTENING = 'switchboard: hub listening';
const LINK = /http:\/\/127\.0\.0\.1:(\d+)\/\?key=([A-Za-z0-9_-]+)/;

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

/** A process on a real pseudo-terminal, as a person's terminal runs it. */
interface TerminalRun {
  output(): string;
  waitFor(pattern: RegExp | string, what: string): Promise<void>;
  /** SIGTERM, then its exit code. */
  stop(): Promise<number>;
}

function runOnTerminal(file: string, args: string[], env: Record<string, string>): TerminalRun {
  const term = pty.spawn(file, args, { cols: 400, rows: 60, cwd: ROOT, env: cleanEnv(env) });
  let output = '';
  const waiters = new Set<() => void>();
  term.onData((data) => {
    output += data;
    for (const waiter of [...waiters]) waiter();
  });
  let exitCode: number | undefined;
  const exited = new Promise<number>((resolve) => term.onExit(({ exitCode: code }) => resolve((exitCode = code))));
  const stop = async (): Promise<number> => {
    if (exitCode === undefined) term.kill('SIGTERM');
    return within(exited, 20_000, `${file} to exit after SIGTERM`);
  };
  cleanups.push(async () => {
    if (exitCode === undefined) await stop().catch(() => term.kill('SIGKILL'));
  });
  return {
    output: () => output,
    stop,
    waitFor(pattern, what) {
      const holds = (): boolean => (typeof pattern === 'string' ? output.includes(pattern) : pattern.test(output));
      return within(
        new Promise<void>((resolve) => {
          const check = (): void => {
            if (!holds()) return;
            waiters.delete(check);
            resolve();
          };
          waiters.add(check);
          check();
        }),
        20_000,
        `${what}; the terminal showed:\n${output}`,
      );
    },
  };
}

/** Opens `link` as a browser would: the 303 sets the UI cookie, which then opens the page. */
async function expectLinkOpensUi(link: string): Promise<void> {
  const login = await fetch(link, { redirect: 'manual' });
  expect(login.status).toBe(303);
  expect(login.headers.get('location')).toBe('/');
  const setCookie = login.headers.get('set-cookie') ?? '';
  expect(setCookie).toMatch(/HttpOnly/);
  expect(setCookie).toMatch(/SameSite=Strict/);
  const page = await fetch(new URL('/', link), { headers: { Cookie: setCookie.split(';')[0] ?? '' } });
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
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
    expect(help.stdout).toContain('--port N');
    expect(help.stdout).toContain('0 for a free one');
    const usage = await runCli(['--help'], {});
    expect(usage.code).toBe(0); // asked for: success, on stdout
    expect(usage.stdout).toContain('serve [--port N]');
    expect(usage.stdout).toMatch(/^ {2}ui {8}Open the running hub's UI/m);
    const bare = await runCli([], {});
    expect(bare.code).toBe(2); // no command: a usage error, on stderr
    expect(bare.stderr).toContain('Usage: switchboard <command>');
    const unknown = await runCli(['frobnicate'], {});
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
  });
});

describe('the UI link on the banner', () => {
  it('on a real terminal (PTY), serve prints a link that opens the UI as it is', async () => {
    const dir = home();
    const term = runOnTerminal(process.execPath, [BIN, 'serve'], { SWITCHBOARD_HOME: dir, SWITCHBOARD_PORT: '0' });
    await term.waitFor('Stop with Ctrl-C.', 'the banner');
    const match = LINK.exec(term.output());
    expect(match, term.output()).not.toBeNull();
    const [link, port, key] = match as unknown as [string, string, string];
    // The person's UI key, never the token (what agents hold): the token is printed nowhere.
    expect(key).toBe(readFileSync(path.join(dir, 'ui-key'), 'utf8').trim());
    expect(term.output()).not.toContain(readFileSync(path.join(dir, 'token'), 'utf8').trim());
    expect(Number(port)).toBe((JSON.parse(readFileSync(path.join(dir, 'hub.json'), 'utf8')) as { port: number }).port);
    await expectLinkOpensUi(link);
    expect(await term.stop()).toBe(0);
  });

  it('npm start without Electron (bin/start.js, headless) prints the same working link on a terminal', async () => {
    const dir = home();
    // Points `require('electron')` at a binary that is not there, so the headless path runs
    // wherever this test does (a contributor's Mac with Electron installed too).
    const term = runOnTerminal(process.execPath, [path.join(ROOT, 'bin', 'start.js')], {
      SWITCHBOARD_HOME: dir,
      SWITCHBOARD_PORT: '0',
      ELECTRON_OVERRIDE_DIST_PATH: path.join(dir, 'no-electron'),
    });
    await term.waitFor('Stop with Ctrl-C.', 'the banner');
    expect(term.output()).toContain('running the headless hub instead');
    const match = LINK.exec(term.output());
    expect(match, term.output()).not.toBeNull();
    expect(match?.[2]).toBe(readFileSync(path.join(dir, 'ui-key'), 'utf8').trim());
    await expectLinkOpensUi(match?.[0] ?? '');
    expect(await term.stop()).toBe(0);
  });

  it('with stderr a pipe, the banner holds no token and no UI key and says how to open the UI', async () => {
    const hub = await startHub({ home: home() });
    try {
      expect(hub.stderr()).not.toContain(hub.token);
      expect(hub.stderr()).not.toContain(hub.uiKey);
      expect(hub.stderr()).toContain(`UI:        http://127.0.0.1:${hub.port}/ (run \`switchboard ui\` to open it signed in)`);
    } finally {
      expect(await hub.stop()).toBe(0); // stop() also fails if serve wrote to stdout (a pipe)
    }
  });

  it('with stderr a file and stdout the terminal, the link goes to the terminal and never into the file', async () => {
    const dir = home();
    const log = path.join(dir, 'serve.log');
    // `switchboard serve 2>serve.log` typed at a terminal.
    const term = runOnTerminal('/bin/sh', ['-c', 'exec "$0" "$1" serve 2>"$2"', process.execPath, BIN, log], { SWITCHBOARD_HOME: dir, SWITCHBOARD_PORT: '0' });
    await term.waitFor(LINK, 'the link on the terminal');
    const key = readFileSync(path.join(dir, 'ui-key'), 'utf8').trim();
    await whenFile(log, () => readFileSync(log, 'utf8').includes('Stop with Ctrl-C.'), 'the banner in the log');
    expect(readFileSync(log, 'utf8')).not.toContain(key);
    expect(readFileSync(log, 'utf8')).toContain('run `switchboard ui` to open it signed in');
    expect(LINK.exec(term.output())?.[2]).toBe(key);
    await expectLinkOpensUi(LINK.exec(term.output())?.[0] ?? '');
    expect(await term.stop()).toBe(0);
    expect(readFileSync(log, 'utf8')).not.toContain(key);
  });

  it('with stdout and stderr one file (as the shim logs a background hub to hub.log), no token or UI key is written', async () => {
    const dir = home();
    const log = path.join(dir, 'hub.log');
    const fd = openSync(log, 'a', 0o600);
    const child = spawn(process.execPath, [BIN, 'serve'], {
      env: cleanEnv({ SWITCHBOARD_HOME: dir, SWITCHBOARD_PORT: '0' }),
      cwd: ROOT,
      stdio: ['ignore', fd, fd],
    });
    closeSync(fd);
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    cleanups.push(() => void (child.exitCode === null && child.kill('SIGKILL')));
    await whenFile(
      log,
      () => readFileSync(log, 'utf8').includes(LISTENING) && readFileSync(log, 'utf8').includes('Stop with Ctrl-C.'),
      'the banner in hub.log',
    );
    child.kill('SIGTERM');
    expect(await within(exited, 20_000, 'serve to exit')).toBe(0);
    const text = readFileSync(log, 'utf8');
    expect(text).not.toContain(readFileSync(path.join(dir, 'token'), 'utf8').trim());
    expect(text).not.toContain(readFileSync(path.join(dir, 'ui-key'), 'utf8').trim());
    expect(text).toContain('run `switchboard ui` to open it signed in');
  });
});
