/**
 * A value that changes only through a reducer, and the listeners told of each change. The
 * reducer's effects go back to whoever dispatched, after the listeners have seen the new value.
 */
type Reducer<S, E, F> = (state: S, event: E) => { state: S; effects: F[] };
type StoreListener<S> = (state: S, previous: S) => void;

export class Store<S, E, F> {
  private readonly listeners = new Set<StoreListener<S>>();

  constructor(
    private readonly reducer: Reducer<S, E, F>,
    private current: S,
  ) {}

  get state(): S {
    return this.current;
  }

  /** Reduces `event`; when the state changed, tells every listener (new, previous). */
  dispatch(event: E): F[] {
    const previous = this.current;
    const { state, effects } = this.reducer(previous, event);
    if (state !== previous) {
      this.current = state;
      for (const listener of this.listeners) listener(state, previous);
    }
    return effects;
  }

  subscribe(listener: StoreListener<S>): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
