import * as fs from 'node:fs';

let cached: string | undefined;

/**
 * Our package.json's version, for the hello line. The shim may not import src/mcp/ (where the
 * server keeps the same lookup): it stays a forwarder that loads no MCP code.
 */
export function shimVersion(): string {
  if (cached !== undefined) return cached;
  cached = '0.0.0';
  let dir = new URL('.', import.meta.url);
  for (let i = 0; i < 6; i++) {
    try {
      const pkg = JSON.parse(fs.readFileSync(new URL('package.json', dir), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'switchboard' && typeof pkg.version === 'string') {
        cached = pkg.version;
        break;
      }
    } catch {
      // No package.json at this level: keep walking up.
    }
    dir = new URL('..', dir);
  }
  return cached;
}
