/**
 * `switchboard ui [--print]`: opens the person's browser on the running hub's UI, signed in.
 *
 * The person's UI key may never be in argv (docs/design.md §4.3), and a browser is opened by
 * putting a URL in the argv of `open`, `xdg-open` or the browser itself. So this asks the hub,
 * over its socket and with the UI key (`<state>/ui-key`, never the token: that is what agents
 * hold), for a one-time code and opens `http://127.0.0.1:<port>/?login=<code>`; the hub trades
 * the code, once and within a minute, for the UI cookie (src/hub/state/loginCodes.ts).
 */
import { spawn } from 'node:child_process';
// The hub's light rooms only: ui starts no hub, so it does not load one (docs/design.md §1.1).
import { processAlive, readHubInfo } from '../hub/common/hubInfo.js';
import { requestLoginCode } from '../hub/common/socketClient.js';
import { defaultStateDir } from '../hub/common/stateDir.js';
import { readUiKey } from '../hub/state/token.js';
import { packageVersion } from '../packageInfo.js';

/** As `switchboard status`: no hub runs for this state dir. */
const NOT_RUNNING = 3;

const USAGE = `Usage: switchboard ui [--print]

Opens the running hub's browser UI, signed in. The link it opens holds a one-time code (never
the token) and works once, within a minute; run \`switchboard ui\` again for another.
The browser: $BROWSER (commands separated by ":", "%s" stands for the link), else \`open\`
(macOS) or \`xdg-open\` (Linux).

  --print   print the one-time link instead of opening a browser (e.g. over ssh)
`;

export async function run(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(USAGE);
    return 0;
  }
  const unknown = argv.filter((arg) => arg !== '--print');
  if (unknown.length > 0) {
    process.stderr.write(`switchboard ui: unexpected arguments: ${unknown.join(' ')}\n${USAGE}`);
    return 2;
  }
  const stateDir = defaultStateDir();
  const info = readHubInfo(stateDir);
  if (!info || !processAlive(info.pid)) {
    process.stderr.write(
      `switchboard ui: no Switchboard hub is running for ${stateDir}.\n` +
        'Start one with `switchboard serve` (or `npm start` in the repository, or the app), then run `switchboard ui` again.\n',
    );
    return NOT_RUNNING;
  }
  if (info.port === null) {
    process.stderr.write(`switchboard ui: the hub (pid ${info.pid}) serves no HTTP, so it has no browser UI; restart it with HTTP (setting "port").\n`);
    return 1;
  }
  const key = readUiKey(stateDir);
  if (!key || !info.socket) {
    process.stderr.write(
      `switchboard ui: cannot reach the hub (pid ${info.pid}): ${!key ? `no valid UI key in ${stateDir}/ui-key` : 'it listens on no socket'}. Restart it.\n`,
    );
    return 1;
  }
  let url: string;
  try {
    const grant = await requestLoginCode(info.socket, key, 'switchboard-ui', packageVersion());
    url = `http://127.0.0.1:${grant.port}/?login=${grant.code}`;
  } catch (error) {
    process.stderr.write(`switchboard ui: could not get a sign-in link from the hub (pid ${info.pid}): ${(error as Error).message}\n`);
    return 1;
  }
  if (argv.includes('--print')) {
    process.stdout.write(`${url}\n`);
    return 0;
  }
  const opened = await openBrowser(url, process.env);
  const address = new URL(url).origin;
  if (!opened.ok) {
    process.stderr.write(
      `switchboard ui: could not open a browser (${opened.reason}).\n` +
        "Set $BROWSER to your browser's command, or run `switchboard ui --print` and open the link it prints within a minute.\n",
    );
    return 1;
  }
  process.stderr.write(`switchboard ui: opened ${address}/ with ${opened.command} (the sign-in link works once, within a minute).\n`);
  return 0;
}

/** One way to open a URL: a program and its arguments, the URL among them. */
interface Opener {
  file: string;
  args: string[];
}

/**
 * The commands to try, in order: each entry of $BROWSER (colon-separated; `%s` is replaced by
 * the URL, else the URL is appended, as Python's webbrowser and xdg-utils read it), else the
 * platform's opener.
 */
export function browserCommands(url: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): Opener[] {
  const fromEnv = (env.BROWSER ?? '')
    .split(':')
    .map((entry) => splitWords(entry.trim()))
    .filter((words) => words.length > 0)
    .map(([file, ...args]) => {
      const withUrl = args.map((arg) => arg.replaceAll('%s', url));
      const mentionsUrl = args.some((arg) => arg.includes('%s'));
      return { file: file as string, args: mentionsUrl ? withUrl : [...withUrl, url] };
    });
  if (fromEnv.length > 0) return fromEnv;
  return [{ file: platform === 'darwin' ? 'open' : 'xdg-open', args: [url] }];
}

/** Words of one $BROWSER entry: split on blanks, with '…' and "…" quoting (no shell is run). */
function splitWords(entry: string): string[] {
  return [...entry.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2] ?? match[3] ?? '');
}

type OpenResult = { ok: true; command: string } | { ok: false; reason: string };

/**
 * Tries each opener until one exits 0. Waits for the opener's own exit, as Python's webbrowser
 * does for $BROWSER commands: `open` and `xdg-open` return at once, and a terminal browser
 * named in $BROWSER needs the terminal until the person leaves it.
 */
async function openBrowser(url: string, env: NodeJS.ProcessEnv): Promise<OpenResult> {
  const failures: string[] = [];
  for (const opener of browserCommands(url, env)) {
    const outcome = await new Promise<string | undefined>((resolve) => {
      const child = spawn(opener.file, opener.args, { stdio: 'inherit', env });
      child.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ENOENT' ? `${opener.file} not found` : `${opener.file}: ${error.message}`));
      child.once('exit', (code, signal) => resolve(code === 0 ? undefined : `${opener.file} exited with ${code ?? signal}`));
    });
    if (outcome === undefined) return { ok: true, command: opener.file };
    failures.push(outcome);
  }
  return { ok: false, reason: failures.join('; ') };
}
