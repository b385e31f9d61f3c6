/**
 * Runs before every test file (vitest.config.ts `setupFiles`): this test process gets a home
 * folder of its own, made for it under the system temp folder with no rc file in it, and loses
 * the variables through which the machine's shell setup would reach a shell
 * (test/integration/helpers/hermeticEnv.ts). Everything the file starts inherits it: in-process
 * hubs and session managers, `switchboard serve` and `mcp` children, shims that start a hub.
 */
import { rmSync } from 'node:fs';
import { afterAll } from 'vitest';
import { applyHermeticHome } from '../integration/helpers/hermeticEnv.js';

const home = applyHermeticHome(process.env);

afterAll(() => {
  rmSync(home, { recursive: true, force: true });
});
