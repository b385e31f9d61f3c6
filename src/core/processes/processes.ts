/**
 * The process side of kill and close (docs/design.md §2.8).
 *
 * Kill: signal the foreground process group of a session, escalating SIGINT → SIGTERM → SIGKILL,
 * and report which signal ended it. Close: SIGHUP the session, then SIGKILL everything still
 * belonging to it (tty, session id, process tree, process groups, SESSION_ENV mark).
 *
 * Rules kept throughout:
 * - A pid is only signalled after re-reading its start time (a recycled pid is never hit).
 *   Without pidfds (Node has none) a microsecond window between the re-read and kill() remains.
 * - The hub's own process, its ancestors and its process group are never signalled.
 * - A process that vanished (ESRCH), or that we may not signal (EPERM), is normal, not an error.
 */
import { SESSION_ENV } from '../shell/marks.js';
import { environmentValues, isAlive, listProcesses, readProcess, type ProcessInfo } from './processTable.js';
import { anchorFrom, candidatesOf, membersOf, type SessionAnchor } from './sessionMembers.js';

export type KillSignal = 'SIGINT' | 'SIGTERM' | 'SIGKILL';

/** A pid plus its start time: names one process even after the pid number is reused. */
interface ProcessIdentity {
  pid: number;
  startTime: string;
}

/** A VS Code-style event: subscribing returns something to dispose. Used only to wake early. */
type WakeEvent = (listener: () => void) => { dispose(): void };

/** What a kill aims at. */
export type KillTarget =
  /** The job in the foreground of a shell; it has ended when the shell has its terminal back. */
  | { kind: 'foreground'; shellPid: number }
  /** A whole process group (e.g. a program session's own); it has ended when no member lives. */
  | { kind: 'group'; leader: ProcessIdentity };

interface KillOptions {
  /** Wait after each signal (ms); missing entries repeat the last one. Default (docs/design.md §2.8): 2000 each. */
  waitsMs: readonly number[];
  /** Signals in order; default SIGINT, SIGTERM, SIGKILL. */
  signals?: readonly KillSignal[];
  /** The caller's own knowledge that the job ended (e.g. shell integration saw the prompt). */
  isDone?: () => boolean;
  /** Fires when isDone may have become true (prompt mark, pty exit): ends a wait early. */
  onDone?: WakeEvent;
  /** Stops escalating; the promise then resolves with null. */
  signal?: AbortSignal;
  /** Poll interval for what the OS cannot announce (default 40 ms). */
  pollMs?: number;
}

interface TerminateOptions {
  /** Time the session gets to exit after SIGHUP before SIGKILL (default 500 ms). */
  graceMs?: number;
  /** Bound on the SIGKILL-and-rescan loop (default 5000 ms). */
  deadlineMs?: number;
  /** The session's terminal, if known (useful once the shell is gone); see sessionProcesses. */
  ttyNr?: number | string;
  pollMs?: number;
  /**
   * Whether the session's terminal is still open (its master or a slave held by the caller).
   * Once both are closed its number can be the next terminal's, anyone's: a process on it is
   * then not taken for the session's, only the mark, the session id and the process tree count.
   * Omitted: the terminal is taken to stay open throughout.
   */
  ttyOpen?: () => boolean;
}

const ESCALATION: readonly KillSignal[] = ['SIGINT', 'SIGTERM', 'SIGKILL'];
const DEFAULT_WAIT_MS = 2000;
/**
 * Another process's group ending, or a foreign pid exiting, has no event Node can listen to
 * (no pidfd/kqueue binding; SIGCHLD only covers our own children), so those waits poll /proc at
 * this interval, always under a deadline. Caller events (onDone) still wake a wait at once.
 */
const DEFAULT_POLL_MS = 40;
const DEFAULT_GRACE_MS = 500;
const DEFAULT_DEADLINE_MS = 5000;
/** How long a kill waits for a just-spawned program to lead its group, and how often it looks. */
const SETSID_WAIT_MS = 2000;
const SETSID_POLL_MS = 5;
/** How long one SIGKILL round waits for its targets to die before rescanning. */
const KILL_ROUND_MS = 250;

// ---- identity and safe signalling ------------------------------------------------------------

/** The identity of a live process (zombies are not alive), or undefined. */
export async function processIdentity(pid: number): Promise<ProcessIdentity | undefined> {
  const info = await readProcess(pid);
  return info && isAlive(info) ? { pid, startTime: info.startTime } : undefined;
}

