import { ApiError, type KubeObject } from '@listwatch/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { configMap, namespaceObject } from '../testing/fixtures.js';
import { DeletedFinalStateUnknown } from './deleted-final-state-unknown.js';
import {
  deletionHandlingMetaNamespaceKeyFunc,
  metaNamespaceKeyFunc,
  splitMetaNamespaceKey,
} from './key-func.js';

// client-go tools/cache/store.go MetaNamespaceKeyFunc / SplitMetaNamespaceKey.
describe('key functions', () => {
  it('a namespaced object is keyed namespace/name', () => {
    expect(metaNamespaceKeyFunc(configMap('default', 'a'))).toBe('default/a');
  });

  it('a cluster-scoped object is keyed by its name alone', () => {
    expect(metaNamespaceKeyFunc(namespaceObject('kube-system'))).toBe('kube-system');
  });

  it('an object without metadata is a 400 BadRequest key error', () => {
    const bad = { kind: 'ConfigMap' } as unknown as KubeObject;
    let err: unknown;
    try {
      metaNamespaceKeyFunc(bad);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe(400);
    expect((err as ApiError).message).toMatch(/couldn't create key for object/);
  });

  it('a tombstone is keyed by the key it carries', () => {
    const tombstone = new DeletedFinalStateUnknown('ns/gone', undefined);
    expect(deletionHandlingMetaNamespaceKeyFunc(tombstone)).toBe('ns/gone');
  });

  it('a key with more than one slash does not split', () => {
    expect(() => splitMetaNamespaceKey('a/b/c')).toThrow(/unexpected key format/);
  });

  const segment = fc.stringMatching(/^[a-z0-9]([-a-z0-9.]{0,20}[a-z0-9])?$/);

  it('splitting a key gives back the namespace and name it was made from', () => {
    fc.assert(
      fc.property(fc.option(segment, { nil: undefined }), segment, (namespace, name) => {
        const obj: KubeObject = { metadata: { name, ...(namespace ? { namespace } : {}) } };
        expect(splitMetaNamespaceKey(metaNamespaceKeyFunc(obj))).toEqual({
          namespace: namespace ?? '',
          name,
        });
      }),
    );
  });

  it('splitting any string either fails with a 400 or rebuilds the same string', () => {
    fc.assert(
      fc.property(fc.string(), (key) => {
        let parts: { namespace: string; name: string };
        try {
          parts = splitMetaNamespaceKey(key);
        } catch (e) {
          expect(e).toBeInstanceOf(ApiError);
          expect((e as ApiError).code).toBe(400);
          expect(key.split('/').length).toBeGreaterThan(2);
          return;
        }
        expect(key.includes('/') ? `${parts.namespace}/${parts.name}` : parts.name).toBe(key);
      }),
    );
  });
});
