/**
 * `switchboard mcp`: the stdio shim an MCP host launches. It forwards to the hub that owns the
 * sessions (starting one if none answers) and exits when the host closes stdin or signals it;
 * the sessions keep running in the hub. stdout carries JSON-RPC only.
 */
import { stderrLogger } from '../hub/common/logger.js';
import { defaultStateDir, ensureStateDir } from '../hub/common/stateDir.js';
import { ShimForwarder } from '../shim/forwarder.js';
import { shimVersion } from '../shim/version.js';

const USAGE = `Usage: switchboard mcp

Serves MCP over stdin/stdout for an MCP host, forwarding to the Switchboard hub
(started in the background when none is running). State directory: $SWITCHBOARD_HOME,
else the platform's app-data folder.
`;

export async function run(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (argv.length > 0) {
    process.stderr.write(`switchboard mcp: unexpected argument "${argv[0]}"\n\n${USAGE}`);
    return 2;
  }
  // Nothing but JSON-RPC may reach stdout: route stray console output to stderr.
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;

  const logger = stderrLogger('switchboard mcp');
  let stateDir: string;
  try {
    stateDir = ensureStateDir(defaultStateDir());
  } catch (error) {
    logger.error(`cannot use the state directory: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
    return 1;
  }
  const forwarder = new ShimForwarder({
    stateDir,
    input: process.stdin,
    output: process.stdout,
    logger,
    version: shimVersion(),
    // The app knows only the default state dir: with SWITCHBOARD_HOME, start `serve` for that dir.
    useApp: !process.env.SWITCHBOARD_HOME,
  });
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.once(signal, () => forwarder.stop(signal));
  return forwarder.run();
}
