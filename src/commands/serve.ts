/**
 * `switchboard serve [--port N]`: the headless hub. Owns the sessions for its state dir until
 * SIGINT, SIGTERM or SIGHUP, then closes everything (exit 0). Output goes to stderr. The UI
 * link printed here is the one place the person's UI key is shown (never the token, which
 * signs no browser in): to the person, on their terminal, and only there. A background hub's
 * stderr is hub.log, and `serve 2>file` or `| tee` make it a file or pipe; then the link goes
 * to stdout if that is the terminal, else nowhere, and the banner says to run `switchboard ui`
 * (which opens the UI without showing the key).
 */
import { Hub, stderrLogger, defaultStateDir, configSnippet } from '../hub/index.js';

const USAGE = `Usage: switchboard serve [--port N]

Runs the hub for $SWITCHBOARD_HOME (else the platform's app-data folder): the unix socket the
shim uses, and http://127.0.0.1:<port> (/mcp for MCP over HTTP, / for the UI).
Port: "port" in settings.json or SWITCHBOARD_PORT (default 7391; 0 picks a free one).

  --port N   the HTTP port for this run only, over settings.json and SWITCHBOARD_PORT:
             1 to 65535, or 0 for a free one. A port in use is an error.
`;

const PORT_RULE = 'give a whole number from 1 to 65535, or 0 for a free port';

/** `serve`'s arguments, or what is wrong with them (a sentence saying what to give instead). */
export function parseServeArgs(argv: readonly string[]): { port?: number } | { error: string } {
  let port: number | undefined;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    let value: string | undefined;
    if (arg === '--port') {
      value = argv[i + 1];
      i += 1;
      if (value === undefined || value.startsWith('--')) return { error: `--port needs a value: ${PORT_RULE} (e.g. --port 7400).` };
    } else if (arg.startsWith('--port=')) {
      value = arg.slice('--port='.length);
    } else {
      return { error: `unexpected argument "${arg}"; the only option is --port N.` };
    }
    if (port !== undefined) return { error: `--port is given twice; give it once.` };
    // Digits only: Number() would take "0x1f", "1e3", " 80" and "" as ports.
    if (!/^\d{1,5}$/.test(value) || Number(value) > 65_535) return { error: `--port "${value}" is not a port: ${PORT_RULE}.` };
    port = Number(value);
  }
  return port === undefined ? {} : { port };
}

/** The line tests and launchers wait for; it carries no secret. */
export const LISTENING_PREFIX = 'switchboard: hub listening';

export async function run(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(USAGE);
    return 0;
  }
  const args = parseServeArgs(argv);
  if ('error' in args) {
    process.stderr.write(`switchboard serve: ${args.error}\n${USAGE}`);
    return 2;
  }
  // stdout carries nothing here: route stray console output (a library's) to stderr.
  console.log = console.error;
  console.info = console.error;

  const logger = stderrLogger();
  // Signal handlers first: whoever waits for the banner may signal at once, and a signal
  // during startup must still end in a clean dispose.
  let requested: string | undefined;
  let onSignal: (signal: string) => void = (signal) => (requested ??= signal);
  const handlers = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((signal) => {
    const handler = (): void => onSignal(signal);
    process.on(signal, handler);
    return [signal, handler] as const;
  });
  try {
    let hub: Hub;
    try {
      hub = await Hub.start({ stateDir: defaultStateDir(), logger, ...args });
    } catch (error) {
      process.stderr.write(`switchboard serve: ${(error as Error).message}\n`);
      return 1;
    }
    printBanner(hub);
    const signal = await new Promise<string>((resolve) => {
      if (requested) return resolve(requested);
      onSignal = resolve;
    });
    onSignal = () => undefined; // a second Ctrl-C while closing does not kill the cleanup
    process.stderr.write(`switchboard: ${signal}: closing sessions and stopping\n`);
    return await disposeWithin(hub, 15_000, logger);
  } finally {
    for (const [signal, handler] of handlers) process.off(signal, handler);
  }
}

async function disposeWithin(hub: Hub, ms: number, logger: ReturnType<typeof stderrLogger>): Promise<number> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<number>((resolve) => {
    timer = setTimeout(() => {
      logger.error(`sessions did not close within ${ms / 1000} s; exiting anyway`);
      resolve(1);
    }, ms);
  });
  const disposed = hub.dispose().then(
    () => 0,
    (error: unknown) => {
      logger.error(`while stopping: ${(error as Error).message}`);
      return 1;
    },
  );
  try {
    return await Promise.race([disposed, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The stream the person reads at their terminal, if one of ours is a terminal: stderr (the
 * banner's), else stdout. A file or a pipe is never one: the UI key must not reach a log.
 */
function personsTerminal(): NodeJS.WriteStream | undefined {
  if (process.stderr.isTTY) return process.stderr;
  if (process.stdout.isTTY) return process.stdout;
  return undefined;
}

/** The UI link that opens as it is (`/?key=` trades for the UI cookie); for a terminal only. */
function uiLink(hub: Hub): string {
  return `http://127.0.0.1:${hub.port}/?key=${hub.uiKey}`;
}

/** Without a terminal: where the UI is, and how to open it signed in, with no secret in it. */
function uiHint(hub: Hub): string {
  return `http://127.0.0.1:${hub.port}/ (run \`switchboard ui\` to open it signed in)`;
}

function printBanner(hub: Hub): void {
  const terminal = personsTerminal();
  const lines = [`${LISTENING_PREFIX} (pid ${process.pid}, port ${hub.port ?? 'none'}, socket ${hub.socketPath ?? 'none'})`, `  state dir: ${hub.stateDir}`];
  if (hub.port !== null && hub.uiKey) {
    const ui = terminal === process.stderr ? uiLink(hub) : uiHint(hub);
    lines.push(`  UI:        ${ui}`, `  MCP HTTP:  http://127.0.0.1:${hub.port}/mcp  (header "Authorization: Bearer <contents of ${hub.stateDir}/token>")`);
  }
  lines.push('  MCP hosts (stdio; `switchboard config <host> --install` writes it):');
  lines.push(
    ...JSON.stringify(configSnippet('cursor'), null, 2)
      .split('\n')
      .map((line) => `    ${line}`),
  );
  lines.push('  Stop with Ctrl-C.');
  process.stderr.write(`${lines.join('\n')}\n`);
  // stderr is a file or pipe but stdout is the terminal (`serve 2>serve.log`): the link goes there.
  if (terminal === process.stdout && hub.port !== null && hub.uiKey) process.stdout.write(`switchboard: UI: ${uiLink(hub)}\n`);
  // The link shown holds the old key once it is replaced: say so, with the new one.
  hub.ui.onDidRotateToken(() => {
    if (hub.port === null) return;
    if (terminal !== process.stderr) process.stderr.write(`switchboard: the token and the UI key were replaced; the UI is now at ${uiHint(hub)}\n`);
    terminal?.write(`switchboard: the token and the UI key were replaced; the UI is now at ${uiLink(hub)}\n`);
  });
}
