/**
 * SessionViewer flow control with a scripted session: batching, numbering, the high/low
 * watermarks and the fresh snapshot a viewer gets instead of the backlog. The UiBridge's
 * drop of a connection that stopped reading, with a transport that never drains.
 *
 * The viewer is driven by its timers (batch, quiet spell, catch-up interval) and the session's
 * snapshot promise: every test runs on Vitest's fake clock and advances it by the interval it
 * is about, never sleeps.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EventEmitter } from '../../../../src/core/event.js';
import type { OutputFrame } from '../../../../src/core/session/outputPipe.js';
import type { CommandRecord } from '../../../../src/core/types.js';
import { SessionViewer, type ViewerLimits } from '../../../../src/hub/ui/sessionViewer.js';
import { UiBridge, DEFAULT_BRIDGE_LIMITS } from '../../../../src/hub/ui/uiBridge.js';
import type { UiHost } from '../../../../src/hub/ui/uiHost.js';
import type { HubMessage } from '../../../../src/ui-protocol/index.js';

class FakeSession {
  readonly id = 's1';
  readonly frames = new EventEmitter<OutputFrame>();
  readonly finished = new EventEmitter<CommandRecord>();
  readonly onDidFrame = this.frames.event;
  readonly onDidFinishCommand = this.finished.event;
  bytes = 0;
  snapshots = 0;
  unfinishedOutput: Uint8Array = new Uint8Array(0);
  emit(data: string | Uint8Array): void {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    this.bytes += bytes.length;
    this.frames.fire({ data: bytes, end: this.bytes });
  }
  async snapshot(): Promise<{ data: string; cols: number; rows: number; through: number }> {
    await Promise.resolve(); // like the emulator: parsing catches up first
    this.snapshots++;
    return { data: `snapshot-${this.snapshots}`, cols: 80, rows: 24, through: this.bytes };
  }
  commands(): CommandRecord[] {
    return [];
  }
}

const LIMITS: ViewerLimits = {
  highWatermark: 1_000,
  lowWatermark: 100,
  batchMs: 5,
  batchMaxBytes: 400,
  transportHighBytes: 10_000,
  transportLowBytes: 1_000,
  catchUpIntervalMs: 200,
  quietMs: 30,
};

function setup(buffered = (): number => 0, limits: ViewerLimits = LIMITS): { session: FakeSession; sent: HubMessage[]; viewer: SessionViewer } {
  const session = new FakeSession();
  const sent: HubMessage[] = [];
  const viewer = new SessionViewer(session, { send: (m) => sent.push(m), bufferedAmount: buffered }, limits);
  return { session, sent, viewer };
}

/** Lets the snapshot the viewer asked for resolve (a promise chain; no time passes). */
const snapshotTaken = async (): Promise<void> => {
  await vi.advanceTimersByTimeAsync(0);
};
/** One batch interval passes: a batch that waited for its timer goes out. */
const batchPassed = async (): Promise<void> => {
  await vi.advanceTimersByTimeAsync(LIMITS.batchMs);
};
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
/** A message with a frame's bytes as text (frames carry UTF-8). */
const asText = (m: HubMessage | undefined) => (m?.type === 'frame' ? { ...m, data: Buffer.from(m.data).toString('utf8') } : m);
const frames = (sent: HubMessage[]) => sent.flatMap((m) => (m.type === 'frame' ? [{ ...m, data: Buffer.from(m.data).toString('utf8') }] : []));

