/**
 * The shells the tests run, found by name on PATH rather than at the path one distribution
 * puts them (`/usr/bin/zsh` is Debian's; macOS has `/bin/zsh`, Homebrew `/opt/homebrew/bin/fish`).
 * A shell that is missing fails the test that needs it, naming the package to install: tests
 * are never skipped. CI (.ci/run) installs bash, zsh, fish and dash.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export type ShellName = 'bash' | 'zsh' | 'fish' | 'dash' | 'sh';

/** The package that provides each shell (Debian and Homebrew use the same names). */
const PACKAGE: Record<ShellName, string> = { bash: 'bash', zsh: 'zsh', fish: 'fish', dash: 'dash', sh: 'dash (or any POSIX sh)' };

const found = new Map<ShellName, string>();

/** The absolute path of `name` on PATH; throws, naming the package to install, when there is none. */
export function shellPath(name: ShellName): string {
  const known = found.get(name);
  if (known) return known;
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter((dir) => path.isAbsolute(dir));
  for (const dir of dirs) {
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (!fs.statSync(candidate).isFile()) continue;
    } catch {
      continue;
    }
    found.set(name, candidate);
    return candidate;
  }
  throw new Error(
    `${name} is not on PATH (${dirs.join(path.delimiter)}), and this test runs it: install the ${PACKAGE[name]} package ` +
      `(apt-get install ${name === 'sh' ? 'dash' : name}, brew install ${name === 'sh' ? 'dash' : name}; .ci/run installs bash, zsh, fish and dash).`,
  );
}
