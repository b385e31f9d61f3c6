import type { Disposable } from '../../core/index.js';
import { decodeFrame, parseHubMessage, UI_PROTOCOL_VERSION, UiErrorCode, type ClientMessage, type HubMessage } from '../../ui-protocol/index.js';
import type { LinkMux, LinkStream } from './linkMux.js';
import { remoteRef } from '../settings/remoteNames.js';

/** What a view needs of its remote: the link while it is up, and why it is not. */
export interface ViewedRemote {
  readonly name: string;
  readonly mux: LinkMux | undefined;
  /** A sentence saying why the remote is not connected now. */
  unavailable(): string;
}

/** Client messages the remote answers with `done` or `error` (the others get no answer unless they fail). */
const ANSWERED: ReadonlySet<ClientMessage['type']> = new Set([
  'takeOver',
  'handBack',
  'interrupt',
  'kill',
  'close',
  'stopClient',
  'answerApproval',
  'openTerminal',
  'screenshot',
  'searchHistory',
  'commandOutput',
  'rerun',
]);

type Pending = { type: ClientMessage['type']; session?: string; req?: number };

/** `req`s of this hub's own questions start here, far above any a page counts to. */
const ASK_REQ_BASE = 2 ** 40;
/** A remote asked a question this hub waits on (a history search) has this long to answer. */
const ASK_TIMEOUT_MS = 5_000;

/**
 * One window's (or the menu's) view of one remote (docs/design.md §4.7): a UI stream of its own
 * over the link, so the remote keeps a viewer per window as it does for its own windows, with its
 * flow control end to end (the window's acks reach the remote's viewer). Messages go over with the
 * remote's own ids and come back with ids made `<remote>:<id>`; the numbers of snapshots and frames
 * keep growing across the remote's subscriptions, so a view never takes a new subscription's
 * frame for an old one's.
 *
 * When the link drops, what was asked and not answered gets REMOTE_UNAVAILABLE; once a link is up
 * again, the sessions this view watched are subscribed again (a fresh snapshot each).
 */
export class RemoteView implements Disposable {
  private stream: LinkStream | undefined;
  /** Remote ids this view is subscribed to. */
  private readonly watched = new Set<string>();
  /** Per remote id: the last number sent to the window, and what the remote's numbering starts from. */
  private readonly numbering = new Map<string, { last: number; base: number }>();
  private pending: Pending[] = [];
  /** Questions this hub asks itself (`ask`), by the `req` they went with. */
  private readonly asked = new Map<number, { resolve(message: HubMessage): void; timer: NodeJS.Timeout }>();
  private nextAsk = ASK_REQ_BASE;
  private disposed = false;

  constructor(
    private readonly remote: ViewedRemote,
    /** To the window, as this hub's bridge sends. */
    private readonly send: (message: HubMessage) => void,
    /** The window's connection is the person's (a token connection is not, there either). */
    private readonly person: boolean,
  ) {}

  /** A message about this remote's session, with the remote's own ids. */
  forward(message: ClientMessage): void {
    if (this.disposed) return;
    if (message.type === 'subscribe') {
      this.watched.add(message.session);
      this.renumber(message.session);
    } else if (message.type === 'unsubscribe') {
      this.watched.delete(message.session);
    }
    const stream = this.open();
    if (!stream) {
      // Unanswered here: the view resubscribes once the link is back.
      if (message.type === 'subscribe' || message.type === 'unsubscribe' || message.type === 'ack') return;
      return this.fail(message, this.remote.unavailable());
    }
    if (ANSWERED.has(message.type))
      this.pending.push({
        type: message.type,
        ...('session' in message ? { session: message.session } : {}),
        ...(message.req !== undefined ? { req: message.req } : {}),
      });
    stream.send(message);
  }

  /**
   * A question this hub asks the remote for its own use (a history search to merge): the answer
   * comes back here, not to the window; an error, or nothing within `timeoutMs`, is an `error`.
   */
  ask(message: ClientMessage, timeoutMs = ASK_TIMEOUT_MS): Promise<HubMessage> {
    const req = this.nextAsk++;
    return new Promise((resolve) => {
      const stream = this.open();
      if (!stream) return resolve(this.error(message, this.remote.unavailable(), undefined));
      const timer = setTimeout(() => {
        this.asked.delete(req);
        resolve(this.error(message, `${this.remote.name} did not answer within ${timeoutMs} ms`, undefined));
      }, timeoutMs);
      this.asked.set(req, { resolve, timer });
      stream.send({ ...message, req });
    });
  }

  /** The link is up again: the sessions watched are subscribed again, each getting a fresh snapshot. */
  reconnected(): void {
    if (this.disposed || this.watched.size === 0) return;
    const stream = this.open();
    if (!stream) return;
    for (const session of this.watched) {
      this.renumber(session);
      stream.send({ type: 'subscribe', session });
    }
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.stream?.close('the window went away');
    this.stream = undefined;
  }

