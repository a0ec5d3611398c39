import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { metaV1MicroTime, metaV1Now, metaV1Time, parseRfc3339, RFC3339_MICRO } from './time.js';

describe('metav1.Time and MicroTime as JSON (apimachinery meta/v1 time.go, micro_time.go)', () => {
  it('a Time is RFC 3339 in UTC truncated to whole seconds; a MicroTime has six fraction digits', () => {
    const ms = Date.UTC(2024, 0, 2, 3, 4, 5, 678);
    expect(metaV1Time(ms)).toBe('2024-01-02T03:04:05Z');
    expect(metaV1MicroTime(ms)).toBe('2024-01-02T03:04:05.678000Z');
    expect(metaV1Now()).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  });

  it('any instant written as a MicroTime parses back to the same millisecond', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Date.UTC(9999, 11, 31) }), (ms) => {
        const parsed = parseRfc3339(metaV1MicroTime(ms), RFC3339_MICRO);
        expect(parsed).toEqual({ ms, micros: 0 });
      }),
    );
  });
});
