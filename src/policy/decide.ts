import * as path from 'node:path';
import { argumentCommands } from './argumentCommands.js';
import { collectCommands, type SeenCommand } from './commands.js';
import { historyExpansion } from './historyExpansion.js';
import { matchStage, type Certainty } from './pattern.js';
import { compileRules, type CompiledRule, type PolicyAction, type PolicyRule } from './rules.js';
import { bashParser } from './shellParser.js';

export interface PolicyInput {
  /** The command line as the agent sent it. */
  command: string;
  /** Where it would run (absolute); unknown: rules with `cwd` or `outsideProject` may apply. */
  cwd?: string;
  /** The MCP client's name (`clientInfo.name`). */
  client?: string;
  /** The session's project folder: the folder it was opened in. Unknown: every path is outside. */
  project?: string;
  /**
   * Typed into an interactive shell (execute, send): history expansion (`!!`, `!rm`) applies, and
   * recalls lines the engine cannot see. Not for `open`'s program and arguments, which no shell reads.
   */
  interactive?: boolean;
  /**
   * The agent asked to run it outside the OS sandbox (`sandbox: false`, or into a session that runs
   * outside it): asked at least, unless a rule with `outsideSandbox` answers every command.
   */
  unsandboxed?: boolean;
}

/** The rule that answered: its place in the list (from 0, as in settings.json) and its pattern. */
export interface RuleRef {
  index: number;
  match: string;
}

/** One simple command the line would run, and the answer for it. */
export interface PolicyCommand {
  /** As written, or rebuilt from its words when a wrapper runs it. */
  text: string;
  /** The words as the program would get them; a word known only when the line runs is shown as written. */
  words: string[];
  /** The wrappers it was found in, outermost first (`sudo`, `bash -c`). */
  via: string[];
  /** Why the engine cannot see what it runs. */
  hidden?: string;
  action: PolicyAction;
  rule?: RuleRef;
  reason: string;
}

export interface PolicyDecision {
  /** The strictest answer of all the commands (deny > ask > allow). */
  action: PolicyAction;
  /** The rule behind that answer, when a rule gave it. */
  rule?: RuleRef;
  /** One sentence for the person and the agent. */
  reason: string;
  commands: PolicyCommand[];
}

const STRICTNESS: Record<PolicyAction, number> = { allow: 0, ask: 1, deny: 2 };

/** The stricter of two answers. */
export function stricter(a: PolicyAction, b: PolicyAction): PolicyAction {
  return STRICTNESS[a] >= STRICTNESS[b] ? a : b;
}

/**
 * What the person's policy answers for a command line (docs/design.md §2.9): every simple
 * command the shell would run is found (lists, pipelines, substitutions, wrappers unwrapped) and
 * given the first rule that matches it, else `fallback` (`policyDefault`); the strictest answer
 * wins. A line that does not parse, or a command whose program the engine cannot see, is asked
 * at least. The parser loads on the first call.
 */
export async function decide(input: PolicyInput, rules: readonly PolicyRule[], fallback: PolicyAction): Promise<PolicyDecision> {
  const parser = await bashParser();
  const compiled = compileRules(rules);
  const collected = collectCommands(parser, input.command, input.cwd);
  const { commands } = collected;
  const recalled = input.interactive ? historyExpansion(input.command) : null;
  const unparsable = collected.unparsable ?? (recalled === null ? undefined : `${recalled} recalls a line from the shell's history`);
  const stages = pipelineStages(commands);
  const judged = commands.map((command) => judge(command, compiled, fallback, input, stages));
  let decision: PolicyDecision | undefined;
  for (const command of judged) {
    if (!decision || STRICTNESS[command.action] > STRICTNESS[decision.action]) {
      decision = { action: command.action, ...(command.rule ? { rule: command.rule } : {}), reason: command.reason, commands: judged };
    }
  }
  if (unparsable !== undefined && (!decision || decision.action === 'allow')) {
    return { action: stricter('ask', fallback), reason: `${unparsable}: the engine cannot tell what it runs`, commands: judged };
  }
  if (!decision && input.unsandboxed)
    return { action: 'ask', reason: `the line runs no program, and it was asked to run outside the sandbox`, commands: judged };
  return decision ?? { action: fallback, reason: `the line runs no program; policyDefault is ${fallback}`, commands: judged };
}

