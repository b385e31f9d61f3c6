import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ClientMessage } from '../../../src/ui-protocol/index.js';
import {
  FrameFeed,
  MAX_HIDDEN_BACKLOG_BYTES,
  WRITE_BUDGET_MAX,
  WRITE_BUDGET_MIN,
  WRITE_BUDGET_START,
  type Frame,
  type Snapshot,
} from '../../../renderer/src/frameFeed.js';

const ACK_EVERY = 5_000;

/**
 * A feed over a fake terminal: writes are recorded and parsed only when the test says
 * (`parse`), animation frames run when it says (`nextFrame`), its clock moves when it says.
 */
function harness({ shown = true } = {}) {
  const writes: string[] = [];
  const unparsed: (() => void)[] = [];
  const sent: ClientMessage[] = [];
  const events: string[] = [];
  const frames = new Map<number, () => void>();
  let frameIds = 0;
  let time = 0;
  const feed = new FrameFeed({
    sessionId: 's',
    ackEvery: ACK_EVERY,
    send: (message) => sent.push(message),
    writer: {
      writeSnapshot: (snapshot, parsed) => {
        writes.push(`snapshot ${snapshot.seq}`);
        unparsed.push(parsed);
      },
      writeFrame: (data, parsed) => {
        writes.push(`frame ${data.length}`);
        unparsed.push(parsed);
      },
    },
    onNeedsResync: () => events.push('resync'),
    onBehind: (behind) => events.push(behind ? 'behind' : 'caught up'),
    onHydrated: (snapshot) => events.push(`hydrated ${snapshot.seq}`),
    onFrameWritten: (end) => events.push(`written ${end}`),
    clock: {
      now: () => time,
      requestFrame: (callback) => {
        frameIds += 1;
        frames.set(frameIds, callback);
        return frameIds;
      },
      cancelFrame: (id) => frames.delete(id),
    },
  });
  feed.setShown(shown);
  return {
    feed,
    writes,
    sent,
    events,
    /** xterm parses everything written so far (in order); `ms` pass meanwhile. */
    parse(ms = 0): void {
      time += ms;
      while (unparsed.length > 0) unparsed.shift()?.();
    },
    /** The next animation frame. */
    nextFrame(): void {
      const due = [...frames.values()];
      frames.clear();
      for (const callback of due) callback();
    },
    pendingFrames: () => frames.size,
    acked: (): number => sent.reduce((sum, message) => sum + (message.type === 'ack' ? message.bytes : 0), 0),
  };
}

const snapshot = (seq: number, through = 100): Snapshot => ({ type: 'snapshot', session: 's', seq, data: 'screen', cols: 80, rows: 24, through });
const frame = (seq: number, bytes: number, end = 100 + seq * 1_000_000): Frame => ({ type: 'frame', session: 's', seq, end, data: new Uint8Array(bytes) });

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('the frame feed: the stream', () => {
  it('writes the snapshot, then the frames in order; hydrated once the snapshot is parsed', () => {
    const h = harness();
    h.feed.applySnapshot(snapshot(1));
    expect(h.writes).toEqual(['snapshot 1']);
    expect(h.feed.state).toMatchObject({ seq: 1, hydrated: false });
    h.parse();
    expect(h.events).toEqual(['caught up', 'hydrated 1']);
    h.feed.applyFrame(frame(2, 10));
    h.parse();
    h.feed.applyFrame(frame(3, 20));
    h.parse();
    expect(h.writes).toEqual(['snapshot 1', 'frame 10', 'frame 20']);
    expect(h.feed.state).toMatchObject({ seq: 3, hydrated: true, renderedFrames: 2 });
    expect(h.events.filter((event) => event.startsWith('written'))).toEqual([`written ${frame(2, 0).end}`, `written ${frame(3, 0).end}`]);
  });

  it('ignores frames before any snapshot, frames the snapshot superseded, and frames whose output the snapshot holds', () => {
    const h = harness();
    h.feed.applyFrame(frame(1, 10));
    h.feed.applySnapshot(snapshot(5, 500));
    h.parse();
    h.feed.applyFrame(frame(4, 10));
    h.feed.applyFrame(frame(6, 10, 400)); // in the snapshot already: counted, not written
    h.parse();
    h.feed.applyFrame(frame(7, 10, 600));
    h.parse();
    expect(h.writes).toEqual(['snapshot 5', 'frame 10']);
    expect(h.events.filter((event) => event.startsWith('written'))).toEqual(['written 600']);
    expect(h.feed.state.seq).toBe(7);
  });

  it('a gap in the numbers: asks for a fresh snapshot and writes nothing until it comes', () => {
    const h = harness();
    h.feed.applySnapshot(snapshot(1));
    h.feed.applyFrame(frame(3, 10));
    expect(h.events).toContain('resync');
    h.feed.applyFrame(frame(4, 10));
    expect(h.writes).toEqual(['snapshot 1']);
    h.feed.applySnapshot(snapshot(10));
    h.feed.applyFrame(frame(11, 10));
    expect(h.writes).toEqual(['snapshot 1', 'snapshot 10', 'frame 10']);
  });

  it('a snapshot parsed after a newer one arrived does not count as hydrating', () => {
    const h = harness();
    h.feed.applySnapshot(snapshot(1));
    h.feed.applySnapshot(snapshot(2));
    h.parse();
    expect(h.events.filter((event) => event.startsWith('hydrated'))).toEqual(['hydrated 2']);
  });
});

