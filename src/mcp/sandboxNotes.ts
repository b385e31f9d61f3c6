/**
 * What a result says of its session's sandbox (docs/design.md §2.10), in `warnings` so the model
 * sees it whichever form its host shows: the first `execute` in a sandboxed session names the
 * sandbox once, so a refused write does not send the agent retrying blindly; a session that
 * should be sandboxed and is not (no sandbox can start here) says so in every result.
 */
import type { TerminalSession } from '../core/index.js';

/** Sessions whose sandbox an `execute` result has already named. */
const named = new WeakSet<TerminalSession>();

/** The sandbox notes for a result of `tool` on `session`: `execute` names a sandbox it has not named yet. */
export function sandboxNotes(session: TerminalSession, tool: 'execute' | 'open' | 'send', showId: (id: string) => string = (id) => id): string[] {
  const sandbox = session.sandbox;
  if (sandbox.off === 'unavailable') return [sandbox.summary];
  if (!sandbox.on || tool !== 'execute' || named.has(session)) return [];
  named.add(session);
  return [
    `session ${showId(session.id)} is ${sandbox.summary}. What it refuses fails as the program says ("Read-only file system", "Operation not permitted", "Permission denied", a connection refused): ` +
      'do not retry it as is; to run a command outside the sandbox, call execute with sandbox: false (the person is asked first).',
  ];
}
