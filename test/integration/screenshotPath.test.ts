/**
 * `screenshot`'s `path` (docs/design.md §3.2, §2.10): the hub writes the PNG outside every
 * sandbox, so it writes only where the agent's session could write itself, never through a link
 * and never over a file that is not a PNG. Tried as an agent would, through the MCP tool against
 * a hub whose agents' sessions run in the real sandbox; every file aimed at lives in the test's
 * own folder under the system temp folder.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxHub, type SandboxHub } from './helpers/sandboxHub.js';

let h: SandboxHub;
let session: string;

beforeAll(async () => {
  h = await startSandboxHub();
  const opened = await h.ok('open', { cwd: h.project });
  session = opened.session as string;
  expect(opened.sandbox).toMatchObject({ on: true, filesystem: 'project', project: h.project });
}, 30_000);

afterAll(async () => {
  await h?.dispose();
});

async function refused(file: string, reason: RegExp): Promise<void> {
  const answer = await h.call('screenshot', { session, path: file });
  expect(answer.error?.code, answer.text).toBe('INVALID_ARGUMENT');
  expect(answer.text).toMatch(reason);
}

describe("screenshot's path, for a sandboxed agent's session", () => {
  it('writes where the session may write: its project and the temp folder', async () => {
    for (const file of [path.join(h.project, 'shot.png'), path.join(h.tmp, 'shot.png')]) {
      const answer = await h.call('screenshot', { session, path: file });
      expect(answer.isError, answer.text).toBeFalsy();
      expect(fs.readFileSync(file).subarray(1, 4).toString()).toBe('PNG');
    }
  });

  it('refuses a folder the sandbox keeps it out of, and writes nothing there', async () => {
    const file = path.join(h.outside, 'shot.png');
    await refused(file, /does not write .*shot\.png for session .*: this session's sandbox writes only in/);
    expect(fs.existsSync(file)).toBe(false);
  });

  it("refuses the hub's state folder and the project's git folder", async () => {
    await refused(path.join(h.stateDir, 'shot.png'), /the hub's state folder, which agents may not write/);
    fs.mkdirSync(path.join(h.project, '.git', 'hooks'), { recursive: true });
    await refused(path.join(h.project, '.git', 'hooks', 'post-commit'), /a git folder stays read-only/);
    expect(fs.existsSync(path.join(h.project, '.git', 'hooks', 'post-commit'))).toBe(false);
  });

  it('never replaces a file that is not a PNG, nor writes through a link; an earlier PNG is replaced', async () => {
    const script = path.join(h.project, 'build.sh');
    fs.writeFileSync(script, '#!/bin/sh\necho built\n');
    await refused(script, /will not replace .*build\.sh \(it exists and is not a PNG\)/);
    expect(fs.readFileSync(script, 'utf8')).toBe('#!/bin/sh\necho built\n');

    const target = path.join(h.outside, 'target.png');
    const link = path.join(h.project, 'link.png');
    fs.symlinkSync(target, link);
    await refused(link, /it is a link/);
    expect(fs.existsSync(target)).toBe(false);

    const again = path.join(h.project, 'again.png');
    await h.ok('screenshot', { session, path: again });
    const before = fs.statSync(again).ino;
    await h.ok('screenshot', { session, path: again });
    expect(fs.readFileSync(again).subarray(1, 4).toString()).toBe('PNG');
    expect(fs.statSync(again).ino).not.toBe(before); // a new file renamed into place
  });
});

describe("screenshot's path, for the person's own session", () => {
  it('goes where a new agent session could: the temp folder, not the project or elsewhere', async () => {
    const mine = await h.hub.manager.open({ creator: { kind: 'user' }, cwd: h.project });
    try {
      const answer = await h.call('screenshot', { session: mine.id, path: path.join(h.tmp, 'person.png') });
      expect(answer.isError, answer.text).toBeFalsy();
      const outside = await h.call('screenshot', { session: mine.id, path: path.join(h.project, 'person.png') });
      expect(outside.error?.code, outside.text).toBe('INVALID_ARGUMENT');
      expect(fs.existsSync(path.join(h.project, 'person.png'))).toBe(false);
    } finally {
      await mine.close();
    }
  });
});
