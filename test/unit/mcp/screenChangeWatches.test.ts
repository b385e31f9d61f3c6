/**
 * When a subscribed screen is said to have changed (src/mcp/screenChangeWatches.ts, docs/design.md
 * §3.7): at most twice a second per session, once the change settles, only when the text really
 * changed, never a backlog after a flood; one watch per session whoever subscribes, and none
 * once the last subscriber goes. On a fake clock, so the rule itself is what is checked; through
 * real clients and shells: test/integration/resources.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EventEmitter } from '../../../src/core/index.js';
import { SCREEN_SETTLE_MS, SCREEN_UPDATE_INTERVAL_MS, ScreenChangeWatches, type ScreenSource } from '../../../src/mcp/screenChangeWatches.js';
import { screenUri } from '../../../src/mcp/sessionScreens.js';

class FakeScreen {
  readonly changes = new EventEmitter<void>();
  readonly onDidChangeScreen = this.changes.event;
  text = 'prompt $';
  renders = 0;
  /** When set, a render waits for it (a slow replay). */
  hold: Promise<void> | undefined;
  constructor(readonly id: string) {}

  /** New output: the text changes and the session says so. */
  print(text: string): void {
    this.text = text;
    this.changes.fire();
  }
}

function source(screens: FakeScreen[]): ScreenSource & { errors: unknown[] } {
  const errors: unknown[] = [];
  return {
    errors,
    live: (ref) => screens.find((screen) => screen.id === ref),
    render: async (id) => {
      const screen = screens.find((s) => s.id === id)!;
      screen.renders++;
      const text = screen.text; // read at once, as the emulator is
      await screen.hold;
      return text;
    },
    onError: (error) => errors.push(error),
  };
}

let a: FakeScreen;
let b: FakeScreen;
let updates: ScreenChangeWatches;
let told: { uri: string; at: number; text: string }[];

const follow = (screen: FakeScreen): { dispose(): void } =>
  updates.watch(screenUri(screen.id), () => told.push({ uri: screenUri(screen.id), at: Date.now(), text: screen.text }));

beforeEach(async () => {
  vi.useFakeTimers();
  a = new FakeScreen('aaaaaa');
  b = new FakeScreen('bbbbbb');
  updates = new ScreenChangeWatches(source([a, b]));
  told = [];
});

afterEach(() => {
  updates.dispose();
  vi.useRealTimers();
});

