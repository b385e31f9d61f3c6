/**
 * Starting a hub when none answers (docs/design.md §4.4): on macOS the installed app, in the
 * background and without activating it; everywhere else (and whenever SWITCHBOARD_HOME points the
 * shim at a state dir the app would not use) `switchboard serve`, detached from the shim so it
 * outlives it, its output appended to `<state>/hub.log`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const HUB_LOG_FILE = 'hub.log';
const MAC_APP_PATH = '/Applications/Switchboard.app';

export interface LaunchedHub {
  /** How it was started, for logs and error messages. */
  description: string;
  /** Resolves with the launcher's exit code once it exits (the detached `serve` is the hub itself). */
  exited: Promise<number | null>;
}

/** The `switchboard` entry script: the one this process runs as, else the repo's bin/. */
function switchboardScript(): string {
  const argv1 = process.argv[1];
  if (argv1 && /switchboard(\.[cm]?js)?$/.test(path.basename(argv1)) && fs.existsSync(argv1)) return argv1;
  // dist/src/shim/hubLauncher.js (built) or src/shim/hubLauncher.ts (tests): walk up to bin/.
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i += 1) {
    const candidate = path.join(dir, 'bin', 'switchboard.js');
    if (fs.existsSync(candidate)) return candidate;
    dir = path.dirname(dir);
  }
  throw new Error('cannot find bin/switchboard.js to start the hub');
}

function wait(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('error', () => resolve(null));
    child.once('exit', (code) => resolve(code));
  });
}

/**
 * Starts a hub for `stateDir` and returns at once; the caller waits for its socket.
 * `useApp` is true only when the state dir is the default one (the app knows no other).
 */
export function launchHub(stateDir: string, options: { useApp: boolean }): LaunchedHub {
  if (options.useApp && process.platform === 'darwin' && fs.existsSync(MAC_APP_PATH)) {
    // -g: do not bring the app to the foreground; the app starts its hub and stays in the menu bar.
    const child = spawn('open', ['-g', '-a', MAC_APP_PATH], { stdio: 'ignore', detached: true });
    child.unref();
    return { description: `open -g -a ${MAC_APP_PATH}`, exited: wait(child) };
  }

  const log = fs.openSync(path.join(stateDir, HUB_LOG_FILE), 'a', 0o600);
  try {
    const child = spawn(process.execPath, [switchboardScript(), 'serve'], {
      detached: true,
      stdio: ['ignore', log, log],
      // Not the MCP host's working directory: the hub outlives this shim and must not pin it.
      cwd: os.homedir(),
      // The hub serves exactly the state dir this shim waits on.
      env: { ...process.env, SWITCHBOARD_HOME: stateDir },
    });
    child.unref();
    return { description: `switchboard serve (pid ${child.pid ?? '?'}, log ${HUB_LOG_FILE})`, exited: wait(child) };
  } finally {
    fs.closeSync(log);
  }
}
