import * as fs from 'node:fs';
import * as module from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * Node's compile cache for the `switchboard` command's own processes (the hub, the shim MCP
 * hosts launch, the other commands): a start reads its modules' compiled code from disk instead
 * of compiling them again. `src/cli.ts` turns it on before it loads a command. Measured on a
 * 2-core Linux machine: `switchboard serve` was listening after 0.48 CPU-s instead of 0.56, and
 * 410 ms instead of 480 (docs/decisions.md, "Startup").
 *
 * The folder is the person's cache folder (macOS: ~/Library/Caches/Switchboard; elsewhere
 * $XDG_CACHE_HOME/switchboard or ~/.cache/switchboard), and only theirs: a process runs what it
 * finds there, so a folder another user could write into is not used. NODE_COMPILE_CACHE (a
 * folder of the person's choosing) and NODE_DISABLE_COMPILE_CACHE are Node's own and win.
 * Never throws: without a cache, the command only starts slower.
 */
export function enableCompileCache(env: NodeJS.ProcessEnv = process.env): string | null {
  try {
    if (env.NODE_DISABLE_COMPILE_CACHE) return null;
    if (env.NODE_COMPILE_CACHE) return enabled(module.enableCompileCache());
    const dir = privateFolder(path.join(cacheHome(env), 'node-compile-cache'));
    return dir === null ? null : enabled(module.enableCompileCache(dir));
  } catch {
    return null;
  }
}

/** The platform's per-user cache folder for Switchboard. */
function cacheHome(env: NodeJS.ProcessEnv = process.env): string {
  const home = os.homedir();
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Caches', 'Switchboard');
  // XDG says a relative path is invalid and to be ignored.
  const xdg = env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : path.join(home, '.cache');
  return path.join(xdg, 'switchboard');
}

/**
 * `dir`, made (0700) if missing, when it is a real folder of this user that no one else may
 * write into; otherwise null.
 */
function privateFolder(dir: string): string | null {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = fs.lstatSync(dir);
  if (!stat.isDirectory()) return null;
  if (typeof process.getuid === 'function' && stat.uid !== process.getuid()) return null;
  if ((stat.mode & 0o022) !== 0) return null;
  return dir;
}

function enabled(result: module.EnableCompileCacheResult): string | null {
  const { ENABLED, ALREADY_ENABLED } = module.constants.compileCacheStatus;
  return result.status === ENABLED || result.status === ALREADY_ENABLED ? (result.directory ?? null) : null;
}
