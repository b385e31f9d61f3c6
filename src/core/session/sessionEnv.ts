import { ErrorCode, SwitchboardError } from '../errors.js';
import { SESSION_ENV } from '../shell/marks.js';
import type { Creator } from '../types.js';
import { agentEnvironment, isForbiddenAgentVariable } from './agentEnvironment.js';

/** Default secret filter (docs/design.md §2.2): removed from agent sessions unless allowed. */
export const DEFAULT_SECRET_PATTERNS = [
  '*_TOKEN',
  '*_TOKEN_*',
  '*SECRET*',
  '*PASSWORD*',
  '*PASSWD*',
  '*CREDENTIAL*',
  '*_API_KEY',
  '*_APIKEY',
  '*_ACCESS_KEY*',
  '*PRIVATE_KEY*',
  'SSH_AUTH_SOCK',
  'GH_TOKEN',
  'GITHUB_TOKEN',
  'NPM_TOKEN',
];

/** Never reach any session: the hub's own secrets and the app runtime's variables. */
const HUB_ONLY = [/^SWITCHBOARD_TOKEN$/, /^ELECTRON_/, /^npm_/, /^SWITCHBOARD_NONCE$/];

interface SessionEnvOptions {
  sessionId: string;
  creator: Creator;
  base: NodeJS.ProcessEnv;
  /** Extra variables from the caller (validated here). */
  extra?: Record<string, string>;
  secretPatterns?: readonly string[];
  /** Names allowed through the secret filter. */
  secretAllow?: readonly string[];
  /** The person's `agentEnv` setting: `NAME=value` or `NAME` entries over the agent defaults (agentEnvironment.ts). */
  agentEnv?: readonly string[];
}

export function buildSessionEnv(options: SessionEnvOptions): Record<string, string> {
  const isAgent = options.creator.kind === 'agent';
  const secrets = (options.secretPatterns ?? DEFAULT_SECRET_PATTERNS).map(globToRegExp);
  const allowed = new Set(options.secretAllow ?? []);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.base)) {
    if (value === undefined || HUB_ONLY.some((re) => re.test(name))) continue;
    if (isAgent && !allowed.has(name) && secrets.some((re) => re.test(name))) continue;
    env[name] = value;
  }
  Object.assign(env, {
    TERM: 'xterm-256color',
    COLORTERM: 'truecolor',
    TERM_PROGRAM: 'Switchboard',
    [SESSION_ENV]: options.sessionId,
  });
  if (!env.LANG && !env.LC_ALL && !env.LC_CTYPE) env.LANG = 'C.UTF-8';
  if (isAgent) {
    // No editor or pager the agent would be left in; the person's own sessions keep theirs.
    for (const [name, value] of Object.entries(agentEnvironment(options.agentEnv))) if (value !== null) env[name] = value;
  }
  for (const [name, value] of Object.entries(options.extra ?? {})) {
    validateVariable(name, value, isAgent);
    env[name] = value;
  }
  return env;
}

function validateVariable(name: string, value: string, isAgent: boolean): void {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    throw new SwitchboardError(
      ErrorCode.InvalidArgument,
      `env: "${name}" is not a valid variable name; use letters, digits and _ (not starting with a digit).`,
    );
  }
  if (value.includes('\0')) {
    throw new SwitchboardError(ErrorCode.InvalidArgument, `env: the value of ${name} contains a NUL byte, which no environment can hold.`);
  }
  if (isAgent && isForbiddenAgentVariable(name)) {
    throw new SwitchboardError(
      ErrorCode.InvalidArgument,
      `env: ${name} cannot be set when opening a session (it changes how the shell and Switchboard's integration load); export it inside the session with execute if you need it.`,
    );
  }
}

function globToRegExp(glob: string): RegExp {
  const escaped = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${escaped}$`, 'i');
}