/** Signals the process only if it is still the one named by `identity`; true when sent. */
export async function signalIfSame(identity: ProcessIdentity, signal: NodeJS.Signals): Promise<boolean> {
  const now = await readProcess(identity.pid);
  if (!now || now.startTime !== identity.startTime) return false;
  return sendSignal(identity.pid, signal);
}

/**
 * Signals the process group led by `leader`, only if the leader is still that process, or, when
 * the leader has exited, while the group still has live members: the kernel does not reuse a pid
 * number while it is any process's group id, so a group with members is still the same group.
 */
export async function signalGroupIfLeaderSame(leader: ProcessIdentity, signal: NodeJS.Signals): Promise<boolean> {
  return signalGroup({ pgid: leader.pid, leaderStartTime: leader.startTime }, signal);
}

/** The foreground process group of the shell's terminal, or undefined. */
export async function foregroundProcessGroup(shellPid: number): Promise<number | undefined> {
  const shell = await readProcess(shellPid);
  return shell && isAlive(shell) && shell.tpgid > 0 ? shell.tpgid : undefined;
}

interface GroupRef {
  pgid: number;
  /** Undefined when the leader had already exited when the group was found. */
  leaderStartTime: string | undefined;
}

async function signalGroup(group: GroupRef, signal: NodeJS.Signals): Promise<boolean> {
  if (group.pgid <= 1 || group.pgid === (await hubGroup())) return false;
  const leader = await readProcess(group.pgid);
  if (leader && leader.pgid === group.pgid) {
    if (leader.startTime !== group.leaderStartTime) return false;
  } else if (!(await groupHasLiveMembers(group.pgid))) {
    return false;
  }
  return sendSignal(-group.pgid, signal);
}

/** process.kill with the guards: never 0/±1, never the hub; ESRCH and EPERM are answers. */
function sendSignal(pid: number, signal: NodeJS.Signals): boolean {
  if (Math.abs(pid) <= 1 || pid === process.pid) return false;
  try {
    process.kill(pid, signal);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ESRCH' || code === 'EPERM') return false;
    throw e; // an unknown signal name is a programming error
  }
}

async function hubGroup(): Promise<number | undefined> {
  return (await readProcess(process.pid))?.pgid;
}

async function groupHasLiveMembers(pgid: number): Promise<boolean> {
  const leader = await readProcess(pgid); // cheap common case: the leader still runs
  if (leader && leader.pgid === pgid && isAlive(leader)) return true;
  for (const row of (await listProcesses()).values()) {
    if (row.pgid === pgid && isAlive(row)) return true;
  }
  return false;
}

// ---- which processes belong to a session -----------------------------------------------------

/**
 * Every live pid of the session, sorted: the shell and its descendants, anything on the session's
 * terminal (`ttyNr`: Linux tty_nr, macOS tty name; read from the shell when omitted), anything in
 * the shell's session id, anything in a process group led by one of those, and anything started
 * with SESSION_ENV=<sessionId> (catches `setsid` and double-forked daemons that left the tty).
 * Never the hub, its ancestors, pid 1, or zombies (the rules: sessionMembers.ts).
 *
 * Not caught (documented limit): a daemon that left the tty and the session AND cleared its
 * environment. Only a cgroup per session could catch that.
 */
export async function sessionProcesses(sessionId: string, shellPid: number, ttyNr?: number | string): Promise<number[]> {
  const table = await listProcesses();
  const anchor = anchorFrom(table, { sessionId, shellPid, ttyNr, hubPid: process.pid, platform: process.platform });
  return (await findMembers(anchor, table)).map((row) => row.pid);
}

/** The session's live processes in `table`; reads the session mark of the candidates only. */
async function findMembers(anchor: SessionAnchor, table: Map<number, ProcessInfo>): Promise<ProcessInfo[]> {
  const marks = await environmentValues(
    SESSION_ENV,
    candidatesOf(anchor, table).map((row) => row.pid),
  );
  return membersOf(anchor, table, marks, process.pid);
}

// ---- kill: escalate on the foreground job --------------------------------------------------

interface Job {
  group: GroupRef;
  shell: ProcessIdentity | undefined;
}

/**
 * Signals the target with each signal in turn, waiting after each until it has ended or the wait
 * elapses. Resolves with the signal that ended it; null when nothing was running, when it outlived
 * every signal (e.g. uninterruptible sleep), or when aborted.
 */
