import * as vm from 'node:vm';
import { ErrorCode, SwitchboardError } from '../errors.js';

/** How long one match may run before the pattern is given up (catastrophic backtracking). */
const PATTERN_TIME_BUDGET_MS = 100;
/** Patterns are tested against at most this much text: bounded input, bounded time. */
const PATTERN_MAX_INPUT = 64 * 1024;
const MAX_PATTERN_LENGTH = 1_000;
/** Attempts cut off by the clock while this process barely ran (a busy machine) are retried. */
const MAX_STARVED_RETRIES = 3;

/**
 * A `wait.pattern` (or `wait.absent`) regex that can never stall the hub: compiled once (an
 * invalid pattern is INVALID_ARGUMENT, naming `parameter`), tested in a vm context with a
 * timeout — V8 interrupts a runaway backtracking match — against bounded text.
 */
export class PatternMatcher {
  private readonly context: vm.Context;
  private readonly script = new vm.Script('regex.test(input)');

  constructor(
    readonly source: string,
    private readonly parameter = 'wait.pattern',
  ) {
    if (source.length > MAX_PATTERN_LENGTH) {
      throw new SwitchboardError(ErrorCode.InvalidArgument, `${parameter}: ${source.length} characters is too long; keep it under ${MAX_PATTERN_LENGTH}.`);
    }
    let regex: RegExp;
    try {
      regex = new RegExp(source, 'm');
    } catch (error) {
      throw new SwitchboardError(
        ErrorCode.InvalidArgument,
        `${parameter}: "${source}" is not a valid regular expression (${(error as Error).message}). Escape special characters like ( [ * + ? with a backslash.`,
      );
    }
    this.context = vm.createContext({ regex, input: '' });
  }

  /**
   * True when the pattern matches; throws INVALID_ARGUMENT when it exceeds its time budget.
   * The budget is wall-clock (vm's timeout): an attempt cut off while the process got less
   * than half of it in CPU time was starved by other processes, not backtracking, and is run
   * again rather than blamed on the pattern. The CPU counted is this thread's: the process's
   * would count a PTY worker thread's or any other thread's work as this match's.
   */
  test(text: string): boolean {
    this.context.input = text.length > PATTERN_MAX_INPUT ? text.slice(-PATTERN_MAX_INPUT) : text;
    for (let attempt = 0; ; attempt++) {
      const cpuBefore = threadCpuUsage();
      try {
        return this.script.runInContext(this.context, { timeout: PATTERN_TIME_BUDGET_MS }) === true;
      } catch (error) {
        const cpu = threadCpuUsage(cpuBefore);
        const starved = (cpu.user + cpu.system) / 1000 < PATTERN_TIME_BUDGET_MS / 2;
        const timedOut = (error as NodeJS.ErrnoException).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT';
        if (timedOut && starved && attempt < MAX_STARVED_RETRIES) continue;
      }
      throw new SwitchboardError(
        ErrorCode.InvalidArgument,
        `${this.parameter}: "${this.source}" took longer than ${PATTERN_TIME_BUDGET_MS} ms to match (catastrophic backtracking); use a simpler pattern, e.g. a literal word.`,
      );
    }
  }
}

/** CPU time of the calling thread (Node ≥ 22.15); the whole process's on an older runtime. */
function threadCpuUsage(previous?: NodeJS.CpuUsage): NodeJS.CpuUsage {
  return typeof process.threadCpuUsage === 'function' ? process.threadCpuUsage(previous) : process.cpuUsage(previous);
}