describe('the frame feed: acknowledgements', () => {
  it('acks the bytes of parsed frames at ackEvery, or 50 ms after the last output; never the snapshot’s', () => {
    const h = harness();
    h.feed.applySnapshot(snapshot(1));
    h.parse();
    h.feed.applyFrame(frame(2, 3_000));
    h.feed.applyFrame(frame(3, 1_000));
    expect(h.acked()).toBe(0); // written, not parsed yet
    h.parse();
    expect(h.sent).toEqual([]); // 4 000 < ackEvery: waits for more
    vi.advanceTimersByTime(50);
    expect(h.sent).toEqual([{ type: 'ack', session: 's', bytes: 4_000 }]);
    h.nextFrame();
    h.feed.applyFrame(frame(4, 6_000));
    h.parse();
    expect(h.sent.at(-1)).toEqual({ type: 'ack', session: 's', bytes: 6_000 });
  });

  it('behind: drops the frames not written yet and acks them at once; the fresh snapshot ends it', () => {
    const h = harness();
    h.feed.applySnapshot(snapshot(1));
    h.parse();
    for (let seq = 2; seq <= 5; seq += 1) h.feed.applyFrame(frame(seq, 1_000));
    expect(h.writes.filter((write) => write.startsWith('frame'))).toHaveLength(1); // the rest wait for it to be parsed
    h.feed.behind();
    expect(h.events).toContain('behind');
    expect(h.acked()).toBe(3_000); // the three never written
    h.parse(); // the written one: acked at once while behind (no waiting for ackEvery or the timer)
    expect(h.acked()).toBe(4_000);
    expect(h.writes.filter((write) => write.startsWith('frame'))).toHaveLength(1);
    h.feed.applySnapshot(snapshot(9));
    expect(h.feed.state.behind).toBe(false);
    expect(h.events.at(-1)).toBe('caught up');
  });

  it('dispose sends what is still unacknowledged', () => {
    const h = harness();
    h.feed.applySnapshot(snapshot(1));
    h.feed.applyFrame(frame(2, 100));
    h.parse();
    h.feed.dispose();
    expect(h.sent).toEqual([{ type: 'ack', session: 's', bytes: 100 }]);
    expect(h.pendingFrames()).toBe(0);
  });
});

