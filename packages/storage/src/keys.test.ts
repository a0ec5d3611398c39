import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compareKeys,
  keyAfter,
  prefixEnd,
  validateContinueFrom,
  validateKey,
  validateListPrefix,
  validateStoragePrefix,
} from './keys.js';
import { isStorageError } from './storage-error.js';

const PREFIX = '/registry';

/** A segment that must be accepted: non-empty, no '/', no control characters, not '.'/'..'. */
const hasControl = (s: string) => [...s].some((c) => c.charCodeAt(0) < 0x20 || c === '\u007f');
const goodSegment = fc
  .string({ unit: 'binary', minLength: 1, maxLength: 12 })
  .filter((s) => !s.includes('/') && s !== '.' && s !== '..' && !hasControl(s));

const badSegment = fc.oneof(
  fc.constant(''),
  fc.constant('.'),
  fc.constant('..'),
  fc
    .tuple(goodSegment, fc.integer({ min: 0, max: 0x1f }), goodSegment)
    .map(([a, c, b]) => a + String.fromCharCode(c) + b),
  fc.constant('a\u007fb'),
  fc.constant('\ud800'),
  fc.constant('x\udc00'),
);

function refusal(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    if (!isStorageError(err, 'InvalidKey')) throw err;
    expect(err.code).toBe(400);
    return err.message;
  }
}

describe('object keys', () => {
  it('a key made of clean segments under the prefix is accepted unchanged', () => {
    fc.assert(
      fc.property(fc.array(goodSegment, { minLength: 1, maxLength: 5 }), (segments) => {
        const key = `${PREFIX}/${segments.join('/')}`;
        expect(validateKey(PREFIX, key)).toBe(key);
      }),
    );
  });

  it('one empty, dot, dot-dot, control-character or lone-surrogate segment anywhere makes the key invalid', () => {
    fc.assert(
      fc.property(
        fc.array(goodSegment, { maxLength: 4 }),
        badSegment,
        fc.nat(),
        (segments, bad, at) => {
          const all = [...segments];
          all.splice(at % (segments.length + 1), 0, bad);
          expect(refusal(() => validateKey(PREFIX, `${PREFIX}/${all.join('/')}`))).toBeDefined();
        },
      ),
    );
  });

  it('validation never throws anything but InvalidKey, and what it accepts stays strictly inside the prefix', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (suffix) => {
        for (const key of [suffix, `${PREFIX}${suffix}`, `${PREFIX}/${suffix}`]) {
          if (refusal(() => validateKey(PREFIX, key)) !== undefined) continue;
          expect(key.startsWith(`${PREFIX}/`)).toBe(true);
          const rest = key.slice(PREFIX.length + 1).split('/');
          for (const segment of rest) expect(['', '.', '..']).not.toContain(segment);
        }
      }),
    );
  });

  it('the documented escapes are refused', () => {
    for (const key of [
      '/registry/../x',
      '/registry/pods/../../x',
      '/other/x',
      '/registryx/a',
      '/registry//a',
      '/registry/a/',
      '/registry',
      '',
      'registry/a',
    ]) {
      expect(refusal(() => validateKey(PREFIX, key))).toBeDefined();
    }
  });
});

describe('list prefixes', () => {
  it('a valid list prefix comes back ending in "/" and only keys starting with it fall in its range', () => {
    fc.assert(
      fc.property(
        fc.array(goodSegment, { maxLength: 3 }),
        fc.boolean(),
        fc.array(goodSegment, { minLength: 1, maxLength: 3 }),
        (segments, slash, other) => {
          const raw = segments.length
            ? `${PREFIX}/${segments.join('/')}${slash ? '/' : ''}`
            : PREFIX;
          const prefix = validateListPrefix(PREFIX, raw);
          expect(prefix.endsWith('/')).toBe(true);
          const end = prefixEnd(prefix);
          const inside = `${prefix}${other.join('/')}`;
          expect(compareKeys(prefix, inside)).toBeLessThanOrEqual(0);
          expect(compareKeys(inside, end)).toBeLessThan(0);
          // A sibling sharing the text but not the segment, e.g. ns vs ns-2, is outside.
          const sibling = `${prefix.slice(0, -1)}-2/${other.join('/')}`;
          expect(compareKeys(sibling, prefix) < 0 || compareKeys(sibling, end) >= 0).toBe(true);
        },
      ),
    );
  });

  it('prefixes outside the storage prefix or with bad segments are refused', () => {
    for (const prefix of [
      '/other',
      '/registryx',
      '/registry/../x',
      '/registry//',
      '/registry/a//',
    ]) {
      expect(refusal(() => validateListPrefix(PREFIX, prefix))).toBeDefined();
    }
    expect(
      refusal(() => validateContinueFrom('/registry/pods/', '/registry/secrets/a')),
    ).toBeDefined();
    expect(validateContinueFrom('/registry/pods/', keyAfter('/registry/pods/a'))).toBe(
      '/registry/pods/a\u0000',
    );
  });

  it('the storage prefix itself must be absolute and clean', () => {
    expect(validateStoragePrefix('/registry')).toBe('/registry');
    expect(validateStoragePrefix('/a/b')).toBe('/a/b');
    for (const prefix of ['registry', '/registry/', '/', '/a/../b']) {
      expect(refusal(() => validateStoragePrefix(prefix))).toBeDefined();
    }
  });
});

describe('key order', () => {
  it('compareKeys orders strings exactly as their UTF-8 bytes (etcd and SQLite order)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (a, b) => {
        expect(Math.sign(compareKeys(a, b))).toBe(
          Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b))),
        );
      }),
    );
  });

  it('keyAfter(k) is the smallest key greater than k', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (k, other) => {
        expect(compareKeys(k, keyAfter(k))).toBeLessThan(0);
        if (compareKeys(other, k) > 0)
          expect(compareKeys(keyAfter(k), other)).toBeLessThanOrEqual(0);
      }),
    );
  });
});
