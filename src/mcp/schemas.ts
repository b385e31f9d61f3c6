/**
 * Lenient tool input (docs/design.md §3.1): models send `"5000"` for 5000, `"true"` for true,
 * `timeout` for `timeout_ms`, `session_id` for `session`, and keys that do not exist. We accept the
 * first three, ignore the last and name it in a `warnings` list so the model learns, and answer a
 * bad value with an INVALID_ARGUMENT result that names the parameter, the value and what is
 * allowed.
 *
 * Why the parsing happens inside the handler, not in the SDK: `McpServer` validates arguments
 * against the registered `inputSchema` before the handler runs, and a failure there becomes an
 * uncoded "Input validation error" text, not our `INVALID_ARGUMENT` result; it would also reject
 * every alias and string-typed number. So each tool registers `lenientInputSchema(schema)`: a
 * Standard Schema whose JSON Schema (what `tools/list` shows the model) is the strict zod
 * schema's, with every field described, and whose `validate` passes the arguments through
 * untouched. The handler then calls `parseInput`, which normalizes (aliases, coercion, unknown
 * keys) and validates strictly with the same zod schema.
 */
import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { ErrorCode, SwitchboardError } from '../core/index.js';

/** Another name a model may use for a parameter; `scale` converts units (seconds → ms). */
export interface Alias {
  to: string;
  scale?: number;
}

export interface InputSpec<Shape extends z.ZodRawShape> {
  schema: z.ZodObject<Shape>;
  /**
   * Documented aliases, matched like parameter names: case, `_`, `-` and spaces do not matter
   * (so `timeoutMs`, `Timeout-MS` and `timeout_ms` are one name and need no entry here).
   */
  aliases?: Record<string, string | Alias>;
  /** Per-parameter clean-up before coercion (e.g. `"int"` → `"SIGINT"`). */
  normalize?: Partial<Record<keyof Shape & string, (value: unknown) => unknown>>;
  /**
   * Aliases inside an object-valued parameter (e.g. `wait`): its fields are normalized the same
   * way (coercion, aliases, unknown keys → warnings named `wait.foo`).
   */
  nested?: Partial<Record<keyof Shape & string, { aliases?: Record<string, string | Alias> }>>;
}

type ParsedInput<T> = { ok: true; value: T; warnings: string[] } | { ok: false; error: SwitchboardError; warnings: string[] };

/**
 * The schema handed to `registerTool`: the model sees `schema`'s JSON Schema; validation is
 * deferred to `parseInput` in the handler (see the file comment).
 */
export function lenientInputSchema(schema: z.ZodObject): StandardSchemaWithJSON<unknown, unknown> {
  const strict = schema['~standard'];
  return {
    '~standard': {
      version: 1,
      vendor: 'switchboard',
      validate: (value: unknown) => ({ value: value ?? {} }),
      jsonSchema: {
        input: (options) => compact(strict.jsonSchema.input(options)),
        output: (options) => compact(strict.jsonSchema.input(options)),
      },
    },
  };
}

/**
 * An `outputSchema` validated by zod as usual, advertised without the `$schema` line (the
 * protocol fixes the dialect; models pay for every listed token).
 */
export function compactOutputSchema<Output>(schema: z.ZodType<Output>): StandardSchemaWithJSON<Output, Output> {
  const std = schema['~standard'];
  return {
    '~standard': {
      version: 1,
      vendor: std.vendor,
      validate: (value: unknown) => std.validate(value),
      jsonSchema: {
        input: (options) => compact(std.jsonSchema.output(options)),
        output: (options) => compact(std.jsonSchema.output(options)),
      },
    },
  };
}

function compact(json: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = json;
  return withoutNoise(rest) as Record<string, unknown>;
}

/**
 * Drops what says nothing a model needs, since it pays for every listed token: the ±2^53-1
 * bounds zod gives every `.int()`, `additionalProperties: {}` (an open object is JSON Schema's
 * default), `minLength: 1`, `minimum: 1` and `maxLength` (the handler refuses an empty, zero or
 * over-long value with a clear error naming the bound anyway: "an integer from 1 to 86400000"), and
 * `propertyNames: { type: "string" }` (an object's keys are strings anyway).
 */
function withoutNoise(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNoise);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if ((key === 'minimum' || key === 'maximum') && typeof inner === 'number' && Math.abs(inner) === Number.MAX_SAFE_INTEGER) continue;
    if (key === 'additionalProperties' && isEmptyObject(inner)) continue;
    if ((key === 'minLength' || key === 'minimum') && inner === 1) continue;
    if (key === 'maxLength') continue;
    if (key === 'propertyNames' && isStringType(inner)) continue;
    out[key] = withoutNoise(inner);
  }
  return out;
}

