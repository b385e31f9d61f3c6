import { defineConfig } from 'vitest/config';

/**
 * `npm run test:app` (scripts/testApp.mjs): the real Electron app's smoke test, test/app/. Not
 * part of `npm test` (vitest.config.ts leaves test/app/ out): it needs the Electron binary.
 */
export default defineConfig({
  test: {
    include: ['test/app/**/*.test.ts'],
    // As in vitest.config.ts: a home of its own, none of the machine's shell setup.
    setupFiles: ['test/setup/hermeticHome.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // One app at a time: each is a whole Electron with its hub.
    maxWorkers: 1,
    minWorkers: 1,
    pool: 'forks',
  },
});
