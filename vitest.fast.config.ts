import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { defineConfig } from 'vitest/config';
import base, { common, EXCLUDE, testFiles, UNIT_SHARED, UNIT_SHARED_PROJECT } from './vitest.config.js';

/**
 * `npm run test:fast`, the inner loop: the unit tests and the integration tests that run the core
 * in-process, in under a minute on a 2-core machine, with no build first. `npm test` stays the
 * whole suite (docs/conventions.md, "The test commands").
 *
 * Left out: files that need `npm run build` (a hub or shim process from dist/, the built
 * preload), a browser (test/e2e/), the adversarial floods and loads, and the files that take more
 * than about 5 s on their own (SLOW). A file that grows past that joins SLOW.
 */
/**
 * A file needs a build when it starts a hub or the shim (helpers/hubProcess.ts, bin/switchboard.js
 * run dist/) or reads dist/ itself (the built preload). Found by what the file says, so a new hub
 * test cannot slip into the inner loop and fail there for want of a build.
 */
const RUNS_THE_BUILD = /helpers\/hubProcess\.js|'switchboard\.js'|\bdist\//;
const NEEDS_BUILD = [...testFiles('test/unit'), ...testFiles('test/integration')].filter((file) =>
  RUNS_THE_BUILD.test(readFileSync(path.join(import.meta.dirname, file), 'utf8')),
);

const SLOW = [
  'test/unit/core/emulation/fastForward.test.ts',
  'test/unit/core/emulation/floodBatches.test.ts',
  'test/unit/main/noFocusSteal.test.ts',
  'test/integration/terminalSession.test.ts',
  'test/integration/interactive.test.ts',
  'test/integration/integrationSurvives.test.ts',
  'test/integration/mouse.test.ts',
];

// The base's workers and pool, its shared unit project, none of its other projects (the sandboxed second run is npm test's).
const { projects: _projects, ...root } = base.test ?? {};
export default defineConfig({
  test: {
    ...root,
    projects: [
      { test: { ...UNIT_SHARED_PROJECT, exclude: [...EXCLUDE, ...NEEDS_BUILD, ...SLOW] } },
      {
        test: {
          ...common,
          name: 'default',
          include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'],
          exclude: [...EXCLUDE, ...UNIT_SHARED, ...NEEDS_BUILD, ...SLOW],
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
