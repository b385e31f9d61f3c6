/**
 * Tells MCP resource subscribers THAT a screen changed (not what changed: they read it again);
 * not to be confused with src/core/session/viewCatchUp.ts, which hands a read-only view the bytes
 * or the screen it needs to catch up.
 *
 * When a subscribed screen changed (docs/design.md §3.7): one watch per session, shared by every
 * subscriber (legacy `resources/subscribe`, 2026-07-28 `subscriptions/listen`), made by the first
 * and released by the last, so a session nobody subscribed to costs nothing.
 *
 * A watch tells its subscribers at most once per SCREEN_UPDATE_INTERVAL_MS, and only when the
 * screen's text really changed: after a change it waits SCREEN_SETTLE_MS of quiet (a command's
 * output arrives in a few chunks), but no longer than the interval, then renders the screen as a
 * reader would get it and compares. During a flood that is one update per interval, each showing
 * the screen of that moment; nothing queues (one timer and one render at most per session), so
 * there is never a backlog to drain (docs/decisions.md, "Screen updates").
 */
import type { Disposable, Event } from '../core/index.js';
import { sessionOfScreenUri } from './sessionScreens.js';

/** At most this often per session, so per subscriber: twice a second. */
export const SCREEN_UPDATE_INTERVAL_MS = 500;
/** A change is told once output has been quiet this long (or the interval has passed). */
export const SCREEN_SETTLE_MS = 50;

/** A live session's screen, as a watch needs it. */
interface WatchedScreen {
  readonly id: string;
  readonly onDidChangeScreen: Event<void>;
}

/** Where watches find sessions and their screens' text. */
export interface ScreenSource {
  /** The live session a reference (id or name) names; undefined when it ended or never was. */
  live(ref: string): WatchedScreen | undefined;
  /** The screen as a reader gets it (`resources/read`). */
  render(id: string): Promise<string>;
  /** A render that failed (the update is skipped). */
  onError(error: unknown): void;
}

const NOTHING: Disposable = { dispose: () => undefined };

export class ScreenChangeWatches implements Disposable {
  private readonly watches = new Map<string, ScreenWatch>();

  constructor(private readonly source: ScreenSource) {}

  /**
   * Calls `onUpdated` when the screen `uri` names changes, until disposed. A screen that cannot
   * change (an ended or unknown session, not a screen URI) is watched by nothing.
   */
  watch(uri: string, onUpdated: () => void): Disposable {
    const ref = sessionOfScreenUri(uri);
    const session = ref === undefined ? undefined : this.source.live(ref);
    if (!session) return NOTHING;
    let watch = this.watches.get(session.id);
    if (!watch) {
      watch = new ScreenWatch(session, this.source);
      this.watches.set(session.id, watch);
    }
    const subscriber = (): void => onUpdated();
    watch.subscribers.add(subscriber);
    const owner = watch;
    return {
      dispose: () => {
        if (!owner.subscribers.delete(subscriber) || owner.subscribers.size > 0) return;
        owner.dispose();
        if (this.watches.get(session.id) === owner) this.watches.delete(session.id);
      },
    };
  }

  /** Sessions watched now (tests: released when the last subscriber goes). */
  get watchedSessions(): number {
    return this.watches.size;
  }

  /** Subscribers across all sessions now. */
  get subscriberCount(): number {
    let count = 0;
    for (const watch of this.watches.values()) count += watch.subscribers.size;
    return count;
  }

  dispose(): void {
    for (const watch of this.watches.values()) watch.dispose();
    this.watches.clear();
  }
}

/** One session's watch: its change listener, at most one timer and one render. */
class ScreenWatch implements Disposable {
  readonly subscribers = new Set<() => void>();
  private readonly subscription: Disposable;
  private timer: NodeJS.Timeout | undefined;
  /** The first change not told yet. */
  private pendingSince: number | undefined;
  private lastChangeAt = 0;
  private lastRenderAt = -Infinity;
  /** The text subscribers were last told of (or saw when the watch began). */
  private told: string | undefined;
  private rendering = false;
  private disposed = false;

  constructor(
    private readonly session: WatchedScreen,
    private readonly source: ScreenSource,
  ) {
    this.subscription = session.onDidChangeScreen(() => this.changed());
    // What the screen shows now: an update means it changed from this.
    source.render(session.id).then(
      (text) => (this.told ??= text),
      () => undefined,
    );
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.subscription.dispose();
  }

  private changed(): void {
    const now = Date.now();
    this.lastChangeAt = now;
    this.pendingSince ??= now;
    if (this.timer === undefined && !this.rendering) this.arm(now);
  }

  /** When the pending change may be told: once settled or the interval after it began, and an interval after the last look. */
  private due(): number {
    const settled = Math.min(this.lastChangeAt + SCREEN_SETTLE_MS, this.pendingSince! + SCREEN_UPDATE_INTERVAL_MS);
    return Math.max(settled, this.lastRenderAt + SCREEN_UPDATE_INTERVAL_MS);
  }

  private arm(now: number): void {
    this.timer = setTimeout(() => this.fire(), Math.max(0, this.due() - now));
  }

  private fire(): void {
    this.timer = undefined;
    if (this.disposed || this.pendingSince === undefined) return;
    const now = Date.now();
    if (now < this.due()) return this.arm(now); // more output came: let it settle
    this.pendingSince = undefined;
    this.lastRenderAt = now;
    this.rendering = true;
    this.source
      .render(this.session.id)
      .then(
        (text) => {
          if (this.disposed || text === this.told) return;
          this.told = text;
          for (const subscriber of [...this.subscribers]) subscriber();
        },
        (error: unknown) => this.source.onError(error),
      )
      .finally(() => {
        this.rendering = false;
        if (!this.disposed && this.pendingSince !== undefined && this.timer === undefined) this.arm(Date.now());
      });
  }
}
