/**
 * Typed events in the VS Code style: a private emitter, a public `event` property.
 *
 *   private readonly onDidExitEmitter = new EventEmitter<number>();
 *   readonly onDidExit = this.onDidExitEmitter.event;
 */
export interface Disposable {
  dispose(): void;
}

export type Event<T> = (listener: (value: T) => void) => Disposable;

export class EventEmitter<T> implements Disposable {
  private listeners = new Set<(value: T) => void>();
  private disposed = false;

  readonly event: Event<T> = (listener) => {
    if (this.disposed) return { dispose: () => {} };
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  };

  fire(value: T): void {
    for (const listener of [...this.listeners]) listener(value);
  }

  get hasListeners(): boolean {
    return this.listeners.size > 0;
  }

  dispose(): void {
    this.disposed = true;
    this.listeners.clear();
  }
}

/** Resolves with the next value of `event` for which `predicate` holds. */
export function nextEvent<T>(event: Event<T>, predicate: (value: T) => boolean = () => true): { promise: Promise<T>; dispose(): void } {
  let subscription: Disposable | undefined;
  const promise = new Promise<T>((resolve) => {
    subscription = event((value) => {
      if (!predicate(value)) return;
      subscription?.dispose();
      resolve(value);
    });
  });
  return { promise, dispose: () => subscription?.dispose() };
}

/** Owns a set of disposables and releases them once, in reverse order. */
export class DisposableStore implements Disposable {
  private items: Disposable[] = [];
  private disposed = false;

  add<T extends Disposable>(item: T): T {
    if (this.disposed) item.dispose();
    else this.items.push(item);
    return item;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const item of this.items.reverse()) item.dispose();
    this.items = [];
  }
}
