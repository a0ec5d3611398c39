import type { StorageWatch } from '../storage.js';

/**
 * Asks storage for a progress notification every interval while anyone waits for the cache to
 * reach a revision (k8s.io/apiserver pkg/storage/cacher/progress/watch_progress.go
 * ConditionalProgressRequester): a quiet resource's watch carries no events, so without it the
 * cache would not learn that storage's revision moved on and a consistent read would time out.
 */
export class ConditionalProgressRequester {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly watch: () => StorageWatch | undefined,
    private readonly waiting: () => boolean,
    private readonly intervalMs: number,
  ) {}

  /** Asks now and every interval until nobody waits (or stop()). */
  start(): void {
    if (this.timer) return;
    this.watch()?.requestProgress();
    this.timer = setInterval(() => {
      if (!this.waiting()) this.stop();
      else this.watch()?.requestProgress();
    }, this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
