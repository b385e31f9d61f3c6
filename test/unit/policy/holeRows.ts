/**
 * The ways around a deny rule a review found (the "cheap holes"), as rows shared by the unit
 * table (holeTable.test.ts, decide() alone) and the live table (test/integration/
 * liveBypass.test.ts, a real hub, real shells, a real MCP client). The rule in force is the
 * issue's: `{ match: "rm -rf *", action: "deny" }` first, policyDefault `allow`.
 *
 * SAFETY: these are sample command lines, DATA ONLY. Nothing here is run by the unit table. The
 * live table types them only into a hub session, with VICTIM replaced by a folder it made for
 * the row under the system temp folder, and checks that folder. Never paste them into a shell.
 */

/** The rule every row is judged against, and what the person's policy answers otherwise. */
export const HOLE_RULES = [{ match: 'rm -rf *', action: 'deny' as const }];

/** Stands for the row's victim folder (an absolute path without spaces). */
export const VICTIM = 'VICTIM';

export interface HoleRow {
  /** What the row tries (the issue's wording where it has one). */
  name: string;
  /** A line for `execute`, VICTIM standing for the folder. */
  line: string;
  /** What the gate must answer: deny (the rule, seen through), or ask (the engine cannot see what runs). */
  expect: 'deny' | 'ask';
  /** The issue's own 17 moves are marked, for the table in the note. */
  issue?: true;
}

