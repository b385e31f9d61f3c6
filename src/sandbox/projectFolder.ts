/**
 * A session's project folder (docs/design.md §2.10): the git work tree that holds its cwd, else
 * the cwd itself; never `/` or the home folder itself, which would make the sandbox a formality.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

interface ProjectFolder {
  /** The folder agents may write; null when the session was opened at `/` or in the home folder. */
  root: string | null;
  /**
   * Git's own folders the work tree needs to commit, when they live outside it (a linked worktree's
   * `.git` file points into the main repository's `.git`): writable too, hooks and config excepted.
   */
  gitDirs: string[];
  /** The `hooks` folder and `config` file of each git folder: kept read-only (docs/design.md §2.10). */
  gitProtected: string[];
  /** Why there is no project folder (with `root` null). */
  why?: string;
}

/** Resolves `cwd` (real path) to its project folder. `home` is the person's home folder. */
export function projectFolder(cwd: string, home: string | undefined): ProjectFolder {
  const real = realpathOr(cwd);
  const homeReal = home ? realpathOr(home) : undefined;
  const tooWide = (dir: string): string | undefined => {
    if (dir === path.parse(dir).root) return 'it is the root folder';
    if (homeReal !== undefined && dir === homeReal) return 'it is your home folder';
    return undefined;
  };
  const workTree = gitWorkTree(real);
  // A dotfiles repository at ~ is no project: fall back to the cwd itself.
  const root = workTree && !tooWide(workTree.root) ? workTree.root : real;
  const why = tooWide(root);
  if (why) return { root: null, gitDirs: [], gitProtected: [], why: `the session was opened in ${root}, and ${why}` };
  // Git's folders count only for the work tree that is the project (not a dotfiles repository at ~).
  const git = workTree && workTree.root === root ? workTree : undefined;
  const gitDirs = git?.gitDirs ?? [];
  const inside = (dir: string): boolean => dir === root || dir.startsWith(`${root}${path.sep}`);
  const protectedPaths: string[] = [];
  for (const dir of git?.protectDirs ?? []) {
    protectedPaths.push(path.join(dir, 'hooks'), path.join(dir, 'config'));
  }
  return { root, gitDirs: gitDirs.filter((dir) => !inside(dir)), gitProtected: protectedPaths };
}

interface WorkTree {
  root: string;
  /** The git folders outside `.git` proper that a commit writes (linked worktrees). */
  gitDirs: string[];
  /** The git folders whose hooks and config a commit never needs to write. */
  protectDirs: string[];
}

/** The work tree holding `dir`: the nearest folder up from it with a `.git` (folder or file). */
function gitWorkTree(dir: string): WorkTree | undefined {
  for (let current = dir; ; current = path.dirname(current)) {
    const dotGit = path.join(current, '.git');
    let stat: fs.Stats | undefined;
    try {
      stat = fs.statSync(dotGit);
    } catch {
      stat = undefined;
    }
    if (stat?.isDirectory()) return { root: current, gitDirs: [dotGit], protectDirs: [dotGit] };
    if (stat?.isFile()) return linkedWorkTree(current, dotGit);
    if (path.dirname(current) === current) return undefined;
  }
}

/**
 * A `.git` file (`gitdir: …`): a linked worktree or a submodule. Its git folder and the common
 * folder it names (`commondir`, objects and refs of the main repository) are written by commits.
 */
function linkedWorkTree(root: string, dotGit: string): WorkTree {
  let gitDir: string | undefined;
  try {
    const line = /^gitdir:\s*(.+?)\s*$/m.exec(fs.readFileSync(dotGit, 'utf8'))?.[1];
    if (line) gitDir = realpathOr(path.resolve(root, line));
  } catch {
    gitDir = undefined;
  }
  if (!gitDir) return { root, gitDirs: [], protectDirs: [] };
  let common = gitDir;
  try {
    const relative = fs.readFileSync(path.join(gitDir, 'commondir'), 'utf8').trim();
    if (relative) common = realpathOr(path.resolve(gitDir, relative));
  } catch {
    // a submodule's git folder has no commondir: it is its own
  }
  const dirs = [...new Set([gitDir, common])];
  return { root, gitDirs: dirs, protectDirs: dirs };
}

/** The real path of `p`, or `p` resolved when it cannot be read. */
export function realpathOr(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}