type Stages = Map<number, SeenCommand[][]>;

function pipelineStages(commands: readonly SeenCommand[]): Stages {
  const stages: Stages = new Map();
  for (const command of commands) {
    if (!command.pipe) continue;
    const pipeline = stages.get(command.pipe.id) ?? [];
    (pipeline[command.pipe.stage] ??= []).push(command);
    stages.set(command.pipe.id, pipeline);
  }
  return stages;
}

function judge(command: SeenCommand, rules: readonly CompiledRule[], fallback: PolicyAction, input: PolicyInput, stages: Stages): PolicyCommand {
  const seen = {
    text: command.text,
    words: command.words.map((word) => word.value ?? word.text),
    via: command.via,
    ...(command.hidden ? { hidden: command.hidden } : {}),
  };
  const answer = answerFor(command, rules, fallback, input, stages);
  let judged: PolicyCommand = { ...seen, ...answer.command };
  if (judged.action === 'allow') {
    // An unknown program may run its arguments: a deny or ask rule matching them asks.
    for (const inner of argumentCommands(command)) {
      const found = firstRule(inner, rules, input, stages);
      if (!found || found.rule.rule.action === 'allow') continue;
      const ref = { index: found.rule.index, match: found.rule.rule.match };
      judged = {
        ...seen,
        action: 'ask',
        rule: ref,
        reason: `${command.text} may run \`${inner.text}\`, which rule ${ref.index} (${ref.match}) would ${found.rule.rule.action === 'deny' ? 'deny' : 'ask about'}; the engine does not know ${inner.via.at(-1) ?? 'the program'}`,
      };
      break;
    }
  }
  if (input.unsandboxed && !answer.outsideSandbox && judged.action !== 'deny') {
    // Outside the sandbox only with the person's answer, or a rule written for it.
    return { ...judged, action: 'ask', reason: `${judged.reason}; asked to run outside the sandbox, which the person allows` };
  }
  return judged;
}

/** The first rule that applies to a command, and how surely. */
function firstRule(
  command: SeenCommand,
  rules: readonly CompiledRule[],
  input: PolicyInput,
  stages: Stages,
): { rule: CompiledRule; certainty: Certainty } | undefined {
  for (const rule of rules) {
    if (rule.rule.outsideSandbox && !input.unsandboxed) continue;
    const certainty = both(
      both(clientCertainty(rule, input.client), cwdCertainty(rule, command.cwds)),
      both(rule.rule.outsideProject ? outsideCertainty(command, input.project) : 'certain', patternCertainty(rule, command, stages)),
    );
    if (certainty === null) continue;
    // An allow rule needs a sure match; a deny that may match is asked, not enforced.
    if (rule.rule.action === 'allow' && certainty !== 'certain') continue;
    return { rule, certainty };
  }
  return undefined;
}

/** The command's own answer: the first rule that matches it, else what its hidden part or policyDefault says. */
function answerFor(
  command: SeenCommand,
  rules: readonly CompiledRule[],
  fallback: PolicyAction,
  input: PolicyInput,
  stages: Stages,
): { command: Pick<PolicyCommand, 'action' | 'rule' | 'reason'>; outsideSandbox: boolean } {
  const found = firstRule(command, rules, input, stages);
  if (found) {
    const { rule, certainty } = found;
    const action = certainty === 'certain' ? rule.rule.action : 'ask';
    const ref = { index: rule.index, match: rule.rule.match };
    const why = rule.rule.reason ?? `rule ${rule.index} (${rule.rule.match})`;
    const hedge =
      certainty === 'possible' ? ` may match rule ${rule.index} (${rule.rule.match}): it depends on what the line computes when it runs` : `: ${why}`;
    return { command: { action, rule: ref, reason: `${command.text}${hedge}` }, outsideSandbox: rule.rule.outsideSandbox === true };
  }
  if (command.hidden) return { command: { action: stricter('ask', fallback), reason: `${command.text}: ${command.hidden}` }, outsideSandbox: false };
  return { command: { action: fallback, reason: `no rule matches ${command.text}; policyDefault is ${fallback}` }, outsideSandbox: false };
}

