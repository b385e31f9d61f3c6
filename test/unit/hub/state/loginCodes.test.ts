/** `switchboard ui`'s one-time sign-in codes: once, within their lifetime, bounded in number. */
import { describe, expect, it } from 'vitest';
import { LOGIN_CODE_TTL_MS, LoginCodes } from '../../../../src/hub/state/loginCodes.js';

describe('LoginCodes', () => {
  it('redeems a code once; a second use, a code never issued and a malformed one are refused', () => {
    const codes = new LoginCodes();
    const { code, expiresInMs } = codes.issue();
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/); // 256 bits, base64url, like the token
    expect(expiresInMs).toBe(LOGIN_CODE_TTL_MS);
    expect(codes.redeem(code)).toBe(true);
    expect(codes.redeem(code)).toBe(false);
    expect(codes.redeem(codes.issue().code.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')))).toBe(false);
    expect(codes.redeem('')).toBe(false);
    expect(codes.redeem('x'.repeat(10_000))).toBe(false);
  });

  it('refuses a code past its lifetime, and forgets it', () => {
    let now = 1_000;
    const codes = new LoginCodes(60_000, () => now);
    const late = codes.issue().code;
    const inTime = codes.issue().code;
    now += 60_000;
    expect(codes.redeem(inTime)).toBe(true); // the last millisecond still counts
    now += 1;
    expect(codes.redeem(late)).toBe(false);
    expect(codes.size).toBe(0);
  });

  it('clear() ends every outstanding code (the token was replaced)', () => {
    const codes = new LoginCodes();
    const code = codes.issue().code;
    codes.clear();
    expect(codes.redeem(code)).toBe(false);
  });

  it('keeps at most 32 outstanding codes, dropping the oldest', () => {
    const codes = new LoginCodes();
    const first = codes.issue().code;
    const rest = Array.from({ length: 32 }, () => codes.issue().code);
    expect(codes.size).toBe(32);
    expect(codes.redeem(first)).toBe(false);
    expect(rest.every((code) => codes.redeem(code))).toBe(true);
  });
});
