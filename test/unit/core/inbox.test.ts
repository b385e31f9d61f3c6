/**
 * The pty host's output reaches the main thread through an Inbox (src/core/inbox.ts): in
 * order, a budget of bytes per turn of the event loop, so timers and sockets run in between.
 */
import { describe, expect, it } from 'vitest';
import { Inbox } from '../../../src/core/inbox.js';

/** Turns of the event loop, counted by an immediate that renews itself (one per turn). */
function turnCounter(): { readonly turn: number; stop(): void } {
  let turn = 0;
  let timer = setImmediate(function tick() {
    turn++;
    timer = setImmediate(tick);
  });
  return {
    get turn() {
      return turn;
    },
    stop: () => clearImmediate(timer),
  };
}

describe('Inbox', () => {
  it('hands messages over in order, at most a budget of bytes (at least one message) per turn', async () => {
    const turns = turnCounter();
    const handled: { id: number; turn: number }[] = [];
    let allHandled!: () => void;
    const done = new Promise<void>((resolve) => (allHandled = resolve));
    const inbox = new Inbox<{ id: number; bytes: number }>(
      (message) => {
        handled.push({ id: message.id, turn: turns.turn });
        if (message.id === 10) allHandled();
      },
      (message) => message.bytes,
      64,
    );
    // 30-byte messages: three per turn (30, 60, then 90 ≥ 64); a 500-byte one goes alone.
    for (let id = 0; id < 9; id++) inbox.push({ id, bytes: 30 });
    inbox.push({ id: 9, bytes: 500 });
    inbox.push({ id: 10, bytes: 0 });
    await done;
    turns.stop();
    expect(handled.map((entry) => entry.id)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const perTurn = new Map<number, number[]>();
    for (const entry of handled) perTurn.set(entry.turn, [...(perTurn.get(entry.turn) ?? []), entry.id]);
    expect([...perTurn.values()]).toEqual([[0, 1, 2], [3, 4, 5], [6, 7, 8], [9], [10]]);
  });

  it('drain hands over everything waiting at once', () => {
    const handled: number[] = [];
    const inbox = new Inbox<number>((message) => handled.push(message), () => 1_000, 1);
    for (let id = 0; id < 5; id++) inbox.push(id);
    expect(handled).toEqual([]);
    inbox.drain();
    expect(handled).toEqual([0, 1, 2, 3, 4]);
  });
});
