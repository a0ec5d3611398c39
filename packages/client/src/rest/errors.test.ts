import { ApiError, errorFromStatus, type Status } from '@listwatch/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ConnectionError,
  errorFromResponse,
  isConnectionRefused,
  isExpired,
  isTooLargeResourceVersion,
  parseRetryAfter,
  reasonForCode,
  toConnectionError,
} from './errors.js';

describe('errorFromResponse (apimachinery errors.NewGenericServerResponse)', () => {
  it('gives an ApiError carrying the HTTP code for any non-Status body', () => {
    fc.assert(
      fc.property(fc.integer({ min: 400, max: 599 }), fc.string(), (code, body) => {
        const err = errorFromResponse(code, body);
        expect(err).toBeInstanceOf(ApiError);
        if (!/"kind"\s*:\s*"Status"/.test(body)) expect(err.code).toBe(code);
        expect(err.status.kind).toBe('Status');
      }),
    );
  });

  it('uses the Status of the body, its code winning and Retry-After filling retryAfterSeconds', () => {
    const body = JSON.stringify({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      reason: 'TooManyRequests',
      message: 'later',
      code: 429,
    });
    const err = errorFromResponse(503, body, '7');
    expect(err).toMatchObject({
      code: 429,
      reason: 'TooManyRequests',
      message: 'later',
      retryAfterSeconds: 7,
    });
  });

  it('fills a Status without a code from the HTTP code', () => {
    const err = errorFromResponse(
      410,
      JSON.stringify({
        kind: 'Status',
        code: 0,
        status: 'Failure',
        reason: 'Expired',
        message: 'old',
      }),
    );
    expect(err).toMatchObject({ code: 410, reason: 'Expired' });
    expect(isExpired(err)).toBe(true);
  });
});

describe('a Status off the wire (errorFromStatus, shared by responses and watch ERROR events)', () => {
  const status = (code: unknown): Status =>
    ({ kind: 'Status', status: 'Failure', reason: 'Expired', message: 'old', code }) as Status;

  it('keeps a positive integer code and puts the fallback in place of any other', () => {
    expect(errorFromStatus(status(410))).toMatchObject({ code: 410, reason: 'Expired' });
    for (const code of [undefined, 0, -1, 1.5, '410']) {
      expect(errorFromStatus(status(code))).toMatchObject({ code: 500, reason: 'Expired' });
      expect(errorFromStatus(status(code), 410).code).toBe(410);
    }
  });

  it('gives a response Status without a usable code the HTTP code', () => {
    expect(errorFromResponse(410, JSON.stringify(status(-1)))).toMatchObject({
      code: 410,
      reason: 'Expired',
      message: 'old',
    });
  });

  it('names bare codes with the reasons of @listwatch/api', () => {
    expect(reasonForCode(404)).toBe('NotFound');
    expect(reasonForCode(599)).toBe('InternalError');
    expect(reasonForCode(418)).toBe('');
    expect(errorFromResponse(404, '')).toMatchObject({
      code: 404,
      reason: 'NotFound',
      message: 'the server could not find the requested resource',
    });
  });
});

describe('parseRetryAfter', () => {
  it('accepts whole seconds only', () => {
    fc.assert(
      fc.property(fc.nat(), (n) => {
        expect(parseRetryAfter(String(n))).toBe(n);
      }),
    );
    fc.assert(
      fc.property(
        fc.string().filter((s) => !/^\s*\d+\s*$/.test(s)),
        (s) => {
          expect(parseRetryAfter(s)).toBeUndefined();
        },
      ),
    );
  });
});

describe('error classification (client-go reflector helpers)', () => {
  it('recognises "too large resource version" by cause and by the pre-1.18 message', () => {
    expect(
      isTooLargeResourceVersion(
        ApiError.timeout('Too large resource version', 1, [
          { reason: 'ResourceVersionTooLarge', message: 'Too large resource version' },
        ]),
      ),
    ).toBe(true);
    expect(
      isTooLargeResourceVersion(ApiError.timeout('Too large resource version: 9, current: 3')),
    ).toBe(true);
    expect(isTooLargeResourceVersion(ApiError.timeout('etcd is slow'))).toBe(false);
  });

  it('finds a refused connection through wrapped causes', () => {
    const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), {
      code: 'ECONNREFUSED',
    });
    const err = toConnectionError(new Error('fetch failed', { cause }), 'GET /api');
    expect(err).toBeInstanceOf(ConnectionError);
    expect(isConnectionRefused(err)).toBe(true);
    expect(err?.code).toBe(503);
    expect(toConnectionError(new Error('plain'), 'GET /api')).toBeUndefined();
  });
});
