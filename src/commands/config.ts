/**
 * `switchboard config <host> [--install]`: prints the JSON a host needs to launch the shim
 * (stdout, so it can be piped), or merges it into the host's own config file, keeping
 * everything else in that file.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { configSnippet, hostFormat, HOSTS, SERVER_NAME, serverEntry, type HostName } from '../hub/hostConfig.js';

const USAGE = `Usage: switchboard config <${HOSTS.join('|')}> [--install]

Prints the MCP server entry that launches Switchboard for that host.
  --install   write it into the host's user config file (other entries are kept)
`;

export async function run(argv: string[]): Promise<number> {
  const install = argv.includes('--install');
  const rest = argv.filter((arg) => arg !== '--install');
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(USAGE);
    return 0;
  }
  const host = rest[0];
  const unknown = rest.slice(1);
  if (host === undefined || !isHost(host) || unknown.length > 0) {
    if (host !== undefined && !isHost(host)) process.stderr.write(`switchboard config: unknown host "${host}"\n`);
    if (unknown.length > 0) process.stderr.write(`switchboard config: unexpected arguments: ${unknown.join(' ')}\n`);
    process.stderr.write(USAGE);
    return 2;
  }
  const format = hostFormat(host);
  if (!install) {
    process.stdout.write(`${JSON.stringify(configSnippet(host), null, 2)}\n`);
    process.stderr.write(`(${format.title} reads ${format.file}; \`switchboard config ${host} --install\` adds it there.)\n`);
    return 0;
  }
  try {
    const outcome = installEntry(format.file, format.key, serverEntry(host));
    process.stderr.write(`${outcome} "${SERVER_NAME}" in ${format.file} (${format.key}); restart ${format.title} to pick it up.\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`switchboard config: ${(error as Error).message}\n`);
    return 1;
  }
}

function isHost(value: string): value is HostName {
  return (HOSTS as readonly string[]).includes(value);
}

/** Merges `entry` as `<key>.switchboard`; refuses (untouched) a file that is not plain JSON. */
export function installEntry(file: string, key: string, entry: object): 'Added' | 'Updated' | 'Already up to date:' {
  const target = realTarget(file);
  let document: Record<string, unknown> = {};
  let mode = 0o600;
  if (fs.existsSync(target)) {
    const text = fs.readFileSync(target, 'utf8');
    mode = fs.statSync(target).mode & 0o777;
    if (text.trim() !== '') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (error) {
        throw new Error(`${file} is not plain JSON (${(error as Error).message}; comments are not supported here). Add the entry printed by \`switchboard config\` by hand.`);
      }
      if (!isObject(parsed)) throw new Error(`${file} does not hold a JSON object; not touching it.`);
      document = parsed;
    }
  }
  const existing = document[key];
  if (existing !== undefined && !isObject(existing)) throw new Error(`"${key}" in ${file} is not an object; not touching it.`);
  const servers = { ...(existing ?? {}) };
  const previous = servers[SERVER_NAME];
  if (JSON.stringify(previous) === JSON.stringify(entry)) return 'Already up to date:';
  servers[SERVER_NAME] = entry;
  document[key] = servers;
  writeAtomically(target, `${JSON.stringify(document, null, 2)}\n`, mode);
  return previous === undefined ? 'Added' : 'Updated';
}

/** Through a symlink (dotfile managers), write the file it points at. */
function realTarget(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return file;
  }
}

function writeAtomically(file: string, text: string, mode: number): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  try {
    fs.writeFileSync(temp, text, { mode });
    fs.chmodSync(temp, mode);
    fs.renameSync(temp, file);
  } finally {
    fs.rmSync(temp, { force: true });
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
