/**
 * A session's project folder (src/sandbox/projectFolder.ts, docs/design.md §2.10): the git work
 * tree holding its cwd, else the cwd; never / or the home folder; a linked worktree's git
 * folders outside it; the hooks and config kept read-only. On real folders under the temp folder.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { projectFolder } from '../../../src/sandbox/projectFolder.js';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
});

function tree(files: Record<string, string | null>): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sb-project-')));
  roots.push(root);
  for (const [name, content] of Object.entries(files)) {
    const full = path.join(root, name);
    if (content === null) fs.mkdirSync(full, { recursive: true });
    else {
      fs.mkdirSync(path.dirname(full), { recursive: true });
      fs.writeFileSync(full, content);
    }
  }
  return root;
}

describe('projectFolder', () => {
  it('is the git work tree that holds the cwd; its .git inside is protected, not listed apart', () => {
    const root = tree({ 'app/.git/hooks': null, 'app/.git/config': '', 'app/src/deep': null });
    expect(projectFolder(path.join(root, 'app', 'src', 'deep'), path.join(root, 'home'))).toEqual({
      root: path.join(root, 'app'),
      gitDirs: [],
      gitProtected: [path.join(root, 'app', '.git', 'hooks'), path.join(root, 'app', '.git', 'config')],
    });
  });

  it('is the cwd itself outside any work tree', () => {
    const root = tree({ plain: null });
    expect(projectFolder(path.join(root, 'plain'), undefined)).toMatchObject({ root: path.join(root, 'plain'), gitDirs: [] });
  });

  it('a linked worktree: its git folder and the main repository’s common folder are writable, their hooks and config not', () => {
    const root = tree({
      'main/.git/worktrees/feature/commondir': '../..\n',
      'main/.git/hooks': null,
      'feature/.git': '',
      'feature/src': null,
    });
    fs.writeFileSync(path.join(root, 'feature', '.git'), `gitdir: ${path.join(root, 'main', '.git', 'worktrees', 'feature')}\n`);
    const project = projectFolder(path.join(root, 'feature', 'src'), undefined);
    const gitDir = path.join(root, 'main', '.git', 'worktrees', 'feature');
    const common = path.join(root, 'main', '.git');
    expect(project.root).toBe(path.join(root, 'feature'));
    expect(project.gitDirs).toEqual([gitDir, common]);
    expect(project.gitProtected).toEqual(expect.arrayContaining([path.join(common, 'hooks'), path.join(common, 'config')]));
  });

  it('never the home folder or the root folder: none, and why', () => {
    const root = tree({ home: null });
    const home = path.join(root, 'home');
    expect(projectFolder(home, home)).toEqual({
      root: null,
      gitDirs: [],
      gitProtected: [],
      why: `the session was opened in ${home}, and it is your home folder`,
    });
    expect(projectFolder('/', home)).toMatchObject({ root: null, why: 'the session was opened in /, and it is the root folder' });
  });

  it('a dotfiles repository at home is no project: a folder inside it is its own', () => {
    const root = tree({ 'home/.git/hooks': null, 'home/code/app': null });
    const home = path.join(root, 'home');
    expect(projectFolder(path.join(home, 'code', 'app'), home)).toEqual({ root: path.join(home, 'code', 'app'), gitDirs: [], gitProtected: [] });
  });
});
