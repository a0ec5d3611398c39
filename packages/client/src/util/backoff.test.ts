import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Backoff, REFLECTOR_BACKOFF } from './backoff.js';
import { FakeClock } from './fake-clock.js';

describe('Backoff (apimachinery wait.NewExponentialBackoffManager)', () => {
  it('draws every delay from [base, 2·base) with full jitter, the base doubling from 800 ms up to 30 s', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 0.9999, noNaN: true }), { minLength: 1, maxLength: 20 }),
        (randoms) => {
          const clock = new FakeClock(0);
          let i = 0;
          const backoff = new Backoff({ clock, random: () => randoms[i++ % randoms.length]! });
          let base = REFLECTOR_BACKOFF.initialMs;
          for (let step = 0; step < randoms.length; step++) {
            const delay = backoff.next();
            expect(delay).toBeGreaterThanOrEqual(base);
            expect(delay).toBeLessThan(2 * base);
            base = Math.min(base * 2, REFLECTOR_BACKOFF.maxMs);
            clock.step(delay);
          }
        },
      ),
    );
  });

  it('never exceeds twice the cap, however many failures in a row', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 1, max: 5000 }),
        fc.integer({ min: 1, max: 60_000 }),
        (steps, initialMs, maxMs) => {
          const backoff = new Backoff({
            initialMs,
            maxMs,
            clock: new FakeClock(0),
            random: () => 0.999999,
          });
          for (let s = 0; s < steps; s++)
            expect(backoff.next()).toBeLessThan(2 * Math.max(initialMs, maxMs) + 1e-9);
        },
      ),
    );
  });

  it('starts over at the initial delay after a quiet period longer than the reset duration', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 120_001, max: 10_000_000 }),
        (failures, quiet) => {
          const clock = new FakeClock(0);
          const backoff = new Backoff({ clock, jitter: 0 });
          for (let s = 0; s < failures; s++) backoff.next();
          clock.step(quiet);
          expect(backoff.next()).toBe(800);
        },
      ),
    );
  });

  it('keeps growing when failures come faster than the reset duration', () => {
    const clock = new FakeClock(0);
    const backoff = new Backoff({ clock, jitter: 0 });
    const delays = Array.from({ length: 8 }, () => {
      const d = backoff.next();
      clock.step(d);
      return d;
    });
    expect(delays).toEqual([800, 1600, 3200, 6400, 12_800, 25_600, 30_000, 30_000]);
  });
});
