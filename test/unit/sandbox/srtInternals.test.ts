/**
 * What we take from @anthropic-ai/sandbox-runtime beyond its entry (src/sandbox/srtInternals.ts)
 * is still there and still does what we rely on: an update that moves or changes a piece fails
 * here first. The proxy is tried for real (DomainProxy on a unix socket, a server on loopback).
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DomainProxy } from '../../../src/sandbox/domainProxy.js';
import { applySeccompPath, domainMatcher, seatbeltCommand } from '../../../src/sandbox/srtInternals.js';

const disposals: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const dispose of disposals.splice(0).reverse()) await dispose();
});

/** One HTTP request through the proxy's unix socket, as the listener in a sandbox forwards it. */
function throughProxy(socket: string, url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request({ socketPath: socket, method: 'GET', path: url, headers: { host: new URL(url).host } }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    request.end();
  });
}

describe('the library pieces the sandbox uses', () => {
  it('domain patterns: a name exactly, or every name under *.domain (not the domain itself)', async () => {
    const matches = await domainMatcher();
    expect(matches('registry.npmjs.org', 'registry.npmjs.org')).toBe(true);
    expect(matches('REGISTRY.npmjs.org', 'registry.npmjs.org')).toBe(true);
    expect(matches('api.github.com', '*.github.com')).toBe(true);
    expect(matches('github.com', '*.github.com')).toBe(false);
    expect(matches('evilgithub.com', '*.github.com')).toBe(false);
    expect(matches('github.com.evil.example', 'github.com')).toBe(false);
  });

  it('the filtering proxy (DomainProxy): a listed host is reached, another is refused with 403', async () => {
    const server = http.createServer((_request, response) => response.end('REACHED'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    disposals.push(() => new Promise((resolve) => server.close(() => resolve())));
    const port = (server.address() as AddressInfo).port;
    const proxy = await DomainProxy.start(() => ['localhost'], 'linux');
    disposals.push(() => proxy.dispose());
    expect(proxy.socket && fs.statSync(proxy.socket).isSocket()).toBe(true);
    expect(await throughProxy(proxy.socket!, `http://localhost:${port}/`)).toEqual({ status: 200, body: 'REACHED' });
    expect((await throughProxy(proxy.socket!, `http://127.0.0.1:${port}/`)).status).toBe(403);
  });

  it("apply-seccomp ships for this machine's architecture, executable", () => {
    if (!['x64', 'arm64'].includes(process.arch)) return expect(applySeccompPath()).toBeUndefined();
    const file = applySeccompPath();
    expect(file).toMatch(/vendor\/seccomp\/(x64|arm64)\/apply-seccomp$/);
    fs.accessSync(file!, fs.constants.X_OK);
  });

  it('the macOS wrap: a shell command running sandbox-exec with a profile', async () => {
    const line = await seatbeltCommand({ command: 'exec /bin/zsh -l', denied: ['/state'], writable: ['/work'], readOnly: [], network: { mode: 'on' } });
    expect(line).toMatch(/\/usr\/bin\/sandbox-exec -p '\(version 1\)/);
    expect(line).toContain('exec /bin/zsh -l');
  });
});
