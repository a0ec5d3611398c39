// Values as they go to and come from storage, after JSON: kube-apiserver's value transformers
// (k8s.io/apiserver pkg/storage/value/transformer.go), which encryption at rest plugs into.

/** Transforms one stored value; `context` is the storage key (authenticated data for AEADs). */
export interface Transformer {
  toStorage(data: Uint8Array, context: string): Uint8Array;
  /** `stale`: readable, but the first (writing) transformer would store it differently. */
  fromStorage(data: Uint8Array, context: string): { data: Uint8Array; stale: boolean };
}

/** The transformer of each key (kube: one per resource); undefined stores the JSON as it is. */
export type TransformerForKey = (key: string) => Transformer | undefined;

/** Every prefix encryption writes starts with this (k8s.io/apiserver value/encrypt). */
export const ENCRYPTED_PREFIX = 'k8s:enc:';

function startsWith(data: Uint8Array, prefix: Uint8Array): boolean {
  if (data.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (data[i] !== prefix[i]) return false;
  return true;
}

/** The `identity` provider: plaintext; refuses to read what an encrypting provider wrote. */
export const identityTransformer: Transformer = {
  toStorage: (data) => data,
  fromStorage(data) {
    if (startsWith(data, Buffer.from(ENCRYPTED_PREFIX)))
      throw new Error('identity transformer tried to read encrypted data');
    return { data, stale: false };
  },
};

/** A transformer and the prefix its values carry (`k8s:enc:aescbc:v1:key1:`; `` for identity). */
export interface PrefixedTransformer {
  prefix: string;
  transformer: Transformer;
}

/**
 * value.NewPrefixTransformers: writes with the first; reads with the first whose prefix the value
 * has, stale unless that is the first. A value no provider can read is an error.
 */
export function prefixTransformers(transformers: readonly PrefixedTransformer[]): Transformer {
  const first = transformers[0];
  if (!first) throw new Error('prefixTransformers needs at least one transformer');
  const prefixes = transformers.map((t) => Buffer.from(t.prefix));
  return {
    toStorage(data, context) {
      return Buffer.concat([prefixes[0]!, first.transformer.toStorage(data, context)]);
    },
    fromStorage(data, context) {
      for (const [i, { transformer }] of transformers.entries()) {
        const prefix = prefixes[i]!;
        if (!startsWith(data, prefix)) continue;
        let result: { data: Uint8Array; stale: boolean };
        try {
          result = transformer.fromStorage(data.subarray(prefix.length), context);
        } catch (err) {
          // An identity provider listed first (migrating away from encryption) passes encrypted
          // values on to the providers after it.
          if (prefix.length === 0) continue;
          throw err;
        }
        return { data: result.data, stale: i !== 0 || result.stale };
      }
      throw new Error('no matching prefix found');
    },
  };
}
