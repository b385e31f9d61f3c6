/**
 * The token comparison of every endpoint (`tokensEqual`, docs/design.md §4.3: "compared in constant
 * time"). No clock is read: timing tests are flaky. Instead the shape of the comparison is
 * asserted through a spy on node:crypto — every comparison, whatever the lengths, ends in one
 * `timingSafeEqual` of two equal-length buffers, and its answer is the answer. A naive `===`
 * (no call), a length check first (no call on a mismatch) or a raw `timingSafeEqual` of the
 * strings' bytes (unequal lengths, which throws) all fail here.
 */
import type * as Crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ensureToken, readToken, replaceToken, tokensEqual, tokenWrittenAt } from '../../../../src/hub/state/token.js';

type Compare = (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => boolean;
const mocks = vi.hoisted(() => ({ timingSafeEqual: vi.fn<Compare>() }));

vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof Crypto>();
  mocks.timingSafeEqual.mockImplementation((a, b) => actual.timingSafeEqual(a, b));
  return { ...actual, default: { ...actual, timingSafeEqual: mocks.timingSafeEqual }, timingSafeEqual: mocks.timingSafeEqual };
});

const compare = mocks.timingSafeEqual;

const TOKEN = 'q3Xk9_vR2-bT8mWz0LpYc4HnJd6FsAeG1uKoVi5Nx7E'; // 43 base64url characters, as ensureToken makes

beforeEach(() => {
  compare.mockClear();
});

describe('tokensEqual', () => {
  const cases: { name: string; presented: string; expected: string; equal: boolean }[] = [
    { name: 'the same token', presented: TOKEN, expected: TOKEN, equal: true },
    { name: 'a copy built separately (not the same string object)', presented: [...TOKEN].join(''), expected: TOKEN, equal: true },
    { name: 'one character wrong, same length', presented: `${TOKEN.slice(0, -1)}F`, expected: TOKEN, equal: false },
    { name: 'the first character wrong', presented: `x${TOKEN.slice(1)}`, expected: TOKEN, equal: false },
    { name: 'shorter (a prefix)', presented: TOKEN.slice(0, 20), expected: TOKEN, equal: false },
    { name: 'longer (the token plus more)', presented: `${TOKEN}A`, expected: TOKEN, equal: false },
    { name: 'much longer', presented: TOKEN.repeat(100), expected: TOKEN, equal: false },
    { name: 'empty', presented: '', expected: TOKEN, equal: false },
    { name: 'empty against empty', presented: '', expected: '', equal: true },
    { name: 'the token with a trailing newline', presented: `${TOKEN}\n`, expected: TOKEN, equal: false },
    { name: 'a NUL byte in the middle', presented: `${TOKEN.slice(0, 10)}\0${TOKEN.slice(11)}`, expected: TOKEN, equal: false },
    { name: 'non-ASCII, equal', presented: 'tök€n-🔑-ключ', expected: 'tök€n-🔑-ключ', equal: true },
    // Same number of UTF-16 units, different UTF-8 byte lengths: a raw byte compare would throw.
    { name: 'non-ASCII against ASCII of the same string length', presented: 'tökén', expected: 'token', equal: false },
    { name: 'composed against decomposed é (different bytes, same look)', presented: 'caf\u00e9', expected: 'cafe\u0301', equal: false },
    { name: 'a lone surrogate', presented: '\ud800abc', expected: 'abc', equal: false },
  ];

  for (const { name, presented, expected, equal } of cases) {
    it(`${name} → ${equal}, through one timingSafeEqual of equal-length buffers`, () => {
      expect(() => tokensEqual(presented, expected)).not.toThrow();
      compare.mockClear();
      expect(tokensEqual(presented, expected)).toBe(equal);
      expect(compare).toHaveBeenCalledTimes(1);
      const [a, b] = compare.mock.calls[0]!;
      expect(a.byteLength).toBeGreaterThan(0);
      expect(a.byteLength).toBe(b.byteLength);
    });
  }

  it('compares buffers of one length whatever the inputs (digests, not the strings)', () => {
    for (const { presented, expected } of cases) tokensEqual(presented, expected);
    const lengths = new Set(compare.mock.calls.flatMap(([a, b]) => [a.byteLength, b.byteLength]));
    expect(compare).toHaveBeenCalledTimes(cases.length);
    expect([...lengths]).toHaveLength(1);
  });

  it('is symmetric', () => {
    for (const [x, y] of [
      [TOKEN, TOKEN.slice(0, 5)],
      ['', TOKEN],
      ['tökén', 'token'],
    ] as const) {
      expect(tokensEqual(x, y)).toBe(tokensEqual(y, x));
    }
  });

  it('answers what timingSafeEqual answers: no shortcut decides before it', () => {
    // If the comparison returned early (=== or a length check), forcing the constant-time
    // primitive's answer would not change the result.
    compare.mockReturnValueOnce(true);
    expect(tokensEqual('wrong', TOKEN)).toBe(true);
    compare.mockReturnValueOnce(false);
    expect(tokensEqual(TOKEN, TOKEN)).toBe(false);
    expect(compare).toHaveBeenCalledTimes(2);
  });
});

/** Creates `dir/name` and returns its modification time: a reading of the file system's clock. */
function stamp(dir: string, name: string): number {
  fs.writeFileSync(path.join(dir, name), '');
  return fs.statSync(path.join(dir, name)).mtimeMs;
}

describe('replaceToken', () => {
  it('puts a new token in place, 0600 whatever the umask, with no temporary file left', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-token-'));
    const umask = process.umask(0);
    try {
      const old = ensureToken(dir);
      const aged = Date.now() - 10 * 86_400_000;
      fs.utimesSync(path.join(dir, 'token'), aged / 1000, aged / 1000);
      expect(tokenWrittenAt(dir)).toBeLessThan(Date.now() - 9 * 86_400_000);
      // Written between two marker files: an order on the file system's clock, no tolerance.
      const before = stamp(dir, 'before');
      const fresh = replaceToken(dir);
      const after = stamp(dir, 'after');
      expect(fresh).not.toBe(old);
      expect(fresh).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(readToken(dir)).toBe(fresh);
      expect(fs.statSync(path.join(dir, 'token')).mode & 0o777).toBe(0o600);
      expect(tokenWrittenAt(dir)).toBeGreaterThanOrEqual(before);
      expect(tokenWrittenAt(dir)).toBeLessThanOrEqual(after);
      expect(fs.readdirSync(dir).sort()).toEqual(['after', 'before', 'token']);
    } finally {
      process.umask(umask);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
