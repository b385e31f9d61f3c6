// Builds the browser UI (renderer/) into dist/renderer/: one ESM bundle (app.js + source map),
// the page, its stylesheet and xterm.js's stylesheet. The headless hub serves these files as
// `/`, `/app.js` and `/app.css` (xterm.css + styles.css); the Electron window (main/) loads the same folder.
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = path.join(ROOT, 'dist', 'renderer');

await mkdir(OUT, { recursive: true });
await build({
  entryPoints: [path.join(ROOT, 'renderer', 'src', 'main.ts')],
  outfile: path.join(OUT, 'app.js'),
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['chrome120', 'safari17', 'firefox120'],
  minify: true,
  sourcemap: true,
  legalComments: 'linked',
  logLevel: 'warning',
});
await copyFile(path.join(ROOT, 'renderer', 'index.html'), path.join(OUT, 'index.html'));
await copyFile(path.join(ROOT, 'renderer', 'styles.css'), path.join(OUT, 'styles.css'));
await copyFile(path.join(ROOT, 'node_modules', '@xterm', 'xterm', 'css', 'xterm.css'), path.join(OUT, 'xterm.css'));
// One stylesheet for the page: xterm.js's own rules first, ours after (ours win on ties).
const css = await Promise.all([path.join(OUT, 'xterm.css'), path.join(OUT, 'styles.css')].map((file) => readFile(file, 'utf8')));
await writeFile(path.join(OUT, 'app.css'), `${css.join('\n')}\n`);
