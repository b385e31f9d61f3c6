/**
 * The `switchboard` command (bin/switchboard.js imports the compiled file).
 *
 *   switchboard mcp      the stdio shim MCP hosts launch: forwards to the hub (src/commands/mcp.ts)
 *   switchboard serve    the headless hub
 *   switchboard ui       opens the browser on the running hub's UI, signed in (one-time link)
 *   switchboard status   whether a hub runs, where, and its sessions
 *   switchboard config   host configuration for Claude Code, Cursor, …
 *   switchboard export   a session's transcript as an asciicast
 *   switchboard remote   the other machines whose sessions this hub shows (add, list, remove)
 *   switchboard link     run over ssh by another machine's hub: links it to this machine's
 *
 * stdout belongs to JSON-RPC under `mcp`: everything human-readable goes to stderr.
 */
import { enableCompileCache } from './compileCache.js';
import { packageVersion } from './packageInfo.js';

type Command = (args: string[]) => Promise<number>;

const USAGE = `Usage: switchboard <command>

Commands:
  mcp       Serve MCP over stdio (what an MCP host launches).
  serve     Run the headless hub with its HTTP endpoint and browser UI: serve [--port N].
  ui        Open the running hub's UI in your browser, signed in ($BROWSER, open or xdg-open).
  status    Say whether a hub is running, where, and list its sessions.
  config    Print the MCP host configuration (claude-code, cursor, claude-desktop, vscode).
  export    Write a session's transcript as an asciicast v2 .cast file: export <session> [file].
  remote    Other machines whose sessions this hub shows, over ssh: remote add NAME DESTINATION,
            remote list, remote remove NAME.
  link      Run over ssh by another machine's hub (remote add there); not for typing.

Options:
  --help     Show this help.
  --version  Print the version.

State directory: $SWITCHBOARD_HOME, else the platform's app-data folder.
`;

const COMMANDS: Record<string, Command> = {
  mcp: async (args) => (await import('./commands/mcp.js')).run(args),
  serve: async (args) => (await import('./commands/serve.js')).run(args),
  ui: async (args) => (await import('./commands/ui.js')).run(args),
  status: async (args) => (await import('./commands/status.js')).run(args),
  config: async (args) => (await import('./commands/config.js')).run(args),
  export: async (args) => (await import('./commands/export.js')).run(args),
  remote: async (args) => (await import('./commands/remote.js')).run(args),
  link: async (args) => (await import('./commands/link.js')).run(args),
};

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-v') {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    // Asked for: the usage is the answer (stdout, success), as `git --help` does.
    process.stdout.write(USAGE);
    return 0;
  }
  const command = name === undefined ? undefined : COMMANDS[name];
  if (!command) {
    if (name !== undefined) process.stderr.write(`switchboard: unknown command "${name}"\n\n`);
    process.stderr.write(USAGE);
    return 2;
  }
  return command(rest);
}

// Before any command's modules load (they are imported lazily, above).
enableCompileCache();

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`switchboard: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exit(1);
  },
);
