/**
 * What the hub owns, registered as it is made and released when it stops: the core's
 * DisposableStore (src/core/event.ts), with stages, because the hub's parts must go in an order
 * (no new calls before the sessions end, the records after the sessions that write them, the
 * files saying a hub runs last) and some of them close asynchronously. Within a stage, the last
 * registered is released first. One failing release does not stop the others.
 */

/** In the order they are released. */
export const STAGES = ['intake', 'endpoints', 'sessions', 'records', 'state'] as const;
export type Stage = (typeof STAGES)[number];

export type Release = () => void | Promise<void>;

export class StagedDisposables {
  private readonly stages = new Map<Stage, Release[]>(STAGES.map((stage) => [stage, []]));
  private disposed = false;

  /** Owns `release` from now on; after `dispose()` it runs at once (errors ignored). */
  add(stage: Stage, release: Release): void {
    if (!this.disposed) {
      this.stages.get(stage)!.push(release);
      return;
    }
    void (async () => release())().catch(() => undefined);
  }

  /** Releases everything once, stage by stage; resolves with what failed (empty when nothing did). */
  async dispose(): Promise<unknown[]> {
    if (this.disposed) return [];
    this.disposed = true;
    const errors: unknown[] = [];
    for (const stage of STAGES) {
      const releases = this.stages.get(stage)!.splice(0).reverse();
      for (const release of releases) {
        try {
          await release();
        } catch (error) {
          errors.push(error);
        }
      }
    }
    return errors;
  }
}
