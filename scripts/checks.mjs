#!/usr/bin/env node
// `npm test`'s first half: build, type check and lint, side by side. Each is one single-threaded
// process that needs nothing the others make (lint ignores dist/, the type checks emit nothing),
// so on a 2-core machine running them at once takes about half the time of one after another.
// main/ is type-checked once, by the build that compiles it (`typecheck` would check it again:
// `typecheck:code` is the rest). Each one's output is printed whole when it ends; the exit code
// is non-zero if any failed.
import { spawn } from 'node:child_process';

const SCRIPTS = ['build', 'typecheck:code', 'lint'];
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function run(script) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(npm, ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('error', (error) => output.push(Buffer.from(`${error.message}\n`)));
    child.on('close', (code, signal) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const ok = code === 0;
      process.stdout.write(`\n==== npm run ${script}: ${ok ? 'ok' : `FAILED (${signal ?? code})`} in ${seconds} s\n`);
      process.stdout.write(Buffer.concat(output));
      resolve(ok);
    });
  });
}

const results = await Promise.all(SCRIPTS.map(run));
const failed = SCRIPTS.filter((_, i) => !results[i]);
if (failed.length > 0) {
  process.stderr.write(`\nnpm test stopped before the tests: ${failed.join(', ')} failed (output above).\n`);
  process.exit(1);
}
