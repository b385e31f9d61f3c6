import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * Where the hub keeps its state: `SWITCHBOARD_HOME`, else the platform's app-data folder
 * (macOS: ~/Library/Application Support/Switchboard; Linux: $XDG_STATE_HOME/switchboard or
 * ~/.local/state/switchboard). The directory is private (0700) whatever the umask.
 */
export function defaultStateDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SWITCHBOARD_HOME) return path.resolve(env.SWITCHBOARD_HOME);
  const home = os.homedir();
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'Switchboard');
  const stateHome = env.XDG_STATE_HOME || path.join(home, '.local', 'state');
  return path.join(stateHome, 'switchboard');
}

export function ensureStateDir(dir: string): string {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
  return dir;
}
