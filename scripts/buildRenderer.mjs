// Builds the browser UI (renderer/) into dist/renderer/: one ESM bundle (app.js + source map),
// the approval page's (approval.html, approval.js),
// the page, its stylesheet and xterm.js's stylesheet. The headless hub serves these files as
// `/`, `/app.js` and `/app.css` (xterm.css + styles.css); the Electron window (main/) loads the same folder.
//
// And the terminal app (apps/terminal/, docs/design.md §3.7) into dist/apps/terminal.html: one
// HTML document with its script and styles inlined, since hosts draw an MCP App from a single
// `resources/read` and its frame may load nothing else. Prints its size, raw and gzipped.
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
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
// The approval page a URL elicitation links to (docs/design.md §2.9): the window's banner alone.
await build({
  entryPoints: [path.join(ROOT, 'renderer', 'src', 'approvalPage.ts')],
  outfile: path.join(OUT, 'approval.js'),
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['chrome120', 'safari17', 'firefox120'],
  minify: true,
  legalComments: 'linked',
  logLevel: 'warning',
});
await copyFile(path.join(ROOT, 'renderer', 'index.html'), path.join(OUT, 'index.html'));
await copyFile(path.join(ROOT, 'renderer', 'approval.html'), path.join(OUT, 'approval.html'));
await copyFile(path.join(ROOT, 'renderer', 'styles.css'), path.join(OUT, 'styles.css'));
await copyFile(path.join(ROOT, 'node_modules', '@xterm', 'xterm', 'css', 'xterm.css'), path.join(OUT, 'xterm.css'));
// One stylesheet for the page: xterm.js's own rules first, ours after (ours win on ties).
const css = await Promise.all([path.join(OUT, 'xterm.css'), path.join(OUT, 'styles.css')].map((file) => readFile(file, 'utf8')));
await writeFile(path.join(OUT, 'app.css'), `${css.join('\n')}\n`);

// ---- The terminal app: one self-contained HTML document. ------------------------------------
const APP_SOURCE = path.join(ROOT, 'apps', 'terminal');
const APP_OUT = path.join(ROOT, 'dist', 'apps');
const { version } = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8'));
const script = await build({
  entryPoints: [path.join(APP_SOURCE, 'main.ts')],
  bundle: true,
  write: false,
  format: 'iife',
  platform: 'browser',
  target: ['chrome120', 'safari17', 'firefox120'],
  minify: true,
  legalComments: 'none',
  define: { APP_VERSION: JSON.stringify(version) },
  logLevel: 'warning',
});
const js = script.outputFiles[0].text;
const appCss = [
  await readFile(path.join(ROOT, 'node_modules', '@xterm', 'xterm', 'css', 'xterm.css'), 'utf8'),
  await readFile(path.join(APP_SOURCE, 'styles.css'), 'utf8'),
].join('\n');
// Inlined, a closing tag inside the code would end the element early.
if (/<\/script/i.test(js)) throw new Error('apps/terminal: the bundle contains "</script", which would end the inline script');
if (/<\/style/i.test(appCss)) throw new Error('apps/terminal: the styles contain "</style", which would end the inline style');
const template = await readFile(path.join(APP_SOURCE, 'index.html'), 'utf8');
if (!template.includes('/*@APP_JS@*/') || !template.includes('/*@APP_CSS@*/'))
  throw new Error('apps/terminal/index.html lacks its /*@APP_JS@*/ or /*@APP_CSS@*/ slot');
// Functions as replacements: `$` in the code is not a replacement pattern.
const html = template.replace('/*@APP_CSS@*/', () => appCss).replace('/*@APP_JS@*/', () => js.trimEnd());
await mkdir(APP_OUT, { recursive: true });
await writeFile(path.join(APP_OUT, 'terminal.html'), html);
const raw = Buffer.byteLength(html);
const gzip = gzipSync(html, { level: 9 }).length;
console.error(`apps/terminal: dist/apps/terminal.html ${(raw / 1024).toFixed(1)} KiB (${(gzip / 1024).toFixed(1)} KiB gzipped)`);
