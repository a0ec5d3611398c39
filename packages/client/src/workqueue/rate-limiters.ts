import { realClock, type Clock } from '../util/clock.js';

/**
 * Decides how long an item waits before it is retried (client-go
 * util/workqueue/default_rate_limiters.go). Delays are in milliseconds.
 */
export interface RateLimiter<T> {
  /** The delay for this retry of the item; records the failure. */
  when(item: T): number;
  /** Stops tracking the item: its next failure starts from scratch. */
  forget(item: T): void;
  /** How many times the item has been retried. */
  numRequeues(item: T): number;
}

/**
 * baseDelay·2^failures per item, capped at maxDelay: a failing object backs off on its own
 * without slowing down the others.
 */
export class ItemExponentialFailureRateLimiter<T> implements RateLimiter<T> {
  private readonly failures = new Map<T, number>();

  constructor(
    readonly baseDelayMs: number,
    readonly maxDelayMs: number,
  ) {}

  when(item: T): number {
    const exp = this.failures.get(item) ?? 0;
    this.failures.set(item, exp + 1);
    // 2^exp overflows to Infinity long before exp overflows; the cap handles both.
    const backoff = this.baseDelayMs * 2 ** exp;
    return backoff > this.maxDelayMs ? this.maxDelayMs : backoff;
  }

  forget(item: T): void {
    this.failures.delete(item);
  }

  numRequeues(item: T): number {
    return this.failures.get(item) ?? 0;
  }
}

/** fastDelay for the first maxFastAttempts retries of an item, slowDelay after. */
export class ItemFastSlowRateLimiter<T> implements RateLimiter<T> {
  private readonly failures = new Map<T, number>();

  constructor(
    readonly fastDelayMs: number,
    readonly slowDelayMs: number,
    readonly maxFastAttempts: number,
  ) {}

  when(item: T): number {
    const attempts = (this.failures.get(item) ?? 0) + 1;
    this.failures.set(item, attempts);
    return attempts <= this.maxFastAttempts ? this.fastDelayMs : this.slowDelayMs;
  }

  forget(item: T): void {
    this.failures.delete(item);
  }

  numRequeues(item: T): number {
    return this.failures.get(item) ?? 0;
  }
}

/**
 * An overall token bucket (golang.org/x/time/rate semantics): `burst` retries at once, then
 * `qps` per second across all items. It protects the apiserver when many items fail together;
 * it does not track items.
 */
export class BucketRateLimiter<T> implements RateLimiter<T> {
  private tokens: number;
  private last: number;

  constructor(
    readonly qps: number,
    readonly burst: number,
    private readonly clock: Clock = realClock,
  ) {
    this.tokens = burst;
    this.last = clock.now();
  }

  when(_item: T): number {
    const now = this.clock.now();
    const elapsed = Math.max(0, now - this.last);
    this.tokens = Math.min(this.burst, this.tokens + (elapsed * this.qps) / 1000);
    this.last = Math.max(this.last, now);
    // Reserve a token even if it is not there yet: the caller waits for it.
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000;
  }

  forget(_item: T): void {}

  numRequeues(_item: T): number {
    return 0;
  }
}

/** The longest delay of several limiters; every limiter records every failure. */
export class MaxOfRateLimiter<T> implements RateLimiter<T> {
  private readonly limiters: readonly RateLimiter<T>[];

  constructor(...limiters: RateLimiter<T>[]) {
    this.limiters = limiters;
  }

  when(item: T): number {
    let max = 0;
    for (const limiter of this.limiters) max = Math.max(max, limiter.when(item));
    return max;
  }

  forget(item: T): void {
    for (const limiter of this.limiters) limiter.forget(item);
  }

  numRequeues(item: T): number {
    let max = 0;
    for (const limiter of this.limiters) max = Math.max(max, limiter.numRequeues(item));
    return max;
  }
}

/** Caps the delay of another limiter. */
export class WithMaxWaitRateLimiter<T> implements RateLimiter<T> {
  constructor(
    private readonly limiter: RateLimiter<T>,
    readonly maxDelayMs: number,
  ) {}

  when(item: T): number {
    return Math.min(this.limiter.when(item), this.maxDelayMs);
  }

  forget(item: T): void {
    this.limiter.forget(item);
  }

  numRequeues(item: T): number {
    return this.limiter.numRequeues(item);
  }
}

/**
 * client-go's DefaultControllerRateLimiter: per item 5 ms·2^n up to 1000 s, and overall 10 qps
 * with a burst of 100, whichever is longer.
 */
export function defaultControllerRateLimiter<T>(clock: Clock = realClock): RateLimiter<T> {
  return new MaxOfRateLimiter<T>(
    new ItemExponentialFailureRateLimiter<T>(5, 1000 * 1000),
    new BucketRateLimiter<T>(10, 100, clock),
  );
}