describe('ScreenChangeWatches', () => {
  it('watches nothing until someone subscribes, and nothing once the last one has gone', async () => {
    expect(a.changes.hasListeners).toBe(false);
    const first = follow(a);
    const second = follow(a);
    expect(a.changes.hasListeners).toBe(true);
    expect(b.changes.hasListeners).toBe(false);
    expect(updates.watchedSessions).toBe(1);
    expect(updates.subscriberCount).toBe(2);
    first.dispose();
    first.dispose(); // twice is once
    expect(updates.subscriberCount).toBe(1);
    expect(a.changes.hasListeners).toBe(true);
    second.dispose();
    expect(a.changes.hasListeners).toBe(false);
    expect(updates.watchedSessions).toBe(0);
    // A change now is nobody's business: no render, no timer.
    await vi.advanceTimersByTimeAsync(0);
    const renders = a.renders;
    a.print('later');
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(a.renders).toBe(renders);
  });

  it('tells a change once it has settled, and only when the text changed', async () => {
    follow(a);
    await vi.advanceTimersByTimeAsync(0); // the text as it was when the watch began
    a.print('$ echo hi\nhi');
    await vi.advanceTimersByTimeAsync(SCREEN_SETTLE_MS - 1);
    expect(told).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(told.map((t) => t.text)).toEqual(['$ echo hi\nhi']);
    // The session fired, but the screen reads the same: nothing to tell.
    a.changes.fire();
    await vi.advanceTimersByTimeAsync(2 * SCREEN_UPDATE_INTERVAL_MS);
    expect(told).toHaveLength(1);
    // A change that is undone before it settles is no change.
    a.print('$ typing');
    a.print('$ echo hi\nhi');
    await vi.advanceTimersByTimeAsync(2 * SCREEN_UPDATE_INTERVAL_MS);
    expect(told).toHaveLength(1);
  });

  it('a change right after an update waits for the interval, not longer', async () => {
    follow(a);
    await vi.advanceTimersByTimeAsync(0);
    a.print('one');
    await vi.advanceTimersByTimeAsync(SCREEN_SETTLE_MS);
    const first = told[0]!.at;
    a.print('two');
    await vi.advanceTimersByTimeAsync(SCREEN_UPDATE_INTERVAL_MS);
    expect(told.map((t) => t.text)).toEqual(['one', 'two']);
    expect(told[1]!.at - first).toBe(SCREEN_UPDATE_INTERVAL_MS);
  });

  it('a flood is told at most twice a second, each time as it is then, and once more when it stops: no backlog', async () => {
    follow(a);
    await vi.advanceTimersByTimeAsync(0);
    const start = Date.now();
    // 4.75 s of output, a chunk every millisecond, each changing the screen.
    const chunks = 4_750;
    for (let i = 1; i <= chunks; i++) {
      a.print(`line ${i}`);
      await vi.advanceTimersByTimeAsync(1);
    }
    const during = told.length;
    expect(during).toBeLessThanOrEqual(Math.floor(chunks / SCREEN_UPDATE_INTERVAL_MS));
    expect(during).toBeGreaterThanOrEqual(Math.floor(chunks / SCREEN_UPDATE_INTERVAL_MS) - 1);
    for (let i = 1; i < told.length; i++) expect(told[i]!.at - told[i - 1]!.at).toBeGreaterThanOrEqual(SCREEN_UPDATE_INTERVAL_MS);
    // Each told the screen of its moment, not an old one.
    for (const update of told) expect(update.text).toBe(`line ${update.at - start}`);
    // The flood stops: one update with the last screen, then nothing queued.
    await vi.advanceTimersByTimeAsync(10_000);
    expect(told.length).toBe(during + 1);
    expect(told.at(-1)!.text).toBe(`line ${chunks}`);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('output in bursts that each settle (a build printing every 80 ms) is told twice a second too', async () => {
    follow(a);
    await vi.advanceTimersByTimeAsync(0);
    for (let i = 1; i <= 60; i++) {
      a.print(`step ${i}`);
      await vi.advanceTimersByTimeAsync(80);
    }
    expect(told.length).toBeLessThanOrEqual(Math.ceil((60 * 80) / SCREEN_UPDATE_INTERVAL_MS));
    for (let i = 1; i < told.length; i++) expect(told[i]!.at - told[i - 1]!.at).toBeGreaterThanOrEqual(SCREEN_UPDATE_INTERVAL_MS);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(told.at(-1)!.text).toBe('step 60');
  });

  it('keeps at most one render in flight: changes during a slow one make one more, not a queue', async () => {
    follow(a);
    await vi.advanceTimersByTimeAsync(0);
    let release!: () => void;
    a.hold = new Promise((resolve) => (release = resolve));
    a.print('slow 1');
    await vi.advanceTimersByTimeAsync(SCREEN_SETTLE_MS);
    const renders = a.renders;
    for (let i = 2; i <= 50; i++) {
      a.print(`slow ${i}`);
      await vi.advanceTimersByTimeAsync(100);
    }
    expect(a.renders).toBe(renders); // still waiting on the first
    a.hold = undefined;
    release();
    await vi.advanceTimersByTimeAsync(SCREEN_UPDATE_INTERVAL_MS);
    expect(a.renders).toBe(renders + 1);
    // The first render's news, then one for everything that came while it ran.
    expect(told).toHaveLength(2);
  });

  it('every subscriber of a session gets each update; sessions are watched apart', async () => {
    const more: string[] = [];
    follow(a);
    updates.watch(screenUri(a.id), () => more.push('second'));
    follow(b);
    await vi.advanceTimersByTimeAsync(0);
    a.print('a changed');
    await vi.advanceTimersByTimeAsync(SCREEN_SETTLE_MS);
    expect(told.map((t) => t.uri)).toEqual([screenUri(a.id)]);
    expect(more).toEqual(['second']);
    b.print('b changed');
    await vi.advanceTimersByTimeAsync(SCREEN_SETTLE_MS);
    expect(told.map((t) => t.uri)).toEqual([screenUri(a.id), screenUri(b.id)]);
  });

  it('a screen that cannot change (ended, unknown, not a screen) is watched by nothing', () => {
    for (const uri of [screenUri('gone00'), 'switchboard://sessions/aaaaaa/history', 'file:///etc/passwd']) {
      updates.watch(uri, () => told.push({ uri, at: 0, text: '' })).dispose();
    }
    expect(updates.watchedSessions).toBe(0);
    expect(a.changes.hasListeners).toBe(false);
  });

  it('a render that fails skips that update and is reported', async () => {
    const failing = source([a]);
    failing.render = async () => {
      throw new Error('transcript gone');
    };
    const own = new ScreenChangeWatches(failing);
    const got: string[] = [];
    own.watch(screenUri(a.id), () => got.push('update'));
    a.print('x');
    await vi.advanceTimersByTimeAsync(SCREEN_UPDATE_INTERVAL_MS);
    expect(got).toEqual([]);
    expect(failing.errors.map((e) => (e as Error).message)).toEqual(['transcript gone']);
    own.dispose();
    expect(a.changes.hasListeners).toBe(false);
  });
});
