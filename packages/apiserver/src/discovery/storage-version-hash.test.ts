import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { storageVersionHash } from './storage-version-hash.js';

describe('storageVersionHash', () => {
  it('matches what kube-apiserver publishes for the same kinds', () => {
    expect(storageVersionHash('', 'v1', 'Pod')).toBe('xPOwRZ+Yhw8=');
    expect(storageVersionHash('', 'v1', 'Namespace')).toBe('Q3oi5N2YM8M=');
  });

  it('is 8 bytes of base64, and empty without a kind (storageversionhash.go)', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string({ minLength: 1 }), (group, version, kind) => {
        const hash = storageVersionHash(group, version, kind);
        expect(Buffer.from(hash, 'base64')).toHaveLength(8);
        expect(hash).toMatch(/^[A-Za-z0-9+/]{11}=$/);
      }),
    );
    expect(storageVersionHash('apps', 'v1', '')).toBe('');
  });
});
