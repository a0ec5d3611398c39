import type { KubeObject } from '@listwatch/api';
import { Etcd3Storage } from '@listwatch/storage';
import { EtcdCluster } from '@listwatch/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, cm, openWatch, testServer } from './testing/test-server.js';

describe('two apiservers on one etcd', () => {
  let etcd: EtcdCluster;
  beforeAll(async () => {
    etcd = await EtcdCluster.start();
  });
  afterAll(() => etcd.destroy());

  it('a write through one is seen by a watch on the other', async () => {
    const storage = () => new Etcd3Storage({ endpoints: etcd.endpoints, compactionInterval: 0 });
    const a = await testServer(storage());
    const b = await testServer(storage());
    try {
      const watch = openWatch(
        b.url,
        '/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=0',
      );
      await new Promise((r) => setTimeout(r, 200));
      expect(
        (await client(a.url).post('/api/v1/namespaces/default/configmaps', cm('shared'))).status,
      ).toBe(201);
      const [event] = await watch.take(1, 10_000);
      expect(event?.type).toBe('ADDED');
      expect((event?.object as KubeObject).metadata.name).toBe('shared');
      // A consistent read on the other server sees it too (read-your-writes across servers).
      const list = await client(b.url).get<{ items: KubeObject[] }>(
        '/api/v1/namespaces/default/configmaps',
      );
      expect(list.body.items.map((o) => o.metadata.name)).toContain('shared');
      await watch.close();
    } finally {
      await a.close();
      await b.close();
    }
  });
});
