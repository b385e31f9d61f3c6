/**
 * The macOS sandbox as far as it can be checked on Linux (docs/design.md §2.10; it has not run
 * on a Mac in this project's tests): the command `macWrapper` makes a session's PTY spawn, and
 * the Seatbelt profile the library writes into it — the hub's state folder denied, the project
 * and temp writable, git hooks read-only, the network as set, the shell exec'd at the end.
 */
import { describe, expect, it } from 'vitest';
import { macWrapper, type MacWrapperOptions } from '../../../src/sandbox/launchWrappers.js';

const STATE = '/Users/me/Library/Application Support/Switchboard';
const base: MacWrapperOptions = {
  denied: [STATE, '/Users/me/.ssh'],
  writable: ['/Users/me/app', '/private/tmp', '/Users/me/.npm'],
  readOnly: ['/Users/me/app/.git/hooks'],
  network: { mode: 'on' },
  tmp: '/private/tmp',
};

/** The words a POSIX shell makes of `line` (quotes and backslashes; no expansions are used in it). */
function words(line: string): string[] {
  const out: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      let text = '';
      for (i++; line[i] !== '"'; i++) text += line[i] === '\\' && '"\\$`'.includes(line[i + 1]!) ? line[++i] : line[i];
      word = (word ?? '') + text;
    } else if (c === '\\') word = (word ?? '') + line[++i];
    else if (c === ' ') {
      if (word !== null) out.push(word);
      word = null;
    } else word = (word ?? '') + c;
  }
  if (word !== null) out.push(word);
  return out;
}

/** What the PTY would spawn for a zsh session, split: the profile and the command after it. */
async function wrapped(options: Partial<MacWrapperOptions> = {}): Promise<{ file: string; profile: string; after: string[]; env: string[] }> {
  const spawn = await macWrapper({ ...base, ...options }).wrap({ file: '/bin/zsh', args: ['-l'], env: { HOME: '/Users/me' }, shell: true });
  expect(spawn.args[0]).toBe('-c');
  const line = words(spawn.args[1]!);
  const at = line.indexOf('/usr/bin/sandbox-exec');
  expect(line[at + 1]).toBe('-p');
  return { file: spawn.file, profile: line[at + 2]!, after: line.slice(at + 3), env: line.slice(1, at) };
}

/** The paths a profile rule names, e.g. `(deny file-read* (subpath "…") …)`. */
function rule(profile: string, head: string): string[] {
  const found: string[] = [];
  for (const block of profile.split(`(${head}\n`).slice(1)) {
    for (const line of block.split('\n')) {
      const path = /^\s+\((?:subpath|literal) "(.*)"\)\)?$/.exec(line)?.[1];
      if (!path) break;
      found.push(path);
    }
  }
  return found;
}

describe('the macOS Seatbelt wrap (checked as text; not run on a Mac here)', () => {
  it("denies the hub's state folder and the denied paths to reads and writes", async () => {
    const { profile } = await wrapped();
    expect(profile.startsWith('(version 1)')).toBe(true);
    expect(profile).toContain('(deny default');
    expect(rule(profile, 'deny file-read*')).toEqual(expect.arrayContaining([STATE, '/Users/me/.ssh']));
    expect(rule(profile, 'deny file-write*')).toEqual(expect.arrayContaining([STATE, '/Users/me/.ssh']));
  });

  it('lets it write the project, temp and the caches, not the git hooks', async () => {
    const { profile } = await wrapped();
    expect(rule(profile, 'allow file-write*')).toEqual(['/Users/me/app', '/private/tmp', '/Users/me/.npm']);
    expect(rule(profile, 'deny file-write*')).toContain('/Users/me/app/.git/hooks');
  });

  it('filesystem off: writes anywhere but the denied paths', async () => {
    const { profile } = await wrapped({ writable: undefined });
    expect(rule(profile, 'allow file-write*')).toEqual(['/']);
    expect(rule(profile, 'deny file-write*')).toContain(STATE);
  });

  it('network: on is the machine’s, off none, a list of domains only the proxy’s loopback port', async () => {
    expect((await wrapped()).profile).toContain('(allow network*)');
    const off = (await wrapped({ network: { mode: 'off' } })).profile;
    expect(off).not.toMatch(/\(allow network(\*|-outbound)/);
    const proxied = await wrapped({ network: { mode: 'proxy', port: 4321 } });
    expect(proxied.profile).not.toContain('(allow network*)');
    expect(proxied.profile).toContain('(allow network-outbound (remote ip "localhost:4321"))');
    expect(proxied.env).toContain('HTTPS_PROXY=http://localhost:4321');
  });

  it('allows the terminal, and runs the session’s shell last, with our temp folder', async () => {
    const { file, profile, after } = await wrapped();
    expect(file).toBe('/bin/sh');
    expect(profile).toContain('; Pseudo-terminal (pty) support');
    expect(after.slice(0, 2)).toEqual([expect.stringMatching(/\/bash$/), '-c']);
    expect(after[2]).toBe('TMPDIR=/private/tmp exec /bin/zsh -l');
  });
});
