import { realClock, type Clock, type ClockTimer } from '../util/clock.js';
import { Cond } from '../util/cond.js';
import { Deque } from '../util/deque.js';
import { noopWorkQueueMetrics, QueueMetricsRecorder, type WorkQueueMetrics } from './metrics.js';

export interface WorkQueueOptions {
  /** Shown in metrics and logs. */
  name?: string | undefined;
  /** Injectable time, for delays and metrics; defaults to the real clock. */
  clock?: Clock | undefined;
  metrics?: WorkQueueMetrics | undefined;
  /** How often the unfinished-work gauges are refreshed (client-go: 500 ms). */
  unfinishedWorkUpdatePeriodMs?: number | undefined;
}

/** What get() hands out: an item to process, or the news that the queue shut down. */
export type WorkQueueGetResult<T> =
  { item: T; shutdown: false } | { item: undefined; shutdown: true };

/**
 * client-go's work queue (util/workqueue/queue.go), the hand-off between informer handlers and
 * controller workers. Its guarantees are why controllers can be written as "sync this key":
 * - an item added while already waiting is not added twice (dirty set);
 * - an item is never handed to two workers at once: added while being processed, it is held back
 *   and re-queued when done() is called (processing set);
 * - items come out in the order they first became dirty.
 * Items are compared like Map keys: strings and numbers by value, objects by identity — so queue
 * keys (`namespace/name`), not objects.
 */
export class WorkQueue<T> {
  readonly name: string;
  protected readonly clock: Clock;
  protected readonly metrics: QueueMetricsRecorder<T>;
  private readonly queue = new Deque<T>();
  /** Items that need processing: queued, or added again while being processed. */
  private readonly dirty = new Set<T>();
  private readonly processing = new Set<T>();
  private readonly cond = new Cond();
  private readonly idle = new Cond();
  private shutting = false;
  private drain = false;
  private ticker: ClockTimer | undefined;

  constructor(options: WorkQueueOptions = {}) {
    this.name = options.name ?? '';
    this.clock = options.clock ?? realClock;
    this.metrics = new QueueMetricsRecorder(options.metrics ?? noopWorkQueueMetrics, this.clock);
    if (this.metrics.enabled) this.tick(options.unfinishedWorkUpdatePeriodMs ?? 500);
  }

  /** Marks the item as needing processing; a no-op if it already does or the queue shut down. */
  add(item: T): void {
    if (this.shutting || this.dirty.has(item)) return;
    this.metrics.add(item);
    this.dirty.add(item);
    // Being processed: done() will queue it, so no worker sees it twice at once.
    if (this.processing.has(item)) return;
    this.queue.push(item);
    this.cond.signal();
  }

  /** Items waiting to be handed out; informational only. */
  len(): number {
    return this.queue.length;
  }

  /**
   * Waits for an item and marks it as being processed; call done(item) when finished. After a
   * shutdown the queued items are still handed out, then `shutdown: true` (as in client-go).
   */
  async get(): Promise<WorkQueueGetResult<T>> {
    while (this.queue.length === 0 && !this.shutting) await this.cond.wait();
    if (this.queue.length === 0) return { item: undefined, shutdown: true };
    const item = this.queue.shift() as T;
    this.metrics.get(item);
    this.processing.add(item);
    this.dirty.delete(item);
    return { item, shutdown: false };
  }

  /** Ends the processing of an item; re-queues it if it was added meanwhile. */
  done(item: T): void {
    if (!this.processing.delete(item)) return;
    this.metrics.done(item);
    if (this.dirty.has(item)) {
      this.queue.push(item);
      this.cond.signal();
    } else if (this.processing.size === 0) {
      this.idle.broadcast();
    }
  }

  /** Ignores further adds and releases every waiting get() once the queue is empty. */
  shutDown(): void {
    this.drain = false;
    this.shutting = true;
    this.stop();
    this.cond.broadcast();
    this.idle.broadcast();
  }

  /**
   * shutDown, then waits until every item being processed is done. A later shutDown() stops
   * the wait. Workers must keep calling done(), or this never resolves.
   */
  async shutDownWithDrain(): Promise<void> {
    this.drain = true;
    this.shutting = true;
    this.stop();
    this.cond.broadcast();
    while (this.processing.size !== 0 && this.drain) await this.idle.wait();
  }

  shuttingDown(): boolean {
    return this.shutting;
  }

  /** Stops background timers; subclasses extend it. */
  protected stop(): void {
    this.ticker?.cancel();
    this.ticker = undefined;
  }

  private tick(periodMs: number): void {
    this.ticker = this.clock.setTimer(
      () => {
        if (this.shutting) return;
        this.metrics.updateUnfinishedWork();
        this.tick(periodMs);
      },
      periodMs,
      { unref: true },
    );
  }
}
