/**
 * The app's logger: the hub's `Logger` interface, written to `<state>/hub.log` (the file a
 * `serve` started by the shim logs to as well, so "where is the log" has one answer) and to
 * stderr (seen under `npm start`). A Finder-launched app has no terminal, hence the file.
 * Messages carry no secrets (docs/conventions.md rule 9); the file is private (0600) like the
 * state dir.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Logger } from '../src/hub/index.js';

const APP_LOG_FILE = 'hub.log';
/** At start, a log past this size moves to hub.log.1 (one generation kept). */
const ROTATE_BYTES = 5 * 1024 * 1024;

export function createAppLogger(stateDir: string, env: NodeJS.ProcessEnv = process.env): Logger & { file: string } {
  const file = path.join(stateDir, APP_LOG_FILE);
  try {
    if (fs.statSync(file).size > ROTATE_BYTES) fs.renameSync(file, `${file}.1`);
  } catch {
    // No log yet.
  }
  const verbose = env.SWITCHBOARD_LOG === 'debug' || env.SWITCHBOARD_LOG === 'info';
  const write = (level: string, message: string): void => {
    const line = `${new Date().toISOString()} switchboard-app ${level}: ${message}\n`;
    try {
      fs.appendFileSync(file, line, { mode: 0o600 });
    } catch {
      // A log that cannot be written must not take the app down.
    }
    try {
      process.stderr.write(line);
    } catch {
      // No stderr (EPIPE when launched detached).
    }
  };
  return {
    file,
    info: (message) => {
      if (verbose) write('info', message);
    },
    warn: (message) => write('warn', message),
    error: (message) => write('error', message),
  };
}
