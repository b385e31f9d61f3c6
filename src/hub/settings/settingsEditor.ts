import * as fs from 'node:fs';
import * as path from 'node:path';
import type { z } from 'zod';
import { ErrorCode, EventEmitter, findExecutable, SwitchboardError, type Disposable, type Event } from '../../core/index.js';
import type { HubMessage, HubSetting } from '../../ui-protocol/index.js';
import { shadowedDenies, type PolicyRule } from '../../policy/index.js';
import {
  describeSettingsIssues,
  envOverrides,
  envVariableOf,
  parseSettingsText,
  readSettingsFile,
  SETTINGS_FILE,
  SettingsSchema,
  type Settings,
} from './settings.js';
import { describeHeld, judgeArrival, same, type ChangeSource, type GuardedSettings, type HeldChange, type HeldSource } from './settingsHold.js';
import { tokenWrittenAt } from '../state/token.js';

type Key = keyof Settings;

/** How the settings page presents a setting, and when a change takes effect. */
interface Presentation {
  group: string;
  label: string;
  hint?: string;
  unit?: string;
  /**
   * `sessions`: read when a session opens; `calls`: read at each `execute`; `hourly`: read
   * when retention or the token's age check runs; `restart`: the endpoints are built with it at start.
   */
  applies: HubSetting['applies'];
}

