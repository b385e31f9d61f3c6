/**
 * The window's `switchboard://ui/` scheme (main/appProtocol.ts): only the built renderer's
 * plain files, each with the CSP; nothing outside the folder.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_CSP, APP_URL, appResponse, isAppUrl } from '../../../main/appProtocol.js';

let root: string;
let rendererDir: string;

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-proto-'));
  rendererDir = path.join(root, 'renderer');
  fs.mkdirSync(rendererDir);
  fs.writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html><script type="module" src="app.js"></script>');
  fs.writeFileSync(path.join(rendererDir, 'app.js'), 'console.log(1)');
  fs.writeFileSync(path.join(rendererDir, '.hidden.js'), 'secret');
  fs.writeFileSync(path.join(root, 'token.js'), 'outside');
  fs.symlinkSync(path.join(root, 'token.js'), path.join(rendererDir, 'link.js'));
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('appResponse', () => {
  it('serves the page and its files with the CSP', async () => {
    const page = appResponse('GET', APP_URL, rendererDir);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toBe(APP_CSP);
    expect(await page.text()).toContain('app.js');
    const script = appResponse('GET', 'switchboard://ui/app.js', rendererDir);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(await script.text()).toBe('console.log(1)');
    expect(appResponse('GET', 'switchboard://ui/', rendererDir).status).toBe(200);
  });

  it('the CSP allows no network, no inline script, no frames', () => {
    expect(APP_CSP).toContain("default-src 'none'");
    expect(APP_CSP).toContain("script-src 'self'");
    expect(APP_CSP).toContain("connect-src 'none'");
    expect(APP_CSP).toContain("frame-ancestors 'none'");
    expect(APP_CSP).not.toMatch(/script-src[^;]*unsafe/);
  });

  it('refuses traversal, hidden files, symlinks out, other hosts and methods', () => {
    for (const url of [
      'switchboard://ui/../token.js',
      'switchboard://ui/%2e%2e/token.js',
      'switchboard://ui/..%2ftoken.js',
      'switchboard://ui/.hidden.js',
      'switchboard://ui/link.js',
      'switchboard://ui/missing.js',
      'switchboard://ui/app.exe',
      'switchboard://other/app.js',
      'file:///etc/passwd',
    ]) {
      expect(appResponse('GET', url, rendererDir).status, url).toBe(404);
    }
    expect(appResponse('POST', APP_URL, rendererDir).status).toBe(405);
  });

  it('an unbuilt UI gets a page saying how to build it', async () => {
    const response = appResponse('GET', APP_URL, path.join(root, 'nope'));
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('npm run build');
  });

  it('isAppUrl is exact', () => {
    expect(isAppUrl(APP_URL)).toBe(true);
    expect(isAppUrl('switchboard://ui.evil/index.html')).toBe(false);
    expect(isAppUrl('https://ui/index.html')).toBe(false);
    expect(isAppUrl('not a url')).toBe(false);
  });
});
