import { defineConfig } from 'vitest/config';
import base, { common, EXCLUDE } from './vitest.config.js';

/**
 * `npm run test:fast`, the inner loop: the unit tests and the integration tests that run the core
 * in-process, in under a minute on a 2-core machine, with no build first. `npm test` stays the
 * whole suite (docs/conventions.md, "The test commands").
 *
 * Left out: files that need `npm run build` (a hub or shim process from dist/, the built
 * preload), a browser (test/e2e/), the adversarial floods and loads, and the files that take more
 * than about 5 s on their own (SLOW). A file that grows past that joins SLOW.
 */
const NEEDS_BUILD = [
  'test/integration/agentEnvironment.test.ts',
  'test/integration/awaitingInput.test.ts',
  'test/integration/cliConfig.test.ts',
  'test/integration/clientMatrix.test.ts',
  'test/integration/exportCommand.test.ts',
  'test/integration/hermeticShells.test.ts',
  'test/integration/history.test.ts',
  'test/integration/historyUi.test.ts',
  'test/integration/hubServer.test.ts',
  'test/integration/lazyLoading.test.ts',
  'test/integration/mcpInteractive.test.ts',
  'test/integration/mcpResizeAbsent.test.ts',
  'test/integration/mcpShim.test.ts',
  'test/integration/serveCommand.test.ts',
  'test/integration/shimForwarder.test.ts',
  'test/integration/terminalApp.test.ts',
  'test/integration/testAppScript.test.ts',
  'test/integration/uiBridge.test.ts',
  'test/integration/uiCommand.test.ts',
  'test/integration/uiScreenshot.test.ts',
  'test/unit/main/preload.test.ts',
];

const SLOW = [
  'test/unit/core/emulation/fastForward.test.ts',
  'test/unit/importBoundaries.test.ts', // lints every file: `npm run lint` checks the same rule
  'test/unit/main/noFocusSteal.test.ts',
  'test/integration/terminalSession.test.ts',
  'test/integration/interactive.test.ts',
  'test/integration/integrationSurvives.test.ts',
  'test/integration/mouse.test.ts',
];

// The base's workers and pool, its common options, none of its projects (the sandboxed second run is npm test's).
const { projects: _projects, ...root } = base.test ?? {};
export default defineConfig({
  test: {
    ...root,
    ...common,
    include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'],
    exclude: [...EXCLUDE, ...NEEDS_BUILD, ...SLOW],
  },
});
