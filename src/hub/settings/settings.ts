import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import {
  agentEnvEntryProblem,
  DEFAULT_RETENTION_BYTES,
  DEFAULT_RETENTION_DAYS,
  DEFAULT_SECRET_PATTERNS,
  DEFAULT_TRANSCRIPT_MAX_BYTES,
} from '../../core/index.js';
import { DEFAULT_POLICY, PolicyActionSchema, PolicyRuleSchema, type PolicyAction, type PolicyRule } from '../../policy/index.js';
import { SandboxSettingsSchema } from '../../sandbox/index.js';
import { RemotesSchema } from './remoteSettings.js';

const secretPattern = z.string().min(1).max(256);
/** `NAME=value` or `NAME` (agentEnvironment.ts); a value may be long (a PATH), not unbounded. */
const agentEnvEntry = z
  .string()
  .min(1)
  .max(32_768)
  .superRefine((entry, context) => {
    const problem = agentEnvEntryProblem(entry);
    if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
  });

/**
 * Every setting, one zod schema (docs/design.md §5.5): persisted as `<state>/settings.json`,
 * written by settingsEditor.ts alone (in `serve` and in the app), overridden by `SWITCHBOARD_*`
 * environment variables.
 */
/** Default for the `httpStallMs` setting: see docs/decisions.md ("An HTTP client that stops reading"). */
export const DEFAULT_HTTP_STALL_MS = 30_000;

