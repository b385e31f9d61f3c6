/**
 * The step an agent takes next, phrased once and carried by both renderings of a result
 * (docs/design.md §3.6: the text, and `next` in `structuredContent`), so a host that shows the
 * model only one of them still tells it what to do. Each names the exact call, arguments as JSON,
 * so a model can copy it.
 */
import type { InputKind } from '../core/index.js';

/** `tool {"arg":…}`: a call as the text and `next` write it. */
export function call(tool: string, args: Record<string, unknown>): string {
  return `${tool} ${JSON.stringify(args)}`;
}

/** A command goes on after the call returned. */
export function waitForCommand(session: string, seq: number | undefined): string {
  const read = call('read', { session, view: 'command', ...(seq !== undefined ? { seq } : {}), wait: { exit: true } });
  return `wait for it with ${read}, or stop it with ${call('kill', { session })}`;
}

/**
 * The foreground program waits for the keyboard (docs/design.md §2.6): a line is typed and
 * entered; a full-screen program takes keys and is looked at; a password is the person's.
 */
export function answerInput(session: string, kind: InputKind | undefined): string {
  const stop = `stop it with ${call('kill', { session })}`;
  if (kind === 'secret') return `it is a password prompt, which agents may not answer: ask the person to type it in Switchboard, or ${stop}`;
  if (kind === 'screen') {
    return `it is a full-screen program: press keys with ${call('send', { session, keys: ['…'] })} and look with ${call('read', { session, view: 'screen' })}, or ${stop}`;
  }
  return `answer with ${call('send', { session, text: '…', keys: ['enter'] })}, or ${stop}`;
}

/** How a result names what the program waits for (the text says it as `input_kind` does). */
export function describeInput(kind: InputKind | undefined): string {
  if (kind === 'secret') return 'at a password prompt (input_kind secret)';
  return `waiting for input (input_kind ${kind ?? 'line'})`;
}

/** A session just opened: a shell takes commands, a program keys. */
export function useSession(session: string, shell: boolean): string {
  const look = call('read', { session, view: 'screen' });
  if (shell) return `run commands with ${call('execute', { session, command: '…' })}; see the screen with ${look}`;
  return `type with ${call('send', { session, text: '…' })}; see the screen with ${look}`;
}

/**
 * A request that would start a session (`open`, `execute` outside the sandbox) waits for the
 * person (docs/design.md §2.9): nothing is started; the same call again waits on the same approval.
 */
export function awaitNewApproval(tool: string, args: Record<string, unknown>): string {
  return `it waits for the person's approval and nothing was started yet; wait for the answer with the same call again, ${call(tool, args)} (what was allowed meanwhile is returned then; a denial is COMMAND_DENIED)`;
}

/**
 * The person has not yet answered the approval a command waits for (docs/design.md §2.9):
 * nothing is typed; `read` with `wait.exit` waits through the answer, then the command.
 */
export function awaitApproval(session: string): string {
  const read = call('read', { session, view: 'command', wait: { exit: true } });
  return `it waits for the person's approval and was not typed yet; wait with ${read} (the command starts once allowed; a denial is COMMAND_DENIED)`;
}
