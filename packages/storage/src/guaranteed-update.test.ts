import type { KubeObject } from '@listwatch/api';
import { describe, expect, it } from 'vitest';
import { guaranteedUpdate } from './guaranteed-update.js';
import { MemoryStorage } from './memory/memory-storage.js';
import { FaultInjectingStorage } from './testing/fault-injecting-storage.js';

const key = '/registry/configmaps/ns/a';
const configMap = (v: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'a', namespace: 'ns' },
  data: { v },
});

// etcd3/store.go GuaranteedUpdate: with a cached object the common case is one request.
describe('guaranteedUpdate with the watch cache copy', () => {
  it('an update from a current cached copy reads storage not at all; without one it reads once', async () => {
    const storage = new FaultInjectingStorage(new MemoryStorage());
    const created = await storage.create(key, configMap('1'));
    const updated = await guaranteedUpdate(
      storage,
      key,
      (c) => ({ ...c, data: { v: '2' } }),
      created,
    );
    expect(storage.gets).toEqual([]);
    expect(updated['data']).toEqual({ v: '2' });
    await guaranteedUpdate(storage, key, (c) => ({ ...c, data: { v: '3' } }));
    expect(storage.gets).toEqual([key]);
    await storage.close();
  });

  it('a stale cached copy costs one read more, and the update lands on the current state', async () => {
    const storage = new FaultInjectingStorage(new MemoryStorage());
    const stale = await storage.create(key, configMap('1'));
    await storage.update(key, configMap('2'));
    const updated = await guaranteedUpdate(
      storage,
      key,
      (c) => ({ ...c, data: { v: `${(c['data'] as { v: string }).v}+` } }),
      stale,
    );
    expect(storage.gets).toEqual([key]);
    expect(updated['data']).toEqual({ v: '2+' });
    await storage.close();
  });
});
