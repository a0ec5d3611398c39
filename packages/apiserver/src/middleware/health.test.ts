import { MemoryStorage, type Revision } from '@listwatch/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApiServer } from '../server.js';
import { testServer } from '../testing/test-server.js';

// The health endpoints as k8s.io/apiserver pkg/server/healthz/healthz.go serves them.

/** Memory storage whose health (currentRevision) can be made to fail. */
class FlakyStorage extends MemoryStorage {
  down = false;
  override currentRevision(): Promise<Revision> {
    return this.down ? Promise.reject(new Error('connection refused')) : super.currentRevision();
  }
}

let storage: FlakyStorage;
let server: RunningApiServer;

beforeAll(async () => {
  storage = new FlakyStorage({ compactionInterval: 0 });
  server = await testServer(storage);
});
afterAll(async () => {
  await server.close();
});

async function get(path: string): Promise<{ status: number; type: string | null; text: string }> {
  const res = await fetch(`${server.url}${path}`);
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

describe('health endpoints', () => {
  it('/readyz?verbose lists each check as [+]<name> ok, then "readyz check passed"', async () => {
    const res = await get('/readyz?verbose');
    expect(res.status).toBe(200);
    expect(res.type).toBe('text/plain; charset=utf-8');
    expect(res.text).toBe(
      [
        '[+]ping ok',
        '[+]log ok',
        '[+]etcd ok',
        '[+]informer-sync ok',
        '[+]shutdown ok',
        'readyz check passed',
        '',
      ].join('\n'),
    );
  });

  it('/livez?verbose and /healthz?verbose list theirs; without verbose each is "ok"', async () => {
    for (const name of ['livez', 'healthz']) {
      expect((await get(`/${name}?verbose`)).text).toBe(
        `[+]ping ok\n[+]log ok\n[+]etcd ok\n${name} check passed\n`,
      );
      expect(await get(`/${name}`)).toMatchObject({ status: 200, text: 'ok' });
    }
    expect(await get('/readyz')).toMatchObject({ status: 200, text: 'ok' });
  });

  it('?exclude skips a check and warns about names that match none; /readyz/<check> runs one', async () => {
    const res = await get('/readyz?verbose&exclude=etcd&exclude=nope&exclude=also-not');
    expect(res.text).toBe(
      [
        '[+]ping ok',
        '[+]log ok',
        '[+]etcd excluded: ok',
        '[+]informer-sync ok',
        '[+]shutdown ok',
        'warn: some health checks cannot be excluded: no matches for "also-not","nope"',
        'readyz check passed',
        '',
      ].join('\n'),
    );
    expect(await get('/readyz/ping')).toMatchObject({ status: 200, text: 'ok' });
    expect(await get('/livez/etcd')).toMatchObject({ status: 200, text: 'ok' });
    expect((await get('/readyz/nothing-like-this')).status).toBe(404);
  });

  it('a failing check makes the endpoint a 500 that lists every check, the reason withheld; its own path says why', async () => {
    storage.down = true;
    try {
      const res = await get('/livez');
      expect(res.status).toBe(500);
      expect(res.text).toBe(
        '[+]ping ok\n[+]log ok\n[-]etcd failed: reason withheld\nlivez check failed\n',
      );
      expect((await get('/readyz?exclude=etcd')).status).toBe(200);
      expect(await get('/readyz/etcd')).toMatchObject({
        status: 500,
        text: 'internal server error: connection refused\n',
      });
    } finally {
      storage.down = false;
    }
  });
});
