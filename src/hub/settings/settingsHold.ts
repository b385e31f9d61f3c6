/**
 * Which changes of settings.json take effect at once, and which wait for the person (docs/design.md
 * §5.5, docs/decisions.md "What loosening means"). A change arrives from the person (the settings
 * page, over the UI cookie or the app's window), from a hand edit of settings.json, or from a `/ws`
 * connection signed in with the token, which agents hold. The person's own changes apply at once.
 * From elsewhere, the policy (`policy` and `policyDefault`, judged together) and the sandbox apply
 * at once only when provably a tightening (loosening.ts); otherwise they are held: the settings in
 * force stay, and the window asks the person to confirm or discard. From the token, every other
 * setting is held too (none is provably a tightening); a hand edit's other settings apply, since
 * whoever can write the file can write the person's rc files as well.
 *
 * A held setting stays held until the person decides, whatever arrives later, unless settings.json
 * goes back to what is in force. Pure: the one writer (settingsEditor.ts) keeps the state.
 */
import { createHash } from 'node:crypto';
import { judgePolicy, judgeSandbox, shown, type Judgement, type SandboxSettingsLike, type SettingChange } from './loosening.js';
import { policyOf, type Settings } from './settings.js';

/** Where a change came from: the person, a hand edit of the file, a `/ws` connection with the token. */
export type ChangeSource = 'person' | 'settings.json' | 'token';
export type HeldSource = Exclude<ChangeSource, 'person'>;

/** The settings as this module reads them: the schema's, and `sandbox` once the schema has it. */
export type GuardedSettings = Settings & { sandbox?: SandboxSettingsLike };

interface Group {
  keys: readonly string[];
  /** Judged for loosening (the person's rules); a group without it is one other setting. */
  judge?: (before: GuardedSettings, after: GuardedSettings) => Judgement;
}

/** The person's rules: each group judged as one (a policy's answers depend on its default). */
const GUARDED_GROUPS: readonly Group[] = [
  { keys: ['policy', 'policyDefault'], judge: (before, after) => judgePolicy(policyOf(before), policyOf(after)) },
  { keys: ['sandbox'], judge: (before, after) => judgeSandbox(before.sandbox, after.sandbox) },
];

/** A held change as the window shows it. */
export interface HeldChange {
  /** Names this state of the change: a confirm or discard must name the one the person saw. */
  id: string;
  settings: string[];
  changes: (SettingChange & { source: HeldSource })[];
}

interface Arrival {
  /** The settings in force (the person's, or accepted as tightenings). */
  accepted: GuardedSettings;
  /** What settings.json now gives (with the `SWITCHBOARD_*` overrides). */
  candidate: GuardedSettings;
  /** Settings held before this arrival, and where each came from. */
  held: ReadonlyMap<string, HeldSource>;
  source: ChangeSource;
  /** `person`: the settings the person changed. */
  personKeys?: readonly string[];
}

interface Outcome {
  /** What is in force from now on. */
  accepted: GuardedSettings;
  held: Map<string, HeldSource>;
}

/** What goes in force and what waits, after settings.json changed. */
export function judgeArrival(arrival: Arrival): Outcome {
  const { candidate, source } = arrival;
  const next: Record<string, unknown> = { ...arrival.accepted };
  const value = (settings: GuardedSettings, key: string): unknown => (settings as Record<string, unknown>)[key];
  const held = new Map([...arrival.held].filter(([key]) => !same(value(candidate, key), value(arrival.accepted, key))));
  if (source === 'person') {
    for (const key of arrival.personKeys ?? []) {
      next[key] = value(candidate, key);
      held.delete(key);
    }
  }
  // What differs beyond the person's own keys came from the file (an edit not yet read, say).
  const from: HeldSource = source === 'token' ? 'token' : 'settings.json';
  for (const group of groupsOf(arrival.accepted, candidate)) {
    const differing = group.keys.filter((key) => !same(value(candidate, key), next[key]));
    if (differing.length === 0) {
      for (const key of group.keys) held.delete(key);
      continue;
    }
    const already = group.keys.find((key) => held.has(key));
    const taken = (): void => {
      for (const key of group.keys) next[key] = value(candidate, key);
    };
    if (already !== undefined) {
      // Held it stays (and its group with it): the person has not seen what arrived since.
      for (const key of differing) if (!held.has(key)) held.set(key, held.get(already)!);
    } else if (
      group.judge ? group.judge(next as GuardedSettings, { ...next, ...pick(candidate, group.keys) } as GuardedSettings).tightens : from === 'settings.json'
    ) {
      taken();
    } else {
      for (const key of differing) held.set(key, from);
    }
  }
  return { accepted: next as GuardedSettings, held };
}

/** The held change as the window shows it, or null when nothing is held. */
export function describeHeld(accepted: GuardedSettings, candidate: GuardedSettings, held: ReadonlyMap<string, HeldSource>): HeldChange | null {
  if (held.size === 0) return null;
  const changes: HeldChange['changes'] = [];
  for (const group of groupsOf(accepted, candidate)) {
    const keys = group.keys.filter((key) => held.has(key));
    if (keys.length === 0) continue;
    const source = held.get(keys[0]!)!;
    const after = { ...accepted, ...pick(candidate, keys) } as GuardedSettings;
    const judged = group.judge
      ? group.judge(accepted, after).changes
      : keys.map((key) => ({
          setting: key,
          text: `${key} ${shown((accepted as Record<string, unknown>)[key])} → ${shown((candidate as Record<string, unknown>)[key])}`,
          loosens: true,
        }));
    for (const change of judged) changes.push({ ...change, source });
  }
  const settings = [...held.keys()].sort();
  const id = createHash('sha256')
    .update(JSON.stringify(settings.map((key) => [key, held.get(key), (candidate as Record<string, unknown>)[key] ?? null])))
    .digest('hex')
    .slice(0, 16);
  return { id, settings, changes };
}

/** The guarded groups, then one group per other setting either side has. */
function groupsOf(a: GuardedSettings, b: GuardedSettings): Group[] {
  const guarded = new Set(GUARDED_GROUPS.flatMap((group) => group.keys));
  const others = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((key) => !guarded.has(key));
  return [...GUARDED_GROUPS, ...others.map((key) => ({ keys: [key] }))];
}

function pick(settings: GuardedSettings, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((key) => [key, (settings as Record<string, unknown>)[key]]));
}

/** Equal as JSON (settings are JSON values; a key's order in an object is the writer's). */
export function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}
