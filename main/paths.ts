/**
 * Where the app's files are, found from this module: `main/` (sources under tests) or
 * `dist/main/` (built; inside the packaged app `app.asar/dist/main/`). Electron's `fs` reads
 * inside app.asar, so the same walk works packaged and in a checkout.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** The package root: the nearest folder above this module holding package.json. */
function packageRoot(): string {
  let dir = HERE;
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${HERE}`);
    dir = parent;
  }
}

/** `assets/tray/`: the menu-bar icons (scripts/makeTrayIcons.mjs). */
export function trayIconsDir(): string {
  return path.join(packageRoot(), 'assets', 'tray');
}

/**
 * The preload script Electron loads into the window: `dist/main/preload.cjs`, compiled from
 * main/preload.cts. A sandboxed preload must be one CommonJS file that requires nothing but
 * `electron`, hence the `.cts`.
 */
export function preloadPath(): string {
  return path.join(packageRoot(), 'dist', 'main', 'preload.cjs');
}
