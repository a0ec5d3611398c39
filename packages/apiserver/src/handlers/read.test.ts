import type { KubeObject, Status } from '@listwatch/api';
import { MemoryStorage } from '@listwatch/storage';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningApiServer } from '../server.js';
import { client, cm, testServer } from '../testing/test-server.js';

// GET of one object and its resourceVersion (k8s.io/apiserver/pkg/storage/cacher/delegator.go
// Get): unset reads storage; "0" and N are answered by the watch cache, which storage never sees.

/** Memory storage that records the keys it was asked to get. */
class CountingStorage extends MemoryStorage {
  readonly gets: string[] = [];
  override get(key: string): Promise<KubeObject | undefined> {
    this.gets.push(key);
    return super.get(key);
  }
}

const key = '/registry/configmaps/default/a';
const path = '/api/v1/namespaces/default/configmaps/a';

let server: RunningApiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(defaultWatchCacheSize?: number) {
  const storage = new CountingStorage({ compactionInterval: 0 });
  server = await testServer(storage, {
    ...(defaultWatchCacheSize !== undefined ? { defaultWatchCacheSize } : {}),
  });
  const api = client(server.url);
  const created = await api.post('/api/v1/namespaces/default/configmaps', cm('a'));
  expect(created.status).toBe(201);
  /** How many gets of the object reached storage. */
  const storageGets = () => storage.gets.filter((k) => k === key).length;
  return { api, created: created.body, storageGets };
}

describe('GET with a resourceVersion', () => {
  it('resourceVersion 0 and N are served from the watch cache; unset reads storage', async () => {
    const { api, created, storageGets } = await start();
    const before = storageGets();
    const atN = await api.get(`${path}?resourceVersion=${created.metadata.resourceVersion}`);
    expect(atN.status).toBe(200);
    expect(atN.body).toEqual(created);
    const any = await api.get(`${path}?resourceVersion=0`);
    expect(any.body).toEqual(created);
    expect(storageGets()).toBe(before);
    expect((await api.get(path)).body).toEqual(created);
    expect(storageGets()).toBe(before + 1);
  });

  it('a missing object at resourceVersion 0 is 404 from the cache; a bad resourceVersion is 400', async () => {
    const { api } = await start();
    const missing = await api.get<Status>(`${path}x?resourceVersion=0`);
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('configmaps "ax" not found');
    const bad = await api.get<Status>(`${path}?resourceVersion=x`);
    expect(bad.status).toBe(400);
  });

  it('with the watch cache disabled, resourceVersion 0 reads storage', async () => {
    const { api, created, storageGets } = await start(0);
    const before = storageGets();
    expect((await api.get(`${path}?resourceVersion=0`)).body).toEqual(created);
    expect(storageGets()).toBe(before + 1);
  });
});
