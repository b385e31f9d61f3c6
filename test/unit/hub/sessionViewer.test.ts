/**
 * SessionViewer flow control with a scripted session: batching, numbering, the high/low
 * watermarks and the fresh snapshot a viewer gets instead of the backlog. The UiBridge's
 * drop of a connection that stopped reading, with a transport that never drains.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EventEmitter } from '../../../src/core/event.js';
import type { OutputFrame } from '../../../src/core/outputPipe.js';
import type { CommandRecord } from '../../../src/core/types.js';
import { SessionViewer, type ViewerLimits } from '../../../src/hub/sessionViewer.js';
import { UiBridge, DEFAULT_BRIDGE_LIMITS } from '../../../src/hub/uiBridge.js';
import type { UiHost } from '../../../src/hub/uiHost.js';
import type { HubMessage } from '../../../src/ui-protocol.js';

class FakeSession {
  readonly id = 's1';
  readonly frames = new EventEmitter<OutputFrame>();
  readonly finished = new EventEmitter<CommandRecord>();
  readonly onDidFrame = this.frames.event;
  readonly onDidFinishCommand = this.finished.event;
  bytes = 0;
  snapshots = 0;
  emit(data: string): void {
    this.bytes += data.length;
    this.frames.fire({ data, end: this.bytes });
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

const LIMITS: ViewerLimits = { highWatermark: 1_000, lowWatermark: 100, batchMs: 5, batchMaxChars: 400, transportHighBytes: 10_000, transportLowBytes: 1_000 };

function setup(buffered = (): number => 0): { session: FakeSession; sent: HubMessage[]; viewer: SessionViewer } {
  const session = new FakeSession();
  const sent: HubMessage[] = [];
  const viewer = new SessionViewer(session, { send: (m) => sent.push(m), bufferedAmount: buffered }, LIMITS);
  return { session, sent, viewer };
}

const flushed = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20));
const frames = (sent: HubMessage[]) => sent.filter((m) => m.type === 'frame');

describe('SessionViewer', () => {
  it('sends a snapshot, then batched frames numbered after it; frames already in the snapshot are skipped', async () => {
    const { session, sent, viewer } = setup();
    session.emit('before'); // arrives while the snapshot is taken: already in it
    await flushed();
    expect(sent[0]).toMatchObject({ type: 'snapshot', seq: 1, through: 6 });
    expect(sent[1]).toMatchObject({ type: 'commands', records: [] });
    session.emit('a');
    session.emit('b');
    await flushed();
    expect(frames(sent)).toEqual([{ type: 'frame', session: 's1', seq: 2, data: 'ab', end: 8 }]);
    viewer.dispose();
  });

  it('sends a large batch at once, stops at the high watermark, and resumes with a fresh snapshot at the low one', async () => {
    const { session, sent, viewer } = setup();
    await flushed();
    for (let i = 0; i < 30; i++) session.emit('x'.repeat(100));
    await flushed();
    const sentChars = frames(sent).reduce((sum, f) => sum + (f.type === 'frame' ? f.data.length : 0), 0);
    expect(sentChars).toBeLessThanOrEqual(LIMITS.highWatermark);
    expect(sent.some((m) => m.type === 'behind')).toBe(true);
    expect(viewer.status.mode).toBe('behind');
    const count = sent.length;
    session.emit('dropped');
    await flushed();
    expect(sent.length).toBe(count); // nothing queued for a behind viewer
    viewer.ack(sentChars - 200); // 200 unacked: above the low watermark, still behind
    await flushed();
    expect(viewer.status.mode).toBe('behind');
    viewer.ack(200);
    await flushed();
    const fresh = sent.filter((m) => m.type === 'snapshot').at(-1);
    expect(fresh).toMatchObject({ data: 'snapshot-2' });
    expect(fresh?.type === 'snapshot' && fresh.seq).toBeGreaterThan(Math.max(...frames(sent).map((f) => (f.type === 'frame' ? f.seq : 0))));
    session.emit('live');
    await flushed();
    expect(sent.at(-1)).toMatchObject({ type: 'frame', data: 'live', seq: (fresh as { seq: number }).seq + 1 });
    viewer.dispose();
  });

  it('falls behind when the transport backs up, and catches up on a tick once it drains', async () => {
    let buffered = 0;
    const { session, sent, viewer } = setup(() => buffered);
    await flushed();
    buffered = 50_000;
    session.emit('y');
    expect(viewer.status.mode).toBe('behind');
    viewer.tick();
    await flushed();
    expect(sent.filter((m) => m.type === 'snapshot')).toHaveLength(1);
    buffered = 0;
    viewer.tick();
    await flushed();
    expect(sent.filter((m) => m.type === 'snapshot')).toHaveLength(2);
    viewer.dispose();
  });
});

describe('UiBridge', () => {
  afterEach(() => vi.useRealTimers());

  it('drops a connection whose transport stays backed up, and never crashes on bad input', () => {
    vi.useFakeTimers();
    const noop = { dispose: () => undefined };
    const host = { onDidChangeSession: () => noop, onDidRemoveSession: () => noop, list: () => [], version: 't', logger: { info() {}, warn() {}, error() {} } } as unknown as UiHost;
    const sent: HubMessage[] = [];
    const close = vi.fn();
    const bridge = new UiBridge(host, { send: (m) => sent.push(m), bufferedAmount: () => 10_000_000, close }, () => undefined, { ...DEFAULT_BRIDGE_LIMITS, stuckMs: 100, tickMs: 10 });
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
