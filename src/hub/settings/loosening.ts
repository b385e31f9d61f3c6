/**
 * Whether a change of the person's rules (the policy, the sandbox) loosens their control, and what
 * it changes, in words the window's banner shows (docs/decisions.md, "What loosening means").
 * Anything not provably a tightening is a loosening: a change that arrives through a channel not
 * the person's waits for the person when it is one (settingsHold.ts).
 *
 * The policy's proof follows `decide()` (src/policy/decide.ts): each command gets the first rule
 * that matches it, surely or possibly; an allow rule needs a sure match (a possible one is
 * skipped), any other rule that possibly matches answers `ask`; no rule: `policyDefault` (at least
 * `ask` for a program the engine cannot see); the line gets the strictest answer. So, with the
 * rules in force `O` and `F` their default, the new list is a tightening when it is `O` with
 *
 * - each rule's conditions (`match`, `cwd`, `client`, `outsideProject`) as they were, in the same
 *   order, and its action the same or stricter (deny > ask > allow) — except that a rule that
 *   allowed and now asks or denies is a tightening only when no rule after it denies and `F` is
 *   not `deny`: a command it only possibly matches used to be skipped on to those, and is now
 *   asked;
 * - then rules appended at the end that ask or deny, when `F` is not `deny` (under a `deny`
 *   default a possible match would be asked instead of denied);
 * - and a default the same or stricter.
 *
 * A rule's `reason` is words for the person: changing it neither loosens nor tightens.
 */
import type { PolicyAction, PolicyRule } from '../../policy/index.js';

/** One change, as the banner names it ("policy rule 0 `rm -rf *` deny → removed"). */
export interface SettingChange {
  /** The setting it is in (`policy`, `policyDefault`, `sandbox`). */
  setting: string;
  text: string;
  /** This change alone is not provably a tightening. */
  loosens: boolean;
}

export interface Judgement {
  /** Provably a tightening (or no change at all). */
  tightens: boolean;
  /** What changed, in order; empty when nothing did. */
  changes: SettingChange[];
}

export interface PolicyInForce {
  rules: readonly PolicyRule[];
  fallback: PolicyAction;
}

const RANK: Record<PolicyAction, number> = { allow: 0, ask: 1, deny: 2 };

/** The policy (`policy` and `policyDefault` together: each answer depends on both). */
export function judgePolicy(before: PolicyInForce, after: PolicyInForce): Judgement {
  return { tightens: policyTightens(before, after), changes: describePolicy(before, after) };
}

function policyTightens(before: PolicyInForce, after: PolicyInForce): boolean {
  const old = before.rules;
  const next = after.rules;
  if (RANK[after.fallback] < RANK[before.fallback]) return false;
  if (next.length < old.length) return false;
  for (let i = 0; i < old.length; i++) {
    const was = old[i]!;
    const now = next[i]!;
    if (conditionsOf(was) !== conditionsOf(now)) return false;
    if (RANK[now.action] < RANK[was.action]) return false;
    if (was.action === 'allow' && now.action !== 'allow' && !asksAtMostAfter(old, i, before.fallback)) return false;
  }
  const appended = next.slice(old.length);
  if (appended.length > 0 && before.fallback === 'deny') return false;
  return appended.every((rule) => rule.action !== 'allow');
}

/** Nothing after rule `i` answers `deny` (no deny rule, and the default is not deny). */
function asksAtMostAfter(rules: readonly PolicyRule[], i: number, fallback: PolicyAction): boolean {
  return fallback !== 'deny' && rules.slice(i + 1).every((rule) => rule.action !== 'deny');
}

/** What decides where a rule applies; `outsideProject: false` is the same as none. */
function conditionsOf(rule: PolicyRule): string {
  return JSON.stringify([rule.match, rule.cwd ?? null, rule.client ?? null, rule.outsideProject === true]);
}

