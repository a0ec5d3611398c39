import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../util/fake-clock.js';
import {
  BucketRateLimiter,
  defaultControllerRateLimiter,
  ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter,
  MaxOfRateLimiter,
  WithMaxWaitRateLimiter,
} from './rate-limiters.js';

// client-go util/workqueue/default_rate_limiters.go and default_rate_limiters_test.go.
describe('rate limiters', () => {
  it('the exponential limiter doubles per failure of an item, up to its cap', () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>(1, 1000);
    expect([1, 2, 3, 4, 5].map(() => limiter.when('a'))).toEqual([1, 2, 4, 8, 16]);
    expect(limiter.when('b')).toBe(1);
    expect(limiter.numRequeues('a')).toBe(5);
    for (let i = 0; i < 20; i++) limiter.when('a');
    expect(limiter.when('a')).toBe(1000);
    limiter.forget('a');
    expect(limiter.numRequeues('a')).toBe(0);
    expect(limiter.when('a')).toBe(1);
  });

  it('the exponential delay never overflows past its cap, however many failures', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 3000 }), (failures) => {
        const limiter = new ItemExponentialFailureRateLimiter<number>(5, 1_000_000);
        let last = 0;
        let ok = true;
        for (let i = 0; i < failures; i++) {
          const d = limiter.when(1);
          ok &&= d >= last && d <= 1_000_000;
          last = d;
        }
        expect(ok).toBe(true);
        expect(limiter.numRequeues(1)).toBe(failures);
      }),
      { numRuns: 20 },
    );
  });

  it('the fast-slow limiter is fast for the first attempts, then slow', () => {
    const limiter = new ItemFastSlowRateLimiter<string>(5, 10_000, 3);
    expect([1, 2, 3, 4, 5].map(() => limiter.when('a'))).toEqual([5, 5, 5, 10_000, 10_000]);
    expect(limiter.numRequeues('a')).toBe(5);
    limiter.forget('a');
    expect(limiter.when('a')).toBe(5);
  });

  it('the bucket allows a burst at once, then spaces retries at its rate', () => {
    const clock = new FakeClock();
    const limiter = new BucketRateLimiter<string>(10, 100, clock);
    for (let i = 0; i < 100; i++) expect(limiter.when(`item-${i}`)).toBe(0);
    expect(limiter.when('x')).toBeCloseTo(100);
    expect(limiter.when('y')).toBeCloseTo(200);
    expect(limiter.numRequeues('x')).toBe(0);
    clock.step(10_000);
    // Refilled (never beyond the burst) after the reservations were paid back.
    expect(limiter.when('z')).toBe(0);
  });

  it('max-of takes the longest delay and forwards forget to every limiter', () => {
    const slow = new ItemExponentialFailureRateLimiter<string>(100, 10_000);
    const fast = new ItemFastSlowRateLimiter<string>(1, 1, 0);
    const limiter = new MaxOfRateLimiter(fast, slow);
    expect(limiter.when('a')).toBe(100);
    expect(limiter.when('a')).toBe(200);
    expect(limiter.numRequeues('a')).toBe(2);
    limiter.forget('a');
    expect(slow.numRequeues('a')).toBe(0);
    expect(fast.numRequeues('a')).toBe(0);
  });

  it('with-max-wait caps another limiter', () => {
    const limiter = new WithMaxWaitRateLimiter(
      new ItemFastSlowRateLimiter<string>(5, 60_000, 1),
      1000,
    );
    expect(limiter.when('a')).toBe(5);
    expect(limiter.when('a')).toBe(1000);
    expect(limiter.numRequeues('a')).toBe(2);
  });

  it('the default controller limiter is 5 ms·2^n per item and 10 qps burst 100 overall', () => {
    const clock = new FakeClock();
    const limiter = defaultControllerRateLimiter<string>(clock);
    expect([0, 1, 2].map(() => limiter.when('a'))).toEqual([5, 10, 20]);
    for (let i = 0; i < 97; i++) limiter.when(`item-${i}`);
    // 101st retry without time passing: the bucket's 100 ms beats the item's 5 ms.
    expect(limiter.when('fresh')).toBeCloseTo(100);
    for (let i = 0; i < 30; i++) limiter.when('a');
    expect(limiter.when('a')).toBe(1_000_000);
  });
});
