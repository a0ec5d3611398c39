import { isApiError } from './api-error.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatDuration,
  formatDurationNanos,
  parseDuration,
  parseDurationNanos,
} from './duration.js';

const UNITS = [
  ['ns', 1n],
  ['us', 1_000n],
  ['\u00b5s', 1_000n],
  ['ms', 1_000_000n],
  ['s', 1_000_000_000n],
  ['m', 60_000_000_000n],
  ['h', 3_600_000_000_000n],
] as const;

function refusal(text: string): string {
  try {
    parseDurationNanos(text);
  } catch (err) {
    if (!isApiError(err)) throw err;
    expect(err.code).toBe(400);
    return err.message;
  }
  throw new Error(`${JSON.stringify(text)} was accepted`);
}

describe('Kubernetes flag durations (Go time.ParseDuration)', () => {
  it('parses the forms kube-apiserver flags use, in milliseconds', () => {
    expect(parseDuration('2s')).toBe(2_000);
    expect(parseDuration('5m')).toBe(300_000);
    expect(parseDuration('1h')).toBe(3_600_000);
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('300ms')).toBe(300);
    expect(parseDuration('1.5h')).toBe(5_400_000);
    expect(parseDuration('.5s')).toBe(500);
    expect(parseDuration('1.s')).toBe(1_000);
    expect(parseDuration('2m3.25s')).toBe(123_250);
    expect(parseDuration('10us')).toBe(0.01);
    expect(parseDuration('0')).toBe(0);
    expect(parseDuration('-0')).toBe(0);
    expect(parseDuration('+5s')).toBe(5_000);
    expect(parseDuration('-1m')).toBe(-60_000);
  });

  it('refuses what Go refuses, with Go wording', () => {
    expect(refusal('')).toBe('time: invalid duration ""');
    expect(refusal('5')).toBe('time: missing unit in duration "5"');
    expect(refusal('5d')).toBe('time: unknown unit "d" in duration "5d"');
    for (const text of [
      '.',
      '-',
      's',
      '1.2.3s',
      ' 1s',
      '1s ',
      '1e3s',
      '9223372036854775808ns',
      '3000000h',
    ])
      refusal(text);
  });

  it('a sum of random terms parses to the sum of their values (model)', () => {
    const term = fc.tuple(
      fc.nat({ max: 10_000 }),
      fc.option(fc.stringMatching(/^[0-9]{1,6}$/)),
      fc.constantFrom(...UNITS),
    );
    fc.assert(
      fc.property(
        fc.array(term, { minLength: 1, maxLength: 5 }),
        fc.boolean(),
        (terms, negative) => {
          let text = negative ? '-' : '';
          let expected = 0n;
          for (const [whole, fraction, [unit, nanos]] of terms) {
            text += fraction === null ? `${whole}${unit}` : `${whole}.${fraction}${unit}`;
            expected += BigInt(whole) * nanos;
            if (fraction !== null)
              expected += (BigInt(fraction) * nanos) / 10n ** BigInt(fraction.length);
          }
          expect(parseDurationNanos(text)).toBe(negative ? -expected : expected);
        },
      ),
    );
  });

  it('formatting then parsing gives the same duration back, as Go Duration.String round-trips', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(1n << 62n), max: 1n << 62n }), (nanos) => {
        expect(parseDurationNanos(formatDurationNanos(nanos))).toBe(nanos);
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 * 24 * 3_600_000 }), (ms) => {
        expect(parseDuration(formatDuration(ms))).toBe(ms);
      }),
    );
  });

  it('formats as Go does', () => {
    expect(formatDuration(0)).toBe('0s');
    expect(formatDuration(300)).toBe('300ms');
    expect(formatDuration(1.5)).toBe('1.5ms');
    expect(formatDuration(2_000)).toBe('2s');
    expect(formatDuration(300_000)).toBe('5m0s');
    expect(formatDuration(5_400_000)).toBe('1h30m0s');
    expect(formatDuration(-61_500)).toBe('-1m1.5s');
    expect(formatDurationNanos(1_500n)).toBe('1.5\u00b5s');
  });

  it('never throws anything but a 400 ApiError on arbitrary input', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), (text) => {
        try {
          parseDurationNanos(text);
        } catch (err) {
          expect(isApiError(err) && err.code === 400).toBe(true);
        }
      }),
    );
  });
});
