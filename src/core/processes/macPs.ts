/**
 * What macOS `ps` prints for the questions the process table and the input probe ask, and how it
 * is read (docs/decisions.md, "macOS reads `ps`"). Pure: the arguments to pass and the parsing of
 * the answer; running `ps` is processTable.ts's and inputProbe.ts's. Tested on any platform
 * against macOS output kept as fixtures (test/unit/core/processes/macPs.test.ts).
 *
 * What Apple's `ps` (adv_cmds) does with these options, from its source and ps(1):
 * - `-o key=,key=`: every header empty, so no header line; columns joined by one space. Numbers
 *   are right-aligned at a minimum width (pid, ppid, pgid 5; tpgid 4) and widen past it; `stat`
 *   (4), `tty` (8), `wchan` (6, cut there) and `lstart` (28) are left-aligned and padded with
 *   spaces, even when last. `tty` is the device name (`ttys003`), `??` when none.
 * - `lstart` is strftime's `%c`: it holds spaces, so it is the last column.
 * - `command`, the last column, is never cut when stdout is not a terminal (`-ww` says so
 *   anyway). Arguments are joined by spaces, tabs and newlines written as `\t`, `\n` (strvis), so
 *   a process is one line, but a space inside an argument cannot be told from one between two.
 * - `-E` appends the environment the process was started with, entries joined by spaces like
 *   the arguments; only for one's own processes (another user's show their arguments alone). A
 *   process whose arguments cannot be read prints `(name)`; a zombie `<defunct>`.
 * - `wchan` is the name of what a sleeping process waits on, cut to 6 characters (`ttyin`,
 *   `select`, `kqread`, `nanslp`, …), a hex address when it has none, `-` when not waiting.
 */
import type { ProcessInfo } from './processInfo.js';

/** `ps` columns of the process table: `lstart` holds spaces, so it is last. */
const TABLE_COLUMNS = 'pid=,ppid=,pgid=,tpgid=,stat=,tty=,lstart=';

/** Arguments for the table rows of `selector` (`['-ax']` for all, `['-p', pid]` for one). */
export function psTableArgs(selector: readonly string[]): string[] {
  return [...selector, '-o', TABLE_COLUMNS];
}

/**
 * The rows of `ps … -o pid=,ppid=,pgid=,tpgid=,stat=,tty=,lstart=`. macOS `ps` prints no usable
 * session id (`sess` is a kernel address or 0), so sid stays undefined and callers rely on the
 * tty, the process tree, process groups and the environment mark instead. Lines that are not a
 * row (a warning on stdout, an empty line) are skipped.
 */
export function parsePsTable(out: string): Map<number, ProcessInfo> {
  const table = new Map<number, ProcessInfo>();
  for (const line of out.split('\n')) {
    const m = /^\s*(\d+) +(\d+) +(\d+) +(-?\d+) +(\S+) +(\S+) +(\S.*?)\s*$/.exec(line);
    if (!m) continue;
    const [, pid, ppid, pgid, tpgid, stat, tty, lstart] = m as unknown as [string, string, string, string, string, string, string, string];
    table.set(Number(pid), {
      pid: Number(pid),
      ppid: Number(ppid),
      pgid: Number(pgid),
      sid: undefined,
      tty: tty === '??' ? '' : tty,
      tpgid: Number(tpgid),
      state: stat.charAt(0),
      // Second resolution only: a pid recycled within the same second would look the same.
      startTime: lstart,
    });
  }
  return table;
}

/** Every process's arguments: `ps -ax -ww -o pid=,command=`. */
export const PS_ARGUMENTS_ARGS: readonly string[] = ['-ax', '-ww', '-o', 'pid=,command='];
/** The same with the environment each process was started with appended (`-E`). */
export const PS_ENVIRONMENT_ARGS: readonly string[] = ['-ax', '-E', '-ww', '-o', 'pid=,command='];

/** `pid → command` from `ps -o pid=,command=` (with or without `-E`): the text after the pid's one separating space. */
export function parsePsCommands(out: string): Map<number, string> {
  const commands = new Map<number, string>();
  for (const line of out.split('\n')) {
    const m = /^\s*(\d+) (.*)$/.exec(line);
    if (m) commands.set(Number(m[1]), m[2]!);
  }
  return commands;
}

/**
 * The values of environment variable `name` each of `pids` was started with, from one
 * `PS_ENVIRONMENT_ARGS` and one `PS_ARGUMENTS_ARGS` answer. `-E` appends the environment to the
 * arguments with nothing between them but a space, so an argument like ` NAME=x` would read as
 * the variable: the arguments are read alone too and cut off the front, and only what follows
 * them is searched. A pid whose two lines do not agree (it exec'd or exited between the two
 * reads, or its arguments could not be read) has no value, as an unreadable environment has.
 *
 * Values end at the next space (entries are joined by spaces), and every ` NAME=` in the
 * environment counts: another variable whose value imitates the entry (`X="a NAME=y"`) adds
 * `y`, so the real value is always among those returned. Session ids hold no spaces.
 */
export function environmentValuesFromPs(name: string, pids: Iterable<number>, withEnvironment: string, argumentsOnly: string): Map<number, string[]> {
  const wanted = new Set(pids);
  const withEnv = parsePsCommands(withEnvironment);
  const argv = parsePsCommands(argumentsOnly);
  const key = ` ${name}=`;
  const values = new Map<number, string[]>();
  for (const pid of wanted) {
    const full = withEnv.get(pid);
    const args = argv.get(pid);
    if (full === undefined || args === undefined || !full.startsWith(args)) continue;
    const environment = full.slice(args.length);
    const found: string[] = [];
    for (let at = environment.indexOf(key); at >= 0; at = environment.indexOf(key, at + 1)) {
      const start = at + key.length;
      const end = environment.indexOf(' ', start);
      found.push(environment.slice(start, end < 0 ? undefined : end));
    }
    if (found.length > 0) values.set(pid, found);
  }
  return values;
}

/** Every process's group and wait channel: `ps -A -o pgid=,wchan=`. */
export const PS_WAIT_ARGS: readonly string[] = ['-A', '-o', 'pgid=,wchan='];

/**
 * Does a process of group `pgid` wait on the terminal, from `PS_WAIT_ARGS`' answer? `ttyin` is
 * a read of a terminal (`yes`); `select` (select and poll) and `kqread` (kqueue) may include it,
 * so they count only when the terminal is out of canonical mode (`if-raw`); anything else
 * (`nanslp`, `wait`, an address, `-`) is `no`. Neither can tell which descriptors a select or a
 * kqueue holds.
 */
export function groupWaitFromPs(out: string, pgid: number): 'yes' | 'if-raw' | 'no' {
  let found: 'if-raw' | 'no' = 'no';
  for (const line of out.split('\n')) {
    const m = /^\s*(\d+) (\S+)/.exec(line);
    if (!m || Number(m[1]) !== pgid) continue;
    const channel = m[2];
    if (channel === 'ttyin') return 'yes';
    if (channel === 'select' || channel === 'kqread') found = 'if-raw';
  }
  return found;
}
