/**
 * `switchboard config <host> [--install]` (docs/design.md §4.5): prints the entry a host needs to
 * launch the shim (stdout, so it can be piped), or sets it in the host's own config file, changing
 * nothing else in that file.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
// The light room, not the hub's entry: printing or installing an entry starts no hub, so it loads none.
import { configText, hostFormat, HOSTS, SERVER_NAME, serverEntry, type HostName } from '../hub/hostConfig/hostConfig.js';
import { ConfigEditRefused, type EntryEdit } from '../hub/hostConfig/entryEdit.js';
import { setJsonEntry } from '../hub/hostConfig/jsonEntryEditor.js';
import { setTomlEntry } from '../hub/hostConfig/tomlEntryEditor.js';

function usage(): string {
  const width = Math.max(...HOSTS.map((host) => host.length));
  const rows = HOSTS.map((host) => {
    const format = hostFormat(host);
    return `  ${host.padEnd(width)}  ${format.title}: ${format.file} (${format.key})`;
  });
  return `Usage: switchboard config <host> [--install]

Prints the MCP server entry that launches Switchboard for that host.
  --install   set it in the host's user config file: only the "${SERVER_NAME}" entry changes
              (the person's own keys in it are kept), the rest of the file stays as written

Hosts:
${rows.join('\n')}
`;
}

export async function run(argv: string[]): Promise<number> {
  const install = argv.includes('--install');
  const rest = argv.filter((arg) => arg !== '--install');
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(usage());
    return 0;
  }
  const host = rest[0];
  const unknown = rest.slice(1);
  if (host === undefined || !isHost(host) || unknown.length > 0) {
    if (host !== undefined && !isHost(host)) process.stderr.write(`switchboard config: unknown host "${host}"\n`);
    if (unknown.length > 0) process.stderr.write(`switchboard config: unexpected arguments: ${unknown.join(' ')}\n`);
    process.stderr.write(usage());
    return 2;
  }
  const format = hostFormat(host);
  if (!install) {
    process.stdout.write(configText(host));
    process.stderr.write(`(${format.title} reads ${format.file}; \`switchboard config ${host} --install\` adds it there.)\n`);
    return 0;
  }
  try {
    const outcome = installHostEntry(host);
    const where = `"${SERVER_NAME}" in ${format.file} (${format.key})`;
    if (outcome === 'unchanged') process.stderr.write(`Already up to date: ${where}; nothing changed.\n`);
    else process.stderr.write(`${outcome === 'added' ? 'Added' : 'Updated'} ${where}; restart ${format.title} to pick it up.\n`);
    return 0;
  } catch (error) {
    const reason = error instanceof ConfigEditRefused ? `not touching ${format.file}: ${error.message}` : (error as Error).message;
    process.stderr.write(`switchboard config: ${reason}.\nFix that, or add the entry \`switchboard config ${host}\` prints by hand.\n`);
    return 1;
  }
}

function isHost(value: string): value is HostName {
  return (HOSTS as readonly string[]).includes(value);
}

/** Sets the host's entry in its file (created with its folders when missing); the file is written only when it changes. */
export function installHostEntry(host: HostName, env: NodeJS.ProcessEnv = process.env): EntryEdit['outcome'] {
  const format = hostFormat(host, env);
  const target = realTarget(format.file);
  let text = '';
  let mode = 0o600;
  if (fs.existsSync(target)) {
    text = fs.readFileSync(target, 'utf8');
    mode = fs.statSync(target).mode & 0o777;
  }
  // A byte-order mark is kept as it is and edited around.
  const bom = text.startsWith('\uFEFF') ? '\uFEFF' : '';
  const body = text.slice(bom.length);
  const entry = { ...serverEntry(host, env) };
  const edit =
    format.syntax === 'toml'
      ? setTomlEntry(body, { table: format.key, name: SERVER_NAME, entry, launchKeys: format.launchKeys })
      : setJsonEntry(body, {
          comments: format.comments,
          trailingCommas: format.trailingCommas,
          key: format.key,
          name: SERVER_NAME,
          entry,
          launchKeys: format.launchKeys,
        });
  if (edit.outcome !== 'unchanged') writeAtomically(target, bom + edit.text, mode);
  return edit.outcome;
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
