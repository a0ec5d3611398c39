import type { KubeObject } from '@listwatch/api';
import { Etcd3Storage } from '@listwatch/storage';
import { EtcdCluster } from '@listwatch/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, openWatch, testServer } from '../testing/test-server.js';
import { foo, fooCrd, waitServed } from './crd.test-helper.js';

// Custom resources on etcd: a CRD written through one apiserver is served by another following
// the same etcd, and both keep serving after a restart (CRDs registered again from storage).

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

describe('custom resources on etcd', () => {
  let etcd: EtcdCluster;
  beforeAll(async () => {
    etcd = await EtcdCluster.start();
  });
  afterAll(() => etcd.destroy());
  const storage = (prefix: string) =>
    new Etcd3Storage({ endpoints: etcd.endpoints, prefix, compactionInterval: 0 });

  it('a CRD created through one apiserver is served by the other; its objects are watched across', async () => {
    const a = await testServer(storage('/two'));
    const b = await testServer(storage('/two'));
    try {
      const crd = fooCrd({ group: 'two.example.com' });
      expect((await client(a.url).post(CRDS, crd)).status).toBe(201);
      await waitServed(client(b.url), crd);
      const path = '/apis/two.example.com/v1/namespaces/default/foos';
      const watch = openWatch(b.url, `${path}?watch=1&resourceVersion=0`);
      await new Promise((r) => setTimeout(r, 200));
      const created = await client(a.url).post(
        path,
        foo('shared', { deploymentName: 'd' }, 'two.example.com'),
      );
      expect(created.status).toBe(201);
      const [event] = await watch.take(1, 10_000);
      expect(event?.type).toBe('ADDED');
      expect((event?.object as KubeObject)['spec']).toEqual({ deploymentName: 'd', replicas: 1 });
      // Deleted through b: a's watch cache and discovery lose it too.
      await client(b.url).delete(`${CRDS}/foos.two.example.com`);
      await watch.take(1, 10_000);
      const deadline = Date.now() + 10_000;
      while ((await client(a.url).get('/apis/two.example.com/v1')).status !== 404) {
        if (Date.now() > deadline) throw new Error('still served by a');
        await new Promise((r) => setTimeout(r, 50));
      }
      await watch.close();
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('CRDs and their objects survive an apiserver restart, served before it is ready', async () => {
    const first = await testServer(storage('/restart'));
    const crd = fooCrd({ group: 'restart.example.com' });
    const path = '/apis/restart.example.com/v1/namespaces/default/foos';
    try {
      await client(first.url).post(CRDS, crd);
      await waitServed(client(first.url), crd);
      await client(first.url).post(
        path,
        foo('kept', { deploymentName: 'd' }, 'restart.example.com'),
      );
    } finally {
      await first.close();
    }
    const second = await testServer(storage('/restart'));
    try {
      // startApiServer resolves once ready: no waiting here.
      expect((await fetch(`${second.url}/readyz`)).status).toBe(200);
      const list = await client(second.url).get<{ items: KubeObject[] }>(path);
      expect(list.status).toBe(200);
      expect(list.body.items.map((o) => o.metadata.name)).toEqual(['kept']);
    } finally {
      await second.close();
    }
  });
});
