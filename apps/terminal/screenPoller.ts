/**
 * Keeps the view up to date: calls the hub's app-only tool `screen_updates` through the host
 * about twice a second (docs/design.md §3.8), from the `seq` and `resizes` the previous answer gave, and hands
 * each answer to the view: the screen to draw anew, output to append, or nothing new. One call
 * at a time; none while the frame is off screen or hidden; none once the session has ended.
 */
import { HostError, type HostChannel } from './hostChannel.js';

const POLL_INTERVAL_MS = 500;
/** After a call the host did not answer (it may be busy), the next is tried this much later. */
const RETRY_MS = 2_000;
const UPDATES_TOOL = 'screen_updates';

/** One answer of `screen_updates` (its structuredContent). */
export interface ScreenAnswer {
  session: string;
  name?: string;
  state: string;
  input_kind?: string;
  exit_code?: number | null;
  command?: string;
  seq: number;
  resizes: number;
  screen?: string;
  cols?: number;
  rows?: number;
  output?: string;
  ui_url?: string;
}

interface PollerEvents {
  /** Applied in order; the next call waits for it. */
  answer(answer: ScreenAnswer): Promise<void>;
  /** No more updates: the session ended or is unknown, the host cannot reach the tool, or the view is torn down. */
  stopped(why: string, unavailable: boolean): void;
}

interface ToolResult {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content?: { type: string; text?: string }[];
}

export class ScreenPoller {
  /** Where the previous answer left the view: the output offset and the count of resizes. */
  private since: number | undefined;
  private resizes = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private inFlight = false;
  private stoppedValue = false;
  private visible = true;

  constructor(
    private readonly host: HostChannel,
    private session: string,
    private readonly events: PollerEvents,
  ) {
    // Off screen (scrolled away in the chat) or in a hidden tab: no calls until shown again.
    if (typeof IntersectionObserver === 'function') {
      new IntersectionObserver((entries) => {
        this.visible = entries.some((entry) => entry.isIntersecting);
        if (this.visible) this.schedule(0);
      }).observe(document.documentElement);
    }
    document.addEventListener('visibilitychange', () => {
      if (!document.hidden) this.schedule(0);
    });
  }

  get stopped(): boolean {
    return this.stoppedValue;
  }

  /** Starts, or follows another session (its id from the tool's result): from its screen. */
  watch(session: string): void {
    if (this.stoppedValue) return;
    if (session !== this.session) this.since = undefined;
    this.session = session;
    this.schedule(0);
  }

  stop(why: string, unavailable = false): void {
    if (this.stoppedValue) return;
    this.stoppedValue = true;
    clearTimeout(this.timer);
    this.events.stopped(why, unavailable);
  }

  private schedule(ms: number): void {
    if (this.stoppedValue || this.inFlight) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.poll(), ms);
  }

  private async poll(): Promise<void> {
    if (this.stoppedValue || this.inFlight || !this.visible || document.hidden) return;
    this.inFlight = true;
    const session = this.session;
    let next = POLL_INTERVAL_MS;
    try {
      const args: Record<string, unknown> = { session, ...(this.since !== undefined ? { since: this.since, resizes: this.resizes } : {}) };
      const result = await this.host.request<ToolResult>('tools/call', { name: UPDATES_TOOL, arguments: args });
      if (session !== this.session) return; // a newer session took over while this call ran
      if (result.isError) return this.stop(errorText(result), false);
      const answer = result.structuredContent as ScreenAnswer | undefined;
      if (!answer || typeof answer.seq !== 'number') return this.stop('the hub answered without an update', true);
      await this.events.answer(answer);
      this.since = answer.seq;
      this.resizes = answer.resizes;
      if (answer.state === 'exited')
        return this.stop(`exited${answer.exit_code !== null && answer.exit_code !== undefined ? ` (code ${answer.exit_code})` : ''}`, false);
    } catch (error) {
      // The host refuses the tool (it did not declare MCP Apps to the hub, or blocks app calls): no live view.
      if (error instanceof HostError) return this.stop(`live view unavailable: ${error.message}`, true);
      next = RETRY_MS;
    } finally {
      this.inFlight = false;
    }
    this.schedule(next);
  }
}

function errorText(result: ToolResult): string {
  const text = result.content?.find((item) => item.type === 'text')?.text ?? 'error';
  return text.split('\n')[0] ?? text;
}
