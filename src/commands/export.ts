/**
 * `switchboard export <session> [file]`: a session's transcript as an asciicast v2 recording
 * (`asciinema play <file>`). Reads the state directory only, so it works with or without a
 * running hub, for live and closed sessions alike.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { asciicastLines, exportAsciicast, SessionStore } from '../core/index.js';
import { defaultStateDir } from '../hub/common/stateDir.js'; // a light room: export starts no hub

const USAGE = `Usage: switchboard export <session> [file]

Writes the session's transcript as an asciicast v2 recording (play it with \`asciinema play\`).

  <session>  the session's id or name (the most recent session of that name)
  [file]     where to write; default <id>.cast in the current directory; - for stdout

State directory: $SWITCHBOARD_HOME, else the platform's app-data folder.
`;

export async function run(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(USAGE);
    return 0;
  }
  const positional = argv.filter((arg) => arg === '-' || !arg.startsWith('-'));
  const unknown = argv.filter((arg) => arg !== '-' && arg.startsWith('-'));
  if (unknown.length > 0 || positional.length < 1 || positional.length > 2) {
    if (unknown.length > 0) process.stderr.write(`switchboard export: unknown option ${unknown[0]}\n\n`);
    process.stderr.write(USAGE);
    return 2;
  }
  const [ref, target] = positional as [string, string | undefined];
  const stateDir = defaultStateDir();
  const store = new SessionStore(path.join(stateDir, 'sessions'));
  const meta = store.find(ref);
  if (!meta) {
    process.stderr.write(
      `switchboard export: there is no session "${ref}" in ${stateDir} (looked for it by id and by name); it may never have existed or retention removed it.\n`,
    );
    return 1;
  }
  const sessionDir = store.sessionDir(meta.id);
  if (meta.transcript_truncated_at !== undefined) {
    process.stderr.write(
      `switchboard export: note: session ${meta.id}'s transcript stopped at ${meta.transcript_truncated_at} bytes (setting transcriptMaxBytes); the recording ends there.\n`,
    );
  }
  if (meta.transcript_failed_at !== undefined) {
    process.stderr.write(
      `switchboard export: note: writing session ${meta.id}'s transcript failed at ${meta.transcript_failed_at} bytes (${meta.transcript_error ?? 'error'}); the recording ends there.\n`,
    );
  }

  if (target === '-') {
    return (await toStdout(sessionDir)) ? 0 : 1;
  }
  const file = path.resolve(target ?? `${meta.id}.cast`);
  const problem = unwritable(file);
  if (problem) {
    process.stderr.write(`switchboard export: cannot write ${file}: ${problem}\n`);
    return 1;
  }
  // Written beside the target, then renamed: a failed export never leaves half a file behind.
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  try {
    await pipeline(exportAsciicast(sessionDir), fs.createWriteStream(tmp, { mode: 0o600 }));
    fs.renameSync(tmp, file);
  } catch (error) {
    fs.rmSync(tmp, { force: true });
    process.stderr.write(`switchboard export: cannot write ${file}: ${describe(error)}\n`);
    return 1;
  }
  const live = meta.closed_at ? '' : ' (the session had not closed: the recording ends at the time of export)';
  process.stderr.write(`Wrote ${file}: session ${meta.id}${meta.name ? ` "${meta.name}"` : ''}${live}.\n`);
  return 0;
}

/** Streams to stdout, waiting for it to drain; false when the reader went away. */
async function toStdout(sessionDir: string): Promise<boolean> {
  let failed = false;
  const onError = (): void => {
    failed = true;
  };
  process.stdout.on('error', onError);
  try {
    for await (const line of asciicastLines(sessionDir)) {
      if (failed) return false;
      if (!process.stdout.write(line)) await Promise.race([once(process.stdout, 'drain'), once(process.stdout, 'error')]);
    }
    return !failed;
  } finally {
    process.stdout.off('error', onError);
  }
}

/** Why `file` cannot be written, checked before any work; null when it looks writable. */
function unwritable(file: string): string | null {
  const dir = path.dirname(file);
  try {
    if (fs.statSync(file).isDirectory()) return 'it is a directory; name a file inside it instead.';
  } catch {
    // Does not exist yet: fine.
  }
  try {
    if (!fs.statSync(dir).isDirectory()) return `${dir} is not a directory.`;
  } catch {
    return `the directory ${dir} does not exist.`;
  }
  try {
    fs.accessSync(dir, fs.constants.W_OK);
  } catch {
    return `no permission to create files in ${dir}.`;
  }
  return null;
}

function describe(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ENOSPC':
      return 'the disk is full.';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied.';
    case 'EROFS':
      return 'the file system is read-only.';
    case 'EISDIR':
      return 'it is a directory.';
    default:
      return `${(error as Error).message}.`;
  }
}
