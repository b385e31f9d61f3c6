/**
 * When the page's chrome is drawn: at most once per animation frame however many changes ask
 * for it (`request`), or at once for the person's own actions (`now`).
 *
 * A redraw never waits for a pressed mouse button. The views update their elements in place
 * (lit-html; tabs and rows keyed by session), so the tab, row or button under a press stays
 * the same element through any number of redraws and the click lands. (Until the views moved
 * to lit-html they replaced some elements on each redraw, and redraws waited for the button
 * to come up.)
 */
export class RenderScheduler {
  private queued = false;

  constructor(private readonly draw: () => void) {}

  /** Draws on the next animation frame (once, however often asked before it). */
  request(): void {
    if (this.queued) return;
    this.queued = true;
    requestAnimationFrame(() => {
      this.queued = false;
      this.draw();
    });
  }

  /** Draws now. */
  now(): void {
    this.draw();
  }
}
