/**
 * MCP progress for calls that wait (`execute`, and `send`/`read` with `wait`): hosts with a
 * 60-second request timeout reset it on every progress notification, and show its `message`
 * (docs/design.md §3.4). Sent only when the request carried `_meta.progressToken`
 * (docs/conventions.md, the MCP TypeScript SDK); without one nothing is read or subscribed.
 */
import type { ServerContext } from '@modelcontextprotocol/server';
import type { Disposable, InputKind, SessionState, TerminalSession } from '../core/index.js';
import type { CommandGate, PendingApproval } from './toolHost.js';

/** How often a waiting call tells a client that asked for progress that it is still alive (setting progressIntervalMs). */
const PROGRESS_INTERVAL_MS = 5_000;
/** Characters of the output's last line a message quotes. */
const PROGRESS_LINE_CHARS = 100;
/** Characters of a command line a message names it by. */
const COMMAND_CHARS = 60;

/** What progress needs of the hub (a `ToolHost` is one). */
export interface ProgressHost {
  readonly settings: { readonly progressIntervalMs?: number };
  /** Where an approval the call waits for is seen (docs/design.md §2.9). */
  readonly gate?: Pick<CommandGate, 'pending' | 'onDidChange'>;
}

export interface ProgressReporter {
  /**
   * The session the call waits on, once known: each message then says its state and the last
   * line of its output, and a wait for input or for the person's approval is told at once.
   */
  watch(session: TerminalSession): void;
  /** Stops the notifications; call it in a `finally`. */
  dispose(): void;
}

/** What one message is made of (`progressMessage`). */
interface ProgressFacts {
  label: string;
  elapsedMs: number;
  /** The session's state, when the call has one. */
  state?: SessionState;
  inputKind?: InputKind;
  /** The command running in the session. */
  command?: string | null;
  /** The approval the session's command waits for. */
  approval?: Pick<PendingApproval, 'rule' | 'reason'>;
  lastLine?: string;
}

/**
 * `npm test · 41 s · PASS src/a.test.ts`; `awaiting input (line) · 12 s · Password:`;
 * `awaiting approval · 3 s · rule 2 git push --force*`: the state (a running command by its
 * line), the time since the call started, the output's last line or the rule that asked.
 */
export function progressMessage(facts: ProgressFacts): string {
  const seconds = `${Math.floor(facts.elapsedMs / 1000)} s`;
  if (facts.approval) {
    const { rule, reason } = facts.approval;
    return join('awaiting approval', seconds, rule ? `rule ${rule.index} ${rule.match}` : cut(reason, PROGRESS_LINE_CHARS));
  }
  if (facts.state === 'awaiting_input') return join(`awaiting input (${facts.inputKind ?? 'line'})`, seconds, facts.lastLine);
  if (facts.state === 'exited') return join('exited', seconds, facts.lastLine);
  return join(cut(firstLine(facts.command ?? facts.label), COMMAND_CHARS), seconds, facts.lastLine);
}

/**
 * Every `progressIntervalMs` (5 s) while the call runs, and at once when its session starts waiting for input
 * or for the person: `notifications/progress` with `message` (progressMessage) and `progress`
 * the milliseconds since the call started (strictly increasing; no `total`: the end is not
 * known). A no-op without a progress token. Stops by itself when the request is cancelled.
 */
export function startProgress(ctx: ServerContext, host: ProgressHost, label: string): ProgressReporter {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return { watch: () => undefined, dispose: () => undefined };
  const startedAt = Date.now();
  const signal = ctx.mcpReq.signal;
  const subscriptions: Disposable[] = [];
  let session: TerminalSession | undefined;
  let last = 0;

  const send = (facts: Omit<ProgressFacts, 'label' | 'elapsedMs'> = current()): void => {
    if (signal.aborted) return dispose();
    const elapsedMs = Date.now() - startedAt;
    last = Math.max(last + 1, elapsedMs);
    const message = progressMessage({ label, elapsedMs, ...facts });
    ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: last, message } }).catch(() => undefined); // The client went away: the call goes on regardless.
  };
  /** The session as it is now; read only when a message goes out. */
  const current = (): Omit<ProgressFacts, 'label' | 'elapsedMs'> => {
    if (!session) return {};
    const approval = host.gate?.pending(session.id);
    if (approval) return { approval };
    const info = session.info();
    return { state: info.state, inputKind: info.input_kind, command: info.command, lastLine: session.lastOutputLine(PROGRESS_LINE_CHARS) };
  };

  const timer = setInterval(() => send(), host.settings.progressIntervalMs ?? PROGRESS_INTERVAL_MS);
  const dispose = (): void => {
    clearInterval(timer);
    for (const subscription of subscriptions.splice(0)) subscription.dispose();
  };
  return {
    watch(watched) {
      if (session) return;
      session = watched;
      // Subscribed before the call's own wait is: the message goes out before the result does.
      subscriptions.push(watched.onDidAwaitInput(() => send()));
      const gate = host.gate;
      if (gate?.onDidChange) {
        subscriptions.push(
          gate.onDidChange((id) => {
            if (id === watched.id && gate.pending(id)) send();
          }),
        );
      }
    },
    dispose,
  };
}

function join(...parts: (string | undefined)[]): string {
  return parts.filter((part): part is string => part !== undefined && part !== '').join(' · ');
}

function firstLine(text: string): string {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  return (lines[0] ?? text).trim() + (lines.length > 1 ? ' …' : '');
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
