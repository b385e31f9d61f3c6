/**
 * The step an agent takes next, phrased once and carried by both renderings of a result
 * (docs/design.md §3.6: the text, and `next` in `structuredContent`), so a host that shows the
 * model only one of them still tells it what to do. Each names the exact call, arguments as JSON,
 * so a model can copy it.
 */

/** `tool {"arg":…}`: a call as the text and `next` write it. */
export function call(tool: string, args: Record<string, unknown>): string {
  return `${tool} ${JSON.stringify(args)}`;
}

/** A command goes on after the call returned. */
export function waitForCommand(session: string, seq: number | undefined): string {
  const read = call('read', { session, view: 'command', ...(seq !== undefined ? { seq } : {}), wait: { exit: true } });
  return `wait for it with ${read}, or stop it with ${call('kill', { session })}`;
}

/** The foreground program waits for the keyboard. */
export function answerInput(session: string, secret: boolean | undefined): string {
  if (secret) {
    return `it is a password prompt, which agents may not answer: ask the person to type it in Switchboard, or stop it with ${call('kill', { session })}`;
  }
  return `answer with ${call('send', { session, text: '…', keys: ['enter'] })}, or stop it with ${call('kill', { session })}`;
}

/** A session just opened: a shell takes commands, a program keys. */
export function useSession(session: string, shell: boolean): string {
  const look = call('read', { session, view: 'screen' });
  if (shell) return `run commands with ${call('execute', { session, command: '…' })}; see the screen with ${look}`;
  return `type with ${call('send', { session, text: '…' })}; see the screen with ${look}`;
}
