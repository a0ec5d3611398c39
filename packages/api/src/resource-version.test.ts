import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from './api-error.js';
import {
  MAX_RESOURCE_VERSION,
  compareResourceVersions,
  formatResourceVersion,
  isValidResourceVersion,
  parseResourceVersion,
  parseResourceVersionExact,
  resourceVersionToNumber,
  withExactResourceVersion,
} from './resource-version.js';

// APIObjectVersioner.ParseResourceVersion (k8s.io/apiserver/pkg/storage/api_object_versioner.go).
describe('parseResourceVersion', () => {
  it('"" and "0" both mean 0 (unset / any)', () => {
    expect(parseResourceVersion('')).toBe(0);
    expect(parseResourceVersion('0')).toBe(0);
  });

  it('decimal digits are a revision, leading zeros allowed as strconv allows them', () => {
    expect(parseResourceVersion('12345')).toBe(12345);
    expect(parseResourceVersion('007')).toBe(7);
  });

  it.each(['abc', '-1', '+1', ' 1', '1.0', '1e3', '0x10', '１'])(
    '%j is a 400 BadRequest worded as kube-apiserver words it',
    (value) => {
      let error: unknown;
      try {
        parseResourceVersion(value);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toMatchObject({
        code: 400,
        reason: 'BadRequest',
        message: `invalid resource version: resourceVersion: Invalid value: ${JSON.stringify(value)}: strconv.ParseUint: parsing ${JSON.stringify(value)}: invalid syntax`,
      });
    },
  );

  it('values above 2^53 but within int64 are valid and clamp to Number.MAX_SAFE_INTEGER', () => {
    expect(isValidResourceVersion('9223372036854775807')).toBe(true);
    expect(parseResourceVersion('9007199254740993')).toBe(Number.MAX_SAFE_INTEGER);
    expect(parseResourceVersion('9223372036854775807')).toBe(Number.MAX_SAFE_INTEGER);
    expect(parseResourceVersionExact('9223372036854775807')).toBe(MAX_RESOURCE_VERSION);
  });

  it('values beyond int64 are out of range (etcd revisions are int64)', () => {
    expect(isValidResourceVersion('9223372036854775808')).toBe(false);
    expect(() => parseResourceVersion('9223372036854775808')).toThrow(/value out of range/);
  });

  it('compares without loss above 2^53', () => {
    expect(compareResourceVersions('9007199254740993', '9007199254740992')).toBe(1);
    expect(compareResourceVersions('', '0')).toBe(0);
    expect(compareResourceVersions('010', '9')).toBe(1);
    expect(compareResourceVersions('5', '50')).toBe(-1);
  });

  it('formats numbers and bigints canonically; a non-integer is a 500', () => {
    expect(formatResourceVersion(15)).toBe('15');
    expect(formatResourceVersion(2n ** 60n)).toBe('1152921504606846976');
    expect(() => formatResourceVersion(1.5)).toThrow(ApiError);
  });
});

describe('resourceVersion properties', () => {
  it('any input either parses or is a 400 ApiError, never another exception', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.string({ unit: fc.constantFrom('0', '1', '9', '-', '+', ' ') })),
        (value) => {
          try {
            const n = parseResourceVersion(value);
            expect(Number.isSafeInteger(n) && n >= 0).toBe(true);
            expect(isValidResourceVersion(value)).toBe(true);
          } catch (err) {
            expect(err).toBeInstanceOf(ApiError);
            expect((err as ApiError).code).toBe(400);
            expect(isValidResourceVersion(value)).toBe(false);
          }
        },
      ),
    );
  });

  it('format then parse gives the value back, exactly and as a clamped number', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: MAX_RESOURCE_VERSION }), (n) => {
        const text = formatResourceVersion(n);
        expect(parseResourceVersionExact(text)).toBe(n);
        expect(parseResourceVersion(text)).toBe(resourceVersionToNumber(n));
        expect(parseResourceVersion(text)).toBe(Math.min(Number(n), Number.MAX_SAFE_INTEGER));
      }),
    );
  });

  it('comparing strings agrees with comparing the integers, and clamping never reverses an order', () => {
    const rv = fc.bigInt({ min: 0n, max: MAX_RESOURCE_VERSION });
    fc.assert(
      fc.property(rv, rv, (a, b) => {
        const expected = a < b ? -1 : a > b ? 1 : 0;
        expect(compareResourceVersions(String(a), String(b))).toBe(expected);
        const x = resourceVersionToNumber(a);
        const y = resourceVersionToNumber(b);
        if (expected < 0) expect(x).toBeLessThanOrEqual(y);
        if (expected > 0) expect(x).toBeGreaterThanOrEqual(y);
      }),
    );
  });
});

// kube-apiserver prints the uint64 it parsed; storage here sees revisions as numbers, clamped.
describe('withExactResourceVersion', () => {
  const clampedError = () =>
    new ApiError({
      code: 504,
      reason: 'Timeout',
      message: `Timeout: Too large resource version: ${Number.MAX_SAFE_INTEGER}, current: 12`,
      details: { causes: [{ reason: 'ResourceVersionTooLarge' }], retryAfterSeconds: 1 },
    });

  it('any resourceVersion above 2^53 is named exactly, never rounded', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: BigInt(Number.MAX_SAFE_INTEGER) + 1n, max: MAX_RESOURCE_VERSION }),
        fc.nat(3),
        (n, zeros) => {
          const sent = `${'0'.repeat(zeros)}${n}`;
          const err = withExactResourceVersion(clampedError(), sent) as ApiError;
          expect(err.message).toBe(`Timeout: Too large resource version: ${n}, current: 12`);
          expect(err.code).toBe(504);
          expect(err.status.details?.retryAfterSeconds).toBe(1);
        },
      ),
    );
  });

  it('errors for resourceVersions that fit, or that name none, pass unchanged', () => {
    const err = clampedError();
    expect(withExactResourceVersion(err, String(Number.MAX_SAFE_INTEGER))).toBe(err);
    expect(withExactResourceVersion(err, undefined)).toBe(err);
    const other = ApiError.badRequest('x');
    expect(withExactResourceVersion(other, '9007199254740993')).toBe(other);
  });
});
