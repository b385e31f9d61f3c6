import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The suites about sessions, run a second time with every session they open inside the real
 * sandbox (SWITCHBOARD_TEST_SANDBOX=1, read by test/integration/helpers/testSandbox.ts only):
 * job control, Ctrl-C, kill, close and the process table, awaiting input, shell integration and
 * its fallback must work there exactly as outside (docs/design.md §2.10). The suites that start
 * a hub (awaitingInput, mcpInteractive, clientMatrix, …) need no second run: the hub sandboxes
 * agents' sessions by default, so they run sandboxed already.
 */
const SANDBOXED = [
  'test/integration/processes.test.ts',
  'test/integration/terminalSession.test.ts',
  'test/integration/interactive.test.ts',
  'test/integration/integrationSurvives.test.ts',
  'test/integration/shellsByName.test.ts',
  'test/integration/typedCommandLine.test.ts',
  'test/integration/sandboxedRun.test.ts',
];

// The real Electron app needs its binary: `npm run test:app` runs it (vitest.app.config.ts).
export const EXCLUDE = [...configDefaults.exclude, 'test/app/**'];

export const common = {
  testTimeout: 30_000,
  hookTimeout: 30_000,
  // Every test file gets a home of its own with no rc file, and none of the machine's shell setup.
  setupFiles: ['test/setup/hermeticHome.ts'],
};

/** Every test file under `folder`, as a path from the repository root. */
export function testFiles(folder: string): string[] {
  return readdirSync(path.join(import.meta.dirname, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => path.posix.join(folder, file.split(path.sep).join('/')));
}

/**
 * The unit tests that need a process of their own: they replace a module (`vi.mock`: the fake
 * electron, a spied crypto) or the environment, start a PTY or a hub (whose children, fds and
 * signal handlers must not outlive their file), write into a FIFO nobody reads (a blocked
 * write holds one of the libuv threads that all worker threads of a process share: run shared,
 * the transcript's disk tests hung to their timeout), or fake the clock (a module first loaded
 * while timers are fake can keep them: run shared, feedScheduler's waits on xterm's writes hung
 * once in a full run). The others share their worker's modules.
 */
const NEEDS_OWN_PROCESS = /\bvi\.(?:mock|doMock|stubGlobal|stubEnv|useFakeTimers)\(|\bspawnPty\(|from 'node-pty'|\bnew Hub\(|'mkfifo'/;
const UNIT = testFiles('test/unit');
export const UNIT_SHARED = UNIT.filter((file) => !NEEDS_OWN_PROCESS.test(readFileSync(path.join(import.meta.dirname, file), 'utf8')));

// Vitest (3.2) reads isolation per pool from the root config, not per project: so the shared
// unit tests get the threads pool, set to share, and the rest stay in forks, one per file. The
// two pools would run at once (six workers on two cores, the unit tests busy on the CPU): the
// unit tests go first instead.
export const UNIT_SHARED_PROJECT = { ...common, name: 'unit', include: UNIT_SHARED, pool: 'threads' as const, sequence: { groupOrder: 0 } };
const AFTER_UNIT = { groupOrder: 1 };

export default defineConfig({
  test: {
    globalSetup: ['test/setup/sharedCompileCache.ts'],
    // Per pool (vitest 3.2 reads these before maxWorkers): the shared unit tests are busy on the
    // CPU, two threads for two cores; the rest mostly wait on real programs (prompts, quiet
    // periods, kill waits, browsers): with two at once the cores were idle 40 % of the run.
    // Measured on this 2-core machine, the whole run: 501 s with two, 398 s with three; with
    // the hub tests' shorter quiet period, 354 s with four and 382 s with six (the CPU-bound
    // churn test then took 150 s instead of 70).
    pool: 'forks',
    poolOptions: { threads: { isolate: false, maxThreads: 2, minThreads: 1 }, forks: { maxForks: 4, minForks: 1 } },
    projects: [
      {
        // Unit tests that start no process share a worker's loaded modules: a fresh process per
        // file cost 3x their own time (loading the SDK, xterm and zod again for each file;
        // measured on this 2-core machine: test/unit in 165 s, 54 s shared).
        test: UNIT_SHARED_PROJECT,
      },
      {
        // Everything else (shells, hubs, browsers, replaced modules): a process per file, so no
        // child, fd, signal handler or fake outlives its file.
        test: {
          ...common,
          name: 'default',
          include: ['test/**/*.test.ts'],
          exclude: [...EXCLUDE, ...UNIT_SHARED],
          sequence: AFTER_UNIT,
        },
      },
      {
        test: {
          ...common,
          name: 'sandboxed',
          include: SANDBOXED,
          sequence: AFTER_UNIT,
          env: { SWITCHBOARD_TEST_SANDBOX: '1' },
        },
      },
    ],
  },
});
