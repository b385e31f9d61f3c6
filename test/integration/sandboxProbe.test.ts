/**
 * The hub's trial of bubblewrap at start (src/sandbox/availability.ts, docs/design.md §2.10),
 * against the real bwrap behind a wrapper that logs each call: the usual machine costs one trial
 * (a network of its own and --disable-userns at once), an older bubblewrap (no --disable-userns)
 * three and is still used, one that cannot start is reported with what it said. Each trial blocks
 * the hub's start, so their number is asserted.
 */
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { probeSandbox } from '../../src/sandbox/availability.js';

const REAL_BWRAP = '/usr/bin/bwrap';
const folders: string[] = [];

afterEach(() => {
  for (const folder of folders.splice(0)) fs.rmSync(folder, { recursive: true, force: true });
});

/** A PATH whose bwrap logs its arguments, then does what `body` says (sh, "$@" the arguments). */
function wrappedBwrap(body: string): { env: NodeJS.ProcessEnv; calls: () => string[] } {
  const folder = fs.mkdtempSync(path.join(tmpdir(), 'sb-probe-'));
  folders.push(folder);
  const log = path.join(folder, 'calls.log');
  fs.writeFileSync(path.join(folder, 'bwrap'), `#!/bin/sh\necho "$*" >> '${log}'\n${body}\n`, { mode: 0o755 });
  return {
    env: { PATH: `${folder}:/usr/bin:/bin` },
    calls: () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n') : []),
  };
}

describe.runIf(process.platform === 'linux' && fs.existsSync(REAL_BWRAP))('the trial of bubblewrap at the hub start', () => {
  it('a bubblewrap that takes --disable-userns: one trial, with it and a network of its own', () => {
    const { env, calls } = wrappedBwrap(`exec ${REAL_BWRAP} "$@"`);
    expect(probeSandbox(env, 'linux')).toMatchObject({ available: true, disableUserns: true });
    expect(calls()).toHaveLength(1);
    expect(calls()[0]).toMatch(/--unshare-net .*--disable-userns|--disable-userns .*--unshare-net/);
  });

  it('an older bubblewrap without --disable-userns: trials without it, with and without a network, and the sandbox is used', () => {
    const older = `for a in "$@"; do [ "$a" = --disable-userns ] && { echo "bwrap: Unknown option --disable-userns" >&2; exit 1; }; done\nexec ${REAL_BWRAP} "$@"`;
    const { env, calls } = wrappedBwrap(older);
    expect(probeSandbox(env, 'linux')).toMatchObject({ available: true, disableUserns: false });
    expect(calls()).toHaveLength(3);
    expect(
      calls()
        .slice(1)
        .map((call) => [call.includes('--disable-userns'), call.includes('--unshare-net')]),
    ).toEqual([
      [false, false],
      [false, true],
    ]);
  });

  it('a bubblewrap that cannot start: unavailable, with what it said', () => {
    const { env } = wrappedBwrap(`echo "bwrap: No permissions to creating new namespace" >&2\nexit 1`);
    const probed = probeSandbox(env, 'linux');
    expect(probed).toMatchObject({ available: false });
    expect(probed.available === false && probed.reason).toContain('No permissions to creating new namespace');
  });
});
