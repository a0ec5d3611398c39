import fc from 'fast-check';
import { createDecipheriv, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cbcTransformer, gcmTransformer } from './aes.js';
import { secretboxTransformer } from './secretbox.js';
import { identityTransformer, prefixTransformers, type Transformer } from './transformer.js';

// k8s.io/apiserver pkg/storage/value/transformer_test.go and encrypt/{aes,secretbox}/*_test.go.

const providers: [string, (key: Uint8Array) => Transformer, number[]][] = [
  ['aescbc', cbcTransformer, [16, 24, 32]],
  ['aesgcm', gcmTransformer, [16, 24, 32]],
  ['secretbox', secretboxTransformer, [32]],
];

describe.each(providers)('the %s provider', (_name, make, sizes) => {
  it('reads back every value it wrote, for every key size', () => {
    for (const size of sizes) {
      const transformer = make(randomBytes(size));
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 2048 }), fc.string(), (data, context) => {
          const stored = transformer.toStorage(data, context);
          expect(Buffer.from(stored).equals(Buffer.from(data))).toBe(false);
          const read = transformer.fromStorage(stored, context);
          expect(Buffer.from(read.data)).toEqual(Buffer.from(data));
          expect(read.stale).toBe(false);
        }),
        { numRuns: 50 },
      );
    }
  });

  it('writes the same plaintext differently each time (a random nonce)', () => {
    const transformer = make(randomBytes(32));
    const a = transformer.toStorage(Buffer.from('same'), '/registry/secrets/a/b');
    const b = transformer.toStorage(Buffer.from('same'), '/registry/secrets/a/b');
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(false);
  });

  it('refuses a value written with another key, and any tampered or truncated value', () => {
    const transformer = make(randomBytes(32));
    const other = make(randomBytes(32));
    const stored = Buffer.from(transformer.toStorage(Buffer.from('{"data":"x"}'), 'k'));
    expect(() => other.fromStorage(stored, 'k')).toThrow();
    fc.assert(
      fc.property(fc.nat({ max: stored.length - 1 }), fc.integer({ min: 1, max: 255 }), (i, x) => {
        const tampered = Buffer.from(stored);
        tampered[i] = tampered[i]! ^ x;
        // CBC has no integrity check: flipping a bit may still decrypt, to other bytes.
        try {
          expect(Buffer.from(transformer.fromStorage(tampered, 'k').data).toString()).not.toBe(
            '{"data":"x"}',
          );
        } catch (err) {
          expect(err).toBeInstanceOf(Error);
        }
      }),
    );
    expect(() => transformer.fromStorage(stored.subarray(0, 10), 'k')).toThrow(
      'the stored data was shorter than the required size',
    );
  });
});

describe('the aesgcm provider', () => {
  it('binds a value to its storage key: read under another key it does not authenticate', () => {
    const transformer = gcmTransformer(randomBytes(32));
    const stored = transformer.toStorage(Buffer.from('secret'), '/registry/secrets/ns/a');
    expect(() => transformer.fromStorage(stored, '/registry/secrets/ns/b')).toThrow(
      'message authentication failed',
    );
  });
});

describe('the aescbc provider', () => {
  it('stores a 16-byte IV then the PKCS#7-padded AES-CBC ciphertext, as aes.go', () => {
    const key = randomBytes(32);
    const stored = Buffer.from(cbcTransformer(key).toStorage(Buffer.from('hello'), 'k'));
    expect(stored.length).toBe(32);
    const decipher = createDecipheriv('aes-256-cbc', key, stored.subarray(0, 16));
    expect(Buffer.concat([decipher.update(stored.subarray(16)), decipher.final()]).toString()).toBe(
      'hello',
    );
  });
});

describe('prefixTransformers', () => {
  const oldKey = cbcTransformer(randomBytes(32));
  const newKey = cbcTransformer(randomBytes(32));
  const old = prefixTransformers([
    { prefix: 'k8s:enc:aescbc:v1:key1:', transformer: oldKey },
    { prefix: '', transformer: identityTransformer },
  ]);
  const rotated = prefixTransformers([
    { prefix: 'k8s:enc:aescbc:v1:key2:', transformer: newKey },
    { prefix: 'k8s:enc:aescbc:v1:key1:', transformer: oldKey },
    { prefix: '', transformer: identityTransformer },
  ]);

  it('writes with the first provider, behind its prefix', () => {
    const stored = Buffer.from(rotated.toStorage(Buffer.from('x'), 'k'));
    expect(stored.subarray(0, 23).toString()).toBe('k8s:enc:aescbc:v1:key2:');
  });

  it('reads what an older key wrote, as stale; what the first wrote, as fresh', () => {
    const byOld = old.toStorage(Buffer.from('x'), 'k');
    expect(rotated.fromStorage(byOld, 'k')).toEqual({ data: Buffer.from('x'), stale: true });
    const byNew = rotated.toStorage(Buffer.from('x'), 'k');
    expect(rotated.fromStorage(byNew, 'k').stale).toBe(false);
  });

  it('reads plaintext through a later identity provider, as stale', () => {
    expect(rotated.fromStorage(Buffer.from('{"a":1}'), 'k')).toEqual({
      data: Buffer.from('{"a":1}'),
      stale: true,
    });
  });

  it('refuses a value no provider matches, and identity refuses encrypted data', () => {
    const only = prefixTransformers([{ prefix: 'k8s:enc:aescbc:v1:key2:', transformer: newKey }]);
    expect(() => only.fromStorage(Buffer.from('{"a":1}'), 'k')).toThrow('no matching prefix found');
    const identityOnly = prefixTransformers([{ prefix: '', transformer: identityTransformer }]);
    expect(() => identityOnly.fromStorage(rotated.toStorage(Buffer.from('x'), 'k'), 'k')).toThrow(
      'no matching prefix found',
    );
  });

  it('with identity first (decrypting everything), reads encrypted values through the next', () => {
    const identityFirst = prefixTransformers([
      { prefix: '', transformer: identityTransformer },
      { prefix: 'k8s:enc:aescbc:v1:key2:', transformer: newKey },
    ]);
    const encrypted = rotated.toStorage(Buffer.from('x'), 'k');
    expect(identityFirst.fromStorage(encrypted, 'k')).toEqual({
      data: Buffer.from('x'),
      stale: true,
    });
    expect(identityFirst.toStorage(Buffer.from('x'), 'k')).toEqual(Buffer.from('x'));
  });
});