export async function escalateKill(target: KillTarget, options: KillOptions): Promise<KillSignal | null> {
  const job = await resolveJob(target);
  if (!job) return null;
  const ended = async (): Promise<boolean> => (options.isDone?.() ?? false) || (await jobEnded(job));
  let last: KillSignal | null = null;
  for (const [i, signal] of (options.signals ?? ESCALATION).entries()) {
    if (await ended()) return last; // ended just after the previous wait gave up
    if (options.signal?.aborted) return null;
    await signalGroup(job.group, signal);
    // A stopped job acts on SIGINT/SIGTERM only once continued (as bash's `kill %job` does).
    if (signal !== 'SIGKILL') await signalGroup(job.group, 'SIGCONT');
    last = signal;
    const timeoutMs = options.waitsMs[i] ?? options.waitsMs.at(-1) ?? DEFAULT_WAIT_MS;
    const wait = { timeoutMs, pollMs: options.pollMs ?? DEFAULT_POLL_MS, wake: options.onDone, signal: options.signal };
    if (await waitUntil(ended, wait)) return signal;
  }
  return null;
}

/** One signal, no escalation: resolves with it if it ended the target within waitMs, else null. */
export async function killWithSignal(
  target: KillTarget,
  signal: KillSignal,
  options: Omit<KillOptions, 'signals' | 'waitsMs'> & { waitMs: number },
): Promise<KillSignal | null> {
  return escalateKill(target, { ...options, signals: [signal], waitsMs: [options.waitMs] });
}

async function resolveJob(target: KillTarget): Promise<Job | undefined> {
  if (target.kind === 'group') {
    const group = { pgid: target.leader.pid, leaderStartTime: target.leader.startTime };
    if (!(await groupHasLiveMembers(group.pgid))) await untilLeading(target.leader);
    return (await groupHasLiveMembers(group.pgid)) ? { group, shell: undefined } : undefined;
  }
  const shell = await readProcess(target.shellPid);
  if (!shell || !isAlive(shell) || shell.tpgid <= 0 || shell.tpgid === shell.pgid) return undefined;
  const leader = await readProcess(shell.tpgid);
  const leaderStartTime = leader && leader.pgid === shell.tpgid ? leader.startTime : undefined;
  return {
    group: { pgid: shell.tpgid, leaderStartTime },
    shell: { pid: shell.pid, startTime: shell.startTime },
  };
}

/**
 * A PTY's child leads its own group only once forkpty's child has run setsid, a moment after the
 * spawn returned in the hub: until then its group has no member. On a loaded machine a kill can
 * come in between; it waits for the group to exist (bounded) rather than find nothing to signal
 * and leave the program running.
 */
async function untilLeading(leader: ProcessIdentity): Promise<void> {
  const led = async (): Promise<boolean> => {
    const now = await readProcess(leader.pid);
    return !now || !isAlive(now) || now.startTime !== leader.startTime || now.pgid === leader.pid;
  };
  await waitUntil(led, { timeoutMs: SETSID_WAIT_MS, pollMs: SETSID_POLL_MS });
}

/**
 * Resolves once a PTY's child is on its terminal: it leads its own session and group and the
 * terminal is its controlling one (forkpty's child runs setsid and TIOCSCTTY a moment after the
 * spawn returned in the hub), or once it is gone, or after 2 s. Until then nothing reads the
 * terminal as far as /proc can tell: a program just opened would be `unknown` to what asks what
 * reads it (the gate then judged a REPL's `6*7` as a command line) and have no group to kill.
 */
export async function untilOnItsTerminal(pid: number): Promise<void> {
  const settled = async (): Promise<boolean> => {
    const now = await readProcess(pid);
    return !now || !isAlive(now) || (now.pgid === pid && now.tpgid > 0);
  };
  await waitUntil(settled, { timeoutMs: SETSID_WAIT_MS, pollMs: SETSID_POLL_MS });
}

/** A foreground job has ended when its shell has the terminal back, or its group is empty. */
async function jobEnded(job: Job): Promise<boolean> {
  if (job.shell) {
    const shell = await readProcess(job.shell.pid);
    const same = shell && isAlive(shell) && shell.startTime === job.shell.startTime;
    if (same && shell.tpgid === shell.pgid) return true;
  }
  return !(await groupHasLiveMembers(job.group.pgid));
}

// ---- close: hang up, then kill what is left -------------------------------------------------

