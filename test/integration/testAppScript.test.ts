/**
 * `npm run test:app` where the real app cannot run: it says it did not run and
 * why, exits 77 (never 0), and builds or starts nothing; the smoke test stays out of `npm test`,
 * and run directly without the binary it fails with the reason rather than passing.
 * ELECTRON_OVERRIDE_DIST_PATH (read by the `electron` package) points at a folder without a
 * binary, so this holds on a machine that has Electron too.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/hubProcess.js';
import { within } from './helpers/within.js';

const NO_ELECTRON = { ELECTRON_OVERRIDE_DIST_PATH: path.join(ROOT, 'no-electron-here') };

function run(file: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(file, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return within(
    new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr }))),
    60_000,
    `${path.basename(file)} ${args.join(' ')} to exit`,
  );
}

describe('npm run test:app without the Electron binary', () => {
  it('says it did not run and why, and exits 77, building nothing', async () => {
    const scripts = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts['test:app']).toBe('node scripts/testApp.mjs');
    const { code, stdout, stderr } = await run(process.execPath, ['scripts/testApp.mjs'], NO_ELECTRON);
    expect(code).toBe(77);
    expect(stderr).toContain(`test:app DID NOT RUN: Electron binary not installed (${NO_ELECTRON.ELECTRON_OVERRIDE_DIST_PATH}/electron is missing).`);
    expect(stderr).toContain('It is not a pass');
    expect(stderr).not.toContain('building');
    expect(stdout).toBe('');
  });

  it('the smoke test is not in npm test; run directly without the binary, it fails with the reason', async () => {
    const listed = await run(process.execPath, ['node_modules/vitest/vitest.mjs', 'list', '--filesOnly'], {});
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('test/integration/testAppScript.test.ts');
    expect(listed.stdout).not.toContain('test/app/');
    const direct = await run(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', '--config', 'vitest.app.config.ts'], NO_ELECTRON);
    expect(direct.code).not.toBe(0);
    expect(direct.stdout + direct.stderr).toContain('The real app cannot run here: Electron binary not installed');
  });
});
