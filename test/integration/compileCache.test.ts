/**
 * The `switchboard` command keeps Node's compile cache in the person's own cache folder
 * (src/compileCache.ts): a second start reads its modules' compiled code from there; a folder
 * someone else could write into is not used; Node's own switches win. Run against the built CLI
 * (`switchboard status`, which with no hub running exits 3).
 * Node's NODE_DEBUG_NATIVE=COMPILE_CACHE log says which cache entries it accepted.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, removeHome, ROOT, tempHome } from './helpers/hubProcess.js';

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) removeHome(home);
});

function freshHome(): string {
  const home = tempHome('sb-compile-cache-');
  homes.push(home);
  return home;
}

/** `switchboard status` with HOME=`home` and no compile cache chosen by the test run; its stderr. */
function status(home: string, extra: Record<string, string> = {}): Promise<string> {
  const env = cleanEnv({ HOME: home, SWITCHBOARD_HOME: path.join(home, 'state'), NODE_DEBUG_NATIVE: 'COMPILE_CACHE', ...extra });
  if (!('NODE_COMPILE_CACHE' in extra)) delete env.NODE_COMPILE_CACHE;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [BIN, 'status'], { env, cwd: ROOT, timeout: 30_000 }, (error, _out, err) => {
      if (error && error.code !== 3) reject(new Error(`${error.message}\n${err}`));
      else resolve(err);
    });
  });
}

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((file) => fs.statSync(path.join(dir, file)).isFile());
}

const STATUS_ACCEPTED = /cache for \S*dist\/src\/commands\/status\.js was accepted/;

describe('the compile cache of the switchboard command', () => {
  it('is written to ~/.cache/switchboard, private, and read back by the next start', async () => {
    const home = freshHome();
    const first = await status(home);
    expect(first).not.toMatch(STATUS_ACCEPTED);
    const dir = path.join(home, '.cache', 'switchboard', 'node-compile-cache');
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(filesUnder(dir).length).toBeGreaterThan(0);
    expect(await status(home)).toMatch(STATUS_ACCEPTED);
  });

  it('goes to $XDG_CACHE_HOME/switchboard when that is set', async () => {
    const home = freshHome();
    const xdg = path.join(home, 'xdg-cache');
    await status(home, { XDG_CACHE_HOME: xdg });
    expect(filesUnder(path.join(xdg, 'switchboard', 'node-compile-cache')).length).toBeGreaterThan(0);
    expect(fs.existsSync(path.join(home, '.cache'))).toBe(false);
  });

  it('is not used from a folder others may write into', async () => {
    const home = freshHome();
    const dir = path.join(home, '.cache', 'switchboard', 'node-compile-cache');
    fs.mkdirSync(dir, { recursive: true });
    fs.chmodSync(dir, 0o777);
    const stderr = await status(home);
    expect(stderr).not.toMatch(/compile cache\] resolved path/);
    expect(filesUnder(dir)).toEqual([]);
  });

  it('is not used through a symbolic link', async () => {
    const home = freshHome();
    const target = path.join(home, 'elsewhere');
    fs.mkdirSync(target, { mode: 0o700 });
    fs.mkdirSync(path.join(home, '.cache', 'switchboard'), { recursive: true });
    fs.symlinkSync(target, path.join(home, '.cache', 'switchboard', 'node-compile-cache'));
    await status(home);
    expect(filesUnder(target)).toEqual([]);
  });

  it("leaves the choice to Node's own NODE_COMPILE_CACHE and NODE_DISABLE_COMPILE_CACHE", async () => {
    const home = freshHome();
    const chosen = path.join(home, 'chosen');
    await status(home, { NODE_COMPILE_CACHE: chosen });
    expect(filesUnder(chosen).length).toBeGreaterThan(0);
    expect(fs.existsSync(path.join(home, '.cache'))).toBe(false);

    const other = freshHome();
    await status(other, { NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(fs.existsSync(path.join(other, '.cache'))).toBe(false);
  });
});