function both(a: Certainty | null, b: Certainty | null): Certainty | null {
  if (a === null || b === null) return null;
  return a === 'certain' && b === 'certain' ? 'certain' : 'possible';
}

function clientCertainty(rule: CompiledRule, client: string | undefined): Certainty | null {
  if (!rule.client) return 'certain';
  if (client === undefined) return 'possible';
  return rule.client.test(client) ? 'certain' : null;
}

function cwdCertainty(rule: CompiledRule, cwds: string[] | null): Certainty | null {
  if (rule.cwd === undefined) return 'certain';
  if (cwds === null) return 'possible';
  const within = cwds.filter((cwd) => isWithin(cwd, rule.cwd as string, true)).length;
  return within === cwds.length ? 'certain' : within > 0 ? 'possible' : null;
}

/** `folder` is `root` or below it (`orSame`), or strictly below it. */
function isWithin(folder: string, root: string, orSame: boolean): boolean {
  if (folder === root) return orSame;
  return root === '/' || folder.startsWith(`${root}/`);
}

/**
 * Whether a command names a path outside the project folder: each operand (a word not a flag),
 * resolved against the folders it may run in. The project folder itself counts as outside: a
 * rule about deleting outside it is about deleting it too. A path only running the line would
 * tell (`$DIR`, `~`, a glob that may reach `..`) may be outside.
 */
function outsideCertainty(command: SeenCommand, project: string | undefined): Certainty | null {
  let possible = false;
  let dashes = false;
  for (const word of command.words.slice(1)) {
    const value = word.value;
    if (value !== null && !dashes && value === '--') {
      dashes = true;
      continue;
    }
    if (value !== null && !dashes && value.length > 1 && value.startsWith('-')) continue;
    if (value === null || project === undefined || value.startsWith('~') || (word.glob && /(^|\/)\.[^/]*[*?[]/.test(value))) {
      possible = true;
      continue;
    }
    const root = path.resolve(project);
    const places = path.isAbsolute(value) ? [path.resolve(value)] : command.cwds?.map((cwd) => path.resolve(cwd, value));
    if (!places) {
      possible = true;
      continue;
    }
    if (places.some((place) => !isWithin(place, root, false))) return 'certain';
  }
  return possible ? 'possible' : null;
}

function patternCertainty(rule: CompiledRule, command: SeenCommand, stages: Stages): Certainty | null {
  const patternStages = rule.pattern.stages;
  const last = patternStages.length - 1;
  let certainty = matchStage(patternStages[last] as (typeof patternStages)[number], wordsOf(command));
  if (certainty === null || last === 0) return certainty;
  const pipe = command.pipe;
  if (!pipe) return null;
  const pipeline = stages.get(pipe.id) ?? [];
  for (let k = last - 1; k >= 0; k--) {
    const stage = pipe.stage - (last - k);
    const candidates = stage >= 0 ? (pipeline[stage] ?? []) : [];
    let best: Certainty | null = null;
    for (const candidate of candidates) {
      const found = matchStage(patternStages[k] as (typeof patternStages)[number], wordsOf(candidate));
      if (found === 'certain') {
        best = 'certain';
        break;
      }
      best ??= found;
    }
    certainty = both(certainty, best);
    if (certainty === null) return null;
  }
  return certainty;
}

function wordsOf(command: SeenCommand): { program: string | null; args: SeenCommand['words'] } {
  const program = command.words[0];
  return { program: command.hidden && (program?.value === null || program?.glob) ? null : (program?.value ?? null), args: command.words.slice(1) };
}
