/**
 * Lenient tool input (DESIGN §3): models send `"5000"` for 5000, `"true"` for true, `timeout`
 * for `timeout_ms`, `session_id` for `session`, and keys that do not exist. We accept the first
 * three, ignore the last and name it in a `warnings` list so the model learns, and answer a bad
 * value with an INVALID_ARGUMENT result that names the parameter, the value and what is allowed.
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
import { ErrorCode, SwitchboardError } from '../core/errors.js';

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
}

export type ParsedInput<T> =
  | { ok: true; value: T; warnings: string[] }
  | { ok: false; error: SwitchboardError; warnings: string[] };

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
  return rest;
}

/** Normalizes and validates raw tool arguments against `spec` (see the file comment). */
export function parseInput<Shape extends z.ZodRawShape>(
  spec: InputSpec<Shape>,
  raw: unknown,
): ParsedInput<z.output<z.ZodObject<Shape>>> {
  const warnings: string[] = [];
  const fail = (error: SwitchboardError): ParsedInput<never> => ({ ok: false, error, warnings });
  if (raw === undefined || raw === null) raw = {};
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    return fail(invalid('arguments', raw, 'an object of named parameters'));
  }

  const shape = spec.schema.shape as unknown as Record<string, z.ZodType>;
  const byName = new Map<string, { to: string; scale?: number }>();
  for (const key of Object.keys(shape)) byName.set(nameKey(key), { to: key });
  for (const [alias, target] of Object.entries(spec.aliases ?? {})) {
    const entry = typeof target === 'string' ? { to: target } : target;
    if (!byName.has(nameKey(alias))) byName.set(nameKey(alias), entry);
  }

  // Exact parameter names first, so `timeout_ms` beats an alias given alongside it.
  const entries = Object.entries(raw as Record<string, unknown>).sort(
    ([a], [b]) => Number(!(a in shape)) - Number(!(b in shape)),
  );
  const values: Record<string, unknown> = {};
  const givenAs: Record<string, string> = {};
  for (const [key, value] of entries) {
    const target = byName.get(nameKey(key));
    if (!target) {
      warnings.push(`ignored unknown parameter "${key}"; known: ${Object.keys(shape).join(', ')}`);
      continue;
    }
    if (value === null || value === undefined) continue; // null means "not given"
    if (target.to in values) {
      warnings.push(`ignored "${key}": ${target.to} was already given as "${givenAs[target.to]}"`);
      continue;
    }
    const field = shape[target.to]!;
    let next: unknown = spec.normalize?.[target.to as keyof Shape & string]?.(value) ?? value;
    next = coerce(field, next);
    if (target.scale !== undefined) {
      if (typeof next !== 'number' || !Number.isFinite(next)) {
        return fail(invalid(key, value, `a number (multiplied by ${target.scale} into ${target.to})`));
      }
      next = Math.round(next * target.scale);
    }
    if (key !== target.to && target.scale !== undefined) warnings.push(`read "${key}" as ${target.to}: ${String(next)}`);
    values[target.to] = next;
    givenAs[target.to] = key;
  }

  const parsed = spec.schema.safeParse(values);
  if (parsed.success) return { ok: true, value: parsed.data, warnings };
  const issue = parsed.error.issues[0]!;
  const param = String(issue.path[0] ?? 'arguments');
  const field = shape[param];
  const allowed = (field ? describeAllowed(field) : 'a valid value') + (param.endsWith('_ms') ? ' (milliseconds)' : '');
  if (!(param in values)) {
    return fail(new SwitchboardError(ErrorCode.InvalidArgument, `${param} is required: pass ${allowed}.`, { parameter: param, allowed }));
  }
  const shownAs = givenAs[param] ?? param;
  const rawValue = (raw as Record<string, unknown>)[shownAs];
  // A unit-converted alias is reported as the parameter it became, with the converted value.
  if (byName.get(nameKey(shownAs))?.scale !== undefined) {
    return fail(invalid(param, values[param], allowed, ` (from ${shownAs} ${show(rawValue)})`));
  }
  return fail(invalid(shownAs, rawValue, allowed));
}

/** `timeoutMs`, `Timeout-MS`, `timeout_ms` → `timeoutms`. */
function nameKey(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

function invalid(param: string, value: unknown, allowed: string, note = ''): SwitchboardError {
  return new SwitchboardError(
    ErrorCode.InvalidArgument,
    `${param}: ${show(value)}${note} is not allowed; use ${allowed}.`,
    { parameter: param, value: jsonSafe(value), allowed },
  );
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
export function describeAllowed(field: z.ZodType): string {
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