/** `{ type: "string" }`: what every JSON object's keys are anyway. */
function isStringType(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Object.keys(value).length === 1 && (value as Record<string, unknown>).type === 'string';
}

function isEmptyObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
}

/** Where each normalized value came from, keyed by dotted path (`wait.timeout_ms`), for error messages. */
interface Trace {
  givenAs: Map<string, string>;
  rawValue: Map<string, unknown>;
  converted: Map<string, unknown>;
  scaled: Set<string>;
}

interface Level {
  shape: Record<string, z.ZodType>;
  aliases?: Record<string, string | Alias>;
  normalize?: Record<string, ((value: unknown) => unknown) | undefined>;
  nested?: Record<string, { aliases?: Record<string, string | Alias> } | undefined>;
}

/** Normalizes and validates raw tool arguments against `spec` (see the file comment). */
export function parseInput<Shape extends z.ZodRawShape>(spec: InputSpec<Shape>, raw: unknown): ParsedInput<z.output<z.ZodObject<Shape>>> {
  const warnings: string[] = [];
  const fail = (error: SwitchboardError): ParsedInput<never> => ({ ok: false, error, warnings });
  if (raw === undefined || raw === null) raw = {};
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    return fail(invalid('arguments', raw, 'an object of named parameters'));
  }
  const trace: Trace = { givenAs: new Map(), rawValue: new Map(), converted: new Map(), scaled: new Set() };
  const level: Level = {
    shape: spec.schema.shape as unknown as Record<string, z.ZodType>,
    aliases: spec.aliases,
    normalize: spec.normalize as Level['normalize'],
    nested: spec.nested as Level['nested'],
  };
  const values = normalizeLevel(level, raw as Record<string, unknown>, '', warnings, trace);
  if (values instanceof SwitchboardError) return fail(values);

  const parsed = spec.schema.safeParse(values);
  if (parsed.success) return { ok: true, value: parsed.data, warnings };
  const issue = parsed.error.issues[0]!;
  // The parameter is the path up to the first list index: `wait.timeout_ms`, `keys`.
  const segments: string[] = [];
  for (const segment of issue.path) {
    if (typeof segment !== 'string') break;
    segments.push(segment);
  }
  const param = segments.join('.') || 'arguments';
  const field = fieldAt(spec.schema, segments);
  const allowed = (field ? describeAllowed(field) : 'a valid value') + (param.endsWith('_ms') ? ' (milliseconds)' : '');
  if (!trace.converted.has(param)) {
    return fail(new SwitchboardError(ErrorCode.InvalidArgument, `${param} is required: pass ${allowed}.`, { parameter: param, allowed }));
  }
  const shownAs = trace.givenAs.get(param) ?? param;
  // A unit-converted alias is reported as the parameter it became, with the converted value.
  if (trace.scaled.has(param)) {
    return fail(invalid(param, trace.converted.get(param), allowed, ` (from ${shownAs} ${show(trace.rawValue.get(param))})`));
  }
  return fail(invalid(shownAs, trace.rawValue.get(param), allowed));
}

/** Parameter names and aliases by `nameKey`, built once per schema level (every call used to). */
const namesCache = new WeakMap<object, WeakMap<object, Map<string, { to: string; scale?: number }>>>();
const NO_ALIASES = {};

function namesOf(level: Level): Map<string, { to: string; scale?: number }> {
  let byAliases = namesCache.get(level.shape);
  if (!byAliases) namesCache.set(level.shape, (byAliases = new WeakMap()));
  let byName = byAliases.get(level.aliases ?? NO_ALIASES);
  if (byName) return byName;
  byName = new Map();
  for (const key of Object.keys(level.shape)) byName.set(nameKey(key), { to: key });
  for (const [alias, target] of Object.entries(level.aliases ?? {})) {
    const entry = typeof target === 'string' ? { to: target } : target;
    if (!byName.has(nameKey(alias))) byName.set(nameKey(alias), entry);
  }
  byAliases.set(level.aliases ?? NO_ALIASES, byName);
  return byName;
}

