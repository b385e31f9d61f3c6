import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TOKEN_FILE, UI_KEY_FILE } from '../common/socketProtocol.js';

/** 32 random bytes → 43 base64url characters (256 bits; docs/design.md §4.3 asks for ≥ 128). */
const TOKEN_BYTES = 32;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{22,512}$/;

/**
 * The hub's two secrets (docs/design.md §4.3), each a file of 256 random bits in the state dir:
 * `token`, the bearer token agents' connections carry (the shim reads it, HTTP MCP clients are
 * configured with it), and `ui-key`, the person's: it signs a browser in (`/?key=`, the UI
 * cookie) and asks for `switchboard ui`'s one-time codes, and is never given to an agent. So
 * holding the token is not being the person: a connection that signed in with it cannot answer
 * an approval or confirm a settings change (docs/decisions.md, "Who answers for the person").
 */
export function ensureToken(stateDir: string): string {
  return ensureSecret(stateDir, TOKEN_FILE);
}

/** The person's UI key `<state>/ui-key`: read it, or create it (as `ensureToken`). */
export function ensureUiKey(stateDir: string): string {
  return ensureSecret(stateDir, UI_KEY_FILE);
}

/**
 * A secret file: read it, or create it (0600 whatever the umask). Created through a private
 * temp file + link(2), so a concurrent reader never sees it half written and two creators agree
 * on one value. A malformed file is replaced.
 */
function ensureSecret(stateDir: string, name: string): string {
  const file = path.join(stateDir, name);
  const existing = readSecret(stateDir, name);
  if (existing !== undefined) {
    fs.chmodSync(file, 0o600);
    return existing;
  }
  if (fs.existsSync(file)) fs.unlinkSync(file); // malformed: replace it
  const token = randomBytes(TOKEN_BYTES).toString('base64url');
  const temp = `${file}.${process.pid}.tmp`;
  const fd = fs.openSync(temp, 'wx', 0o600);
  try {
    fs.fchmodSync(fd, 0o600); // the umask may have narrowed or widened the mode
    fs.writeSync(fd, `${token}\n`);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.linkSync(temp, file);
    return token;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const winner = readSecret(stateDir, name);
    if (winner === undefined) throw new Error(`${file} appeared while creating it but is not a valid secret`);
    return winner;
  } finally {
    fs.rmSync(temp, { force: true });
  }
}

/**
 * A new token in place of the old one (docs/design.md §4.3, token rotation): written whole to a
 * private temporary file and renamed over `<state>/token`, so a reader (a shim connecting) sees the
 * old token or the new one, never a part. Only the hub that holds the state dir calls it.
 */
export function replaceToken(stateDir: string): string {
  return replaceSecret(stateDir, TOKEN_FILE);
}

/** A new UI key in place of the old one (rotated with the token): as `replaceToken`. */
export function replaceUiKey(stateDir: string): string {
  return replaceSecret(stateDir, UI_KEY_FILE);
}

function replaceSecret(stateDir: string, name: string): string {
  const file = path.join(stateDir, name);
  const token = randomBytes(TOKEN_BYTES).toString('base64url');
  const temp = `${file}.${process.pid}.tmp`;
  try {
    const fd = fs.openSync(temp, 'w', 0o600);
    try {
      fs.fchmodSync(fd, 0o600);
      fs.writeSync(fd, `${token}\n`);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, file);
  } finally {
    fs.rmSync(temp, { force: true });
  }
  return token;
}

/** When the token file was written (ms since the epoch), or undefined when there is none. */
export function tokenWrittenAt(stateDir: string): number | undefined {
  return fs.statSync(path.join(stateDir, TOKEN_FILE), { throwIfNoEntry: false })?.mtimeMs;
}

/** The token, or undefined when the file is missing or malformed. */
export function readToken(stateDir: string): string | undefined {
  return readSecret(stateDir, TOKEN_FILE);
}

/** The person's UI key, or undefined when the file is missing or malformed. */
export function readUiKey(stateDir: string): string | undefined {
  return readSecret(stateDir, UI_KEY_FILE);
}

function readSecret(stateDir: string, name: string): string | undefined {
  try {
    const value = fs.readFileSync(path.join(stateDir, name), 'utf8').trim();
    return TOKEN_SHAPE.test(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Constant-time comparison; hashing first makes it length-safe (timingSafeEqual needs equal lengths). */
export function tokensEqual(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}
