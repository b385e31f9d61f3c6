/**
 * The one logger (docs/conventions.md rule 9): stderr only, never stdout, which carries JSON-RPC
 * in the shim. Callers pass messages without secrets; tokens never reach a log line.
 */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export function stderrLogger(prefix = 'switchboard'): Logger {
  const write = (level: string, message: string): void => {
    process.stderr.write(`${prefix} ${level}: ${message}\n`);
  };
  return {
    info: (m) => {
      if (process.env.SWITCHBOARD_LOG === 'debug' || process.env.SWITCHBOARD_LOG === 'info') write('info', m);
    },
    warn: (m) => write('warn', m),
    error: (m) => write('error', m),
  };
}
