/**
 * `switchboard ui`: opens the browser on the running hub's UI without the
 * token in any process's argv. A real hub, the real command, $BROWSER set to a small script that
 * records what it was given, and the recorded link opened over real HTTP.
 * Runs against dist/: `npm run build` first.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, connectRaw, removeHome, ROOT, startHub, tempHome, type HubProcess } from './helpers/hubProcess.js';
import { get } from './helpers/uiClient.js';
import { within } from './helpers/within.js';

const LOGIN_LINK = /^http:\/\/127\.0\.0\.1:(\d+)\/\?login=([A-Za-z0-9_-]{43})$/;

let hub: HubProcess;
let scratch: string;

beforeAll(async () => {
  hub = await startHub();
  scratch = tempHome('sb-ui-');
});

afterAll(async () => {
  if (hub) expect(await hub.stop()).toBe(0);
  removeHome(hub.home);
  removeHome(scratch);
});

/** Runs `switchboard ui <args>` to its end (bounded). */
async function runUi(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, 'ui', ...args], { env: cleanEnv(env), cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await within(new Promise<number | null>((resolve) => child.once('close', resolve)), 20_000, `switchboard ui ${args.join(' ')} to exit`);
  return { code, stdout, stderr };
}

/** A stand-in browser: records its argv (one per line) and environment, exits with `exitCode`. */
function recordingBrowser(name: string, exitCode = 0): { command: string; argv: () => string[]; env: () => string } {
  const dir = path.join(scratch, name);
  const script = `${dir}.sh`;
  writeFileSync(script, `#!/bin/sh\nprintf '%s\\n' "$@" > '${dir}.argv'\nenv > '${dir}.env'\nexit ${exitCode}\n`);
  chmodSync(script, 0o755);
  return {
    command: script,
    argv: () => readFileSync(`${dir}.argv`, 'utf8').split('\n').slice(0, -1),
    env: () => readFileSync(`${dir}.env`, 'utf8'),
  };
}

