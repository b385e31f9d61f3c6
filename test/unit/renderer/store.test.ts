import { describe, expect, it } from 'vitest';
import { Store } from '../../../renderer/src/store.js';

type Event = { add: number } | { say: string };
const reducer = (state: { total: number }, event: Event): { state: { total: number }; effects: string[] } =>
  'add' in event ? { state: event.add === 0 ? state : { total: state.total + event.add }, effects: [] } : { state, effects: [event.say] };

describe('the store', () => {
  it('tells its listeners of each change (new and previous state), then hands back the effects', () => {
    const store = new Store(reducer, { total: 0 });
    const seen: [number, number][] = [];
    const stop = store.subscribe((state, previous) => seen.push([state.total, previous.total]));
    expect(store.dispatch({ add: 2 })).toEqual([]);
    expect(store.dispatch({ add: 3 })).toEqual([]);
    expect(store.state).toEqual({ total: 5 });
    expect(seen).toEqual([
      [2, 0],
      [5, 2],
    ]);
    stop();
    store.dispatch({ add: 1 });
    expect(seen).toHaveLength(2);
  });

  it('tells no one when the reducer gives back the same state, and still hands back its effects', () => {
    const store = new Store(reducer, { total: 1 });
    let calls = 0;
    store.subscribe(() => (calls += 1));
    expect(store.dispatch({ add: 0 })).toEqual([]);
    expect(store.dispatch({ say: 'hi' })).toEqual(['hi']);
    expect(calls).toBe(0);
  });

  it('listeners see the new state already in place', () => {
    const store = new Store(reducer, { total: 0 });
    let inside = -1;
    store.subscribe(() => (inside = store.state.total));
    store.dispatch({ add: 7 });
    expect(inside).toBe(7);
  });
});