function normalizeLevel(
  level: Level,
  raw: Record<string, unknown>,
  prefix: string,
  warnings: string[],
  trace: Trace,
): Record<string, unknown> | SwitchboardError {
  const { shape } = level;
  const byName = namesOf(level);

  // Exact parameter names first, so `timeout_ms` beats an alias given alongside it.
  const entries = Object.entries(raw).sort(([a], [b]) => Number(!(a in shape)) - Number(!(b in shape)));
  const values: Record<string, unknown> = {};
  const givenAs: Record<string, string> = {};
  for (const [key, value] of entries) {
    const target = byName.get(nameKey(key));
    if (!target) {
      warnings.push(`ignored unknown parameter "${prefix}${key}"; known: ${Object.keys(shape).join(', ')}`);
      continue;
    }
    if (value === null || value === undefined) continue; // null means "not given"
    if (target.to in values) {
      warnings.push(`ignored "${prefix}${key}": ${prefix}${target.to} was already given as "${prefix}${givenAs[target.to]}"`);
      continue;
    }
    const path = `${prefix}${target.to}`;
    const field = shape[target.to]!;
    let next: unknown = level.normalize?.[target.to]?.(value) ?? value;
    next = coerce(field, next);
    const inner = unwrap(field);
    if (inner instanceof z.ZodObject && isPlainObject(next)) {
      const nested = normalizeLevel(
        { shape: inner.shape as unknown as Record<string, z.ZodType>, aliases: level.nested?.[target.to]?.aliases },
        next,
        `${path}.`,
        warnings,
        trace,
      );
      if (nested instanceof SwitchboardError) return nested;
      next = nested;
    }
    if (target.scale !== undefined) {
      if (typeof next !== 'number' || !Number.isFinite(next)) {
        return invalid(`${prefix}${key}`, value, `a number (multiplied by ${target.scale} into ${path})`);
      }
      next = Math.round(next * target.scale);
      trace.scaled.add(path);
      if (key !== target.to) warnings.push(`read "${prefix}${key}" as ${path}: ${String(next)}`);
    }
    values[target.to] = next;
    givenAs[target.to] = key;
    trace.givenAs.set(path, `${prefix}${key}`);
    trace.rawValue.set(path, value);
    trace.converted.set(path, next);
  }
  return values;
}