describe('the frame feed: the write budget', () => {
  it('hands xterm at most a budget per animation frame, and the next batch only once the last one is parsed', () => {
    const h = harness();
    h.feed.applySnapshot(snapshot(1));
    h.parse();
    // An echo fits: written at once, no waiting for an animation frame.
    h.feed.applyFrame(frame(2, 3));
    expect(h.writes.at(-1)).toBe('frame 3');
    h.parse();
    const written = (): number => h.writes.filter((write) => write === `frame ${10 * 1024}`).length;
    for (let seq = 3; seq <= 6; seq += 1) h.feed.applyFrame(frame(seq, 10 * 1024));
    // The first goes at once; the others wait for it to be parsed.
    expect(written()).toBe(1);
    // Parsed: what is left of this animation frame's 16 K (6 K) lets one more go, overdrawing it.
    h.parse();
    expect(written()).toBe(2);
    // Parsed too, but the budget is spent until the next animation frame.
    h.parse();
    expect(written()).toBe(2);
    // The next animation frame refills it: the last two go in one batch (10 K, then 10 K overdrawing).
    h.nextFrame();
    expect(written()).toBe(4);
    expect(h.pendingFrames()).toBe(1);
  });

  it('adapts the budget so a full batch parses in about 8 ms: at most ×2 or ÷2 a step, within 4–64 K', () => {
    const fast = harness();
    fast.feed.applySnapshot(snapshot(1));
    fast.parse();
    let seq = 2;
    const grown: number[] = [];
    for (let round = 0; round < 4; round += 1) {
      const budget = fast.feed.state.budget;
      fast.feed.applyFrame(frame(seq++, budget)); // a full batch…
      fast.parse(1); // …parsed in 1 ms: the budget doubles
      fast.nextFrame();
      grown.push(fast.feed.state.budget);
    }
    expect(grown).toEqual([WRITE_BUDGET_START * 2, WRITE_BUDGET_MAX, WRITE_BUDGET_MAX, WRITE_BUDGET_MAX]);

    const slow = harness();
    slow.feed.applySnapshot(snapshot(1));
    slow.parse();
    seq = 2;
    const budgets: number[] = [];
    for (let round = 0; round < 4; round += 1) {
      slow.feed.applyFrame(frame(seq++, slow.feed.state.budget));
      slow.parse(40); // 40 ms: halves
      slow.nextFrame();
      budgets.push(slow.feed.state.budget);
    }
    expect(budgets).toEqual([WRITE_BUDGET_START / 2, WRITE_BUDGET_MIN, WRITE_BUDGET_MIN, WRITE_BUDGET_MIN]);
  });
});

describe('the frame feed: not shown', () => {
  it('parses nothing: acks frames at once, keeps them, and writes them (with a snapshot that came) when shown', () => {
    const h = harness({ shown: false });
    h.feed.applySnapshot(snapshot(1));
    h.feed.applyFrame(frame(2, 3_000));
    h.feed.applyFrame(frame(3, 3_000));
    expect(h.writes).toEqual([]);
    expect(h.acked()).toBe(6_000);
    expect(h.feed.state).toMatchObject({ skippedFrames: 2, renderedFrames: 0 });
    h.feed.setShown(true);
    expect(h.writes).toEqual(['snapshot 1', 'frame 3000', 'frame 3000']);
    h.parse();
    vi.advanceTimersByTime(100);
    expect(h.acked()).toBe(6_000); // not acked twice
  });

  it('a tab hidden mid-stream keeps what it had not written, acking it', () => {
    const h = harness();
    h.feed.applySnapshot(snapshot(1));
    h.parse();
    for (let seq = 2; seq <= 4; seq += 1) h.feed.applyFrame(frame(seq, 10 * 1024));
    h.feed.setShown(false);
    expect(h.acked()).toBe(2 * 10 * 1024); // the two never written (the first was)
    expect(h.feed.state.skippedFrames).toBe(2);
    expect(h.pendingFrames()).toBe(0);
  });

  it('past the backlog it keeps nothing and, when shown, asks for a fresh snapshot, catching up meanwhile', () => {
    const h = harness({ shown: false });
    h.feed.applySnapshot(snapshot(1));
    const size = 20_000;
    let seq = 2;
    for (let bytes = 0; bytes <= MAX_HIDDEN_BACKLOG_BYTES; bytes += size) h.feed.applyFrame(frame(seq++, size));
    expect(h.feed.state.stale).toBe(true);
    h.feed.setShown(true);
    expect(h.writes).toEqual([]);
    expect(h.events.slice(-2)).toEqual(['behind', 'resync']);
    expect(h.acked()).toBe((seq - 2) * size);
    expect(h.feed.state).toMatchObject({ stale: false, behind: true, seq: -1 });
  });

  it('showing an already shown feed changes nothing', () => {
    const h = harness();
    h.feed.applySnapshot(snapshot(1));
    h.feed.setShown(true);
    expect(h.writes).toEqual(['snapshot 1']);
  });
});
