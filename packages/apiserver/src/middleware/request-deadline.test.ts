import type { KubeObject } from '@listwatch/api';
import { MemoryStorage } from '@listwatch/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApiServer } from '../server.js';
import { client, testServer } from '../testing/test-server.js';

// kube-apiserver's deadline on requests that are not long-running
// (endpoints/filters/request_deadline.go, server/filters/timeout.go): `?timeout=` or
// --request-timeout, then 504 Timeout in kube's words; watches are not bound by it.

/** Storage whose reads of objects in the `slow` namespace take half a second. */
class SlowStorage extends MemoryStorage {
  override async get(key: string): Promise<KubeObject | undefined> {
    if (key.includes('/slow/')) await new Promise((r) => setTimeout(r, 500));
    return super.get(key);
  }
}

describe('request deadlines', () => {
  let server: RunningApiServer;
  beforeAll(async () => {
    server = await testServer(new SlowStorage({ compactionInterval: 0 }), {
      requestTimeout: 2_000,
    });
  });
  afterAll(() => server.close());
  const api = () => client(server.url);
  // A GET without resourceVersion reads storage (the slow part), not the watch cache.
  const slowGet = '/api/v1/namespaces/slow/configmaps/x?pretty=false';

  it('a request not answered within ?timeout= is 504 Timeout, as kube words it', async () => {
    const res = await api().call('GET', `${slowGet}&timeout=100ms`);
    expect(res.status).toBe(504);
    expect(res.body).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'Timeout',
      code: 504,
      message:
        'Timeout: request did not complete within requested timeout - context deadline exceeded',
    });
  });

  it('within its deadline it is answered, and the server keeps serving', async () => {
    // 404: read and answered (there is no such ConfigMap), not cut.
    expect((await api().call('GET', `${slowGet}&timeout=5s`)).status).toBe(404);
    expect((await api().call('GET', slowGet)).status).toBe(404);
  });

  it('a timeout longer than --request-timeout is capped by it', async () => {
    const capped = await testServer(new SlowStorage({ compactionInterval: 0 }), {
      requestTimeout: 100,
    });
    try {
      const res = await client(capped.url).call('GET', `${slowGet}&timeout=1h`);
      expect(res.status).toBe(504);
    } finally {
      await capped.close();
    }
  });

  it('an invalid timeout is 400 naming it', async () => {
    const res = await api().call('GET', '/api/v1/namespaces?timeout=soon');
    expect(res.status).toBe(400);
    expect((res.body as KubeObject & { message: string }).message).toMatch(
      /^invalid timeout specified in the request URL - time: invalid duration "soon"/,
    );
  });

  it('a watch is not bound by it', async () => {
    const res = await fetch(
      `${server.url}/api/v1/namespaces/slow/configmaps?watch=true&timeoutSeconds=1&timeout=50ms`,
    );
    expect(res.status).toBe(200);
    await res.text();
  });
});
