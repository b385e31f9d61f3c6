/**
 * One shared hub (docs/design.md §4.1–4.3): real `switchboard serve` processes, the official MCP
 * client over Streamable HTTP, raw clients on the unix socket, and raw HTTP for the guards.
 */
import { spawn } from 'node:child_process';
import * as diagnostics from 'node:diagnostics_channel';
import { existsSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import { networkInterfaces } from 'node:os';
import * as path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEEP_ALIVE_ADVERTISED_S } from '../../src/hub/endpoints/httpServer.js';
import { whenFile } from './helpers/fileWatch.js';
import { BIN, cleanEnv, connectRaw, initializeRaw, removeHome, ROOT, startHub, tempHome, type HubProcess } from './helpers/hubProcess.js';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One raw HTTP request; `body` may be a Buffer of any size. */
function request(
  port: number,
  options: { path?: string; method?: string; headers?: Record<string, string>; body?: string | Buffer; host?: string },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: options.host ?? '127.0.0.1', port, path: options.path ?? '/mcp', method: options.method ?? 'POST', headers: options.headers, agent: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/**
 * Streams `size` bytes of body over a raw socket (Content-Length declared, or chunked) and
 * resolves with the status the hub answers while the body is still flowing.
 */
function streamBigBody(port: number, token: string, size: number, chunked: boolean): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let answer = '';
    let done = false;
    const finish = (status: number): void => {
      done = true;
      socket.destroy();
      resolve(status);
    };
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('latin1');
      const match = /^HTTP\/1\.1 (\d{3})/.exec(answer);
      if (match && answer.includes('\r\n\r\n')) finish(Number(match[1]));
    });
    socket.on('error', (error) => (done ? undefined : reject(error)));
    socket.on('close', () => (done ? undefined : reject(new Error(`closed without an answer: ${answer}`))));
    socket.on('connect', () => {
      const framing = chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${size}`;
      socket.write(
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\n` +
          `Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n${framing}\r\n\r\n`,
      );
      const piece = Buffer.alloc(64 * 1024, 0x20);
      let sent = 0;
      const pump = (): void => {
        while (!done && sent < size) {
          sent += piece.length;
          const ok = socket.write(chunked ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]) : piece);
          if (!ok) return void socket.once('drain', pump);
        }
        if (!done && chunked) socket.write('0\r\n\r\n');
      };
      pump();
    });
  });
}

/** A WebSocket upgrade request: resolves with the status line's code (101 would be a bug). */
function upgrade(port: number, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1',
      port,
      path: '/ws',
      agent: false,
      headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==', ...headers },
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 101);
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

function mcpHeaders(hub: HubProcess, extra: Record<string, string> = {}): Record<string, string> {
  return { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${hub.token}`, ...extra };
}

async function httpClient(hub: HubProcess, name = 'http-test', negotiate = false): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' }, negotiate ? { versionNegotiation: { mode: 'auto' } } : undefined);
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${hub.port}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${hub.token}` } },
  });
  await client.connect(transport);
  return client;
}

function structured(result: unknown): Record<string, unknown> {
  return ((result as { structuredContent?: Record<string, unknown> }).structuredContent ?? {}) as Record<string, unknown>;
}

