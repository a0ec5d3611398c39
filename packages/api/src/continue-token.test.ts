import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from './api-error.js';
import {
  CONTINUE_AT_LATEST,
  decodeContinue,
  decodeContinueToken,
  encodeContinue,
  encodeContinueToken,
} from './continue-token.js';

/** A token as Go's encodeContinueOrDie (continue_test.go) builds it, from raw JSON. */
function rawToken(json: string): string {
  return Buffer.from(json, 'utf8').toString('base64url');
}

function token(v: string, rv: number, start: string): string {
  return rawToken(JSON.stringify({ v, rv, start }));
}

function messageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe(400);
    return (err as ApiError).message;
  }
  throw new Error('no error');
}

// Test_decodeContinue in k8s.io/apiserver/pkg/storage/continue_test.go.
describe('decodeContinue (storage/continue.go)', () => {
  it('a valid token gives the key under the prefix and its revision', () => {
    expect(decodeContinue(token('meta.k8s.io/v1', 1, 'key'), '/test/')).toEqual({
      fromKey: '/test/key',
      resourceVersion: 1,
    });
  });

  it('the root path "/" starts at the prefix itself', () => {
    expect(decodeContinue(token('meta.k8s.io/v1', 1, '/'), '/test/')).toEqual({
      fromKey: '/test/',
      resourceVersion: 1,
    });
  });

  it.each([
    [
      'empty version',
      token('', 1, 'key'),
      'continue key is not valid: server does not recognize this encoded version ',
    ],
    [
      'invalid version',
      token('v1', 1, 'key'),
      'continue key is not valid: server does not recognize this encoded version v1',
    ],
    [
      'rv 0',
      token('meta.k8s.io/v1', 0, 'key'),
      'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
    ],
    [
      'no start key',
      token('meta.k8s.io/v1', 1, ''),
      'continue key is not valid: encoded start key empty (version meta.k8s.io/v1)',
    ],
    [
      'path traversal - parent',
      token('meta.k8s.io/v1', 1, '../key'),
      'continue key is not valid: ../key',
    ],
    [
      'path traversal - local',
      token('meta.k8s.io/v1', 1, './key'),
      'continue key is not valid: ./key',
    ],
    [
      'path traversal - double parent',
      token('meta.k8s.io/v1', 1, './../key'),
      'continue key is not valid: ./../key',
    ],
    [
      'path traversal - after parent',
      token('meta.k8s.io/v1', 1, 'key/../..'),
      'continue key is not valid: key/../..',
    ],
    [
      'a doubled slash',
      token('meta.k8s.io/v1', 1, 'ns//name'),
      'continue key is not valid: ns//name',
    ],
    ['not base64url', 'abc+', 'continue key is not valid: illegal base64 data at input byte 3'],
    [
      'padded',
      `${rawToken('{}')}==`,
      'continue key is not valid: illegal base64 data at input byte 3',
    ],
    [
      'not an object',
      rawToken('[1]'),
      'continue key is not valid: json: cannot unmarshal array into Go value of type storage.continueToken',
    ],
    [
      'rv as a string',
      rawToken('{"v":"meta.k8s.io/v1","rv":"5","start":"a"}'),
      'continue key is not valid: json: cannot unmarshal string into Go struct field continueToken.rv of type int64',
    ],
    [
      'rv not an integer',
      rawToken('{"v":"meta.k8s.io/v1","rv":1.5,"start":"a"}'),
      'continue key is not valid: json: cannot unmarshal number 1.5 into Go struct field continueToken.rv of type int64',
    ],
  ])('%s is a 400 "invalid continue token: %s"', (_name, value, message) => {
    expect(messageOf(() => decodeContinueToken(value))).toBe(`invalid continue token: ${message}`);
  });

  it('field names match case-insensitively and unknown fields are ignored, as Go json does', () => {
    expect(
      decodeContinueToken(rawToken('{"V":"meta.k8s.io/v1","RV":7,"Start":"a/b","extra":true}')),
    ).toEqual({
      resourceVersion: 7,
      start: 'a/b',
    });
  });

  it('a negative rv (-1 after compaction) means the latest revision', () => {
    expect(decodeContinueToken(token('meta.k8s.io/v1', -1, 'ns/a\u0000')).resourceVersion).toBe(
      CONTINUE_AT_LATEST,
    );
  });

  // Issue 31 asked for rv -5 to be a 400; kube-apiserver reads it as -1 (storage/interfaces.go
  // ValidateListOptions: "If continueRV < 0, the request is for the latest resource version"),
  // and only rv 0 is refused (continue.go ErrInvalidStartRV). This pins that parity.
  it('any negative rv lists at the latest revision, as kube reads it; only 0 is refused', () => {
    fc.assert(
      fc.property(fc.integer({ min: -Number.MAX_SAFE_INTEGER, max: -1 }), (rv) => {
        expect(decodeContinueToken(token('meta.k8s.io/v1', rv, 'ns/a\u0000')).resourceVersion).toBe(
          rv,
        );
      }),
    );
    expect(() => decodeContinueToken(token('meta.k8s.io/v1', 0, 'ns/a\u0000'))).toThrow(
      'invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
    );
  });
});

