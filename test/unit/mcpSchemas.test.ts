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

describe("send's mouse (src/mcp/mouseSchema.ts)", () => {
  it('takes the names and spellings models use: x/y, type, double-click, right_click, wheel, lines, one modifier, JSON text', async () => {
    const { sendSpec } = await import('../../src/mcp/tools/send.js');
    const mouse = (value: unknown): unknown => {
      const r = parseInput(sendSpec, { session: 's', mouse: value });
      if (!r.ok) throw r.error;
      return r.value.mouse;
    };
    expect(mouse({ type: 'left-click', x: '7', y: 3 })).toEqual({ action: 'click', row: 3, col: 7 });
    expect(mouse({ action: 'Double-Click', row: 1, column: 2 })).toEqual({ action: 'double_click', row: 1, col: 2 });
    expect(mouse({ action: 'right_click', row: 1, col: 2, modifier: 'ctrl' })).toEqual({
      action: 'click',
      row: 1,
      col: 2,
      button: 'right',
      modifiers: ['ctrl'],
    });
    expect(mouse({ event: 'wheel', row: 4, col: 5, lines: -3 })).toEqual({ action: 'scroll', row: 4, col: 5, amount: -3 });
    expect(mouse({ action: 'drag', row: 1, col: 1, end_row: 2, to_x: 9 })).toEqual({ action: 'drag', row: 1, col: 1, to_row: 2, to_col: 9 });
    expect(mouse('{"action":"click","row":2,"col":3}')).toEqual({ action: 'click', row: 2, col: 3 });
  });

  it('names the field and what it allows', async () => {
    const { sendSpec } = await import('../../src/mcp/tools/send.js');
    const r = parseInput(sendSpec, { session: 's', mouse: { action: 'click', row: 1, col: 1, button: 'fourth' } });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.message).toBe('mouse.button: "fourth" is not allowed; use one of left, middle, right.');
    const missing = parseInput(sendSpec, { session: 's', mouse: { action: 'scroll', amount: 2 } });
    expect(!missing.ok && missing.error.message).toBe('mouse.row is required: pass an integer.');
  });
});
