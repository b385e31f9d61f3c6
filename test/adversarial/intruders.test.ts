/**
 * The adversarial review, "Intruders": a real Chromium page on another origin trying to run a tool, the token
 * showing up where another local user or process could read it, and a socket path planted by
 * someone else. The 401/403 header cases, the WebSocket refusals, loopback-only binding, file
 * modes under umask 000 and the stale-socket recovery are in test/integration/hubServer.test.ts
 * (see README.md).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeHome, startHub, tempHome, type HubProcess } from '../integration/helpers/hubProcess.js';
import { expectHubFine, RawHttp, RawShim, sessionPids, startIsolatedHub } from './helpers.js';

const CHROMIUM = '/usr/bin/chromium';

let hub: HubProcess;
let stopHub: () => Promise<string>;
let work: string;

beforeAll(async () => {
  ({ hub, cleanup: stopHub } = await startIsolatedHub());
  work = mkdtempSync(path.join(tmpdir(), 'sb-adv-intr-'));
});

afterAll(async () => {
  if (hub) await stopHub();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('a page on another origin, in a real browser', () => {
  let browser: Browser | undefined;
  let evil: http.Server | undefined;

  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    await new Promise((resolve) => (evil ? evil.close(resolve) : resolve(undefined)));
  });

  it('neither a JSON fetch nor a no-cors text/plain POST runs a tool', async () => {
    expect(existsSync(CHROMIUM), `${CHROMIUM} is missing`).toBe(true);
    const markers = [path.join(work, `cors-${randomBytes(4).toString('hex')}`), path.join(work, `nocors-${randomBytes(4).toString('hex')}`)];
    const call = (id: number, marker: string): string =>
      JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'execute', arguments: { command: `touch ${marker}` } } });
    const init = JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'evil', version: '1' } },
    });
    const target = `http://127.0.0.1:${hub.port}/mcp`;
    const script = `
      window.outcome = (async () => {
        const results = [];
        const attempt = async (label, init) => {
          try { const r = await fetch(${JSON.stringify(target)}, init); results.push(label + ':' + r.type + ':' + r.status); }
          catch (e) { results.push(label + ':error'); }
        };
        await attempt('init-json', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: ${JSON.stringify(init)} });
        await attempt('json', { method: 'POST', headers: { 'content-type': 'application/json' }, body: ${JSON.stringify(call(1, markers[0]!))} });
        await attempt('init-nocors', { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: ${JSON.stringify(init)} });
        await attempt('nocors', { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: ${JSON.stringify(call(2, markers[1]!))} });
        return results;
      })();`;
    evil = http.createServer((req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end(`<!doctype html><title>evil</title><script>${script}</script>`);
    });
    await new Promise<void>((resolve) => evil!.listen(0, '127.0.0.1', resolve));
    const evilPort = (evil.address() as net.AddressInfo).port;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--headless', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${evilPort}/`);
    const outcome = (await page.evaluate('window.outcome')) as string[];
    // CORS requests fail in the page; no-cors ones resolve opaque (status 0) whatever the hub said.
    expect(outcome).toEqual(['init-json:error', 'json:error', 'init-nocors:opaque:0', 'nocors:opaque:0']);
    // The hub answered (401/403) before running anything: prove it with a call that does complete.
    const client = await new RawHttp(hub).initialize('after-evil');
    expect(await client.ok('execute', { command: 'echo after-evil', cwd: work })).toMatchObject({ output: 'after-evil' });
    await client.close();
    for (const marker of markers) expect(existsSync(marker), marker).toBe(false);
    await expectHubFine(hub);
  });
});

describe('the token stays secret', () => {
  it('is in no argv (ps), no session environment, no log and no audit line (nor is the UI key)', async () => {
    const client = await new RawHttp(hub).initialize('token-check');
    const shim = await new RawShim(hub).initialize('token-check-shim');
    try {
      const { session } = await client.ok('open', { cwd: work });
      const env = String((await client.ok('execute', { session, command: 'env; cat /proc/$PPID/environ | tr "\\0" "\\n"' })).output);
      expect(env).toContain('SWITCHBOARD_SESSION=');
      for (const secret of [hub.token, hub.uiKey]) expect(env).not.toContain(secret);
      const shimEnv = String((await shim.ok('execute', { command: 'env' })).output);
      for (const secret of [hub.token, hub.uiKey]) expect(shimEnv).not.toContain(secret);
      // A refused request must not be logged with what it offered either.
      const wrong = hub.token.slice(0, -2) + 'zz';
      await fetch(`http://127.0.0.1:${hub.port}/mcp?token=${hub.token}`, { method: 'POST', headers: { Authorization: `Bearer ${wrong}` }, body: '{}' });
      // Every process of this machine, as another user would see them.
      const ps = execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' });
      expect(ps).toContain('switchboard.js serve');
      expect(ps).toContain('switchboard.js mcp');
      for (const secret of [hub.token, hub.uiKey]) expect(ps).not.toContain(secret);
      // The hub's and every session process's environment (pid 1's view of /proc).
      for (const pid of [hub.pid, ...sessionPids(String(session))]) {
        for (const secret of [hub.token, hub.uiKey]) expect(readFileSync(`/proc/${pid}/environ`, 'latin1'), `environ of ${pid}`).not.toContain(secret);
      }
      const audit = readFileSync(path.join(hub.home, 'audit.jsonl'), 'utf8');
      expect(audit).toContain('"tool":"execute"');
      for (const secret of [hub.token, hub.uiKey]) expect(audit).not.toContain(secret);
      expect(audit).not.toContain(wrong);
      for (const secret of [hub.token, hub.uiKey]) expect(hub.stderr()).not.toContain(secret);
      for (const secret of [hub.token, hub.uiKey]) expect(shim.stderr).not.toContain(secret);
      // (Answers here carry `env` output, which rightly names paths: no expectNoLeak on them.)
      await client.ok('kill', { session, close: true });
    } finally {
      await shim.close();
      await client.close();
    }
    await expectHubFine(hub);
  });
});

describe('a socket path planted by someone else', () => {
  /** Starts a hub on `home` that must refuse; resolves with what it said. */
  async function refusal(home: string): Promise<string> {
    const error = await startHub({ home }).then(
      async (started) => {
        await started.stop();
        return undefined;
      },
      (e: unknown) => e as Error,
    );
    expect(error, 'the hub started over a planted socket path').toBeInstanceOf(Error);
    return error!.message;
  }

  it('a regular file at hub.sock: the hub refuses to start, says why, and leaves the file', async () => {
    const home = tempHome('sb-adv-plant-');
    try {
      const planted = path.join(home, 'hub.sock');
      writeFileSync(planted, 'not yours');
      const message = await refusal(home);
      expect(message).toContain('exists and is not a socket');
      expect(message).not.toMatch(/\n\s+at .+:\d+:\d+/);
      expect(readFileSync(planted, 'utf8')).toBe('not yours');
    } finally {
      removeHome(home);
    }
  });

  it('a live socket of our own uid that is not a hub of this state dir: refused, still served', async () => {
    const home = tempHome('sb-adv-plant-');
    const planted = path.join(home, 'hub.sock');
    let accepted = 0;
    const server = net.createServer((socket) => {
      accepted++;
      socket.destroy();
    });
    try {
      await new Promise<void>((resolve) => server.listen(planted, resolve));
      const message = await refusal(home);
      expect(message).toMatch(/another program is listening on; refusing to replace it/);
      expect(message).not.toMatch(/\n\s+at .+:\d+:\d+/);
      // The planted socket is still there and still the planter's.
      await new Promise<void>((resolve, reject) => net.createConnection(planted).once('connect', resolve).once('error', reject));
      expect(accepted).toBeGreaterThanOrEqual(2);
    } finally {
      await new Promise((resolve) => server.close(resolve));
      removeHome(home);
    }
  });

  it("another user's socket at hub.sock: refused, left in place", async () => {
    if (process.getuid?.() !== 0) {
      // Planting a socket owned by another uid needs root (chown). As non-root the regular-file
      // case above exercises the same refusal path.
      return;
    }
    const home = tempHome('sb-adv-plant-');
    const planted = path.join(home, 'hub.sock');
    const server = net.createServer();
    try {
      await new Promise<void>((resolve) => server.listen(planted, resolve));
      chownSync(planted, 65534, 65534);
      chmodSync(planted, 0o666);
      const message = await refusal(home);
      expect(message).toMatch(/belongs to uid 65534, not to us; refusing/);
      expect(existsSync(planted)).toBe(true);
    } finally {
      await new Promise((resolve) => server.close(resolve));
      removeHome(home);
    }
  });
});
