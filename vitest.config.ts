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

export default defineConfig({
  test: {
    // Real shells and PTYs: keep the 2-core machine from thrashing.
    maxWorkers: 2,
    minWorkers: 1,
    pool: 'forks',
    projects: [
      {
        test: {
          ...common,
          name: 'default',
          include: ['test/**/*.test.ts'],
          exclude: EXCLUDE,
        },
      },
      {
        test: {
          ...common,
          name: 'sandboxed',
          include: SANDBOXED,
          env: { SWITCHBOARD_TEST_SANDBOX: '1' },
        },
      },
    ],
  },
});
