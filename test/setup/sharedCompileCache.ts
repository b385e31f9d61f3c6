/**
 * vitest `globalSetup`: one Node compile cache for the whole run, made empty under the system
 * temp folder and removed at the end. Every `switchboard` process a test starts (about 150 hubs,
 * shims and commands in a full run) then loads as a person's second start does, from compiled
 * code (src/compileCache.ts), instead of each test file's fresh home paying the first compile.
 * Only Node reads NODE_COMPILE_CACHE; test/integration/compileCache.test.ts takes it out.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

export default function setup(): () => void {
  const dir = mkdtempSync(path.join(tmpdir(), 'sb-compile-cache-run-'));
  process.env.NODE_COMPILE_CACHE = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
