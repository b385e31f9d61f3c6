/**
 * `send`'s input (src/mcp/tools/send.ts, docs/design.md §3.3): `resize` within open's bounds, as
 * an object (with the names models use) or as `"120x40"`; a bad size named with its value; the
 * audit facts say a resize was asked for and to what size.
 */
import { describe, expect, it } from 'vitest';
import { parseInput } from '../../../src/mcp/schemas.js';
import { sendAuditFacts, sendSpec } from '../../../src/mcp/tools/send.js';

describe('send resize input', () => {
  it('takes {rows, cols}, width/height, and "COLSxROWS" text', () => {
    expect(parseInput(sendSpec, { session: 's', resize: { rows: 40, cols: 120 } })).toMatchObject({ ok: true, value: { resize: { rows: 40, cols: 120 } } });
    expect(parseInput(sendSpec, { session: 's', size: { height: '30', width: '100' } })).toMatchObject({
      ok: true,
      value: { resize: { rows: 30, cols: 100 } },
    });
    expect(parseInput(sendSpec, { session: 's', resize: '120x40' })).toMatchObject({ ok: true, value: { resize: { rows: 40, cols: 120 } } });
    expect(parseInput(sendSpec, { session: 's', resize: '{"rows":25,"cols":81}' })).toMatchObject({ ok: true, value: { resize: { rows: 25, cols: 81 } } });
  });

  it('refuses a size outside open’s bounds, naming the parameter and the value', () => {
    const cases: [unknown, RegExp][] = [
      [{ rows: 1, cols: 80 }, /^resize\.rows: 1 is not allowed; use an integer from 2 to 500/],
      [{ rows: 24, cols: 5000 }, /^resize\.cols: 5000 is not allowed; use an integer from 10 to 1000/],
      [{ rows: 24.5, cols: 80 }, /^resize\.rows: 24\.5 is not allowed; use an integer/],
      [{ rows: 24 }, /^resize\.cols is required: pass an integer from 10 to 1000/],
      ['huge', /^resize: "huge" is not allowed; use an object with keys rows, cols/],
    ];
    for (const [resize, message] of cases) {
      const parsed = parseInput(sendSpec, { session: 's', resize });
      expect(parsed.ok, JSON.stringify(resize)).toBe(false);
      if (!parsed.ok) {
        expect(parsed.error.code).toBe('INVALID_ARGUMENT');
        expect(parsed.error.message).toMatch(message);
      }
    }
  });

  it('audits the size asked for, beside the bytes and keys typed', () => {
    expect(sendAuditFacts({ session: 's', text: 'ab', keys: ['enter'], resize: '100x30' })).toEqual({ bytes: 2, keys: 1, resize: { rows: 30, cols: 100 } });
    expect(sendAuditFacts({ session: 's', text: 'ab' })).toEqual({ bytes: 2, keys: 0 });
  });
});