export const SettingsSchema = z.object({
  /** Shell for new sessions; default: the person's login shell ($SHELL). */
  shell: z.string().min(1).max(4_096).optional(),
  /** Start shells as login shells so PATH comes from the person's profile. */
  loginShell: z.boolean().default(true),
  maxSessions: z.number().int().min(1).max(1000).default(64),
  /** In-memory scrollback of the person's sessions (full history stays on disk in the transcript). */
  scrollback: z.number().int().min(100).max(1_000_000).default(5_000),
  /**
   * In-memory scrollback of sessions agents open: short, since agents read output through
   * execute and `read` (which reaches the transcript on disk for older lines), and every row
   * kept costs the hub memory per session (bench/memory.ts; BENCHMARKS.md).
   */
  agentScrollback: z.number().int().min(100).max(1_000_000).default(1_000),
  /** First lines of each command's output kept even after they leave the scrollback. */
  commandHeadLines: z.number().int().min(10).max(100_000).default(1_000),
  defaultCols: z.number().int().min(20).max(1000).default(120),
  defaultRows: z.number().int().min(5).max(500).default(32),
  executeTimeoutMs: z.number().int().min(1).max(86_400_000).default(30_000),
  maxLines: z.number().int().min(1).max(10_000).default(200),
  shellStartupTimeoutMs: z.number().int().min(100).max(600_000).default(15_000),
  /** Waits between SIGINT → SIGTERM → SIGKILL. */
  killWaitMs: z.number().int().min(10).max(600_000).default(2_000),
  closeGraceMs: z.number().int().min(10).max(600_000).default(500),
  /** Output quiet this long while the foreground job blocks on a terminal read = awaiting input. */
  awaitingInputQuietMs: z.number().int().min(50).max(600_000).default(1_500),
  /**
   * A call that waits tells a host that asked for progress it is alive at least this often
   * (docs/design.md §3.4): hosts reset their request timeout on each notification and show it.
   */
  progressIntervalMs: z.number().int().min(50).max(30_000).default(5_000),
  /** Let agents type into echo-off (password) prompts; off: they get SECRET_PROMPT. */
  allowAgentSecretInput: z.boolean().default(false),
  /** Variable-name patterns (`*` wildcard); bounded, since every session's environment is matched against each. */
  secretPatterns: z
    .array(secretPattern)
    .max(1_000)
    .default([...DEFAULT_SECRET_PATTERNS]),
  secretAllow: z.array(secretPattern).max(1_000).default([]),
  /**
   * Over the variables agents' sessions get so that no editor or pager waits on them (docs/design.md
   * §2.2): `NAME=value` sets NAME, `NAME` alone keeps the inherited value. Not the person's sessions.
   */
  agentEnv: z.array(agentEnvEntry).max(1_000).default([]),
  /**
   * The person's rules for what agents may run (docs/design.md §2.9), in order: the first that
   * matches a command answers for it. The default is a starting set, shown and edited like any.
   */
  policy: z
    .array(PolicyRuleSchema)
    .max(1_000)
    .default(() => DEFAULT_POLICY.map((rule) => ({ ...rule }))),
  /** What a command no rule matches gets. */
  policyDefault: PolicyActionSchema.default('allow'),
  /**
   * The OS sandbox agents' sessions run in (docs/design.md §2.10): what they may write, what they
   * may not read, their network, and whether a machine without a sandbox refuses them. Each part
   * has its default when left out.
   */
  sandbox: SandboxSettingsSchema.prefault({}),
  /** Closed sessions' transcripts are removed this many days after they ended. */
  retentionDays: z.number().min(0).max(36_500).default(DEFAULT_RETENTION_DAYS),
  /** Then the oldest closed sessions go until all transcripts take less than this many bytes. */
  retentionBytes: z.number().int().min(0).default(DEFAULT_RETENTION_BYTES),
  /** Per session: past this many bytes output.log stops growing (meta.json marks the cut). */
  transcriptMaxBytes: z.number().int().min(0).default(DEFAULT_TRANSCRIPT_MAX_BYTES),
  /** HTTP port on 127.0.0.1 (`/mcp`, the UI, `/ws`); 0 picks a free one (recorded in hub.json). */
  port: z.number().int().min(0).max(65_535).default(7391),
  /** Request bodies over this get 413 without being read (HTTP) or close the connection (socket). */
  bodyLimitBytes: z
    .number()
    .int()
    .min(1_024)
    .max(256 * 1024 * 1024)
    .default(4 * 1024 * 1024),
  /** An MCP-over-HTTP session with no request for this long is closed (its terminals stay). */
  httpSessionIdleMs: z
    .number()
    .int()
    .min(1_000)
    .max(7 * 86_400_000)
    .default(30 * 60_000),
  /** An HTTP answer its client has read nothing of for this long is dropped, connection and all (the adversarial review: a client that stops reading must not hold the hub's memory). */
  httpStallMs: z.number().int().min(100).max(600_000).default(DEFAULT_HTTP_STALL_MS),
  /**
   * MCP requests per second per client connection (socket or HTTP session), sustained; past it
   * requests get LIMIT_REACHED with retry_after_ms. Far above any agent (a model makes a few
   * calls a second), well below a runaway loop (docs/decisions.md). A script calling `execute`
   * back to back on a warm hub can pass it after its burst.
   */
  rateLimitPerSecond: z.number().int().min(1).max(1_000_000).default(500),
  /** Requests a client may send at once after a quiet spell, before rateLimitPerSecond applies. */
  rateLimitBurst: z.number().int().min(1).max(1_000_000).default(1_000),
  /**
   * A new token when the one in `<state>/token` is this many days old (checked at start and
   * hourly); 0: never. Shims read the file at each connection; HTTP clients need the new one.
   */
  tokenRotationDays: z.number().int().min(0).max(3_650).default(0),
  /**
   * Other machines whose sessions this hub shows and agents reach (docs/design.md §4.7), each over
   * the system's ssh: `{ name, destination, command?, sshConfig? }`. Changes apply at once.
   */
  remotes: RemotesSchema.default([]),
});

export type Settings = z.infer<typeof SettingsSchema>;

export const SETTINGS_FILE = 'settings.json';

/** Reads `<stateDir>/settings.json` (absent → defaults) and applies `SWITCHBOARD_*` overrides. */
export function loadSettings(stateDir: string, env: NodeJS.ProcessEnv = process.env): Settings {
  const file = path.join(stateDir, SETTINGS_FILE);
  const parsed = SettingsSchema.safeParse({ ...readSettingsFile(file), ...envOverrides(env) });
  if (!parsed.success) throw new Error(`Invalid settings (${file} or SWITCHBOARD_* variables): ${describeSettingsIssues(parsed.error.issues)}`);
  return parsed.data;
}

/** settings.json as written (absent → `{}`); throws, naming the file and what to do, when it cannot be read or is not a JSON object. */
export function readSettingsFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new Error(`${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`);
  }
  return parseSettingsText(file, text);
}