/**
 * Closes the process side of a session: SIGHUP (+SIGCONT, so stopped jobs act on it) to the
 * shell's process group and the foreground group, a grace period that ends early once all of the
 * session's processes are gone, then SIGKILL rounds over whatever `sessionProcesses` still finds
 * until none is left or the deadline passes. Resolves with the pids that had to be SIGKILLed.
 * Call it while the pty is still open: its tty number is then not yet someone else's; pass
 * `ttyOpen` so that the rounds after the shell's death stop matching by tty once it closes.
 * The shell's zombie is reaped by node-pty; others are re-parented to init when their parent dies.
 */
export async function terminateSession(sessionId: string, shellPid: number, options: TerminateOptions = {}): Promise<number[]> {
  const pollMs = options.pollMs ?? DEFAULT_POLL_MS;
  const table = await listProcesses();
  const anchor = anchorFrom(table, { sessionId, shellPid, ttyNr: options.ttyNr, hubPid: process.pid, platform: process.platform });
  const members = async (listed = listProcesses()): Promise<ProcessInfo[]> => {
    const rows = await listed;
    // Asked after the listing: open now means open while every row was read.
    const ttyReused = options.ttyOpen !== undefined && !options.ttyOpen();
    return findMembers(ttyReused ? { ...anchor, tty: '' } : anchor, rows);
  };
  const before = await members(Promise.resolve(table));
  await hangUp(table.get(shellPid), anchor, table);
  await waitUntil(() => allGone(before), { timeoutMs: options.graceMs ?? DEFAULT_GRACE_MS, pollMs });
  return killRemaining(members, Date.now() + (options.deadlineMs ?? DEFAULT_DEADLINE_MS), pollMs);
}

async function hangUp(shell: ProcessInfo | undefined, anchor: SessionAnchor, table: Map<number, ProcessInfo>): Promise<void> {
  if (!shell || shell.startTime !== anchor.shellStartTime || !isAlive(shell)) return;
  const groups = new Set([shell.pgid, shell.tpgid].filter((g) => g > 1));
  for (const pgid of groups) {
    const group = { pgid, leaderStartTime: table.get(pgid)?.startTime };
    await signalGroup(group, 'SIGHUP');
    await signalGroup(group, 'SIGCONT');
  }
}

async function killRemaining(members: () => Promise<ProcessInfo[]>, deadline: number, pollMs: number): Promise<number[]> {
  const killed = new Set<number>();
  for (;;) {
    const left = await members();
    if (left.length === 0 || Date.now() >= deadline) break;
    const hit: ProcessInfo[] = [];
    for (const row of left) if (await signalIfSame(row, 'SIGKILL')) hit.push(row);
    for (const row of hit) killed.add(row.pid);
    const timeoutMs = Math.max(0, Math.min(KILL_ROUND_MS, deadline - Date.now()));
    await waitUntil(() => allGone(hit), { timeoutMs, pollMs });
  }
  return [...killed].sort((a, b) => a - b);
}

async function allGone(identities: readonly ProcessIdentity[]): Promise<boolean> {
  for (const identity of identities) {
    const now = await readProcess(identity.pid);
    if (now && isAlive(now) && now.startTime === identity.startTime) return false;
  }
  return true;
}

// ---- waiting -----------------------------------------------------------------------------------

interface WaitOptions {
  timeoutMs: number;
  pollMs: number;
  wake?: WakeEvent | undefined;
  signal?: AbortSignal | undefined;
}

/** Resolves true as soon as `check` holds; false at the deadline or on abort. */
async function waitUntil(check: () => Promise<boolean>, options: WaitOptions): Promise<boolean> {
  const deadline = Date.now() + options.timeoutMs;
  let woken = false;
  let kick: (() => void) | undefined;
  const poke = (): void => {
    woken = true;
    kick?.();
  };
  const subscription = options.wake?.(poke);
  options.signal?.addEventListener('abort', poke);
  try {
    for (;;) {
      woken = false;
      if (await check()) return true;
      const left = deadline - Date.now();
      if (left <= 0 || options.signal?.aborted) return false;
      if (!woken) await nap(Math.min(options.pollMs, left), (k) => (kick = k));
      kick = undefined;
    }
  } finally {
    subscription?.dispose();
    options.signal?.removeEventListener('abort', poke);
  }
}

/** Sleeps up to `ms`; `expose` receives a function that ends the sleep early. */
function nap(ms: number, expose: (wakeUp: () => void) => void): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    expose(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
