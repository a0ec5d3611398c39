import { describe, expect, it } from 'vitest';
import { FakeClock } from '../util/fake-clock.js';
import { InMemoryWorkQueueMetrics } from './metrics.js';
import { ItemExponentialFailureRateLimiter } from './rate-limiters.js';
import { RateLimitingQueue } from './rate-limiting-queue.js';

// client-go util/workqueue/rate_limiting_queue.go and rate_limiting_queue_test.go.
describe('RateLimitingQueue', () => {
  it('addRateLimited waits as long as the rate limiter says, growing per failure', () => {
    const clock = new FakeClock();
    const q = new RateLimitingQueue<string>({
      clock,
      rateLimiter: new ItemExponentialFailureRateLimiter(10, 1000),
    });
    q.addRateLimited('a');
    expect(q.numRequeues('a')).toBe(1);
    clock.step(9);
    expect(q.len()).toBe(0);
    clock.step(1);
    expect(q.len()).toBe(1);
    q.addRateLimited('b');
    q.addRateLimited('b');
    expect(q.numRequeues('b')).toBe(2);
    // The earlier schedule (10 ms) wins over the later one (20 ms).
    clock.step(10);
    expect(q.len()).toBe(2);
  });

  it('forget resets an item to its first delay', () => {
    const clock = new FakeClock();
    const q = new RateLimitingQueue<string>({
      clock,
      rateLimiter: new ItemExponentialFailureRateLimiter(10, 1000),
    });
    q.addRateLimited('a');
    q.addRateLimited('a');
    q.forget('a');
    expect(q.numRequeues('a')).toBe(0);
    expect(q.rateLimiter.when('a')).toBe(10);
  });

  it('uses the default controller rate limiter on the queue clock, counting retries', () => {
    const clock = new FakeClock();
    const metrics = new InMemoryWorkQueueMetrics();
    const q = new RateLimitingQueue<string>({ clock, metrics });
    q.addRateLimited('a');
    clock.step(4);
    expect(q.len()).toBe(0);
    clock.step(1);
    expect(q.len()).toBe(1);
    expect(metrics.retries).toBe(1);
    q.shutDown();
  });

  it('the controller loop: failures back off, success forgets, nothing runs twice at once', async () => {
    const clock = new FakeClock();
    const q = new RateLimitingQueue<string>({
      clock,
      rateLimiter: new ItemExponentialFailureRateLimiter(10, 1000),
    });
    const attempts: number[] = [];
    q.add('ns/a');
    for (let failures = 0; failures < 3; failures++) {
      const { item } = await q.get();
      attempts.push(clock.now());
      q.addRateLimited(item!);
      q.done(item!);
      clock.step(1000);
    }
    const { item } = await q.get();
    q.forget(item!);
    q.done(item!);
    expect(attempts).toEqual([0, 1000, 2000]);
    expect(q.numRequeues('ns/a')).toBe(0);
    expect(q.len()).toBe(0);
  });
});