describe('SessionViewer', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sends a snapshot, then batched frames numbered after it; frames already in the snapshot are skipped', async () => {
    const { session, sent, viewer } = setup();
    session.emit('before'); // arrives while the snapshot is taken: already in it
    await snapshotTaken();
    expect(sent[0]).toMatchObject({ type: 'snapshot', seq: 1, through: 6 });
    expect(sent[1]).toMatchObject({ type: 'commands', records: [] });
    // The first output after a quiet spell goes out at once (an echo waits for no timer)…
    session.emit('a');
    expect(frames(sent)).toEqual([{ type: 'frame', session: 's1', seq: 2, data: 'a', end: 7 }]);
    // …what follows within the batch interval is batched.
    session.emit('b');
    session.emit('c');
    expect(frames(sent)).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(LIMITS.batchMs - 1);
    expect(frames(sent)).toHaveLength(1); // the batch waits for its interval…
    await vi.advanceTimersByTimeAsync(1); // …and goes out when it has passed
    expect(frames(sent)).toEqual([
      { type: 'frame', session: 's1', seq: 2, data: 'a', end: 7 },
      { type: 'frame', session: 's1', seq: 3, data: 'bc', end: 9 },
    ]);
    viewer.dispose();
  });

  it('sends a large batch at once, stops at the high watermark, and resumes with a fresh snapshot at the low one', async () => {
    const { session, sent, viewer } = setup();
    await snapshotTaken();
    for (let i = 0; i < 30; i++) session.emit('x'.repeat(100));
    await batchPassed();
    const sentChars = frames(sent).reduce((sum, f) => sum + (f.type === 'frame' ? f.data.length : 0), 0);
    expect(sentChars).toBeLessThanOrEqual(LIMITS.highWatermark);
    expect(sent.some((m) => m.type === 'behind')).toBe(true);
    expect(viewer.status.mode).toBe('behind');
    const count = sent.length;
    session.emit('dropped');
    await batchPassed();
    expect(sent.length).toBe(count); // nothing queued for a behind viewer
    viewer.ack(sentChars - 200); // 200 unacked: above the low watermark, still behind
    await vi.advanceTimersByTimeAsync(LIMITS.catchUpIntervalMs);
    expect(viewer.status.mode).toBe('behind');
    expect(session.snapshots).toBe(1);
    viewer.ack(200); // drained, and the output has been quiet for longer than quietMs: at once
    await snapshotTaken();
    const fresh = sent.filter((m) => m.type === 'snapshot').at(-1);
    expect(fresh).toMatchObject({ data: 'snapshot-2' });
    expect(fresh?.type === 'snapshot' && fresh.seq).toBeGreaterThan(Math.max(...frames(sent).map((f) => (f.type === 'frame' ? f.seq : 0))));
    session.emit('live'); // the first output after a quiet spell: at once
    expect(asText(sent.at(-1))).toMatchObject({ type: 'frame', data: 'live', seq: (fresh as { seq: number }).seq + 1 });
    viewer.dispose();
  });

  it('sends whole characters, and after dropping frames starts with the character they left open', async () => {
    const { session, sent, viewer } = setup();
    await vi.advanceTimersByTimeAsync(1);
    const kanji = Buffer.from('界');
    session.emit(Buffer.concat([Buffer.from('a'), kanji.subarray(0, 1)]));
    session.emit(kanji.subarray(1));
    await vi.advanceTimersByTimeAsync(LIMITS.batchMs);
    expect(
      frames(sent)
        .map((f) => f.type === 'frame' && f.data)
        .join(''),
    ).toBe('a界');
    for (let i = 0; i < 11; i++) session.emit('x'.repeat(100));
    expect(viewer.status.mode).toBe('behind');
    session.emit(Buffer.concat([Buffer.from('dropped'), kanji.subarray(0, 2)])); // ends inside 界
    viewer.ack(1_000_000);
    await vi.advanceTimersByTimeAsync(LIMITS.quietMs); // the output stopped: the catch-up
    expect(sent.at(-1)).toMatchObject({ type: 'snapshot', through: session.bytes });
    session.emit(Buffer.concat([kanji.subarray(2), Buffer.from('c')]));
    expect(asText(sent.at(-1))).toMatchObject({ type: 'frame', data: '界c' });
    viewer.dispose();
  });

  it('joins a character the output before it left open to its first frame', async () => {
    const session = new FakeSession();
    const kanji = Buffer.from('界');
    session.unfinishedOutput = kanji.subarray(0, 2); // the PTY's last chunk ended inside 界
    const sent: HubMessage[] = [];
    const viewer = new SessionViewer(session, { send: (m) => sent.push(m), bufferedAmount: () => 0 }, LIMITS);
    await snapshotTaken();
    session.emit(Buffer.concat([kanji.subarray(2), Buffer.from('!')]));
    expect(asText(sent.at(-1))).toMatchObject({ type: 'frame', data: '界!' });
    viewer.dispose();
  });

  it('sends bytes that are not UTF-8 as U+FFFD, as the emulator shows them, and so a character the session ends inside', async () => {
    const { session, sent, viewer } = setup();
    await snapshotTaken();
    const emoji = Buffer.from('😀');
    session.emit(Buffer.from([0x61, 0xff, 0x62])); // a, a byte no UTF-8 has, b
    session.emit(Buffer.concat([Buffer.from('c'), emoji.subarray(0, 2)]));
    await batchPassed();
    viewer.finish();
    const bytes = Buffer.concat(sent.flatMap((m) => (m.type === 'frame' ? [m.data] : [])));
    expect(bytes).toEqual(Buffer.from('a\ufffdbc\ufffd'));
    // Each frame on its own is valid UTF-8 (xterm.js drops what is not).
    for (const m of sent) if (m.type === 'frame') expect(() => strictUtf8.decode(m.data)).not.toThrow();
  });

  it('cuts a stream of mixed characters split anywhere into frames of whole characters that add up to it', async () => {
    const { session, sent, viewer } = setup(undefined, { ...LIMITS, highWatermark: 1_000_000, batchMaxBytes: 7 });
    await snapshotTaken();
    const all = Buffer.from('ab界😀é-'.repeat(20));
    for (let at = 0, step = 1; at < all.length; at += step, step = (step % 5) + 1) session.emit(all.subarray(at, at + step));
    await batchPassed();
    const sentFrames = sent.filter((m) => m.type === 'frame');
    for (const m of sentFrames) expect(() => strictUtf8.decode(m.data)).not.toThrow(); // whole characters
    expect(Buffer.concat(sentFrames.map((m) => m.data))).toEqual(all);
    viewer.dispose();
  });

  it('falls behind when the transport backs up, and catches up on a tick once it drains', async () => {
    let buffered = 0;
    const { session, sent, viewer } = setup(() => buffered);
    await snapshotTaken();
    buffered = 50_000;
    session.emit('y');
    expect(viewer.status.mode).toBe('behind');
    // Ticks while the transport stays backed up, past the catch-up interval: no snapshot.
    for (let t = 0; t < LIMITS.catchUpIntervalMs; t += 50) {
      viewer.tick();
      await vi.advanceTimersByTimeAsync(50);
    }
    expect(sent.filter((m) => m.type === 'snapshot')).toHaveLength(1);
    buffered = 0;
    viewer.tick();
    await snapshotTaken();
    expect(sent.filter((m) => m.type === 'snapshot')).toHaveLength(2);
    viewer.dispose();
  });

  it('when a flood outruns the snapshot being taken, sends it anyway and says behind: no second serialization at once', async () => {
    const { session, sent, viewer } = setup(undefined, { ...LIMITS, catchUpIntervalMs: 1_000, quietMs: 100 });
    for (let i = 0; i < 12; i++) session.emit('y'.repeat(100)); // while the snapshot is taken
    await vi.advanceTimersByTimeAsync(1);
    expect(sent.map((m) => m.type)).toEqual(['snapshot', 'commands', 'behind']);
    expect(session.snapshots).toBe(1);
    expect(viewer.status.mode).toBe('behind');
    // The flood goes on: the next snapshot waits (interval, or the flood stopping).
    for (let t = 0; t < 500; t += 20) {
      session.emit('y');
      await vi.advanceTimersByTimeAsync(20);
    }
    expect(session.snapshots).toBe(1);
    await vi.advanceTimersByTimeAsync(100);
    expect(session.snapshots).toBe(2);
    expect(sent.at(-1)).toMatchObject({ type: 'snapshot', seq: 2, through: session.bytes });
    viewer.dispose();
  });

  it('when the session ends while the viewer is behind, sends its last screen before letting go', async () => {
    const { session, sent, viewer } = setup(undefined, { ...LIMITS, catchUpIntervalMs: 1_000, quietMs: 100 });
    await vi.advanceTimersByTimeAsync(1);
    for (let i = 0; i < 12; i++) session.emit('y'.repeat(100));
    viewer.ack(viewer.status.unacked);
    await vi.advanceTimersByTimeAsync(100);
    expect(session.snapshots).toBe(2); // the output stopped: the catch-up
    for (let i = 0; i < 12; i++) session.emit('y'.repeat(100));
    viewer.ack(viewer.status.unacked);
    session.emit('exit output');
    expect(viewer.status.mode).toBe('behind'); // the next catch-up waits for the interval
    viewer.finish();
    await vi.advanceTimersByTimeAsync(1);
    expect(session.snapshots).toBe(3);
    expect(sent.at(-1)).toMatchObject({ type: 'snapshot', through: session.bytes });
    session.emit('after the end');
    await vi.advanceTimersByTimeAsync(2_000);
    expect(sent.at(-1)).toMatchObject({ type: 'snapshot', through: session.bytes - 'after the end'.length });
  });

  it('when the session ends, a viewer sent more than the high watermark since its snapshot gets a last one (it may not have drawn them); others do not', async () => {
    const quiet = setup();
    await snapshotTaken();
    quiet.session.emit('a little');
    quiet.viewer.finish();
    expect(frames(quiet.sent).at(-1)).toMatchObject({ data: 'a little' });
    await vi.advanceTimersByTimeAsync(LIMITS.catchUpIntervalMs);
    expect(quiet.session.snapshots).toBe(1);

    const hidden = setup();
    await snapshotTaken();
    for (let i = 0; i < 6; i++) {
      hidden.session.emit('y'.repeat(300)); // a hidden tab acks at once, without drawing
      await batchPassed();
      hidden.viewer.ack(hidden.viewer.status.unacked);
    }
    expect(hidden.viewer.status.mode).toBe('live');
    hidden.session.emit('last line');
    hidden.viewer.finish();
    await snapshotTaken();
    expect(hidden.session.snapshots).toBe(2);
    expect(hidden.sent.at(-1)).toMatchObject({ type: 'snapshot', through: hidden.session.bytes });
  });

  it('under a lasting flood, a viewer that falls behind gets a fresh snapshot once per interval after falling behind, and at once when the flood stops', async () => {
    const { session, sent, viewer } = setup(undefined, { ...LIMITS, catchUpIntervalMs: 1_000, quietMs: 100 });
    await vi.advanceTimersByTimeAsync(1);
    const snapshots = (): number => sent.filter((m) => m.type === 'snapshot').length;
    const unackedChars = (): number => viewer.status.unacked;
    expect(snapshots()).toBe(1);
    // A window that acks everything it was sent but only after the flood outran it.
    const fallBehindAndAck = (): void => {
      for (let i = 0; i < 12; i++) session.emit('y'.repeat(100));
      expect(viewer.status.mode).toBe('behind');
      viewer.ack(unackedChars());
    };
    const flood = async (ms: number): Promise<void> => {
      for (let t = 0; t < ms; t += 20) {
        session.emit('y'.repeat(10));
        await vi.advanceTimersByTimeAsync(20);
      }
    };
    // The flood starts and goes on (a frame every 20 ms): no snapshot as it starts, whose
    // serialization would only show its first moment and hold every other session up.
    fallBehindAndAck();
    await flood(900);
    expect(snapshots()).toBe(1);
    await flood(200);
    expect(snapshots()).toBe(2); // once the interval has passed, flood or not
    expect(viewer.status.mode).toBe('live');
    // Behind again; then the flood stops: the catch-up comes quietMs after the last output.
    fallBehindAndAck();
    session.emit('final screen');
    await vi.advanceTimersByTimeAsync(90);
    expect(snapshots()).toBe(2);
    await vi.advanceTimersByTimeAsync(20);
    expect(snapshots()).toBe(3);
    expect(sent.filter((m) => m.type === 'snapshot').at(-1)).toMatchObject({ through: session.bytes });
    viewer.dispose();
  });
});

