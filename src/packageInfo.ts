import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where this package lives and its version, found by walking up from this module to the
 * `package.json` named "switchboard": works from `src/` (vitest) and `dist/src/` (built), in a
 * checkout and inside the packaged app. A leaf module every layer may use (core's shell
 * integration for its scripts, the MCP server and the shim for the version).
 */
let cachedRoot: string | undefined;
let cachedVersion: string | undefined;

export function packageRoot(): string {
  if (cachedRoot !== undefined) return cachedRoot;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = readPackage(dir);
    if (pkg?.name === 'switchboard') {
      cachedRoot = dir;
      cachedVersion = typeof pkg.version === 'string' ? pkg.version : '0.0.0';
      return dir;
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`switchboard's package.json not found above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

export function packageVersion(): string {
  if (cachedVersion === undefined) packageRoot();
  return cachedVersion ?? '0.0.0';
}

function readPackage(dir: string): { name?: unknown; version?: unknown } | null {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
  } catch {
    return null; // none here, or not ours: keep walking up
  }
}