describe('encodeContinue', () => {
  it('writes what kube-apiserver writes: v, rv, start with a NUL after the last key', () => {
    const encoded = encodeContinue(42, '/registry/pods/default/web-1', '/registry/pods/');
    expect(Buffer.from(encoded, 'base64url').toString('utf8')).toBe(
      '{"v":"meta.k8s.io/v1","rv":42,"start":"default/web-1\\u0000"}',
    );
    expect(encoded).not.toMatch(/[=+/]/);
    expect(decodeContinue(encoded, '/registry/pods/')).toEqual({
      fromKey: '/registry/pods/default/web-1\u0000',
      resourceVersion: 42,
    });
  });

  it('escapes <, > and & as Go json does', () => {
    const encoded = encodeContinueToken({ resourceVersion: 1, start: 'a<b>&' });
    expect(Buffer.from(encoded, 'base64url').toString('utf8')).toContain(
      '"start":"a\\u003cb\\u003e\\u0026"',
    );
  });

  it('a key outside the prefix is a 500 (a server bug, not a client error)', () => {
    expect(() => encodeContinue(1, '/registry/configmaps/a', '/registry/pods/')).toThrow(
      'unable to encode next field: the key and key prefix do not match /registry/pods/ /registry/configmaps/a',
    );
  });
});

describe('continue token properties', () => {
  it('any input either decodes or is a 400 ApiError, never another exception', () => {
    const check = (input: string) => {
      try {
        decodeContinueToken(input);
      } catch (err) {
        expect(err).toBeInstanceOf(ApiError);
        expect((err as ApiError).code).toBe(400);
      }
    };
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 60 }), check));
    fc.assert(fc.property(fc.base64String(), (s) => check(s.replace(/=+$/, ''))));
    // Well-formed JSON of any shape, so every field check is reached.
    fc.assert(fc.property(fc.json(), (json) => check(rawToken(json))));
    fc.assert(
      fc.property(
        fc.record({
          v: fc.constantFrom('meta.k8s.io/v1', 'x'),
          rv: fc.oneof(fc.integer(), fc.double(), fc.string()),
          start: fc.string(),
        }),
        (obj) => check(rawToken(JSON.stringify(obj))),
      ),
    );
  });

  const segment = fc.string({
    unit: fc.constantFrom('a', 'b', '.', '-', '\u0000', 'é', '<'),
    minLength: 1,
    maxLength: 6,
  });
  const keySuffix = fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => s.join('/'));

  it('encode then decode gives back the key after the last one and the revision', () => {
    fc.assert(
      fc.property(
        keySuffix,
        fc.oneof(fc.constant(-1), fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER })),
        (suffix, rv) => {
          const prefix = '/registry/things/';
          let decoded: { fromKey: string; resourceVersion: number };
          try {
            decoded = decodeContinue(encodeContinue(rv, prefix + suffix, prefix), prefix);
          } catch (err) {
            // Only keys with `.`/`..` segments are refused, and then as a 400.
            expect((err as ApiError).code).toBe(400);
            expect(suffix.split('/').some((s) => s === '.' || s === '..')).toBe(true);
            return;
          }
          expect(decoded).toEqual({ fromKey: `${prefix}${suffix}\u0000`, resourceVersion: rv });
        },
      ),
    );
  });

  it('a decoded start key never escapes the prefix', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', '.', '/', '\u0000'), maxLength: 12 }),
        (start) => {
          let fromKey: string;
          try {
            fromKey = decodeContinue(token('meta.k8s.io/v1', 3, start), '/p/').fromKey;
          } catch {
            return;
          }
          expect(fromKey.startsWith('/p/')).toBe(true);
          expect(fromKey.split('/').slice(2)).not.toContain('..');
          expect(fromKey.split('/').slice(2, -1)).not.toContain('');
        },
      ),
    );
  });
});
