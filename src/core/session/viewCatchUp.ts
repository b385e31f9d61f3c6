import type { Emulator } from '../emulation/emulator.js';
import type { RecentOutput } from '../transcript/recentOutput.js';
import type { ScreenUpdate } from '../types.js';

/** Output a view is sent as it was printed, at most this much at a time; a view further behind gets the screen. */
export const VIEW_OUTPUT_MAX_BYTES = 64 * 1024;
/** Scrollback rows that come with a screen, above it. */
const VIEW_SCROLLBACK_ROWS = 100;
/**
 * During a flood a screen is taken at most this often per session, however many views ask (as
 * the person's window catches up, sessionViewer.ts): each waits for the parse of what came
 * before it, which breaks the flood's batches and makes xterm parse what it would have skipped.
 */
export const FLOOD_SCREEN_INTERVAL_MS = 2_000;

type Screen = Extract<ScreenUpdate, { kind: 'screen' }>;

/**
 * (Not src/mcp/screenChangeWatches.ts, which only tells resource subscribers that a screen changed.)
 * What a read-only view of a session needs to catch up from where an earlier answer left it
 * (docs/design.md §3.8): the terminal app asks about twice a second, each time with the output
 * offset (`through`) and the count of resizes (`resizes`) the previous answer gave.
 *
 * The cost stays bounded whatever the session prints: nothing when nothing was printed; the
 * bytes since (read back from output.log, which holds them anyway, at most
 * VIEW_OUTPUT_MAX_BYTES); otherwise the screen with its last VIEW_SCROLLBACK_ROWS rows of
 * scrollback, serialized once the emulator has parsed what came before the call (a few
 * hundred rows, never the whole scrollback). During a flood a screen is taken at most every
 * FLOOD_SCREEN_INTERVAL_MS; in between, views get that one, or nothing new once they have it.
 * So a flood costs a screen every two seconds whatever the views do, and a view shows what the
 * session shows rather than replaying the flood.
 *
 * The view stays right: a screen is taken at a character boundary of the output (the end
 * RecentOutput reports, after everything received before the call is parsed), and what comes
 * after it is the output from there, so the view's terminal parses exactly what the hub's did.
 * A resize changes how the same bytes are drawn (and may rewrap what is shown without a byte of
 * output), so a view that has not seen every resize gets the screen.
 */
export class ViewCatchUp {
  private resizes = 0;
  /** The latest screen taken during a flood, and when (on the flood signal's clock). */
  private floodScreen: { screen: Screen; at: number } | null = null;

  constructor(
    private readonly emulator: Pick<Emulator, 'serializeWhenParsed' | 'cols' | 'rows' | 'flood'>,
    private readonly recent: Pick<RecentOutput, 'end' | 'since'>,
  ) {}

  /** The terminal was resized: every view must be drawn anew. */
  resized(): void {
    this.resizes++;
  }

  /** What changed since output offset `from` and `resizes` resizes; without them, the screen. */
  async since(from: number | undefined, resizes: number | undefined): Promise<ScreenUpdate> {
    const end = this.recent.end;
    // Read before the output: a resize while it is read makes the next call a screen.
    const seen = this.resizes;
    if (from !== undefined && resizes === seen && from <= end) {
      if (from === end) return { kind: 'unchanged', through: end, resizes: seen };
      if (end - from <= VIEW_OUTPUT_MAX_BYTES) {
        const read = await this.recent.since(from);
        // Every byte since `from`, from output.log or memory: otherwise the screen says it right.
        if (read.skipped === 0 && read.notKept === null) return { kind: 'output', through: read.end, resizes: seen, data: read.text };
      }
    }
    const flood = this.emulator.flood;
    const latest = this.floodScreen;
    if (flood.flooding && latest && latest.screen.resizes === seen && flood.clock() - latest.at < FLOOD_SCREEN_INTERVAL_MS) {
      // A view that has the latest screen (or more) keeps what it shows until the next one.
      if (from !== undefined && resizes === seen && from >= latest.screen.through && from <= end) return { kind: 'unchanged', through: from, resizes: seen };
      return latest.screen;
    }
    const flooding = flood.flooding;
    const screen = await this.screen();
    this.floodScreen = flooding ? { screen, at: flood.clock() } : null;
    return screen;
  }

  private async screen(): Promise<Screen> {
    // Taken before the parse it waits for: the serialization holds every byte received up to
    // here and none after (Emulator.serializeWhenParsed), and an unfinished character is left
    // to the output that follows. The size and the count of resizes are read after it: what
    // the serialization was drawn at.
    const through = this.recent.end;
    const data = await this.emulator.serializeWhenParsed(VIEW_SCROLLBACK_ROWS);
    return { kind: 'screen', through, resizes: this.resizes, data, cols: this.emulator.cols, rows: this.emulator.rows };
  }
}