describe('switchboard serve: one shared hub', () => {
  let hub: HubProcess;
  const homes: string[] = [];

  beforeAll(async () => {
    hub = await startHub();
    homes.push(hub.home);
  });

  afterAll(async () => {
    expect(await hub?.stop()).toBe(0);
    // Disposed cleanly: nothing says a hub still runs.
    for (const file of ['hub.json', 'hub.lock', 'hub.sock']) expect(existsSync(path.join(hub.home, file))).toBe(false);
    for (const home of homes) removeHome(home);
  });

  describe('HTTP guards (before any MCP processing)', () => {
    it('refuses a missing, wrong, wrong-length or query-string token with 401', async () => {
      const noToken = await request(hub.port, { headers: { 'Content-Type': 'application/json' }, body: INIT });
      expect(noToken.status).toBe(401);
      expect(noToken.headers['www-authenticate']).toMatch(/^Bearer/);
      const wrong = hub.token.slice(0, -1) + (hub.token.endsWith('A') ? 'B' : 'A');
      expect((await request(hub.port, { headers: mcpHeaders(hub, { Authorization: `Bearer ${wrong}` }), body: INIT })).status).toBe(401);
      expect((await request(hub.port, { headers: mcpHeaders(hub, { Authorization: 'Bearer short' }), body: INIT })).status).toBe(401);
      expect((await request(hub.port, { headers: mcpHeaders(hub, { Authorization: `Bearer ${hub.token}x` }), body: INIT })).status).toBe(401);
      const query = await request(hub.port, {
        path: `/mcp?token=${hub.token}`,
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: INIT,
      });
      expect(query.status).toBe(401);
    });

    it('refuses foreign, other-port and null Origins and foreign Hosts with 403', async () => {
      for (const origin of [
        'https://evil.example',
        `http://127.0.0.1:${hub.port + 1}`,
        `http://localhost:${hub.port + 1}`,
        'null',
        `https://127.0.0.1:${hub.port}`,
      ]) {
        const answer = await request(hub.port, { headers: mcpHeaders(hub, { Origin: origin }), body: INIT });
        expect(answer.status, origin).toBe(403);
      }
      for (const host of ['evil.example', `evil.example:${hub.port}`, '127.0.0.1', `127.0.0.1:${hub.port + 1}`]) {
        const answer = await request(hub.port, { headers: mcpHeaders(hub, { Host: host }), body: INIT });
        expect(answer.status, host).toBe(403);
      }
      // The UI's own origin passes.
      const own = await request(hub.port, { headers: mcpHeaders(hub, { Origin: `http://localhost:${hub.port}`, Host: `localhost:${hub.port}` }), body: INIT });
      expect(own.status).toBe(200);
    });

    it('answers non-JSON with 400 and a JSON-RPC parse error', async () => {
      const answer = await request(hub.port, { headers: mcpHeaders(hub), body: 'this is not json' });
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    });

    it('answers a 20 MB body with 413 without reading it, and keeps serving', async () => {
      const size = 20 * 1024 * 1024;
      expect(await streamBigBody(hub.port, hub.token, size, false)).toBe(413);
      // Chunked (no Content-Length): cut off once the cap is crossed.
      expect(await streamBigBody(hub.port, hub.token, size, true)).toBe(413);
      const after = await request(hub.port, { headers: mcpHeaders(hub), body: INIT });
      expect(after.status).toBe(200);
      expect(after.headers['mcp-session-id']).toBeTruthy();
    });

    it('refuses WebSocket upgrades without the token or with a foreign Origin (never 101)', async () => {
      const origin = `http://127.0.0.1:${hub.port}`;
      expect(await upgrade(hub.port, { Origin: origin })).toBe(401);
      expect(await upgrade(hub.port, { Origin: origin, Authorization: 'Bearer nope' })).toBe(401);
      expect(await upgrade(hub.port, { Origin: 'https://evil.example', Authorization: `Bearer ${hub.token}` })).toBe(403);
      expect(await upgrade(hub.port, { Origin: 'null', Authorization: `Bearer ${hub.token}` })).toBe(403);
      expect(await upgrade(hub.port, { Authorization: `Bearer ${hub.token}` })).toBe(403); // no Origin at all
      // Token and exact Origin pass the checks: the UI bridge answers (test/integration/uiBridge.test.ts).
      expect(await upgrade(hub.port, { Origin: origin, Authorization: `Bearer ${hub.token}` })).toBe(101);
    });

    it('serves / only to the person: ?key= trades for an HttpOnly SameSite=Strict cookie; the token signs no browser in', async () => {
      expect((await request(hub.port, { path: '/', method: 'GET' })).status).toBe(401);
      expect((await request(hub.port, { path: '/?key=wrong', method: 'GET' })).status).toBe(401);
      const byToken = await request(hub.port, { path: `/?token=${hub.token}`, method: 'GET' });
      expect(byToken.status).toBe(401);
      expect(byToken.headers['set-cookie']).toBeUndefined();
      expect(byToken.body).toContain('does not sign a browser in');
      const login = await request(hub.port, { path: `/?key=${hub.uiKey}`, method: 'GET' });
      expect(login.status).toBe(303);
      expect(login.headers.location).toBe('/');
      const cookie = String(login.headers['set-cookie']?.[0] ?? '');
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/SameSite=Strict/);
      const page = await request(hub.port, { path: '/', method: 'GET', headers: { Cookie: cookie.split(';')[0] } });
      expect(page.status).toBe(200);
      expect(page.body).toContain('Switchboard');
      // The cookie is for the UI, not for /mcp.
      expect((await request(hub.port, { headers: { 'Content-Type': 'application/json', Cookie: cookie.split(';')[0] }, body: INIT })).status).toBe(401);
    });

    it('is not reachable on a non-loopback address of this machine', async () => {
      const address = Object.values(networkInterfaces())
        .flat()
        .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
      if (!address) {
        console.warn('no non-loopback IPv4 address on this machine: the loopback-only bind is not checked from outside');
        return;
      }
      const outcome = await new Promise<string>((resolve) => {
        const socket = net.connect({ host: address, port: hub.port, timeout: 2_000 });
        socket.on('connect', () => {
          socket.destroy();
          resolve('connected');
        });
        socket.on('timeout', () => {
          socket.destroy();
          resolve('timeout');
        });
        socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
      });
      expect(outcome, `${address}:${hub.port}`).not.toBe('connected');
    });
  });

  describe('MCP over HTTP and over the socket, one set of sessions', () => {
    it('the official client over Streamable HTTP lists tools and runs execute', async () => {
      const client = await httpClient(hub);
      try {
        const tools = await client.listTools();
        expect(tools.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['execute', 'list', 'kill']));
        const result = await client.callTool({ name: 'execute', arguments: { command: 'echo hi' } });
        expect(result.isError).not.toBe(true);
        expect(structured(result)).toMatchObject({ status: 'completed', exit_code: 0, output: 'hi' });
      } finally {
        await client.close();
      }
    });

    it('a 2026-era client (server/discover, per-request envelope) is served too', async () => {
      const client = await httpClient(hub, 'modern-test', true);
      try {
        expect(client.getProtocolEra()).toBe('modern');
        const result = await client.callTool({ name: 'execute', arguments: { command: 'echo modern' } });
        expect(structured(result)).toMatchObject({ status: 'completed', output: 'modern' });
      } finally {
        await client.close();
      }
    });

    it('the socket needs the token, then serves MCP', async () => {
      await expect(connectRaw(hub.socket, 'wrong-token-wrong-token-wrong')).rejects.toThrow(/denied/);
      const client = await connectRaw(hub.socket, hub.token);
      try {
        expect(client.handshake).toMatchObject({ type: 'welcome', hub_pid: hub.pid });
        await initializeRaw(client);
        const tools = await client.request('tools/list', {});
        expect(JSON.stringify(tools.result)).toContain('"execute"');
        const run = await client.request('tools/call', { name: 'execute', arguments: { command: 'echo hi' } });
        expect((run.result as { structuredContent: unknown }).structuredContent).toMatchObject({ status: 'completed', exit_code: 0, output: 'hi' });
      } finally {
        client.close();
      }
    });

    it('a session opened over HTTP is listed and usable over the socket', async () => {
      const web = await httpClient(hub, 'web-agent');
      const raw = await connectRaw(hub.socket, hub.token);
      try {
        const opened = structured(await web.callTool({ name: 'execute', arguments: { command: 'export SHARED=from-http; echo ready' } }));
        const session = String(opened.session);
        await initializeRaw(raw, 'socket-agent');
        const listed = await raw.request('tools/call', { name: 'list', arguments: {} });
        const sessions = (listed.result as { structuredContent: { sessions: { id: string; creator: unknown }[] } }).structuredContent.sessions;
        expect(sessions.find((s) => s.id === session)?.creator).toMatchObject({ kind: 'agent', client: expect.stringContaining('web-agent') });
        const used = await raw.request('tools/call', { name: 'execute', arguments: { session, command: 'echo $SHARED' } });
        expect((used.result as { structuredContent: unknown }).structuredContent).toMatchObject({ status: 'completed', output: 'from-http', session });
      } finally {
        raw.close();
        await web.close();
      }
    });

    it('a client disconnecting mid-call does not stop its command', async () => {
      // Beside the state folder: the agent's sandboxed session may not see into that one.
      const scratch = tempHome('sb-hub-scratch-');
      homes.push(scratch);
      const started = path.join(scratch, `started-${Date.now()}`);
      const marker = path.join(scratch, `marker-${Date.now()}`);
      const raw = await connectRaw(hub.socket, hub.token);
      await initializeRaw(raw, 'leaver');
      raw.notify('notifications/progress', {}); // harmless noise before the call
      void raw.request('tools/call', { name: 'execute', arguments: { command: `touch ${started}; sleep 1; echo done > ${marker}`, timeout_ms: 10_000 } });
      await whenFile(started, () => existsSync(started), 'the command to start');
      raw.close();
      await whenFile(marker, () => existsSync(marker), 'the command to finish after its client left', 8_000);
    });
  });

  describe('keep-alive', () => {
    /** The local port of the connection each fetch to `path` went out on (undici's own report). */
    function connectionsOf(path: string): { ports: number[]; dispose(): void } {
      const ports: number[] = [];
      const onHeaders = (message: unknown): void => {
        const { request, socket } = message as { request: { path: string }; socket: { localPort?: number } };
        if (request.path === path && socket.localPort !== undefined) ports.push(socket.localPort);
      };
      diagnostics.subscribe('undici:client:sendHeaders', onHeaders);
      return { ports, dispose: () => diagnostics.unsubscribe('undici:client:sendHeaders', onHeaders) };
    }

    it("a fetch client whose event loop was busy past Node's old 5 s keep-alive reuses its idle connection, and is answered", async () => {
      // The flake this replaces: a test's synchronous setup (120 git commits) kept its loop busy
      // for seconds, so undici's keep-alive timer (the advertised timeout less 2 s) could not
      // retire the idle socket, and the next request went into the one the hub had just closed
      // at Node's default (5 s + 1 s): "fetch failed: other side closed". The hub's timers run in
      // its own process, out of reach of a fake clock, so the client is blocked for real, once.
      const probe = `/keep-alive-probe-${Date.now()}`;
      const connections = connectionsOf(probe);
      try {
        const ask = (): Promise<Response> => fetch(`http://127.0.0.1:${hub.port}${probe}`, { headers: { Authorization: `Bearer ${hub.token}` } });
        const first = await ask();
        expect(first.status).toBe(404);
        expect(first.headers.get('keep-alive')).toBe(`timeout=${KEEP_ALIVE_ADVERTISED_S}`);
        await first.text();
        await new Promise((resolve) => setImmediate(resolve)); // the socket goes back to the pool
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 6_500); // busy: no timer runs
        const second = await ask();
        expect(second.status).toBe(404);
        await second.text();
        expect(connections.ports).toHaveLength(2);
        expect(connections.ports[1], "the second request went out on the first one's connection").toBe(connections.ports[0]);
      } finally {
        connections.dispose();
      }
    });
  });

  it('a second serve on the same state dir exits non-zero naming the running hub', async () => {
    const child = spawn(process.execPath, [BIN, 'serve'], { env: cleanEnv({ SWITCHBOARD_HOME: hub.home, SWITCHBOARD_PORT: '0' }), cwd: ROOT });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).not.toBe(0);
    expect(stderr).toContain(`pid ${hub.pid}`);
    expect(stderr).toContain(`http://127.0.0.1:${hub.port}`);
    // The first hub is untouched.
    expect(existsSync(path.join(hub.home, 'hub.sock'))).toBe(true);
    expect((await request(hub.port, { headers: mcpHeaders(hub), body: INIT })).status).toBe(200);
  });
});

