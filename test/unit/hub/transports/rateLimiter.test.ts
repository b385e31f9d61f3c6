/**
 * The per-connection rate limit: the token bucket's arithmetic with a scripted clock, and the
 * transport wrapper answering refused requests itself (the server never sees them), and the
 * per-client buckets of 2026-era stateless requests.
 */
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Logger } from '../../../../src/hub/common/logger.js';
import { RATE_LIMITED, RateLimitedTransport } from '../../../../src/hub/transports/rateLimitedTransport.js';
import { TokenBucket } from '../../../../src/hub/transports/rateLimiter.js';
import { StatelessCallLimits } from '../../../../src/hub/transports/statelessCallLimits.js';

describe('TokenBucket', () => {
  it('allows the burst at once, then refuses with the time until the next token', () => {
    let now = 0;
    const bucket = new TokenBucket({ perSecond: 10, burst: 3 }, () => now);
    expect([bucket.take(), bucket.take(), bucket.take()]).toEqual([0, 0, 0]);
    expect(bucket.take()).toBe(100); // 10 a second: one token every 100 ms
    now = 40;
    expect(bucket.take()).toBe(60);
    now = 100;
    expect(bucket.take()).toBe(0);
    expect(bucket.take()).toBe(100);
  });

  it('refills at the sustained rate up to the burst, never beyond', () => {
    let now = 0;
    const bucket = new TokenBucket({ perSecond: 1_000, burst: 5 }, () => now);
    for (let i = 0; i < 5; i++) bucket.take();
    now = 60_000; // a long quiet spell still refills only up to the burst
    const allowed = Array.from({ length: 10 }, () => bucket.take()).filter((wait) => wait === 0).length;
    expect(allowed).toBe(5);
  });

  it('a refused call takes nothing: a flooding client still gets the sustained rate', () => {
    let now = 0;
    const bucket = new TokenBucket({ perSecond: 1_000, burst: 10 }, () => now);
    let allowed = 0;
    // 10 000 calls a second for one second, one every 0.1 ms.
    for (let i = 0; i < 10_000; i++) {
      now = i / 10;
      if (bucket.take() === 0) allowed++;
    }
    expect(allowed).toBeGreaterThanOrEqual(1_005);
    expect(allowed).toBeLessThanOrEqual(1_010);
    expect(bucket.take()).toBeGreaterThanOrEqual(1); // never a 0 ms hint for a refusal
  });
});

class FakeTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly sent: JSONRPCMessage[] = [];
  async start(): Promise<void> {}
  async send(message: JSONRPCMessage): Promise<void> {
    this.sent.push(message);
  }
  async close(): Promise<void> {
    this.onclose?.();
  }
}

describe('RateLimitedTransport', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  function setUp(): { inner: FakeTransport; seen: JSONRPCMessage[]; warnings: string[] } {
    vi.useFakeTimers({ toFake: ['performance', 'Date'] });
    const inner = new FakeTransport();
    const warnings: string[] = [];
    const logger: Logger = { info: () => undefined, warn: (m) => warnings.push(m), error: () => undefined };
    const limited = new RateLimitedTransport(inner, { perSecond: 100, burst: 2 }, logger, 'socket');
    const seen: JSONRPCMessage[] = [];
    limited.onmessage = (message) => seen.push(message);
    return { inner, seen, warnings };
  }

  const call = (id: number): JSONRPCMessage => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'list', arguments: {} } });

  it('passes calls within the limit, answers the rest itself: LIMIT_REACHED results, -32029 errors', () => {
    const { inner, seen, warnings } = setUp();
    inner.onmessage?.({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { clientInfo: { name: 'flooder', version: '1' } } });
    inner.onmessage?.(call(1));
    inner.onmessage?.(call(2));
    inner.onmessage?.({ jsonrpc: '2.0', id: 3, method: 'ping' });
    expect(seen.map((m) => (m as { id?: number }).id)).toEqual([0, 1]);
    expect(inner.sent).toEqual([
      {
        jsonrpc: '2.0',
        id: 2,
        result: {
          isError: true,
          content: [{ type: 'text', text: expect.stringMatching(/^LIMIT_REACHED: Too many calls .*rateLimitPerSecond.*retry after 10 ms/) }],
          _meta: { 'dev.switchboard/error': { code: 'LIMIT_REACHED', retry_after_ms: 10 } },
        },
      },
      {
        jsonrpc: '2.0',
        id: 3,
        error: { code: RATE_LIMITED, message: expect.stringMatching(/^LIMIT_REACHED: /), data: { code: 'LIMIT_REACHED', retry_after_ms: 10 } },
      },
    ]);
    // One warning for the episode, naming the client, not one per refused call.
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('"flooder 1"');
    // After the hinted wait the next call goes through.
    vi.advanceTimersByTime(10);
    inner.onmessage?.(call(4));
    expect(seen.map((m) => (m as { id?: number }).id)).toEqual([0, 1, 4]);
  });

  it('never refuses notifications (a cancellation must always get through) or responses', () => {
    const { inner, seen } = setUp();
    for (let id = 1; id <= 5; id++) inner.onmessage?.(call(id));
    const cancel: JSONRPCMessage = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } };
    const response: JSONRPCMessage = { jsonrpc: '2.0', id: 'server-1', result: {} };
    inner.onmessage?.(cancel);
    inner.onmessage?.(response);
    expect(seen.slice(-2)).toEqual([cancel, response]);
    expect(inner.sent).toHaveLength(3);
  });
});

describe('StatelessCallLimits', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const logger: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
  const call = (id: number, client?: string): unknown => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'list', arguments: {}, ...(client ? { _meta: { 'io.modelcontextprotocol/clientInfo': { name: client, version: '1' } } } : {}) },
  });

  it('one bucket per client named in _meta; unnamed requests share one; results say resultType complete', () => {
    vi.useFakeTimers({ toFake: ['performance', 'Date'] });
    const limits = new StatelessCallLimits({ perSecond: 1, burst: 1 }, logger);
    expect(limits.check(call(1, 'a'))).toBeNull();
    expect(limits.check(call(2, 'b'))).toBeNull();
    expect(limits.check(call(3))).toBeNull();
    expect(limits.check(call(4))).toMatchObject({
      id: 4,
      result: { isError: true, resultType: 'complete', _meta: { 'dev.switchboard/error': { code: 'LIMIT_REACHED', retry_after_ms: 1_000 } } },
    });
    expect(limits.check(call(5, 'a'))).toMatchObject({ id: 5, result: { _meta: { 'dev.switchboard/error': { code: 'LIMIT_REACHED' } } } });
    // Not requests: notifications and anything else pass untouched.
    expect(limits.check({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } })).toBeNull();
    expect(limits.check([call(6, 'a')])).toBeNull();
    expect(limits.check('nonsense')).toBeNull();
  });

  it('keeps at most 256 clients, forgetting the least recently seen', () => {
    vi.useFakeTimers({ toFake: ['performance', 'Date'] });
    const limits = new StatelessCallLimits({ perSecond: 1, burst: 1 }, logger);
    expect(limits.check(call(0, 'first'))).toBeNull();
    for (let i = 1; i <= 256; i++) expect(limits.check(call(i, `client-${i}`))).toBeNull();
    // `first` was forgotten: a fresh bucket; `client-256` is still known and empty.
    expect(limits.check(call(300, 'first'))).toBeNull();
    expect(limits.check(call(301, 'client-256'))).not.toBeNull();
  });
});