describe('switchboard ui', () => {
  it('opens the UI with $BROWSER: the link works exactly once, and no process is given the token or the UI key', async () => {
    const browser = recordingBrowser('once');
    const { code, stderr, stdout } = await runUi([], { SWITCHBOARD_HOME: hub.home, BROWSER: browser.command });
    expect(code, stderr).toBe(0);
    expect(stdout).toBe('');
    expect(stderr).toContain(`opened http://127.0.0.1:${hub.port}/ with ${browser.command}`);
    const argv = browser.argv();
    expect(argv).toHaveLength(1);
    const [link] = argv as [string];
    expect(link).toMatch(LOGIN_LINK);
    expect(Number(LOGIN_LINK.exec(link)?.[1])).toBe(hub.port);
    // Neither the browser's argv nor its environment (nor anything ui printed) holds the token.
    for (const secret of [hub.token, hub.uiKey]) {
      expect(argv.join(' ')).not.toContain(secret);
      expect(browser.env()).not.toContain(secret);
      expect(stderr).not.toContain(secret);
    }
    const target = link.slice(`http://127.0.0.1:${hub.port}`.length);

    // A request the guard refuses (a foreign Host) does not use the code up.
    expect((await get(hub.port, target, { Host: `evil.example:${hub.port}` })).status).toBe(403);

    const login = await get(hub.port, target);
    expect(login.status).toBe(303);
    expect(login.headers.location).toBe('/'); // the code leaves the address bar
    const setCookie = String(login.headers['set-cookie']?.[0] ?? '');
    expect(setCookie).toMatch(/^switchboard_\d+=[^;]+; HttpOnly; SameSite=Strict; Path=\//);
    const page = await get(hub.port, '/', { Cookie: setCookie.split(';')[0] ?? '' });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);

    const again = await get(hub.port, target);
    expect(again.status).toBe(401);
    expect(again.headers['set-cookie']).toBeUndefined();
    expect(again.body).toContain('This sign-in link has expired or was already used');
    expect(again.body).toContain('Run `switchboard ui` again');
  });

  it('each run gets its own code; --print prints one to stdout instead of opening a browser', async () => {
    const browser = recordingBrowser('unused');
    const printed = await runUi(['--print'], { SWITCHBOARD_HOME: hub.home, BROWSER: browser.command });
    expect(printed.code, printed.stderr).toBe(0);
    const link = printed.stdout.trim();
    expect(link).toMatch(LOGIN_LINK);
    expect(existsSync(`${path.join(scratch, 'unused')}.argv`)).toBe(false);
    const second = (await runUi(['--print'], { SWITCHBOARD_HOME: hub.home })).stdout.trim();
    expect(second).toMatch(LOGIN_LINK);
    expect(second).not.toBe(link);
    expect((await fetch(link, { redirect: 'manual' })).status).toBe(303);
    expect((await fetch(second, { redirect: 'manual' })).status).toBe(303);
  });

  it('tries each $BROWSER entry in turn (%s is the link); when none opens, says what else to do', async () => {
    const browser = recordingBrowser('second');
    const opened = await runUi([], { SWITCHBOARD_HOME: hub.home, BROWSER: `${path.join(scratch, 'missing-browser')}:${browser.command} --new-tab %s` });
    expect(opened.code, opened.stderr).toBe(0);
    const [flag, link] = browser.argv() as [string, string];
    expect(flag).toBe('--new-tab');
    expect(link).toMatch(LOGIN_LINK);

    const failing = recordingBrowser('failing', 1);
    const refused = await runUi([], { SWITCHBOARD_HOME: hub.home, BROWSER: `${path.join(scratch, 'missing-browser')}:${failing.command}` });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`could not open a browser (${path.join(scratch, 'missing-browser')} not found; ${failing.command} exited with 1)`);
    expect(refused.stderr).toContain('switchboard ui --print');
  });

  it('with no hub running, says so and how to start one (exit 3)', async () => {
    const empty = tempHome('sb-ui-none-');
    try {
      const none = await runUi([], { SWITCHBOARD_HOME: empty, BROWSER: recordingBrowser('none').command });
      expect(none.code).toBe(3);
      expect(none.stderr).toContain(`no Switchboard hub is running for ${empty}`);
      expect(none.stderr).toContain('Start one with `switchboard serve`');
      // A hub.json left by a hub that died is no hub either.
      writeFileSync(path.join(empty, 'hub.json'), JSON.stringify({ pid: 2 ** 30, socket: path.join(empty, 'hub.sock'), port: 1, version: '0' }));
      expect((await runUi([], { SWITCHBOARD_HOME: empty })).code).toBe(3);
      expect(existsSync(`${path.join(scratch, 'none')}.argv`)).toBe(false);
    } finally {
      removeHome(empty);
    }
  });

  it('refuses bad arguments with the usage', async () => {
    const bad = await runUi(['--open'], { SWITCHBOARD_HOME: hub.home });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unexpected arguments: --open');
    expect(bad.stderr).toContain('Usage: switchboard ui [--print]');
  });
});

describe('the socket side of a sign-in code', () => {
  it('gives a code only for the person’s UI key, never for the token agents hold; MCP connections are as before', async () => {
    const login = (line: Record<string, unknown>): Promise<string> =>
      new Promise<string>((resolve, reject) => {
        const socket = net.createConnection(hub.socket);
        let text = '';
        socket.setEncoding('utf8');
        socket.on('data', (chunk: string) => (text += chunk));
        socket.on('close', () => resolve(text));
        socket.on('error', reject);
        socket.on('connect', () => socket.write(`${JSON.stringify({ type: 'login', client: 'test', version: '0', ...line })}\n`));
      });
    expect(JSON.parse(await login({ key: 'wrong' }))).toEqual({ type: 'denied', reason: 'invalid UI key' });
    // An agent holding the token: as `token` (the old handshake) or as `key`, no code.
    const needsKey = { type: 'denied', reason: expect.stringContaining("a sign-in code needs the person's UI key") };
    expect(JSON.parse(await login({ token: hub.token }))).toEqual(needsKey);
    expect(JSON.parse(await login({ key: hub.token }))).toEqual({ type: 'denied', reason: 'invalid UI key' });
    expect(JSON.parse(await login({ key: hub.uiKey }))).toMatchObject({ type: 'login_code', port: hub.port });
    const mcp = await connectRaw(hub.socket, hub.token);
    expect(mcp.handshake.type).toBe('welcome');
    mcp.close();
  });
});