/** The rules' changes by a longest common subsequence over their conditions, then moves and edits. */
function describePolicy(before: PolicyInForce, after: PolicyInForce): SettingChange[] {
  const old = before.rules;
  const next = after.rules;
  const changes: SettingChange[] = [];
  const pairs = alignByConditions(old, next);
  const keptOld = new Set(pairs.map(([i]) => i));
  const keptNew = new Set(pairs.map(([, j]) => j));
  for (const [i, j] of pairs) changes.push(...ruleEdits(`policy rule ${i}`, old[i]!, next[j]!, old, i, before.fallback));
  const removed = old.map((_rule, i) => i).filter((i) => !keptOld.has(i));
  const added = next.map((_rule, j) => j).filter((j) => !keptNew.has(j));
  // A rule that left one place and arrived at another: moved (and maybe edited).
  for (const i of [...removed]) {
    const j = added.find((candidate) => conditionsOf(next[candidate]!) === conditionsOf(old[i]!));
    if (j === undefined) continue;
    removed.splice(removed.indexOf(i), 1);
    added.splice(added.indexOf(j), 1);
    changes.push({ setting: 'policy', text: `policy rule ${i} ${code(old[i]!.match)} moved to ${j}`, loosens: true });
    changes.push(...ruleEdits(`policy rule ${i}`, old[i]!, next[j]!, old, i, before.fallback));
  }
  // The same pattern with other conditions: changed where it applies.
  for (const i of [...removed]) {
    const j = added.find((candidate) => next[candidate]!.match === old[i]!.match);
    if (j === undefined) continue;
    removed.splice(removed.indexOf(i), 1);
    added.splice(added.indexOf(j), 1);
    const was = old[i]!;
    const now = next[j]!;
    const where = (['cwd', 'client', 'outsideProject'] as const)
      .filter((field) => JSON.stringify(was[field] ?? null) !== JSON.stringify(now[field] ?? null))
      .map((field) => `${field} ${shown(was[field])} → ${shown(now[field])}`);
    changes.push({ setting: 'policy', text: `policy rule ${i} ${code(was.match)}${i === j ? '' : ` (now rule ${j})`}: ${where.join(', ')}`, loosens: true });
    changes.push(...ruleEdits(`policy rule ${i}`, was, now, old, i, before.fallback));
  }
  for (const i of removed) changes.push({ setting: 'policy', text: `policy rule ${i} ${code(old[i]!.match)} ${old[i]!.action} → removed`, loosens: true });
  // A new rule after every rule that was there before it asks where the default answered.
  const lastKept = Math.max(-1, ...next.map((_rule, j) => j).filter((j) => !added.includes(j)));
  for (const j of added) {
    const rule = next[j]!;
    const loosens = rule.action === 'allow' || before.fallback === 'deny' || j < lastKept;
    changes.push({ setting: 'policy', text: `policy rule ${j} ${code(rule.match)} added (${rule.action})`, loosens });
  }
  if (before.fallback !== after.fallback) {
    changes.push({
      setting: 'policyDefault',
      text: `policyDefault ${before.fallback} → ${after.fallback}`,
      loosens: RANK[after.fallback] < RANK[before.fallback],
    });
  }
  return changes;
}

/** A kept rule's action and reason edits. */
function ruleEdits(name: string, was: PolicyRule, now: PolicyRule, old: readonly PolicyRule[], i: number, fallback: PolicyAction): SettingChange[] {
  const edits: SettingChange[] = [];
  if (was.action !== now.action) {
    const weaker = RANK[now.action] < RANK[was.action];
    const fromAllow = was.action === 'allow' && !asksAtMostAfter(old, i, fallback);
    edits.push({ setting: 'policy', text: `${name} ${code(was.match)} ${was.action} → ${now.action}`, loosens: weaker || fromAllow });
  }
  if ((was.reason ?? '') !== (now.reason ?? '')) edits.push({ setting: 'policy', text: `${name} ${code(was.match)}: reason changed`, loosens: false });
  return edits;
}

/** Index pairs [old, new] of the longest run of rules with equal conditions, in order. */
function alignByConditions(old: readonly PolicyRule[], next: readonly PolicyRule[]): [number, number][] {
  const a = old.map(conditionsOf);
  const b = next.map(conditionsOf);
  // Both lists are at most 1 000 rules (the schema): the table stays small enough.
  const table: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      table[i]![j] = a[i] === b[j] ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!);
    }
  }
  const pairs: [number, number][] = [];
  for (let i = 0, j = 0; i < a.length && j < b.length;) {
    if (a[i] === b[j]) {
      pairs.push([i, j]);
      i++;
      j++;
    } else if (table[i + 1]![j]! >= table[i]![j + 1]!) i++;
    else j++;
  }
  return pairs;
}