/** Every setting, in the page's order (a `Record`, so a new setting without one does not compile). */
const PRESENTATION: Record<Key, Presentation> = {
  shell: { group: 'Sessions', label: 'Shell', hint: 'Program for new shells. Empty: your login shell.', applies: 'sessions' },
  loginShell: { group: 'Sessions', label: 'Start shells as login shells', hint: 'PATH and the rest come from your profile.', applies: 'sessions' },
  maxSessions: { group: 'Sessions', label: 'Most sessions open at once', applies: 'sessions' },
  scrollback: {
    group: 'Sessions',
    label: 'Scrollback of your sessions',
    unit: 'lines',
    hint: 'Kept in memory; the whole output stays on disk.',
    applies: 'sessions',
  },
  agentScrollback: {
    group: 'Sessions',
    label: 'Scrollback of agents’ sessions',
    unit: 'lines',
    hint: 'Agents read older output from disk.',
    applies: 'sessions',
  },
  defaultCols: { group: 'Sessions', label: 'Columns of a new session', applies: 'sessions' },
  defaultRows: { group: 'Sessions', label: 'Rows of a new session', applies: 'sessions' },
  shellStartupTimeoutMs: { group: 'Sessions', label: 'Wait for a shell to start', unit: 'ms', applies: 'sessions' },
  agentEnv: {
    group: 'Sessions',
    label: 'Variables for agents’ shells',
    hint: 'Over the defaults that keep editors and pagers from waiting (PAGER=cat, GIT_EDITOR=true, …), one per line: NAME=value, or NAME alone to keep your own value.',
    applies: 'sessions',
  },
  executeTimeoutMs: {
    group: 'Commands',
    label: 'execute waits at most',
    unit: 'ms',
    hint: 'Then it answers “running”; the command goes on.',
    applies: 'calls',
  },
  maxLines: { group: 'Commands', label: 'Lines execute returns', unit: 'lines', hint: 'Head and tail; the rest is a read away.', applies: 'calls' },
  commandHeadLines: { group: 'Commands', label: 'First lines kept of each command', unit: 'lines', applies: 'sessions' },
  killWaitMs: { group: 'Commands', label: 'Wait between interrupt, terminate and kill', unit: 'ms', applies: 'sessions' },
  closeGraceMs: { group: 'Commands', label: 'Wait before a closing session’s processes are killed', unit: 'ms', applies: 'sessions' },
  awaitingInputQuietMs: { group: 'Commands', label: 'Quiet before a program counts as waiting for input', unit: 'ms', applies: 'sessions' },
  progressIntervalMs: {
    group: 'Commands',
    label: 'Tell the agent’s host a long call is alive every',
    unit: 'ms',
    hint: 'To hosts that asked for progress: they show it, and reset their timeout on each.',
    applies: 'calls',
  },
  policy: {
    group: 'What agents may run',
    label: 'Rules',
    hint: 'Each command an agent runs, wrappers and compound commands taken apart, gets the first rule that matches it; the strictest answer of the line wins. A speed bump you control, not a sandbox: a script the agent writes runs unread.',
    applies: 'calls',
  },
  policyDefault: {
    group: 'What agents may run',
    label: 'When no rule matches',
    hint: 'allow: it runs; ask: it waits for you; deny: it is refused.',
    applies: 'calls',
  },
  sandbox: {
    group: 'Sandbox',
    label: 'The sandbox agents’ sessions run in',
    hint: 'What they may write and read, and their network. Your own sessions never run in it.',
    applies: 'sessions',
  },
  allowAgentSecretInput: {
    group: 'Secrets',
    label: 'Let agents type into password prompts',
    hint: 'Off: agents get SECRET_PROMPT and you type the secret.',
    applies: 'sessions',
  },
  secretPatterns: {
    group: 'Secrets',
    label: 'Variables kept from agents’ shells',
    hint: 'Names matching these patterns (one per line, * as wildcard) are removed from the environment.',
    applies: 'sessions',
  },
  secretAllow: { group: 'Secrets', label: 'Variables passed anyway', hint: 'Exceptions to the patterns above, one per line.', applies: 'sessions' },
  transcriptMaxBytes: { group: 'Transcripts', label: 'Most output kept on disk per session', unit: 'bytes', applies: 'sessions' },
  retentionDays: { group: 'Transcripts', label: 'Keep closed sessions', unit: 'days', applies: 'hourly' },
  retentionBytes: { group: 'Transcripts', label: 'Then keep at most', unit: 'bytes', hint: 'The oldest closed sessions go first.', applies: 'hourly' },
  port: { group: 'Endpoints', label: 'HTTP port on 127.0.0.1', hint: '0 picks a free one.', applies: 'restart' },
  bodyLimitBytes: { group: 'Endpoints', label: 'Largest request', unit: 'bytes', applies: 'restart' },
  httpSessionIdleMs: { group: 'Endpoints', label: 'Close idle MCP-over-HTTP sessions after', unit: 'ms', applies: 'restart' },
  httpStallMs: { group: 'Endpoints', label: 'Drop answers unread for', unit: 'ms', applies: 'restart' },
  rateLimitPerSecond: { group: 'Endpoints', label: 'Requests per second per client', applies: 'restart' },
  rateLimitBurst: { group: 'Endpoints', label: 'Burst of requests per client', applies: 'restart' },
  remotes: {
    group: 'Other machines',
    label: 'Remotes',
    hint: 'Machines whose sessions this window shows and agents reach, over your own ssh (your keys, agent and ~/.ssh/config; it never asks for a password). Each needs Switchboard installed there.',
    applies: 'calls',
  },
  tokenRotationDays: {
    group: 'Endpoints',
    label: 'Replace the token every',
    unit: 'days',
    hint: '0: never. Your UI key is replaced with it. Agents on the shim reconnect by themselves; HTTP clients need the new token, bookmarked sign-in addresses the new key.',
    applies: 'hourly',
  },
};

/** Kind, bounds and default of each setting, in the page's order: the schema does not change. */
const SHAPES = (Object.keys(PRESENTATION) as Key[]).map((key) => ({ key, ...describeType(SettingsSchema.shape[key]) }));

/** What the settings page is told (src/ui-protocol/ `hubSettings`, without its type). */
export type HubSettingsView = Omit<Extract<HubMessage, { type: 'hubSettings' }>, 'type' | 'req'>;

/** The keys whose change reaches the running hub (PRESENTATION's `applies` other than `restart`). */
export const LIVE_SETTINGS: readonly Key[] = (Object.keys(PRESENTATION) as Key[]).filter((key) => PRESENTATION[key].applies !== 'restart');

export interface SettingsEditorOptions {
  stateDir: string;
  /** The settings the hub runs with (the hub's own object). */
  inForce: () => Settings;
  /**
   * What settings.json and the environment gave when the hub started (the hub's settings before a
   * `serve --port` for one run): the settings accepted so far, which later changes are judged against.
   */
  loaded?: Settings;
  /** Applies saved values of LIVE_SETTINGS to the running hub. */
  apply: (settings: Settings) => void;
  env: NodeJS.ProcessEnv;
}