describe('switchboard serve: files and permissions', () => {
  it('keeps token and ui-key 0600, state dir 0700, socket and hub.json 0600 under umask 000', async () => {
    const home = path.join(tempHome(), 'state'); // created by the hub itself
    const hub = await startHub({ home, umask000: true });
    try {
      const mode = (file: string): string => (statSync(path.join(home, file)).mode & 0o777).toString(8);
      expect(mode('.')).toBe('700');
      expect(mode('token')).toBe('600');
      expect(mode('ui-key')).toBe('600');
      expect(mode('hub.sock')).toBe('600');
      expect(mode('hub.json')).toBe('600');
      expect(hub.token).toMatch(/^[A-Za-z0-9_-]{43}$/); // 256 bits, base64url
      expect(hub.stderr()).not.toContain(hub.token); // the token goes to no log
      expect(hub.uiKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(hub.uiKey).not.toBe(hub.token); // two secrets: the agents' and the person's
      expect(hub.stderr()).not.toContain(hub.uiKey);
    } finally {
      const code = await hub.stop();
      expect(code, hub.stderr()).toBe(0);
      removeHome(path.dirname(home));
    }
  });

  it('replaces a token older than tokenRotationDays at start, and keeps a younger one', async () => {
    const home = tempHome();
    const old = 'o'.repeat(43);
    writeFileSync(path.join(home, 'token'), `${old}\n`, { mode: 0o600 });
    const aged = (Date.now() - 10 * 86_400_000) / 1000;
    utimesSync(path.join(home, 'token'), aged, aged);
    const first = await startHub({ home, env: { SWITCHBOARD_TOKEN_ROTATION_DAYS: '7' } });
    let second: HubProcess | undefined;
    try {
      expect(first.token).not.toBe(old);
      expect(first.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect((statSync(path.join(home, 'token')).mode & 0o777).toString(8)).toBe('600');
      await expect(connectRaw(first.socket, old)).rejects.toThrow(/denied/);
      (await connectRaw(first.socket, first.token)).close();
      expect(await first.stop()).toBe(0);
      second = await startHub({ home, env: { SWITCHBOARD_TOKEN_ROTATION_DAYS: '7' } });
      expect(second.token).toBe(first.token);
    } finally {
      if (first.child.exitCode === null) await first.stop();
      if (second) expect(await second.stop()).toBe(0);
      removeHome(home);
    }
  });

  it('recovers the lock and socket of a hub that died (SIGKILL)', async () => {
    const first = await startHub();
    try {
      first.child.kill('SIGKILL');
      await new Promise((resolve) => first.child.once('exit', resolve));
      expect(existsSync(path.join(first.home, 'hub.lock'))).toBe(true);
      const second = await startHub({ home: first.home });
      expect(second.pid).not.toBe(first.pid);
      expect(second.token).toBe(first.token); // the token survives restarts
      const client = await connectRaw(second.socket, second.token);
      client.close();
      expect(await second.stop()).toBe(0);
    } finally {
      removeHome(first.home);
    }
  });
});
