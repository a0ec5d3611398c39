import type { KubeObject } from '@listwatch/api';
import { MemoryStorage, type Storage } from '@listwatch/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApiServer } from '../server.js';
import { client, testServer } from '../testing/test-server.js';

// How many storage reads a write costs: kube-apiserver reads neither the namespace
// (plugin/pkg/admission/namespace/lifecycle/admission.go looks it up in its informer) nor the
// object to update (cacher.go GuaranteedUpdate passes the watch cache's copy down to
// etcd3/store.go, whose compare-and-swap proves it current) from storage in the common case.

/** The server's storage, counting the keys read with get() (the Proxy is `this` inside it too). */
function countingStorage(): { storage: Storage; gets: string[] } {
  const gets: string[] = [];
  const inner = new MemoryStorage({ compactionInterval: 0 });
  const storage = new Proxy(inner, {
    get(target, property, receiver) {
      if (property === 'get')
        return (key: string) => {
          gets.push(key);
          return target.get(key);
        };
      return Reflect.get(target, property, receiver) as unknown;
    },
  });
  return { storage, gets };
}

describe('the storage reads of a write', () => {
  const { storage, gets } = countingStorage();
  let server: RunningApiServer;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    server = await testServer(storage);
    api = client(server.url);
  });
  afterAll(() => server.close());

  /** Waits until the watch cache of `resource` has seen `object` (a GET at its resourceVersion). */
  async function cached(path: string, object: KubeObject): Promise<void> {
    const res = await api.get(`${path}?resourceVersion=${object.metadata.resourceVersion}`);
    expect(res.status).toBe(200);
  }

  it('a create in a namespace the watch cache has, and an update of an object it has, read nothing from storage', async () => {
    const ns = await api.post('/api/v1/namespaces', { metadata: { name: 'reads' } });
    await cached('/api/v1/namespaces/reads', ns.body);
    gets.length = 0;
    const base = '/api/v1/namespaces/reads/configmaps';
    const created = await api.post(base, { metadata: { name: 'a' }, data: { v: '1' } });
    expect(created.status).toBe(201);
    await cached(`${base}/a`, created.body);
    const updated = await api.put(`${base}/a`, { ...created.body, data: { v: '2' } });
    expect(updated.status).toBe(200);
    await cached(`${base}/a`, updated.body);
    const patched = await api.patch(`${base}/a`, { data: { v: '3' } });
    expect(patched.status).toBe(200);
    expect(patched.body['data']).toEqual({ v: '3' });
    expect(gets).toEqual([]);
  });

  it('an update with a resourceVersion the watch cache has not seen yet still lands, and a stale one is 409', async () => {
    await api.post('/api/v1/namespaces', { metadata: { name: 'lag' } });
    const base = '/api/v1/namespaces/lag/configmaps';
    const created = await api.post(base, { metadata: { name: 'b' }, data: { v: '1' } });
    let last = created.body;
    for (let i = 2; i < 12; i++) {
      // No wait for the cache: each PUT carries the resourceVersion the previous one returned.
      const res = await api.put(`${base}/b`, { ...last, data: { v: String(i) } });
      expect(res.status).toBe(200);
      last = res.body;
    }
    expect(last['data']).toEqual({ v: '11' });
    const stale = await api.put(`${base}/b`, { ...created.body, data: { v: 'stale' } });
    expect(stale.status).toBe(409);
  });

  it('creating in a namespace deleted a moment ago is refused at once, whatever the watch cache shows', async () => {
    await api.post('/api/v1/namespaces', { metadata: { name: 'gone' } });
    const ns = await api.get<KubeObject>('/api/v1/namespaces/gone');
    await cached('/api/v1/namespaces/gone', ns.body);
    expect((await api.delete('/api/v1/namespaces/gone')).status).toBe(200);
    const res = await api.post('/api/v1/namespaces/gone/configmaps', { metadata: { name: 'c' } });
    expect(res.status).toBe(403);
  });
});