/** A confirm or discard that could not be done: why, in a sentence for the person. */
export type HeldAnswer = { ok: true; settings: string[] } | { ok: false; reason: string };

/**
 * The hub's settings as the person sees and changes them on the settings page (docs/design.md
 * §5.5). A change is checked as the whole file would be read at the next start (the schema, with
 * the `SWITCHBOARD_*` overrides) before anything is written, so a saved file always loads; it is
 * written whole and renamed into place (0600), keeping the keys the hub does not know. Settings
 * an environment variable sets cannot be changed here: the variable would win at every start.
 *
 * This is the one writer of settings.json, in `serve` and in the menu-bar app alike: two
 * writers, each reading the file and writing it back, lose each other's changes when their
 * turns interleave. The app keeps its own preferences in a file of its own (main/preferences.ts)
 * and asks this class to drop the ones an earlier version left here (`removeUnknownKeys`).
 */
export class SettingsEditor {
  readonly file: string;
  /** The file's text when it was last read or written here (null: no file), so our own save is not taken for an edit. */
  private lastText: string | null;
  /** The settings accepted so far: the person's, or changes that were tightenings (settingsHold.ts). */
  private accepted: GuardedSettings;
  /** Settings settings.json changes that wait for the person, and where each change came from. */
  private held = new Map<string, HeldSource>();
  /** What settings.json gave when it last loaded: the values that wait. */
  private lastCandidate: GuardedSettings;
  /** The held change the UIs were last told of. */
  private told: HeldChange | null = null;
  private readonly onDidChangeHeldEmitter = new EventEmitter<HeldChange | null>();
  /** A change began or stopped waiting for the person, or what waits changed. */
  readonly onDidChangeHeld: Event<HeldChange | null> = this.onDidChangeHeldEmitter.event;

  constructor(private readonly options: SettingsEditorOptions) {
    this.file = path.join(options.stateDir, SETTINGS_FILE);
    this.lastText = readText(this.file);
    this.accepted = structuredClone(options.loaded ?? options.inForce());
    this.lastCandidate = this.accepted;
  }

  /**
   * settings.json was changed on disk (an editor, a script, the app's own keys): applies it as
   * a change saved here would be, or keeps the values in force and says why; a change that
   * loosens the person's rules waits for them (`held`). Undefined when the text is what was last
   * read or written here.
   */
  reloadFromDisk(): { applied: true; held: HeldChange | null } | { applied: false; problem: string } | undefined {
    const text = readText(this.file);
    if (text === this.lastText) return undefined;
    this.lastText = text;
    let settings: Settings;
    try {
      // The text just read, not a second read; none: missing ({}) or unreadable (said why).
      const raw = text === null ? readSettingsFile(this.file) : parseSettingsText(this.file, text);
      const parsed = SettingsSchema.safeParse({ ...raw, ...this.overrides() });
      if (!parsed.success) throw new Error(`${describeSettingsIssues(parsed.error.issues)}.`);
      settings = parsed.data;
    } catch (error) {
      return { applied: false, problem: `${(error as Error).message} The hub keeps the settings in force.` };
    }
    return { applied: true, held: this.arrive(settings, 'settings.json') };
  }

  /** Ends the held-change event (the hub stopped). */
  dispose(): void {
    this.onDidChangeHeldEmitter.dispose();
  }

  /** The change that waits for the person to confirm or discard it, or null. */
  heldChange(): HeldChange | null {
    return this.describeHeld(this.lastCandidate);
  }

  /**
   * The person confirms the held change they saw (`id`): it goes in force as settings.json holds
   * it now. Refused when nothing waits, when settings.json does not load, or when what waits is no
   * longer what they saw (edited again since, even if the hub has not read it yet).
   */
  confirmHeld(id: string): HeldAnswer {
    const candidate = this.candidate();
    if (!candidate)
      return { ok: false, reason: `${this.file} does not load now: fix it (the page shows why), then look at the banner again. Nothing was confirmed.` };
    const now = this.describeHeld(candidate);
    const refused = this.notWaiting(id, now);
    if (refused || !now) return refused ?? { ok: false, reason: 'Nothing waits.' };
    const next: Record<string, unknown> = { ...this.accepted };
    for (const key of now.settings) next[key] = (candidate as Record<string, unknown>)[key];
    this.accepted = next as GuardedSettings;
    this.lastCandidate = candidate;
    this.held.clear();
    this.options.apply(this.accepted);
    this.tell(null);
    return { ok: true, settings: now.settings };
  }

