import { findBuiltinResource, type KubeObject } from '@listwatch/api';
import { EtcdCluster } from '@listwatch/testing';
import { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cacher } from '../cacher/cacher.js';
import { storageContract } from '../testing/contract.js';
import { Etcd3Storage } from './etcd3-storage.js';

// etcd on its DEFAULT FLAGS, as `apt-get install etcd-server` runs it: no
// --experimental-watch-progress-notify-interval (etcd notifies idle watches every 10 minutes)
// and, before 3.4.31/3.5.13 (Debian ships 3.4.23), no reliable progress requests. kube-apiserver
// serves on such an etcd: nothing here may wait for a progress notification.

let etcd: EtcdCluster;
beforeAll(async () => {
  etcd = await EtcdCluster.start(1, { defaultFlags: true });
});
afterAll(async () => {
  await etcd.destroy();
});

let stores = 0;

storageContract('etcd3 on etcd with its default flags', {
  open: (options) =>
    Promise.resolve(
      new Etcd3Storage({
        endpoints: etcd.endpoints,
        prefix: `/default-flags-${stores++}/registry`,
        compactionInterval: 0,
        ...options,
      }),
    ),
  writeRaw: async (storage, key, bytes) => {
    const client = new Etcd3({ hosts: etcd.endpoints });
    try {
      await client.put(key).value(Buffer.from(bytes));
    } finally {
      client.close();
    }
    return storage;
  },
  periodicProgress: false,
});

describe('the watch cache on etcd with its default flags', () => {
  const configmaps = findBuiltinResource('configmaps')!;
  const cm = (name: string): KubeObject => ({ metadata: { name, namespace: 'ns' }, data: {} });

  it("becomes ready when etcd's newest revision belongs to another resource: readiness never waits for a progress notification (cacher.go lists at the current revision)", async () => {
    const prefix = `/default-flags-${stores++}`;
    const storage = new Etcd3Storage({ endpoints: etcd.endpoints, prefix, compactionInterval: 0 });
    const cacher = new Cacher({ storage, definition: configmaps });
    try {
      await storage.create(`${prefix}/configmaps/ns/a`, cm('a'));
      // The newest revisions are other resources': nothing of ours moves the cache there.
      for (let i = 0; i < 3; i++) await storage.create(`${prefix}/secrets/ns/s${i}`, cm(`s${i}`));
      const current = await storage.currentRevision();
      await cacher.start();
      expect(cacher.isReady).toBe(true);
      expect(cacher.revision).toBeGreaterThanOrEqual(current);
      // Served: a LIST from the cache, a consistent LIST (from etcd when progress requests are
      // unreliable), and a watch that sees the next change.
      const cached = await cacher.list({ resourceVersion: '0' });
      expect(cached.items.map((o) => o.metadata.name)).toEqual(['a']);
      const consistent = await cacher.list({});
      expect(Number(consistent.resourceVersion)).toBeGreaterThanOrEqual(current);
      const watcher = await cacher.watch({ resourceVersion: cached.resourceVersion });
      await storage.create(`${prefix}/configmaps/ns/b`, cm('b'));
      const batch = await watcher.nextBatch();
      expect(batch?.map((b) => (b.encoded.event.object as KubeObject).metadata.name)).toEqual([
        'b',
      ]);
    } finally {
      await cacher.stop();
      await storage.close();
    }
  });
});