// ---- the sandbox ------------------------------------------------------------------------------

/**
 * The `sandbox` setting's shape (docs/design.md §5.5), as far as loosening goes. A field missing
 * on one side and not the other is not provably a tightening; so is any change of a field not
 * named here.
 */
export interface SandboxSettingsLike {
  /** read-only > project > off. */
  filesystem?: 'project' | 'read-only' | 'off';
  /** Extra writable folders: adding one loosens. */
  writable?: readonly string[];
  /** Extra denied paths: removing one loosens. */
  denied?: readonly string[];
  /** off > a list of allowed domains > on; adding a domain to the list loosens. */
  network?: 'on' | 'off' | readonly string[];
  /** true → false loosens. */
  required?: boolean;
  [other: string]: unknown;
}

const FILESYSTEM_RANK: Record<string, number> = { off: 0, project: 1, 'read-only': 2 };

export function judgeSandbox(before: SandboxSettingsLike | undefined, after: SandboxSettingsLike | undefined): Judgement {
  const was = before ?? {};
  const now = after ?? {};
  const changes: SettingChange[] = [];
  const change = (text: string, loosens: boolean): void => void changes.push({ setting: 'sandbox', text: `sandbox.${text}`, loosens });
  for (const key of new Set([...Object.keys(was), ...Object.keys(now)])) {
    const a = was[key];
    const b = now[key];
    if (JSON.stringify(a) === JSON.stringify(b)) continue;
    if (a === undefined || b === undefined) {
      change(`${key} ${shown(a)} → ${shown(b)}`, true);
      continue;
    }
    switch (key) {
      case 'filesystem':
        change(
          `filesystem ${shown(a)} → ${shown(b)}`,
          !(typeof a === 'string' && typeof b === 'string' && a in FILESYSTEM_RANK && b in FILESYSTEM_RANK && FILESYSTEM_RANK[b]! >= FILESYSTEM_RANK[a]!),
        );
        break;
      case 'writable':
        listChanges('writable', a, b, change, { addLoosens: true });
        break;
      case 'denied':
        listChanges('denied', a, b, change, { addLoosens: false });
        break;
      case 'network':
        networkChanges(a, b, change);
        break;
      case 'required':
        change(`required ${shown(a)} → ${shown(b)}`, !(a === false && b === true));
        break;
      default:
        change(`${key} ${shown(a)} → ${shown(b)}`, true);
    }
  }
  return { tightens: changes.every((c) => !c.loosens), changes };
}

function listChanges(name: string, a: unknown, b: unknown, change: (text: string, loosens: boolean) => void, options: { addLoosens: boolean }): void {
  if (!isStringList(a) || !isStringList(b)) return change(`${name} ${shown(a)} → ${shown(b)}`, true);
  for (const item of b) if (!a.includes(item)) change(`${name} + ${item}`, options.addLoosens);
  for (const item of a) if (!b.includes(item)) change(`${name} − ${item}`, !options.addLoosens);
}

/** off > a list > on; between lists, an added domain loosens and a removed one tightens. */
function networkChanges(a: unknown, b: unknown, change: (text: string, loosens: boolean) => void): void {
  const rank = (value: unknown): number | undefined => (value === 'on' ? 0 : value === 'off' ? 2 : isStringList(value) ? 1 : undefined);
  const from = rank(a);
  const to = rank(b);
  if (from === 1 && to === 1) return listChanges('network', a, b, change, { addLoosens: true });
  change(`network ${shown(a)} → ${shown(b)}`, from === undefined || to === undefined || to < from);
}

function isStringList(value: unknown): value is readonly string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function code(text: string): string {
  return `\`${text}\``;
}

/** A value as the banner shows it: words and numbers plain, lists in brackets, nothing as "(none)". */
export function shown(value: unknown): string {
  if (value === undefined || value === null) return '(none)';
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return `[${value.map((item) => shown(item)).join(', ')}]`;
  return JSON.stringify(value);
}
