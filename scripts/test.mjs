#!/usr/bin/env node
// `npm test`: the build, then every test with the type check, lint and format check beside them.
//
// The tests need the build (hub and shim processes run dist/); nothing else needs anything of
// another: the checks read the sources and emit nothing, and lint ignores dist/. The checks, each
// one single-threaded process, run beside the tests at the lowest priority: they take whatever
// the tests leave of the cores (on a 2-core machine the tests keep both busy, so most of the
// checks' work lands at the end). Everything keeps what it learnt between runs (`tsc -b` and its
// build info, ESLint's and Prettier's caches): after `npm install` built the tree, the build only
// confirms it is current.
//
// A check that fails stops the tests and prints its output; the others' output is printed
// whole, after the tests, when they pass. Arguments go to vitest (`npm test -- x.test.ts`).
// The exit code is non-zero if the build, a check or a test failed.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const CHECKS = ['typecheck:code', 'lint:code', 'format:check'];
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
// Everything runs from the repository's root, wherever this script was started from.
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Runs `command`, its output held back (checks) or shown as it comes (the build, the tests). */
function run(command, args, { quiet = false, group = false } = {}) {
  const started = Date.now();
  const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', quiet ? 'pipe' : 'inherit', quiet ? 'pipe' : 'inherit'], detached: group });
  const output = [];
  child.stdout?.on('data', (chunk) => output.push(chunk));
  child.stderr?.on('data', (chunk) => output.push(chunk));
  const done = new Promise((resolve) => {
    child.on('error', (error) => {
      output.push(Buffer.from(`${error.message}\n`));
      resolve({ ok: false, code: error.message });
    });
    child.on('close', (code, signal) => resolve({ ok: code === 0, code: signal ?? code }));
  }).then((result) => ({ ...result, seconds: ((Date.now() - started) / 1000).toFixed(1), output: Buffer.concat(output) }));
  return { child, done };
}

function report(name, result) {
  process.stdout.write(`\n==== npm run ${name}: ${result.ok ? 'ok' : `FAILED (${result.code})`} in ${result.seconds} s\n`);
  process.stdout.write(result.output);
}

const build = await run(npm, ['run', '--silent', 'build']).done;
if (!build.ok) {
  process.stderr.write(`\nnpm test stopped before the tests: the build failed (output above).\n`);
  process.exit(1);
}

// The tests in a process group of their own, so that stopping them stops the hubs and shells
// their files started; a Ctrl-C or SIGTERM to npm test reaches them the same way.
const tests = run(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...process.argv.slice(2)], { group: true });
const stopGroup = (child, signal) => {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
};
const stopTests = (signal) => stopGroup(tests.child, signal);
let failedCheck = null;
// At the lowest priority: they take the cores' idle time, not the tests' (where `nice` exists).
const lowPriority = (command, args) => (process.platform === 'win32' ? [command, args] : ['nice', ['-n', '19', command, ...args]]);
/**
 * Linux shares the CPU between sessions first (autogroups) and applies `nice` only inside one:
 * the tests run in a session of their own, so a niced check in ours still took half the cores
 * from them (measured: the tests 100 s slower than alone). Each check gets a session of its own,
 * and that session the lowest priority too. Elsewhere there are no autogroups to set.
 */
function lowerSession(child) {
  try {
    writeFileSync(`/proc/${child.pid}/autogroup`, '19');
  } catch {
    // No autogroups here (not Linux, or a kernel without them): nice alone decides.
  }
}
const checks = CHECKS.map((name) => {
  const check = run(...lowPriority(npm, ['run', '--silent', name]), { quiet: true, group: true });
  lowerSession(check.child);
  return check;
});
// Stopped by hand: the tests and the checks, each in a session of its own, are stopped the same
// way, and nothing is blamed on a check.
let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'])
  process.on(signal, () => {
    interrupted = true;
    stopTests(signal);
    for (const check of checks) stopGroup(check.child, signal);
  });

const checkResults = checks.map(({ done }, i) =>
  done.then((result) => {
    const name = CHECKS[i];
    if (!result.ok && failedCheck === null && !interrupted) {
      failedCheck = name;
      stopTests('SIGTERM');
      report(name, result);
      process.stderr.write(`\nnpm test stopped the tests: ${name} failed (output above).\n`);
    }
    return { name, result };
  }),
);

const [testResult, checksDone] = await Promise.all([tests.done, Promise.all(checkResults)]);
if (interrupted || failedCheck !== null) {
  // A worker of the stopped tests can outlive vitest, busy on a core (seen after a Ctrl-C):
  // nothing of a stopped run is left behind.
  stopTests('SIGKILL');
  for (const check of checks) stopGroup(check.child, 'SIGKILL');
}
if (interrupted) process.exit(130);
if (failedCheck !== null) process.exit(1);
for (const { name, result } of checksDone) report(name, result);
process.exit(testResult.ok ? 0 : 1);
