import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ageSince, humanDuration } from './human-duration.js';

// Cases from k8s.io/apimachinery/pkg/util/duration/duration_test.go (TestHumanDuration).
const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

describe('humanDuration (util/duration.HumanDuration)', () => {
  it.each([
    [-2 * S, '<invalid>'],
    [-1 * S, '0s'],
    [0, '0s'],
    [1 * S, '1s'],
    [119 * S, '119s'],
    [2 * M, '2m'],
    [2 * M + 1 * S, '2m1s'],
    [9 * M + 59 * S, '9m59s'],
    [10 * M, '10m'],
    [10 * M + 59 * S, '10m'],
    [179 * M, '179m'],
    [3 * H, '3h'],
    [3 * H + 1 * M, '3h1m'],
    [7 * H + 59 * M, '7h59m'],
    [8 * H, '8h'],
    [47 * H + 59 * M, '47h'],
    [48 * H, '2d'],
    [48 * H + 1 * H, '2d1h'],
    [8 * D, '8d'],
    [729 * D, '729d'],
    [730 * D, '2y'],
    [731 * D, '2y1d'],
    [8 * 365 * D, '8y'],
  ])('%d ms reads %s', (ms, text) => {
    expect(humanDuration(ms)).toBe(text);
  });

  it('never throws and always yields a short unit-suffixed string', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e12, max: 1e13 }), (ms) => {
        expect(humanDuration(ms)).toMatch(/^(<invalid>|(\d+[smhdy])+)$/);
      }),
    );
  });

  it('an unset or unparsable timestamp has age <unknown>', () => {
    expect(ageSince(undefined, Date.now())).toBe('<unknown>');
    expect(ageSince('yesterday-ish', Date.now())).toBe('<unknown>');
    expect(ageSince('2026-01-01T00:00:00Z', Date.parse('2026-01-01T00:05:00Z'))).toBe('5m');
  });
});
