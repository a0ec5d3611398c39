import type { WorkQueueOptions } from './queue.js';
import { DelayingQueue } from './delaying-queue.js';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiters.js';

export interface RateLimitingQueueOptions<T> extends WorkQueueOptions {
  /** Defaults to defaultControllerRateLimiter on the queue's clock. */
  rateLimiter?: RateLimiter<T> | undefined;
}

/**
 * The queue controllers use (client-go util/workqueue/rate_limiting_queue.go): a failed item
 * goes back with addRateLimited and waits as long as its rate limiter says; a successful one is
 * forgotten so its backoff resets.
 */
export class RateLimitingQueue<T> extends DelayingQueue<T> {
  readonly rateLimiter: RateLimiter<T>;

  constructor(options: RateLimitingQueueOptions<T> = {}) {
    super(options);
    this.rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter<T>(this.clock);
  }

  /** Adds the item once the rate limiter allows it. */
  addRateLimited(item: T): void {
    this.addAfter(item, this.rateLimiter.when(item));
  }

  /** Resets the item's backoff; call it when the item was processed successfully. */
  forget(item: T): void {
    this.rateLimiter.forget(item);
  }

  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(item);
  }
}