  /**
   * The person discards what waits: settings.json gets back what is in force for every setting
   * that waits (written here, the one writer), and nothing else changes. `id`, the change the
   * person saw, must still wait; without it (the hub stopping), whatever waits is discarded.
   */
  discardHeld(id?: string): HeldAnswer {
    const now = this.heldChange();
    const refused = id === undefined ? null : this.notWaiting(id, now);
    if (refused || !now) return refused ?? { ok: false, reason: 'Nothing waits.' };
    let raw: Record<string, unknown>;
    try {
      raw = readSettingsFile(this.file);
    } catch (error) {
      return { ok: false, reason: `${(error as Error).message} Nothing was discarded.` };
    }
    const next: Record<string, unknown> = { ...raw };
    for (const key of now.settings) {
      const inForce = (this.accepted as Record<string, unknown>)[key];
      // What is in force, as the file says it: the key left out where that is its default.
      if (same(inForce, defaultOf(key))) delete next[key];
      else next[key] = structuredClone(inForce);
    }
    this.writeFile(next);
    this.held.clear();
    this.lastCandidate = this.candidate() ?? this.accepted;
    this.tell(null);
    return { ok: true, settings: now.settings };
  }

  /** Changes that arrive through settings.json: what goes in force, what waits (settingsHold.ts). */
  private arrive(candidate: Settings, source: ChangeSource, personKeys?: readonly string[]): HeldChange | null {
    const outcome = judgeArrival({ accepted: this.accepted, candidate, held: this.held, source, ...(personKeys ? { personKeys } : {}) });
    this.accepted = outcome.accepted;
    this.held = outcome.held;
    this.lastCandidate = candidate;
    this.options.apply(this.accepted);
    const held = this.describeHeld(candidate);
    this.tell(held);
    return held;
  }

  /** UIs hear of the held change when it is another than the one they were told of. */
  private tell(held: HeldChange | null): void {
    if (this.told?.id === held?.id) return;
    this.told = held;
    this.onDidChangeHeldEmitter.fire(held);
  }

  private describeHeld(candidate: GuardedSettings): HeldChange | null {
    if (this.held.size === 0) return null;
    return describeHeld(this.accepted, candidate, this.held);
  }

