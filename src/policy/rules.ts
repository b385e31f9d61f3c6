import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import { parsePattern, type CommandPattern } from './pattern.js';

/** What a rule, or the policy's default, answers (docs/design.md §2.9). */
export const POLICY_ACTIONS = ['allow', 'ask', 'deny'] as const;
export type PolicyAction = (typeof POLICY_ACTIONS)[number];

export const PolicyActionSchema = z.enum(POLICY_ACTIONS, { error: 'must be "allow", "ask" or "deny"' });

/**
 * One rule of the person's policy. `match` is a pattern over one simple command (pattern.ts);
 * the optional conditions narrow where it applies. The first rule that matches a command wins.
 */
export const PolicyRuleSchema = z.strictObject({
  match: z
    .string()
    .min(1)
    .max(1_000)
    .superRefine((match, context) => {
      const parsed = parsePattern(match);
      if ('problem' in parsed) context.addIssue({ code: 'custom', message: `"${match}" cannot be read: ${parsed.problem}` });
    }),
  action: PolicyActionSchema,
  /** Only for commands that run in this folder or below (absolute, or `~/…`). */
  cwd: z
    .string()
    .min(1)
    .max(4_096)
    .refine((cwd) => path.isAbsolute(cwd) || cwd === '~' || cwd.startsWith('~/'), 'must be an absolute folder or start with ~/')
    .optional(),
  /** Only for this MCP client (its name, `*` as wildcard: `claude*`). */
  client: z
    .string()
    .min(1)
    .max(256)
    .superRefine((client, context) => {
      const parsed = parsePattern(client);
      if ('problem' in parsed || parsed.stages.length !== 1 || parsed.stages[0]?.operands.length !== 0 || parsed.stages[0]?.flags.length !== 0) {
        context.addIssue({ code: 'custom', message: `"${client}" must be one client name, * as wildcard` });
      }
    })
    .optional(),
  /** Only when one of the command's operands is a path outside the session's project folder (or one the engine cannot know). */
  outsideProject: z.boolean().optional(),
  /**
   * Only for commands an agent asked to run outside the OS sandbox (`sandbox: false`). Such a
   * command is always asked unless a rule with this flag answers it: `allow` pre-approves it.
   */
  outsideSandbox: z.boolean().optional(),
  /** Shown to the person (and the agent) with the answer. */
  reason: z.string().max(500).optional(),
});
export type PolicyRule = z.infer<typeof PolicyRuleSchema>;

/**
 * What a careful person starts from: asked, not denied, so work goes on with one click. Shipped
 * as the default value of the `policy` setting, so it is shown and edited like any rule.
 */
export const DEFAULT_POLICY: readonly Readonly<PolicyRule>[] = [
  { match: '{sudo,su,doas,pkexec} *', action: 'ask', reason: 'runs as another user (root)' },
  { match: 'rm -r *', action: 'ask', outsideProject: true, reason: "deletes folders outside the session's project folder" },
  { match: '{chmod,chown,chgrp} -R *', action: 'ask', outsideProject: true, reason: "changes permissions recursively outside the session's project folder" },
  { match: 'git push --force*', action: 'ask', reason: 'rewrites history others may have pulled' },
  { match: 'git push * +*', action: 'ask', reason: 'force-pushes a branch (+refspec)' },
  { match: '* | {sh,bash,zsh,dash,ksh,fish} *', action: 'ask', reason: 'runs a script piped in from another command' },
  { match: '* | {python,python3,perl,ruby,node}', action: 'ask', reason: 'runs a program piped in from another command' },
  { match: '* | {python,python3,perl,ruby,node} -', action: 'ask', reason: 'runs a program piped in from another command' },
  { match: 'dd * of=/dev/*', action: 'ask', reason: 'writes to a device' },
  { match: 'mkfs*', action: 'ask', reason: 'formats a disk' },
  { match: 'kill -1 *', action: 'ask', reason: 'kill -1 signals every process you own' },
  { match: '{shutdown,reboot,halt,poweroff} *', action: 'ask', reason: 'stops the machine' },
];

/** A rule ready to match: its pattern read once. */
export interface CompiledRule {
  index: number;
  rule: PolicyRule;
  pattern: CommandPattern;
  client?: RegExp;
  cwd?: string;
}

const compiled = new WeakMap<readonly PolicyRule[], CompiledRule[]>();

/** Patterns are read once per rules list (the settings object), not per command. */
export function compileRules(rules: readonly PolicyRule[]): CompiledRule[] {
  let list = compiled.get(rules);
  if (list) return list;
  list = rules.map((rule, index) => {
    const pattern = parsePattern(rule.match);
    if ('problem' in pattern) throw new Error(`policy rule ${index}: "${rule.match}" cannot be read: ${pattern.problem}`);
    const client = rule.client === undefined ? undefined : parsePattern(rule.client);
    const clientGlob = client && !('problem' in client) ? client.stages[0]?.program.regex : undefined;
    return {
      index,
      rule,
      pattern,
      ...(clientGlob ? { client: clientGlob } : {}),
      ...(rule.cwd !== undefined ? { cwd: path.resolve(rule.cwd.startsWith('~') ? path.join(os.homedir(), rule.cwd.slice(1)) : rule.cwd) } : {}),
    };
  });
  compiled.set(rules, list);
  return list;
}
