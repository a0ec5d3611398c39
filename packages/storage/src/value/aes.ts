import {
  createCipheriv,
  createDecipheriv,
  randomBytes,
  type CipherGCM,
  type DecipherGCM,
} from 'node:crypto';
import type { Transformer } from './transformer.js';

// The aescbc and aesgcm providers, byte for byte as k8s.io/apiserver
// pkg/storage/value/encrypt/aes/aes.go writes them.

/** AES key sizes the providers accept (16, 24 or 32 bytes). */
export function aesAlgorithm(mode: 'cbc' | 'gcm', key: Uint8Array): string {
  if (![16, 24, 32].includes(key.length))
    throw new Error(`crypto/aes: invalid key size ${key.length}`);
  return `aes-${key.length * 8}-${mode}`;
}

/** aescbc: a random 16-byte IV, then the PKCS#7-padded ciphertext. */
export function cbcTransformer(key: Uint8Array): Transformer {
  const algorithm = aesAlgorithm('cbc', key);
  return {
    toStorage(data) {
      const iv = randomBytes(16);
      const cipher = createCipheriv(algorithm, key, iv);
      return Buffer.concat([iv, cipher.update(data), cipher.final()]);
    },
    fromStorage(data) {
      if (data.length < 16) throw new Error('the stored data was shorter than the required size');
      if ((data.length - 16) % 16 !== 0)
        throw new Error('the stored data is not a multiple of the block size');
      const decipher = createDecipheriv(algorithm, key, data.subarray(0, 16));
      try {
        return {
          data: Buffer.concat([decipher.update(data.subarray(16)), decipher.final()]),
          stale: false,
        };
      } catch {
        throw new Error('invalid PKCS7 data (empty or not padded)');
      }
    },
  };
}

/** aesgcm: a random 12-byte nonce, the ciphertext, the 16-byte tag; the key is the AAD. */
export function gcmTransformer(key: Uint8Array): Transformer {
  const algorithm = aesAlgorithm('gcm', key);
  return {
    toStorage(data, context) {
      const nonce = randomBytes(12);
      const cipher = createCipheriv(algorithm, key, nonce) as CipherGCM;
      cipher.setAAD(Buffer.from(context));
      const sealed = Buffer.concat([cipher.update(data), cipher.final()]);
      return Buffer.concat([nonce, sealed, cipher.getAuthTag()]);
    },
    fromStorage(data, context) {
      if (data.length < 12 + 16)
        throw new Error('the stored data was shorter than the required size');
      const decipher = createDecipheriv(algorithm, key, data.subarray(0, 12)) as DecipherGCM;
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(data.subarray(data.length - 16));
      try {
        const plain = Buffer.concat([
          decipher.update(data.subarray(12, data.length - 16)),
          decipher.final(),
        ]);
        return { data: plain, stale: false };
      } catch {
        throw new Error('cipher: message authentication failed');
      }
    },
  };
}
