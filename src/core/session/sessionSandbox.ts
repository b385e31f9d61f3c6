/**
 * What the core knows of the agent sandbox (docs/design.md §2.10): nothing of its settings. The
 * hub decides, per session, whether and how it is sandboxed, and hands the core a launch wrapper
 * that the session applies to the program it planned, plus the words `list` shows for it.
 */
import type { Creator, SessionSandbox } from '../types.js';

/** The program a session planned to spawn (its shell with the integration, or a program). */
export interface PlannedLaunch {
  file: string;
  args: string[];
  env: Record<string, string>;
  /**
   * A shell takes the terminal with its own job control. A program does not: the wrapper then
   * puts it in a process group of its own in front of the terminal, so Ctrl-C reaches it and not
   * the launcher around it.
   */
  shell: boolean;
}

/** What the PTY spawns instead of the planned program. */
interface WrappedLaunch {
  file: string;
  args: string[];
  env: Record<string, string>;
}

/** Starts a planned program inside a sandbox: what to spawn instead. */
export interface LaunchWrapper {
  wrap(launch: PlannedLaunch): WrappedLaunch | Promise<WrappedLaunch>;
}

/** One session's sandbox, as the hub decided it. */
export interface SessionSandboxPlan {
  info: SessionSandbox;
  /** Absent: the program runs as planned, outside any sandbox. */
  wrapper?: LaunchWrapper;
}

/** What the hub decides from. `sandbox: false`: the session runs outside because the person allowed it. */
export interface SandboxRequest {
  creator: Creator;
  /** The session's working folder (absolute, existing). */
  cwd: string;
  sandbox: boolean;
}

/** The hub's decision for each session; it throws a SwitchboardError to refuse one (`sandbox.required`). */
export type SandboxDecider = (request: SandboxRequest) => SessionSandboxPlan | Promise<SessionSandboxPlan>;

/** Without a decider (tests of the core, benchmarks): nothing is sandboxed. */
export function unsandboxed(request: SandboxRequest): SessionSandboxPlan {
  if (request.creator.kind === 'user') return { info: { on: false, off: 'person', summary: 'not sandboxed: your own session' } };
  return { info: { on: false, summary: 'not sandboxed: this hub runs no sandbox' } };
}
