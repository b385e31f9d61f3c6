/** Lenient tool input (src/mcp/schemas.ts): nested `wait`, lists, JSON text, error paths. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseInput, WAIT_ALIASES, waitSchema, type InputSpec } from '../../src/mcp/schemas.js';

const schema = z.object({
  session: z.string().min(1),
  keys: z.array(z.string().min(1)).optional(),
  env: z.record(z.string(), z.string()).optional(),
  wait: waitSchema,
});
const spec: InputSpec<typeof schema.shape> = { schema, nested: { wait: { aliases: WAIT_ALIASES } } };

describe('parseInput', () => {
  it('coerces and aliases inside wait, and names unknown nested keys', () => {
    const r = parseInput(spec, { session: 's', wait: { exit: 'true', timeout: '5000', colour: 'blue' } });
    expect(r.ok && r.value.wait).toEqual({ exit: true, timeout_ms: 5_000 });
    expect(r.warnings.join('\n')).toContain('"wait.colour"');
  });

  it('reads gone, until_gone and disappears as wait.absent', () => {
    for (const alias of ['gone', 'until_gone', 'disappears', 'untilGone']) {
      expect(parseInput(spec, { session: 's', wait: { [alias]: 'Loading' } }), alias).toMatchObject({ ok: true, value: { wait: { absent: 'Loading' } } });
    }
    const empty = parseInput(spec, { session: 's', wait: { absent: '' } });
    expect(!empty.ok && empty.error.message).toMatch(/^wait\.absent: "" is not allowed; use a non-empty string/);
  });

  it('converts wait.timeout_seconds to milliseconds and says so', () => {
    const r = parseInput(spec, { session: 's', wait: { timeout_seconds: 2 } });
    expect(r.ok && r.value.wait).toEqual({ timeout_ms: 2_000 });
    expect(r.warnings.join('\n')).toContain('wait.timeout_ms: 2000');
  });

  it('accepts one key for a list, JSON text for objects and lists, numbers in a string record', () => {
    expect(parseInput(spec, { session: 's', keys: 'enter' })).toMatchObject({ ok: true, value: { keys: ['enter'] } });
    expect(parseInput(spec, { session: 's', keys: '["up","enter"]' })).toMatchObject({ ok: true, value: { keys: ['up', 'enter'] } });
    expect(parseInput(spec, { session: 's', wait: '{"pattern":"\\\\$ $"}' })).toMatchObject({ ok: true, value: { wait: { pattern: '\\$ $' } } });
    expect(parseInput(spec, { session: 's', env: { N: 3, B: true } })).toMatchObject({ ok: true, value: { env: { N: '3', B: 'true' } } });
  });

  it('names the nested parameter, the value and the range of a bad value', () => {
    const r = parseInput(spec, { session: 's', wait: { timeout_ms: 3_600_000 } });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.details).toMatchObject({ parameter: 'wait.timeout_ms', value: 3_600_000 });
    expect(r.error.message).toMatch(/^wait\.timeout_ms: 3600000 is not allowed; use an integer from 1 to 600000 \(milliseconds\)/);
  });

  it('reports a converted alias as the parameter it became', () => {
    const r = parseInput(spec, { session: 's', wait: { timeout_s: 3_600 } });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toContain('wait.timeout_ms: 3600000 (from wait.timeout_s 3600)');
  });

  it('says what a wait that is not an object should be', () => {
    const r = parseInput(spec, { session: 's', wait: true });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toMatch(/^wait: true is not allowed; use an object with keys exit, pattern, absent, idle_ms, timeout_ms/);
  });
});
