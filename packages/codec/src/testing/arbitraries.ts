import fc from 'fast-check';
import { statusOf, type KubeObject, type Status, type WatchEvent } from '@listwatch/api';

// fast-check arbitraries shared by the package's tests. Values stay in what both JSON and CBOR
// carry faithfully: no -0 (JSON writes it as 0), no NaN/Infinity, well-formed Unicode strings,
// and no `__proto__` keys (decoders drop or rename them to prevent prototype pollution).

export const jsonKey = fc
  .string({ unit: 'binary', maxLength: 12 })
  .filter((key) => key !== '__proto__');

const jsonNumber = fc.oneof(
  fc.integer(),
  fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n)),
);

export const jsonValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    jsonNumber,
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(jsonKey, tie('value'), { maxKeys: 6, noNullPrototype: true }),
  ),
})).value;

export const jsonObject: fc.Arbitrary<Record<string, unknown>> = fc.dictionary(jsonKey, jsonValue, {
  maxKeys: 6,
  noNullPrototype: true,
});

export const kubeObject: fc.Arbitrary<KubeObject> = fc
  .record({
    name: fc.string({ minLength: 1, maxLength: 20 }),
    namespace: fc.option(fc.string({ minLength: 1, maxLength: 10 }), { nil: undefined }),
    resourceVersion: fc.nat().map(String),
    labels: fc.option(
      fc.dictionary(jsonKey, fc.string({ maxLength: 10 }), { maxKeys: 3, noNullPrototype: true }),
      {
        nil: undefined,
      },
    ),
    spec: jsonObject,
  })
  .map(({ name, namespace, resourceVersion, labels, spec }) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name,
      ...(namespace !== undefined ? { namespace } : {}),
      resourceVersion,
      ...(labels !== undefined ? { labels } : {}),
    },
    spec,
  }));

export const status: fc.Arbitrary<Status> = fc
  .record({
    code: fc.integer({ min: 400, max: 599 }),
    message: fc.string({ unit: 'binary', maxLength: 30 }),
  })
  // As the wire carries it: an empty message is left out (omitempty).
  .map(({ code, message }) => statusOf({ status: 'Failure', message, reason: 'Expired', code }));

export const watchEvent: fc.Arbitrary<WatchEvent> = fc.oneof(
  fc.record({
    type: fc.constantFrom(
      'ADDED' as const,
      'MODIFIED' as const,
      'DELETED' as const,
      'BOOKMARK' as const,
    ),
    object: kubeObject,
  }),
  fc.record({ type: fc.constant('ERROR' as const), object: status }),
);

/** Chunk sizes, used cyclically to cut a byte stream anywhere (1-byte chunks included). */
export const chunkSizes = fc.array(fc.integer({ min: 1, max: 97 }), {
  minLength: 1,
  maxLength: 12,
});

/** Cuts `bytes` into chunks of the given sizes, cycling through them. */
export function chunk(bytes: Uint8Array, sizes: readonly number[]): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let i = 0;
  let at = 0;
  while (at < bytes.length) {
    const size = sizes[i++ % sizes.length]!;
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  return chunks;
}

export function concat(parts: readonly Uint8Array[]): Uint8Array {
  return Buffer.concat(parts);
}
