// Whether the Electron app can start on this machine, and if not, why: shared by `npm start`
// (bin/start.js: the app, else the headless hub) and `npm run test:app` (scripts/testApp.mjs,
// test/app/: the real app's smoke test, else "did not run").
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * The Electron binary, or the reason the app cannot start here.
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {{ binary: string } | { reason: string }}
 */
export function electronBinary(env = process.env) {
  let binary;
  try {
    // The `electron` package exports the binary's path; it throws when none was downloaded.
    binary = createRequire(import.meta.url)('electron');
  } catch {
    return { reason: 'Electron binary not installed (ELECTRON_SKIP_BINARY_DOWNLOAD, or no electron package)' };
  }
  if (typeof binary !== 'string' || !existsSync(binary)) return { reason: `Electron binary not installed (${binary} is missing)` };
  if (process.platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY) {
    return { reason: 'no display (neither DISPLAY nor WAYLAND_DISPLAY is set)' };
  }
  return { binary };
}