  /** What settings.json gives now, or null when it does not load. */
  private candidate(): GuardedSettings | null {
    try {
      const parsed = SettingsSchema.safeParse({ ...readSettingsFile(this.file), ...this.overrides() });
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  }

  private notWaiting(id: string, now: HeldChange | null): { ok: false; reason: string } | null {
    if (!now) return { ok: false, reason: `No settings change waits (${id} was confirmed, discarded, or settings.json went back to what is in force).` };
    if (now.id !== id)
      return {
        ok: false,
        reason: `The change waiting is no longer ${id}: settings.json was edited again. Look at the banner again, then confirm or discard what it shows.`,
      };
    return null;
  }

  /**
   * Calls `reloadFromDisk` when settings.json changes: the state dir is watched, not the file,
   * since a save renames a new file over it (ours does, and most editors). Changes are taken
   * 100 ms after the last event, so an editor's truncate-then-write is read once, whole.
   */
  watch(onReload: (result: NonNullable<ReturnType<SettingsEditor['reloadFromDisk']>>) => void, onError: (error: Error) => void): Disposable {
    let timer: NodeJS.Timeout | undefined;
    const watcher = fs.watch(this.options.stateDir, (_event, name) => {
      // Some platforms give no name: reading the file again is cheap (unchanged text is ignored).
      if (name !== null && name !== SETTINGS_FILE) return;
      clearTimeout(timer);
      timer = setTimeout(() => {
        const result = this.reloadFromDisk();
        if (result) onReload(result);
      }, RELOAD_QUIET_MS);
    });
    watcher.on('error', (error) => {
      watcher.close();
      onError(error);
    });
    return {
      dispose: () => {
        clearTimeout(timer);
        watcher.close();
      },
    };
  }

  /** Every setting: in force, saved, default, and where it comes from. */
  describe(): HubSettingsView {
    const overrides = this.overrides();
    let raw: Record<string, unknown> = {};
    let saved: Settings | null = null;
    let problem: string | undefined;
    try {
      raw = readSettingsFile(this.file);
      saved = parseSettings({ ...raw, ...overrides });
    } catch (error) {
      problem = (error as Error).message;
    }
    const inForce = this.options.inForce();
    const settings = SHAPES.map(({ key, ...shape }): HubSetting => {
      const value = inForce[key] ?? null;
      // A change that waits for the person is not what the page edits from: what is in force is.
      const held = this.held.has(key);
      const savedValue = held ? ((this.accepted as Record<string, unknown>)[key] ?? null) : saved ? (saved[key] ?? null) : value;
      // A deny rule an earlier rule shadows is kept, with a warning (docs/design.md §2.9).
      const warnings = key === 'policy' && Array.isArray(savedValue) ? shadowedDenies(savedValue as PolicyRule[]) : [];
      return {
        key,
        ...PRESENTATION[key],
        ...shape,
        value,
        saved: savedValue,
        inFile: Object.hasOwn(raw, key),
        ...(key in overrides ? { env: envVariableOf(key) } : {}),
        ...(held ? { held: true } : {}),
        ...(warnings.length > 0 ? { warnings } : {}),
      };
    });
    const written = tokenWrittenAt(this.options.stateDir);
    return { file: this.file, settings, ...(problem ? { problem } : {}), ...(written !== undefined ? { tokenWrittenAt: Math.round(written) } : {}) };
  }

  /**
   * Saves `changes` (setting → value; null: back to the default) and applies the live ones.
   * Throws a SwitchboardError naming the setting when one is unknown, set by the environment,
   * or invalid; nothing is written then. `source`: the person's own change applies at once; one
   * over a connection signed in with the token (what agents hold) is saved but waits for the
   * person unless it provably tightens the policy or the sandbox (settingsHold.ts). Returns what
   * waits for the person after it, or null.
   */
  save(changes: Record<string, unknown>, source: 'person' | 'token' = 'person'): HeldChange | null {
    const overrides = this.overrides();
    for (const key of Object.keys(changes)) {
      if (!Object.hasOwn(PRESENTATION, key)) {
        throw invalid(`There is no setting "${key}". Settings: ${Object.keys(PRESENTATION).join(', ')}.`);
      }
      if (key in overrides) {
        throw invalid(
          `${key} is set by ${envVariableOf(key as Key)} in the hub's environment, which wins over settings.json; unset it there to change it here.`,
        );
      }
    }
    let raw: Record<string, unknown>;
    try {
      raw = readSettingsFile(this.file);
    } catch (error) {
      throw invalid(`${(error as Error).message} Nothing was saved.`);
    }
    const next: Record<string, unknown> = { ...raw };
    for (const [key, value] of Object.entries(changes)) {
      if (value === null) delete next[key];
      else next[key] = value;
    }
    const settings = parseSettings({ ...next, ...overrides });
    this.assertShellRuns(changes.shell);
    this.writeFile(next);
    return this.arrive(settings, source, source === 'person' ? Object.keys(changes) : undefined);
  }

  /**
   * The keys in settings.json that are no setting of the hub's, as written: another program's
   * (the app's preferences of an earlier version) or a typo. Throws, naming the file, when it
   * cannot be read or is not a JSON object.
   */
  unknownKeys(): Record<string, unknown> {
    const raw = readSettingsFile(this.file);
    return Object.fromEntries(Object.entries(raw).filter(([key]) => !Object.hasOwn(PRESENTATION, key)));
  }

  /**
   * Removes keys that are no setting of the hub's from settings.json, for whoever has moved
   * them elsewhere (the app, its preferences), so that this class stays the file's one writer.
   * The hub's settings are refused (`save` changes those) and nothing is written then. Returns
   * the keys that were in the file; with none of them there, nothing is written.
   */
  removeUnknownKeys(keys: readonly string[]): string[] {
    const settings = keys.filter((key) => Object.hasOwn(PRESENTATION, key));
    if (settings.length > 0) throw invalid(`${settings.join(', ')}: settings of the hub are changed with save(), not removed here; nothing was removed.`);
    const raw = readSettingsFile(this.file);
    const present = keys.filter((key) => Object.hasOwn(raw, key));
    if (present.length === 0) return [];
    const next = { ...raw };
    for (const key of present) delete next[key];
    this.writeFile(next);
    return present;
  }

  /** A shell that is not there would fail every session opened after it, each with an error. */
  private assertShellRuns(shell: unknown): void {
    if (typeof shell !== 'string') return;
    const { env } = this.options;
    if (!path.isAbsolute(shell) && shell.includes('/')) throw invalid(`shell: give an absolute path (${shell} is relative) or a program on PATH.`);
    if (!findExecutable(shell, env.HOME ?? process.cwd(), env.PATH)) {
      throw invalid(`shell: "${shell}" was not found${shell.includes('/') ? ' or is not executable' : ' on PATH'}; nothing was saved.`);
    }
  }

  private overrides(): Record<string, unknown> {
    return envOverrides(this.options.env);
  }

  /** Whole file to a temporary name, then renamed: a reader never sees half of it. */
  private writeFile(content: Record<string, unknown>): void {
    const temporary = `${this.file}.${process.pid}.tmp`;
    const text = `${JSON.stringify(content, null, 2)}\n`;
    try {
      fs.writeFileSync(temporary, text, { mode: 0o600 });
      fs.renameSync(temporary, this.file);
      this.lastText = text;
    } catch (error) {
      fs.rmSync(temporary, { force: true });
      throw new Error(`Could not write ${this.file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); nothing was saved.`);
    }
  }
}

/** A setting's value when settings.json leaves it out (undefined for one the schema does not know). */
function defaultOf(key: string): unknown {
  const schema = (SettingsSchema.shape as Record<string, z.ZodType | undefined>)[key];
  const parsed = schema?.safeParse(undefined);
  return parsed?.success ? parsed.data : undefined;
}

/** Quiet time after the last change event before settings.json is read again. */
const RELOAD_QUIET_MS = 100;

function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

function invalid(message: string): SwitchboardError {
  return new SwitchboardError(ErrorCode.InvalidArgument, message);
}

/** The schema's verdict on a whole settings file, as one message naming each bad setting. */
function parseSettings(raw: Record<string, unknown>): Settings {
  const parsed = SettingsSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw invalid(`Not saved: ${describeSettingsIssues(parsed.error.issues)}.`);
}

/** Kind, bounds and default of one setting, read from its zod schema. */
function describeType(schema: z.ZodType): Pick<HubSetting, 'kind' | 'min' | 'max' | 'options'> & { default: unknown } {
  let inner = schema;
  let fallback: unknown = null;
  const def = inner._zod.def as { type: string; defaultValue?: unknown };
  if (def.type === 'default') fallback = structuredClone(def.defaultValue);
  // An object with defaults of its own (the sandbox): its default is what {} parses to.
  if (def.type === 'prefault') fallback = schema.parse(undefined);
  // Down to the value's own type (not `unwrap()` on an array: that is its element).
  while (['default', 'prefault', 'optional'].includes(inner._zod.def.type)) inner = (inner._zod.def as unknown as { innerType: z.ZodType }).innerType;
  const type = inner._zod.def.type;
  // The sandbox's object is edited by a view of its own (renderer/src/views/sandboxSettingsView.ts).
  if (type === 'object') return { kind: 'sandbox', default: fallback };
  if (type === 'number') {
    const number = inner as unknown as z.ZodNumber;
    return { kind: 'number', default: fallback, ...bound('min', number.minValue), ...bound('max', number.maxValue) };
  }
  if (type === 'enum') return { kind: 'choice', options: (inner as unknown as z.ZodEnum).options.map(String), default: fallback };
  // A list of objects (the policy's rules, the remotes) is edited row by row, not as lines of text.
  if (type === 'array' && (inner as unknown as z.ZodArray<z.ZodType>).element._zod.def.type === 'object') {
    const remotes = (inner as unknown as z.ZodArray<z.ZodObject>).element.shape.destination !== undefined;
    return { kind: remotes ? 'remotes' : 'rules', default: fallback };
  }
  return { kind: type === 'boolean' ? 'boolean' : type === 'array' ? 'list' : 'string', default: fallback };
}

function bound(name: 'min' | 'max', value: number | null): { min?: number; max?: number } {
  return value === null || !Number.isFinite(value) ? {} : { [name]: value };
}