  private open(): LinkStream | undefined {
    if (this.stream && !this.stream.closed) return this.stream;
    const mux = this.remote.mux;
    if (!mux) return undefined;
    const stream = mux.open({ kind: 'ui', person: this.person });
    this.stream = stream;
    stream.onDidMessage((text) => this.receive(parseHubMessage(text)));
    stream.onDidFrame((bytes) => this.receive(parseHubMessage(decodeFrame(bytes))));
    stream.onDidClose(() => {
      if (this.stream === stream) this.stream = undefined;
      const pending = this.pending;
      this.pending = [];
      for (const asked of pending) this.fail(asked, this.remote.unavailable());
      for (const [req, question] of [...this.asked]) {
        this.asked.delete(req);
        clearTimeout(question.timer);
        question.resolve({ type: 'error', code: UiErrorCode.RemoteUnavailable, message: this.remote.unavailable() });
      }
    });
    stream.send({ type: 'hello', protocol: UI_PROTOCOL_VERSION });
    return stream;
  }

  private receive(parsed: ReturnType<typeof parseHubMessage>): void {
    if (!parsed.ok) return;
    const message = parsed.message;
    const req = 'req' in message ? message.req : undefined;
    const question = req === undefined ? undefined : this.asked.get(req);
    if (question) {
      this.asked.delete(req!);
      clearTimeout(question.timer);
      return question.resolve(this.here(message));
    }
    const here = (id: string): string => remoteRef(this.remote.name, id);
    switch (message.type) {
      case 'snapshot':
      case 'frame':
        return this.send({ ...message, session: here(message.session), seq: this.number(message.session, message.seq) });
      case 'behind':
      case 'commands':
      case 'command':
      case 'screenshotTaken':
      case 'commandOutputResult':
        if (message.type !== 'behind' && message.type !== 'commands' && message.type !== 'command')
          this.settle(message.type === 'screenshotTaken' ? 'screenshot' : 'commandOutput', message.req);
        return this.send({ ...message, session: here(message.session) });
      case 'historyResults':
        this.settle('searchHistory', message.req);
        return this.send(this.here(message));
      case 'done':
        this.settle(message.for, message.req);
        return this.send({
          ...message,
          ...(message.session !== undefined ? { session: here(message.session) } : {}),
          ...(message.sessions ? { sessions: message.sessions.map(here) } : {}),
        });
      case 'error':
        if (message.for === 'hello') return; // the remote speaks another UI protocol: the link said so already
        if (message.for) this.settle(message.for as ClientMessage['type'], message.req);
        return this.send({ ...message, ...(message.session !== undefined ? { session: here(message.session) } : {}) });
      default:
        return; // the list, settings, approvals: this hub's own stream keeps them (remoteSessions.ts)
    }
  }

  /** A remote's answer with its ids as this hub shows them. */
  private here(message: HubMessage): HubMessage {
    if (message.type === 'historyResults')
      return {
        ...message,
        commands: message.commands.map((entry) => ({ ...entry, session: remoteRef(this.remote.name, entry.session), host: this.remote.name })),
      };
    if ('session' in message && typeof message.session === 'string') return { ...message, session: remoteRef(this.remote.name, message.session) } as HubMessage;
    return message;
  }

  private error(message: ClientMessage, why: string, req: number | undefined): HubMessage {
    return { type: 'error', code: UiErrorCode.RemoteUnavailable, message: why, for: message.type, ...(req !== undefined ? { req } : {}) };
  }

  /** A subscription starts: its numbers continue from the last one the window got. */
  private renumber(session: string): void {
    const entry = this.numbering.get(session);
    if (entry) entry.base = entry.last;
    else this.numbering.set(session, { last: 0, base: 0 });
  }

  private number(session: string, seq: number): number {
    const entry = this.numbering.get(session) ?? { last: 0, base: 0 };
    const local = entry.base + seq;
    entry.last = Math.max(entry.last, local);
    this.numbering.set(session, entry);
    return local;
  }

  private settle(type: ClientMessage['type'], req: number | undefined): void {
    const index = this.pending.findIndex((asked) => asked.type === type && asked.req === req);
    if (index !== -1) this.pending.splice(index, 1);
  }

  private fail(asked: Pending | ClientMessage, why: string): void {
    const session = 'session' in asked && asked.session !== undefined ? { session: remoteRef(this.remote.name, asked.session) } : {};
    this.send({
      type: 'error',
      code: UiErrorCode.RemoteUnavailable,
      message: why,
      for: asked.type,
      ...session,
      ...(asked.req !== undefined ? { req: asked.req } : {}),
    });
  }
}
