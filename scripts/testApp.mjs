#!/usr/bin/env node
// `npm run test:app`: the smoke test of the real Electron app (test/app/, Playwright's Electron
// driver). It needs the Electron binary and a display, so it runs on a contributor's machine
// that has them; anywhere else it says it did not run and why, and exits 77 (automake's "skipped"
// code): not 0, so a script or CI step never counts it as passed.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { electronBinary } from './electronBinary.mjs';

const DID_NOT_RUN = 77;
const root = fileURLToPath(new URL('..', import.meta.url));

const found = electronBinary();
if (!found.binary) {
  process.stderr.write(
    `test:app DID NOT RUN: ${found.reason}.\n` +
      'It is not a pass: the smoke test of the real app needs the Electron binary (npm install without\n' +
      'ELECTRON_SKIP_BINARY_DOWNLOAD) and a display (on Linux without one: xvfb-run npm run test:app).\n' +
      `Exit ${DID_NOT_RUN}.\n`,
  );
  process.exit(DID_NOT_RUN);
}

/** Runs a command in the package root with our stdio; resolves with its exit code. */
function run(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: 'inherit' });
    child.once('error', (error) => {
      process.stderr.write(`test:app: could not run ${command}: ${error.message}\n`);
      resolve(1);
    });
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

process.stderr.write(`test:app: Electron at ${found.binary}; building, then the smoke test.\n`);
// The test drives dist/ (main, preload, renderer): build what is checked out first.
const built = await run('npm', ['run', 'build']);
if (built !== 0) process.exit(built);
process.exit(await run('npx', ['vitest', 'run', '--config', 'vitest.app.config.ts']));
