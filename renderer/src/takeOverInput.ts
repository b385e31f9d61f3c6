/**
 * What the person types into a tab. While they control the session it goes straight to the
 * hub. Into an agent's session it asks first ("Take over this session?", unless they said not
 * to ask again), then takes over; keys typed meanwhile wait here and go out, in order, once
 * control has arrived, or are dropped when the hub refuses or the session goes. Input goes in
 * pieces of at most MAX_INPUT_CHARS.
 */
import { MAX_INPUT_CHARS, type ClientMessage, type UiSession } from '../../src/ui-protocol/index.js';
import type { SessionEntry } from './sessionFormat.js';
import { creatorName } from './sessionFormat.js';

/** The question put to the person (dialog.ts's confirm dialog in the page). */
export interface TakeOverQuestion {
  title: string;
  body: string;
  confirm: string;
  rememberLabel: string;
}

interface TakeOverInputOptions {
  /** The session as the page knows it now. */
  session(id: string): UiSession | undefined;
  /** Whether to ask before taking over (the page's preference). */
  confirmTakeOver(): boolean;
  /** The person ticked "Don't ask again". */
  stopAsking(): void;
  ask(question: TakeOverQuestion): Promise<{ ok: boolean; remember: boolean }>;
  send(message: ClientMessage): void;
  /** The keyboard back to the tab's terminal (the question took it). */
  focus(id: string): void;
}

export class TakeOverInput {
  /** Keys typed into an agent's tab while its take over is on its way. */
  private readonly pending = new Map<string, string[]>();

  constructor(private readonly options: TakeOverInputOptions) {}

  async typed(id: string, data: string): Promise<void> {
    const info = this.options.session(id);
    if (!info || info.state === 'exited') return;
    if (info.controller === 'user') {
      this.sendInput(id, data);
      return;
    }
    const pending = this.pending.get(id);
    if (pending) {
      pending.push(data);
      return;
    }
    if (!(await this.confirm(info))) return;
    const current = this.options.session(id);
    if (current?.controller === 'user') {
      this.sendInput(id, data);
      return;
    }
    this.pending.set(id, [data]);
    this.options.send({ type: 'takeOver', session: id });
    this.options.focus(id);
  }

  /** Asks before taking over an agent's session (unless the person said not to ask again); true to go ahead. */
  async confirm(info: UiSession): Promise<boolean> {
    if (!this.options.confirmTakeOver()) return true;
    const answer = await this.options.ask({
      title: 'Take over this session?',
      body: `The agent's writes will be refused until you hand it back. ${creatorName(info)} keeps reading the screen.`,
      confirm: 'Take over',
      rememberLabel: 'Don’t ask again',
    });
    if (answer.ok && answer.remember) this.options.stopAsking();
    return answer.ok;
  }

  /** After each change of the sessions: keys wait no longer for a session the person now controls, nor for one that went. */
  sync(sessions: ReadonlyMap<string, SessionEntry>): void {
    for (const [id, pending] of [...this.pending]) {
      const info = sessions.get(id)?.info;
      if (!info) {
        this.pending.delete(id);
      } else if (info.controller === 'user') {
        this.pending.delete(id);
        this.sendInput(id, pending.join(''));
      }
    }
  }

  /** The hub refused the take over: what was typed for it is dropped. */
  refused(id: string): void {
    this.pending.delete(id);
  }

  private sendInput(id: string, data: string): void {
    for (let at = 0; at < data.length; at += MAX_INPUT_CHARS) this.options.send({ type: 'input', session: id, data: data.slice(at, at + MAX_INPUT_CHARS) });
  }
}
