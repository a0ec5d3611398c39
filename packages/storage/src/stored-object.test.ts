import type { KubeObject } from '@listwatch/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isStorageError } from './storage-error.js';
import { MAX_REQUEST_BYTES, decodeObject, encodeObject, maxObjectBytes } from './stored-object.js';

const KEY = '/registry/configmaps/ns/a';

const object = fc.record({
  apiVersion: fc.constant('v1'),
  kind: fc.constant('ConfigMap'),
  metadata: fc.record(
    {
      name: fc.string(),
      namespace: fc.string(),
      resourceVersion: fc.string(),
      labels: fc.dictionary(fc.string(), fc.string()),
    },
    { requiredKeys: ['name'] },
  ),
  data: fc.jsonValue(),
});

describe('stored objects', () => {
  it('encode then decode gives the object back with resourceVersion = the revision, whatever it said before', () => {
    fc.assert(
      fc.property(object, fc.integer({ min: 1, max: 2 ** 53 - 1 }), (input, revision) => {
        const decoded = decodeObject(KEY, encodeObject(KEY, input), revision);
        const { resourceVersion: _dropped, ...metadata } = input.metadata;
        expect(decoded).toEqual(
          JSON.parse(
            JSON.stringify({
              ...input,
              metadata: { ...metadata, resourceVersion: String(revision) },
            }),
          ),
        );
      }),
    );
  });

  it('the stored bytes never carry a resourceVersion', () => {
    fc.assert(
      fc.property(object, (input) => {
        const stored = JSON.parse(encodeObject(KEY, input)) as KubeObject;
        expect(stored.metadata).not.toHaveProperty('resourceVersion');
      }),
    );
  });

  it('decoding arbitrary bytes yields an object with metadata or a CorruptObject error (500) naming the key, nothing else', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array(),
          fc.string().map((s) => Buffer.from(s)),
          fc.jsonValue().map((v) => Buffer.from(JSON.stringify(v))),
        ),
        (bytes) => {
          try {
            const decoded = decodeObject(KEY, bytes, 7);
            expect(decoded.metadata.resourceVersion).toBe('7');
          } catch (err) {
            expect(isStorageError(err, 'CorruptObject')).toBe(true);
            expect(String(err)).toContain(KEY);
          }
        },
      ),
    );
  });

  it('the size limit leaves room for the key three times inside etcd request limit', () => {
    expect(maxObjectBytes(KEY)).toBe(MAX_REQUEST_BYTES - 512 - 3 * KEY.length);
  });
});