export const HOLE_ROWS: HoleRow[] = [
  // The plain line, for contrast: this one was always denied.
  { name: 'plain rm -rf', line: 'rm -rf VICTIM', expect: 'deny', issue: true },
  { name: 'bash -c', line: "bash -c 'rm -rf VICTIM'", expect: 'deny', issue: true },
  { name: 'eval --', line: "eval -- 'rm -rf VICTIM'", expect: 'deny', issue: true },
  { name: 'trap -- … DEBUG, then any command', line: "trap -- 'rm -rf VICTIM' DEBUG; true", expect: 'deny', issue: true },
  { name: 'trap … EXIT', line: "trap 'rm -rf VICTIM' EXIT", expect: 'deny' },
  { name: 'trap … RETURN', line: "trap 'rm -rf VICTIM' RETURN", expect: 'deny' },
  { name: 'trap … ERR', line: "trap -- 'rm -rf VICTIM' ERR; false", expect: 'deny' },
  { name: 'trap … a signal', line: "trap 'rm -rf VICTIM' USR1; kill -USR1 $$", expect: 'deny' },
  { name: 'bash /dev/stdin <<<', line: "bash /dev/stdin <<< 'rm -rf VICTIM'", expect: 'deny', issue: true },
  { name: '. /dev/fd/0 <<<', line: ". /dev/fd/0 <<< 'rm -rf VICTIM'", expect: 'deny', issue: true },
  { name: 'source /proc/self/fd/0 <<<', line: "source /proc/self/fd/0 <<< 'rm -rf VICTIM'", expect: 'deny' },
  { name: 'sh /dev/fd/3 3<<<', line: "sh /dev/fd/3 3<<< 'rm -rf VICTIM'", expect: 'ask' },
  { name: 'dash reading a here-string', line: "dash <<< 'rm -rf VICTIM'", expect: 'deny' },
  { name: 'a shell reading a pipe', line: "echo 'rm -rf VICTIM' | bash", expect: 'ask' },
  { name: 'flock FILE cmd', line: 'flock VICTIM.lock rm -rf VICTIM', expect: 'deny', issue: true },
  { name: 'flock -c', line: "flock -w 5 VICTIM.lock -c 'rm -rf VICTIM'", expect: 'deny' },
  { name: 'taskset', line: 'taskset -c 0 rm -rf VICTIM', expect: 'deny', issue: true },
  { name: 'chrt', line: 'chrt -o 0 rm -rf VICTIM', expect: 'deny' },
  { name: 'ionice', line: 'ionice -c 3 rm -rf VICTIM', expect: 'deny' },
  { name: 'setsid', line: 'setsid -w rm -rf VICTIM', expect: 'deny' },
  { name: 'stdbuf', line: 'stdbuf -oL rm -rf VICTIM', expect: 'deny' },
  { name: 'unbuffer', line: 'unbuffer -p rm -rf VICTIM', expect: 'deny' },
  { name: 'script -c', line: "script -qc 'rm -rf VICTIM' /dev/null", expect: 'deny' },
  { name: 'systemd-run', line: 'systemd-run --user --wait -p Nice=5 rm -rf VICTIM', expect: 'deny' },
  { name: 'uv run', line: 'uv run --with requests rm -rf VICTIM', expect: 'deny' },
  { name: 'npx', line: 'npx --yes rm -rf VICTIM', expect: 'deny' },
  { name: 'npx -c', line: "npx -c 'rm -rf VICTIM'", expect: 'deny' },
  { name: 'npm exec', line: 'npm exec -- rm -rf VICTIM', expect: 'deny' },
  { name: 'pnpm dlx', line: 'pnpm dlx rm -rf VICTIM', expect: 'deny' },
  { name: 'bunx', line: 'bunx rm -rf VICTIM', expect: 'deny' },
  { name: 'find -exec', line: 'find VICTIM -maxdepth 0 -exec rm -rf {} ;', expect: 'deny' },
  { name: 'find -execdir', line: 'find VICTIM -maxdepth 0 -execdir rm -rf {} +', expect: 'deny' },
  { name: 'find -okdir', line: 'find VICTIM -maxdepth 0 -okdir rm -rf {} ;', expect: 'deny' },
  { name: 'parallel', line: 'parallel rm -rf ::: VICTIM', expect: 'deny' },
  { name: 'watch', line: 'watch -n 1 rm -rf VICTIM', expect: 'deny' },
  { name: 'su -c', line: "su -c 'rm -rf VICTIM' root", expect: 'deny' },
  { name: 'doas', line: 'doas rm -rf VICTIM', expect: 'deny' },
  { name: 'GNU abbreviations', line: 'rm --rec --f VICTIM', expect: 'deny', issue: true },
  { name: '--interactive=never', line: 'rm -r --interactive=never VICTIM', expect: 'deny', issue: true },
  { name: 'abbreviated --interactive', line: 'rm --recursive --inter=never VICTIM', expect: 'deny' },
  { name: 'awk system()', line: 'awk \'BEGIN{system("rm -rf VICTIM")}\'', expect: 'deny', issue: true },
  { name: 'awk "cmd" | getline', line: 'awk \'BEGIN{"rm -rf VICTIM" | getline x}\'', expect: 'deny' },
  { name: 'awk print | "sh"', line: 'awk \'BEGIN{print "rm -rf VICTIM" | "sh"}\'', expect: 'ask' },
  { name: 'awk with a computed command', line: "awk -v c='rm -rf VICTIM' 'BEGIN{system(c)}'", expect: 'ask' },
  { name: 'sed e command', line: "sed 'e rm -rf VICTIM' <<< x", expect: 'deny' },
  { name: 'sed s///e', line: "echo 'rm -rf VICTIM' | sed 's/^//e'", expect: 'ask' },
  { name: "git -c alias.x='!…'", line: "git -c alias.x='!rm -rf VICTIM' x", expect: 'deny' },
  { name: 'git -c core.pager', line: "git -c core.pager='rm -rf VICTIM' -p log -1", expect: 'deny' },
  { name: 'git config alias (set now, run later)', line: "git config --global alias.x '!rm -rf VICTIM'", expect: 'deny' },
  { name: 'GIT_SSH_COMMAND', line: "GIT_SSH_COMMAND='rm -rf VICTIM' git ls-remote ssh://x/y", expect: 'deny' },
  { name: 'PROMPT_COMMAND, then any command', line: "PROMPT_COMMAND='rm -rf VICTIM'; true", expect: 'deny', issue: true },
  { name: 'PROMPT_COMMAND as an array', line: "PROMPT_COMMAND=('rm -rf VICTIM')", expect: 'deny' },
  { name: 'export PROMPT_COMMAND', line: "export PROMPT_COMMAND='rm -rf VICTIM'", expect: 'deny' },
  { name: 'PS0', line: "PS0='$(rm -rf VICTIM)'", expect: 'deny' },
  { name: 'PS1', line: "PS1='$(rm -rf VICTIM)> '", expect: 'deny' },
  { name: 'PS4 with set -x', line: "PS4='$(rm -rf VICTIM)'; set -x; true; set +x", expect: 'deny' },
  { name: 'BASH_ENV', line: "BASH_ENV='$(rm -rf VICTIM)' bash -c true", expect: 'deny' },
  { name: 'ENV', line: "ENV='$(rm -rf VICTIM)' sh -i -c true", expect: 'deny' },
  { name: 'env PROMPT_COMMAND=', line: "env PROMPT_COMMAND='rm -rf VICTIM' bash -i -c true", expect: 'deny' },
  { name: 'printf -v PROMPT_COMMAND', line: "printf -v PROMPT_COMMAND 'rm -rf VICTIM'", expect: 'deny' },
  { name: 'read PROMPT_COMMAND', line: "read PROMPT_COMMAND <<< 'rm -rf VICTIM'", expect: 'ask' },
  { name: 'bind -x', line: 'bind -x \'"\\C-t": rm -rf VICTIM\'', expect: 'deny' },
  { name: 'an unknown program running its arguments', line: 'setarch x86_64 rm -rf VICTIM', expect: 'ask' },
  { name: 'prlimit', line: 'prlimit --nofile=1024 rm -rf VICTIM', expect: 'ask' },
  { name: 'history expansion', line: '!!', expect: 'ask' },
  { name: 'history search', line: '!?rm?', expect: 'ask' },
  { name: 'fc -s', line: 'fc -s', expect: 'ask' },
];

/** A row's line with its victim folder. */
export function holeLine(line: string, victim: string): string {
  return line.replaceAll(VICTIM, victim);
}
