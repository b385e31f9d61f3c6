/**
 * An idle hub does without the code only sessions and browsers need (memory): xterm
 * is loaded by the first session, `ws` by the first UI, the history worker (a thread with SQLite)
 * by the first finished command or search. Checked in a fresh node process (the
 * built hub), where nothing else could have loaded them; both are CommonJS packages, so
 * `require.cache` says whether they were loaded. And the commands that start no hub load none
 * of it (their speed): every module a command resolves is listed by a `module.register` hook
 * loaded with `--import`.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, ROOT } from './helpers/hubProcess.js';
import { shellPath } from './helpers/shells.js';

const SCRIPT = `
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
const [hubModule, loggerModule, stateDir] = process.argv.slice(2);
const { Hub } = await import(hubModule);
const { stderrLogger } = await import(loggerModule);
const cache = createRequire(import.meta.url).cache;
const loaded = () => ({
  xterm: Object.keys(cache).some((file) => file.includes('@xterm/headless')),
  ws: Object.keys(cache).some((file) => /node_modules[\\\\/]ws[\\\\/]/.test(file)),
  // The history worker makes the database when it opens it.
  historyDb: existsSync(join(stateDir, 'history.db')),
});
const hub = await Hub.start({ stateDir, logger: stderrLogger() });
const idle = loaded();
const session = await hub.manager.open({ creator: { kind: 'agent', client: 'lazy-test 1' } });
const withSession = { ...loaded(), state: session.state };
await hub.history.search({ status: 'any', limit: 1 });
const searched = loaded();
await hub.dispose();
process.stdout.write(JSON.stringify({ idle, withSession, searched }));
`;

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true });
});

describe('what an idle hub loads', () => {
  it('loads xterm only with the first session, ws not at all without a UI, and the history worker at the first search', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-lazy-'));
    homes.push(home);
    const dist = (file: string): string => pathToFileURL(path.join(ROOT, 'dist', 'src', 'hub', file)).href;
    const env = cleanEnv({ HOME: home, SHELL: shellPath('bash'), SWITCHBOARD_PORT: '0', SWITCHBOARD_LOGIN_SHELL: 'false' });
    // A file, not `-e`: the history worker thread inherits the process's flags, and `--input-type` fails it.
    const script = path.join(home, 'idle-hub.mjs');
    fs.writeFileSync(script, SCRIPT);
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        [script, dist('hub.js'), dist('common/logger.js'), path.join(home, 'state')],
        { env, cwd: ROOT, timeout: 30_000 },
        (error, out, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out)),
      );
    });
    expect(JSON.parse(stdout)).toEqual({
      idle: { xterm: false, ws: false, historyDb: false },
      withSession: { xterm: true, ws: false, historyDb: false, state: 'idle' },
      searched: { xterm: true, ws: false, historyDb: true },
    });
  });
});

/** Lists every module the process resolves on stderr, one `resolved <url>` line each (`module.register`, Node ≥ 20.6). */
const RESOLVE_HOOK = `import { writeSync } from 'node:fs';
export async function resolve(specifier, context, next) { const found = await next(specifier, context); writeSync(2, 'resolved ' + found.url + '\\n'); return found; }`;
const LIST_MODULES = `data:text/javascript,${encodeURIComponent(
  `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(RESOLVE_HOOK)}`)});`,
)}`;

describe('what a command that starts no hub loads', () => {
  it.each([
    ['status', ['status']],
    ['ui --print', ['ui', '--print']],
    ['config', ['config', 'claude-code']],
  ])('switchboard %s loads neither the hub, the MCP SDK nor zod', async (_name, args) => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-lazy-'));
    homes.push(home);
    const env = cleanEnv({ HOME: home, SWITCHBOARD_HOME: path.join(home, 'state') });
    const stderr = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, ['--import', LIST_MODULES, BIN, ...args], { env, cwd: ROOT, timeout: 30_000 }, (error, _out, err) =>
        // No hub runs: status and ui say so and exit non-zero; what they loaded is the question.
        error && error.killed ? reject(new Error(`${error.message}\n${err}`)) : resolve(err),
      );
    });
    const modules = stderr
      .split('\n')
      .filter((line) => line.startsWith('resolved '))
      .map((line) => line.slice('resolved '.length));
    expect(modules.some((url) => url.endsWith(`/dist/src/commands/${args[0]}.js`))).toBe(true);
    expect(modules.filter((url) => /\/dist\/src\/hub\/hub\.js$|\/dist\/src\/hub\/index\.js$|@modelcontextprotocol|\/node_modules\/zod\//.test(url))).toEqual(
      [],
    );
  });
});
