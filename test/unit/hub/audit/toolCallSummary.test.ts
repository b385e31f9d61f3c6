/**
 * The terminal app's calls are audited as counts (src/hub/audit/toolCallSummary.ts, docs/design.md
 * §4.6): the first of a client, session and outcome at once, then one line a minute saying how
 * many, and the rest when the hub stops. Fake timers stand for the minute.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ToolCallSummary } from '../../../../src/hub/audit/toolCallSummary.js';
import type { ToolAuditEvent } from '../../../../src/mcp/server.js';

const WINDOW = 60_000;
let written: ToolAuditEvent[];
let summary: ToolCallSummary;

function call(at: number, overrides: Partial<ToolAuditEvent> = {}): ToolAuditEvent {
  return { time: new Date(at).toISOString(), client: 'host 1.0', tool: 'screen_updates', session: 'abc123', outcome: 'ok', duration_ms: 2, ...overrides };
}

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
  written = [];
  summary = new ToolCallSummary((event) => written.push(event), WINDOW);
});

afterEach(() => {
  summary.dispose();
  vi.useRealTimers();
});

describe('ToolCallSummary', () => {
  it('writes the first call at once, then the calls of each minute as one line with their count and total time', () => {
    summary.record(call(0));
    expect(written).toEqual([{ ...call(0), calls: 1 }]);
    for (let t = 500; t < WINDOW; t += 500) summary.record(call(t));
    expect(written).toHaveLength(1);
    vi.advanceTimersByTime(WINDOW);
    expect(written).toHaveLength(2);
    expect(written[1]).toEqual({ ...call(500), calls: 119, duration_ms: 238 });
    // The next minute counts on from there.
    for (let t = WINDOW + 500; t < 2 * WINDOW; t += 500) summary.record(call(t));
    vi.advanceTimersByTime(WINDOW);
    expect(written.map((line) => line.calls)).toEqual([1, 119, 119]);
  });

  it('keeps clients, sessions and outcomes apart: each starts with a line of its own', () => {
    summary.record(call(0));
    summary.record(call(1, { session: 'def456' }));
    summary.record(call(2, { client: 'other 2.0' }));
    summary.record(call(3, { outcome: 'error', code: 'SESSION_NOT_FOUND' }));
    summary.record(call(4, { outcome: 'error', code: 'INVALID_ARGUMENT' }));
    summary.record(call(5));
    expect(written.map((line) => [line.client, line.session, line.code ?? null, line.calls])).toEqual([
      ['host 1.0', 'abc123', null, 1],
      ['host 1.0', 'def456', null, 1],
      ['other 2.0', 'abc123', null, 1],
      ['host 1.0', 'abc123', 'SESSION_NOT_FOUND', 1],
      ['host 1.0', 'abc123', 'INVALID_ARGUMENT', 1],
    ]);
  });

  it('writes what is counted when the hub stops, and forgets a pair quiet for a whole minute', () => {
    summary.record(call(0));
    summary.record(call(10));
    summary.record(call(20));
    summary.flush();
    expect(written.map((line) => line.calls)).toEqual([1, 2]);
    // Nothing more for a minute: the pair is forgotten, so its next call is a first again.
    vi.advanceTimersByTime(2 * WINDOW);
    summary.record(call(3 * WINDOW));
    expect(written.map((line) => line.calls)).toEqual([1, 2, 1]);
  });
});
