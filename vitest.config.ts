import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The real Electron app needs its binary: `npm run test:app` runs it (vitest.app.config.ts).
    exclude: [...configDefaults.exclude, 'test/app/**'],
    // Every test file gets a home of its own with no rc file, and none of the machine's shell setup.
    setupFiles: ['test/setup/hermeticHome.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Real shells and PTYs: keep the 2-core machine from thrashing.
    maxWorkers: 2,
    minWorkers: 1,
    pool: 'forks',
  },
});
