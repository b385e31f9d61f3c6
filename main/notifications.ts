/**
 * Optional notifications (setting `notifications`, off by default; docs/design.md §5.3): an agent's
 * command that failed, one that finished after running long, and a session that needs the
 * person (a secret prompt). Silent, and they never focus or show anything: only a click on
 * one (a person's action) opens the window on that session.
 *
 * `NotificationPolicy` decides from successive session states (pure, tested without
 * Electron); `Notifier` shows what it decides with Electron's `Notification`.
 */
import { Notification } from 'electron';
import type { Logger } from '../src/hub/index.js';
import type { UiSession } from '../src/ui-protocol/index.js';
import { agentDriven, formatDuration, sessionWho } from './trayMenu.js';

interface NotificationContent {
  kind: 'failed' | 'finished' | 'needs_you';
  session: string;
  title: string;
  body: string;
}

interface Seen {
  state: UiSession['state'];
  secret: boolean;
  command: string | null;
  /** Epoch ms the running command started (from `running_ms` when first seen running). */
  runningSince: number | null;
}

class NotificationPolicy {
  private readonly seen = new Map<string, Seen>();

  constructor(private readonly longCommandMs: () => number) {}

  /** A session's new state; returns what to notify, if anything. */
  update(session: UiSession, now = Date.now()): NotificationContent | null {
    const before = this.seen.get(session.id);
    const secret = session.state === 'awaiting_input' && session.secret === true;
    const running = session.state === 'running' || session.state === 'awaiting_input';
    const runningSince = running ? (before?.runningSince ?? (session.running_ms === null ? now : now - session.running_ms)) : null;
    this.seen.set(session.id, { state: session.state, secret, command: session.command ?? before?.command ?? null, runningSince });
    if (!before || !agentDriven(session)) return null;

    const who = sessionWho(session).replace(/^\S+\s/, '');
    if (secret && !before.secret) {
      return { kind: 'needs_you', session: session.id, title: 'Switchboard needs you', body: `${who} is at a password prompt only you can answer.` };
    }
    const wasRunning = before.state === 'running' || before.state === 'awaiting_input';
    if (wasRunning && session.state === 'idle') {
      const command = before.command ? `“${truncate(before.command, 60)}”` : 'A command';
      const took = before.runningSince === null ? null : now - before.runningSince;
      const exit = session.last_exit_code;
      if (exit !== null && exit !== 0) {
        return {
          kind: 'failed',
          session: session.id,
          title: `Command failed (exit ${exit})`,
          body: `${command} — ${who}${took === null ? '' : `, after ${formatDuration(took)}`}`,
        };
      }
      if (took !== null && took >= this.longCommandMs()) {
        return { kind: 'finished', session: session.id, title: 'Command finished', body: `${command} — ${who}, after ${formatDuration(took)}` };
      }
    }
    return null;
  }

  forget(id: string): void {
    this.seen.delete(id);
  }
}

function truncate(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

interface NotifierOptions {
  enabled: () => boolean;
  longCommandMs: () => number;
  /** The person clicked a notification: open the window on that session. */
  onClick: (session: string) => void;
  logger: Logger;
}

export class Notifier {
  private readonly policy: NotificationPolicy;
  /** Shown notifications are kept referenced, or their click handler is collected. */
  private readonly shown = new Set<Notification>();

  constructor(private readonly options: NotifierOptions) {
    this.policy = new NotificationPolicy(options.longCommandMs);
  }

  /** Called with every session change; shows a notification when the policy says so. */
  sessionChanged(session: UiSession): void {
    // The policy tracks state even while notifications are off, so turning them on does not
    // announce stale transitions.
    const content = this.policy.update(session);
    if (!content || !this.options.enabled() || !Notification.isSupported()) return;
    const notification = new Notification({ title: content.title, body: content.body, silent: true });
    this.shown.add(notification);
    notification.on('click', () => this.options.onClick(content.session));
    notification.on('close', () => this.shown.delete(notification));
    notification.show();
    this.options.logger.info(`notification: ${content.kind} for ${content.session}`);
  }

  sessionRemoved(id: string): void {
    this.policy.forget(id);
  }

  dispose(): void {
    for (const notification of this.shown) notification.close();
    this.shown.clear();
  }
}
