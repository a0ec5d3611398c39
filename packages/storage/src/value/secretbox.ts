import { secretbox } from '@noble/ciphers/salsa.js';
import { randomBytes } from 'node:crypto';
import type { Transformer } from './transformer.js';

// The secretbox provider as k8s.io/apiserver pkg/storage/value/encrypt/secretbox writes it: a
// random 24-byte nonce, then NaCl secretbox (XSalsa20-Poly1305: the tag, then the ciphertext).

export function secretboxTransformer(key: Uint8Array): Transformer {
  if (key.length !== 32) throw new Error(`secretbox key must be 32 bytes, got ${key.length}`);
  return {
    toStorage(data) {
      const nonce = randomBytes(24);
      return Buffer.concat([nonce, secretbox(key, nonce).seal(data)]);
    },
    fromStorage(data) {
      if (data.length < 24 + 16)
        throw new Error('the stored data was shorter than the required size');
      try {
        return { data: secretbox(key, data.subarray(0, 24)).open(data.subarray(24)), stale: false };
      } catch {
        throw new Error('output array was not large enough for encryption');
      }
    },
  };
}
