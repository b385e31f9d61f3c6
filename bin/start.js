#!/usr/bin/env node
// `npm start`: the Electron app where it can start; otherwise, saying why in one line, the
// headless hub (`switchboard serve`) in this process, with the same state-dir rules.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { electronBinary } from '../scripts/electronBinary.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const mainEntry = fileURLToPath(new URL('../dist/main/index.js', import.meta.url));

/** The Electron binary, or the reason the app cannot start here (the main process built, too). */
function appBinary() {
  const found = electronBinary();
  if (found.binary && !existsSync(mainEntry)) return { reason: 'the Electron main process is not built (run `npm run build:main`)' };
  return found;
}

const electron = appBinary();
if (electron.binary) {
  const env = { ...process.env };
  delete env.ELECTRON_RUN_AS_NODE; // would start the binary as plain Node, not as the app
  const child = spawn(electron.binary, [mainEntry], { cwd: root, stdio: 'inherit', env });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  child.on('error', (error) => {
    process.stderr.write(`switchboard: could not start Electron (${error.message})\n`);
    process.exit(1);
  });
} else {
  process.stderr.write(`switchboard: ${electron.reason} — running the headless hub instead.\n`);
  const cli = fileURLToPath(new URL('../dist/src/commands/serve.js', import.meta.url));
  if (!existsSync(cli)) {
    process.stderr.write('switchboard: dist/ is missing; run `npm run build` first.\n');
    process.exit(1);
  }
  const { run } = await import('../dist/src/commands/serve.js');
  process.exit(await run(process.argv.slice(2)));
}
