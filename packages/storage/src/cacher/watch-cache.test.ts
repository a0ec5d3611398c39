import { findBuiltinResource, type KubeObject } from '@listwatch/api';
import { describe, expect, it } from 'vitest';
import { toChange } from '../log-record.js';
import { StoredObjectCodec, encodeObject } from '../stored-object.js';
import type { Revision } from '../storage.js';
import { WatchCache } from './watch-cache.js';

const pods = findBuiltinResource('pods')!;
const key = '/registry/pods/ns/p';

const pod = (nodeName: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'ns', labels: { app: 'web' } },
  spec: { nodeName, containers: [{ name: 'c', image: 'nginx' }] },
});

/** The storage codec, counting the values it decodes. */
class CountingCodec extends StoredObjectCodec {
  decoded: Revision[] = [];
  override decode(k: string, data: string | Uint8Array, revision: Revision): KubeObject {
    this.decoded.push(revision);
    return super.decode(k, data, revision);
  }
}

describe('WatchCache.apply', () => {
  it('never decodes the previous value of a modification the cache already holds', () => {
    const codec = new CountingCodec();
    const cache = new WatchCache(pods, {}, () => 0);
    const created = toChange(
      { revision: 2, key, createRevision: 2, value: encodeObject(key, pod('')), prev: undefined },
      codec,
    );
    cache.apply(created);
    const prev = { value: encodeObject(key, pod('')), modRevision: 2 };
    const bound = toChange(
      { revision: 3, key, createRevision: 2, value: encodeObject(key, pod('n1')), prev },
      codec,
    );
    const event = cache.apply(bound);
    // One decode per version written (2 and 3), none of version 2 again as the previous state.
    expect(codec.decoded).toEqual([2, 3]);
    expect(event.prevObject).toBe(created.object);
    expect(event.prevObjectFields?.['spec.nodeName']).toBe('');
    expect(event.objectFields['spec.nodeName']).toBe('n1');
  });

  it("takes a modification's previous state from storage when the cache never held it", () => {
    const codec = new CountingCodec();
    const cache = new WatchCache(pods, {}, () => 0);
    const prev = { value: encodeObject(key, pod('')), modRevision: 2 };
    const event = cache.apply(
      toChange(
        { revision: 3, key, createRevision: 2, value: encodeObject(key, pod('n1')), prev },
        codec,
      ),
    );
    expect(event.prevObjectFields?.['spec.nodeName']).toBe('');
    expect(codec.decoded).toEqual([3, 2]);
  });
});