describe('UiBridge', () => {
  afterEach(() => vi.useRealTimers());

  it('drops a connection whose transport stays backed up, and never crashes on bad input', () => {
    vi.useFakeTimers();
    const noop = { dispose: () => undefined };
    const host = {
      onDidChangeSession: () => noop,
      onDidRemoveSession: () => noop,
      list: () => [],
      version: 't',
      logger: { info() {}, warn() {}, error() {} },
    } as unknown as UiHost;
    const sent: HubMessage[] = [];
    const close = vi.fn();
    const bridge = new UiBridge(host, { send: (m) => sent.push(m), bufferedAmount: () => 10_000_000, close, channel: 'window' }, () => undefined, {
      ...DEFAULT_BRIDGE_LIMITS,
      stuckMs: 100,
      tickMs: 10,
    });
    bridge.receive('{');
    bridge.receive({ type: 'input', session: 's1', data: 'x' });
    bridge.receive(42);
    expect(sent.map((m) => m.type === 'error' && m.code)).toEqual(['BAD_MESSAGE', 'PROTOCOL', 'BAD_MESSAGE']);
    vi.advanceTimersByTime(50);
    expect(close).not.toHaveBeenCalled();
    vi.advanceTimersByTime(100);
    expect(close).toHaveBeenCalledOnce();
  });
});