/** The schema of a dotted parameter path (`wait.timeout_ms`), through optional wrappers. */
function fieldAt(schema: z.ZodType, segments: readonly string[]): z.ZodType | undefined {
  let field: z.ZodType | undefined = schema;
  for (const segment of segments) {
    const inner: z.ZodType | undefined = field && unwrap(field);
    if (!(inner instanceof z.ZodObject)) return undefined;
    field = (inner.shape as Record<string, z.ZodType>)[segment];
  }
  return field === schema ? undefined : field;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `timeoutMs`, `Timeout-MS`, `timeout_ms` → `timeoutms`. */
function nameKey(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

function invalid(param: string, value: unknown, allowed: string, note = ''): SwitchboardError {
  return new SwitchboardError(ErrorCode.InvalidArgument, `${param}: ${show(value)}${note} is not allowed; use ${allowed}.`, {
    parameter: param,
    value: jsonSafe(value),
    allowed,
  });
}

/** Strings that are plainly numbers or booleans become them; numbers become strings where a string is wanted. */
function coerce(field: z.ZodType, value: unknown): unknown {
  const inner = unwrap(field);
  if (inner instanceof z.ZodNumber && typeof value === 'string' && /^\s*[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?\s*$/i.test(value)) {
    return Number(value);
  }
  if (inner instanceof z.ZodBoolean) {
    if (typeof value === 'string') {
      const text = value.trim().toLowerCase();
      if (['true', 'yes', '1', 'on'].includes(text)) return true;
      if (['false', 'no', '0', 'off'].includes(text)) return false;
    }
    if (value === 1) return true;
    if (value === 0) return false;
  }
  if (inner instanceof z.ZodString && typeof value === 'number') return String(value);
  // An object or list sent as JSON text: '{"exit":true}', '["enter"]'.
  if ((inner instanceof z.ZodObject || inner instanceof z.ZodArray || inner instanceof z.ZodRecord) && typeof value === 'string') {
    const text = value.trim();
    if (/^[[{]/.test(text)) {
      try {
        value = JSON.parse(text) as unknown;
      } catch {
        // Not JSON after all: validation names the parameter.
      }
    }
  }
  if (inner instanceof z.ZodArray) {
    // One item given alone ("enter" for ["enter"]); numbers where strings are wanted become strings.
    const list = Array.isArray(value) ? value : typeof value === 'string' || typeof value === 'number' ? [value] : value;
    if (Array.isArray(list) && unwrap(inner.element as z.ZodType) instanceof z.ZodString) {
      return list.map((item: unknown) => (typeof item === 'number' ? String(item) : item));
    }
    return list;
  }
  if (inner instanceof z.ZodRecord && isPlainObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, typeof v === 'number' || typeof v === 'boolean' ? String(v) : v]));
  }
  if (inner instanceof z.ZodEnum && typeof value === 'string') {
    const options = inner.options.map(String);
    return options.find((o) => o.toLowerCase() === value.trim().toLowerCase()) ?? value;
  }
  return value;
}

function unwrap(field: z.ZodType): z.ZodType {
  let inner: z.ZodType = field;
  while (inner instanceof z.ZodOptional || inner instanceof z.ZodNullable || inner instanceof z.ZodDefault) {
    inner = inner.unwrap() as z.ZodType;
  }
  return inner;
}

/** What a parameter accepts, in words: "an integer from 1 to 86400000 (milliseconds)". */
function describeAllowed(field: z.ZodType): string {
  const inner = unwrap(field);
  if (inner instanceof z.ZodNumber) {
    const kind = inner.isInt ? 'an integer' : 'a number';
    const min = inner.minValue;
    const max = inner.maxValue;
    const safe = (n: number | null): boolean => n !== null && Math.abs(n) < Number.MAX_SAFE_INTEGER;
    let range = '';
    if (safe(min) && safe(max)) range = ` from ${min} to ${max}`;
    else if (safe(min)) range = ` ≥ ${min}`;
    else if (safe(max)) range = ` ≤ ${max}`;
    return kind + range;
  }
  if (inner instanceof z.ZodBoolean) return 'true or false';
  if (inner instanceof z.ZodEnum) return `one of ${inner.options.map(String).join(', ')}`;
  if (inner instanceof z.ZodString) return (inner.minLength ?? 0) > 0 ? 'a non-empty string' : 'a string';
  if (inner instanceof z.ZodArray) return 'a list of strings, e.g. ["enter"]';
  if (inner instanceof z.ZodRecord) return 'an object of string values, e.g. {"NAME":"value"}';
  if (inner instanceof z.ZodObject) return `an object with keys ${Object.keys(inner.shape).join(', ')}`;
  return 'a valid value';
}

function show(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function jsonSafe(value: unknown): unknown {
  try {
    const text = JSON.stringify(value);
    if (text === undefined) return String(value);
    return text.length > 200 ? `${text.slice(0, 197)}...` : value;
  } catch {
    return String(value);
  }
}

/** The longest wait a `send`/`read` may ask for: 10 minutes (docs/design.md §3.3: a bounded timeout). */
const MAX_WAIT_MS = 600_000;

/**
 * `wait` of `send` and `read` (docs/design.md §3.3): whichever comes first, bounded by
 * `timeout_ms`. A pattern's length and run time are bounded by the core (PatternMatcher).
 */
export const waitSchema = z
  .object({
    exit: z.boolean().optional().describe('Until it exits.'),
    pattern: z.string().min(1).max(1_000).optional().describe('Until this regex shows.'),
    // Its length is bounded by the core (PatternMatcher): not advertised, to keep tools/list short.
    absent: z.string().min(1).optional().describe('Until this regex is gone.'),
    idle_ms: z.number().int().min(1).max(MAX_WAIT_MS).optional().describe('Until quiet this long.'),
    timeout_ms: z.number().int().min(1).max(MAX_WAIT_MS).optional().describe('At most (default 10000).'),
  })
  .optional();

/** What models call the `wait` fields. */
export const WAIT_ALIASES: Record<string, string | Alias> = {
  until_exit: 'exit',
  exited: 'exit',
  regex: 'pattern',
  match: 'pattern',
  until: 'pattern',
  expect: 'pattern',
  gone: 'absent',
  until_gone: 'absent',
  disappears: 'absent',
  until_absent: 'absent',
  not_present: 'absent',
  idle: 'idle_ms',
  quiet_ms: 'idle_ms',
  idle_seconds: { to: 'idle_ms', scale: 1000 },
  timeout: 'timeout_ms',
  timeout_seconds: { to: 'timeout_ms', scale: 1000 },
  timeout_secs: { to: 'timeout_ms', scale: 1000 },
  timeout_s: { to: 'timeout_ms', scale: 1000 },
};

/** Aliases of `session` every tool that takes one accepts. */
export const SESSION_ALIASES: Record<string, string> = { session_id: 'session', session_name: 'session', id: 'session' };
