import { randomBytes } from 'node:crypto';

const ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789'; // no look-alikes (l, o, 0, 1)

/** A short session id like `k3f9q2`: easy to read aloud, unique enough with the caller's check. */
export function newSessionId(length = 6): string {
  const bytes = randomBytes(length);
  let id = '';
  for (const byte of bytes) id += ALPHABET[byte % ALPHABET.length];
  return id;
}

/** A per-session secret for shell-integration marks (128 bits). */
export function newNonce(): string {
  return randomBytes(16).toString('hex');
}
