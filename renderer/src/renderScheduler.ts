/**
 * When the page's chrome is drawn: at most once per animation frame however many changes ask
 * for it (`request`), or at once for the person's own actions (`now`).
 *
 * A requested redraw waits while a mouse button is down: a redraw replaces the tabs' and
 * sidebar rows' buttons, and a click whose press and release land on two different elements
 * never fires. With agents at work sessions change many times a second, so the redraw waits
 * for the release (at most PRESS_DEFER_MS, in case it never comes).
 */

/** The longest a redraw waits for a pressed mouse button to come up. */
const PRESS_DEFER_MS = 1_000;

export class RenderScheduler {
  private queued = false;
  /** When a mouse button went down, while it is down; a redraw asked for meanwhile is deferred. */
  private pressedAt: number | null = null;
  private deferred = false;
  private deferTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly draw: () => void) {
    document.addEventListener('pointerdown', () => (this.pressedAt = performance.now()), true);
    for (const type of ['pointerup', 'pointercancel'] as const) document.addEventListener(type, () => this.released(), true);
    window.addEventListener('blur', () => this.released());
  }

  /** Draws on the next animation frame (once, however often asked before it). */
  request(): void {
    if (this.queued) return;
    this.queued = true;
    requestAnimationFrame(() => {
      this.queued = false;
      const pressedFor = this.pressedAt === null ? null : performance.now() - this.pressedAt;
      if (pressedFor !== null && pressedFor < PRESS_DEFER_MS) {
        this.deferred = true;
        this.deferTimer ??= setTimeout(() => {
          this.deferTimer = undefined;
          this.flushDeferred();
        }, PRESS_DEFER_MS - pressedFor + 1);
        return;
      }
      this.draw();
    });
  }

  /** Draws now. */
  now(): void {
    this.draw();
  }

  /** The button came up: the click, if any, has fired. */
  private released(): void {
    this.pressedAt = null;
    this.flushDeferred();
  }

  /** A redraw deferred for a pressed button goes now (the button came up, or was held too long). */
  private flushDeferred(): void {
    if (!this.deferred) return;
    this.deferred = false;
    this.request();
  }
}