/** settings.json's text (read already) as an object; throws, naming the file, when it is not one. */
export function parseSettingsText(file: string, text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file} is not valid JSON (${(error as Error).message}); fix or delete it.`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error(`${file} does not hold a JSON object; fix or delete it.`);
  return parsed as Record<string, unknown>;
}

/** The schema's complaints, one phrase per setting: "maxLines must be at most 10000", not zod's "Too big: expected number to be <=10000". */
export function describeSettingsIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues.map(describeIssue).join('; ');
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const where = placeOf(issue.path);
  switch (issue.code) {
    case 'too_big':
      if (issue.origin === 'array') return `${where} must hold at most ${String(issue.maximum)} entries`;
      if (issue.origin === 'string') return `${where} must be at most ${String(issue.maximum)} characters`;
      return `${where} must be at most ${String(issue.maximum)}`;
    case 'too_small':
      return issue.origin === 'string' ? `${where} must not be empty` : `${where} must be at least ${String(issue.minimum)}`;
    case 'invalid_type':
      return `${where} must be ${issue.expected === 'array' ? 'a list' : `a ${issue.expected}`}`;
    case 'unrecognized_keys':
      return `${where} has no ${issue.keys.map((key) => `"${key}"`).join(', ')}${issue.path[0] === 'policy' ? ' (a rule has match, action, cwd, client, outsideProject and reason)' : ''}`;
    default:
      return `${where}: ${issue.message}`;
  }
}

/** `policy.3.match` → "policy rule 3 (match)": a rule is named by its place in the list, from 0 as in settings.json. */
function placeOf(path: readonly PropertyKey[]): string {
  if (path.length === 0) return 'the file';
  if (path[0] === 'policy' && typeof path[1] === 'number') return `policy rule ${path[1]}${path.length > 2 ? ` (${path.slice(2).map(String).join('.')})` : ''}`;
  if (path[0] === 'remotes' && typeof path[1] === 'number') return `remote ${path[1]}${path.length > 2 ? ` (${path.slice(2).map(String).join('.')})` : ''}`;
  return path.map(String).join('.');
}

/**
 * Settings that were removed, and what became of them. A settings.json or a `SWITCHBOARD_*`
 * variable written for an earlier version may still name one: it is ignored (the schema keeps
 * only what it knows), and `removedSettingsIn` says so, for the hub to log once at start.
 */
export const REMOVED_SETTINGS: Readonly<Record<string, string>> = {
  ptyThread: 'terminals are always read on the main thread (the pty host thread is gone)',
};

/** One notice per removed setting that `<stateDir>/settings.json` or `env` still sets. */
export function removedSettingsIn(stateDir: string, env: NodeJS.ProcessEnv): string[] {
  let fileSettings: Record<string, unknown>;
  try {
    fileSettings = readSettingsFile(path.join(stateDir, SETTINGS_FILE));
  } catch {
    fileSettings = {}; // loadSettings reports a file it cannot read
  }
  const notices: string[] = [];
  for (const [key, what] of Object.entries(REMOVED_SETTINGS)) {
    const where = [Object.hasOwn(fileSettings, key) ? SETTINGS_FILE : null, env[envVariableOf(key)] !== undefined ? envVariableOf(key) : null].filter(
      (place) => place !== null,
    );
    if (where.length > 0) notices.push(`setting ${key} (in ${where.join(' and ')}) no longer exists and is ignored: ${what}`);
  }
  return notices;
}

/** `maxSessions` → `SWITCHBOARD_MAX_SESSIONS`. */
export function envVariableOf(key: string): string {
  return `SWITCHBOARD_${key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;
}

/** `SWITCHBOARD_MAX_SESSIONS=8` → `{ maxSessions: 8 }`; JSON values are parsed, others kept as strings. */
export function envOverrides(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const keys = Object.keys(SettingsSchema.shape) as (keyof Settings)[];
  const overrides: Record<string, unknown> = {};
  for (const key of keys) {
    const value = env[envVariableOf(key)];
    if (value === undefined) continue;
    try {
      overrides[key] = JSON.parse(value);
    } catch {
      overrides[key] = value;
    }
  }
  return overrides;
}

/** The policy in force: the rules and the answer when none matches (the one place settings are read for it). */
export function policyOf(settings: Partial<Pick<Settings, 'policy' | 'policyDefault'>>): { rules: readonly PolicyRule[]; fallback: PolicyAction } {
  return { rules: settings.policy ?? DEFAULT_POLICY, fallback: settings.policyDefault ?? 'allow' };
}
