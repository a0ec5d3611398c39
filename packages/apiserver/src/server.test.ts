import type { KubeObject, Status } from '@listwatch/api';
import { MemoryStorage } from '@listwatch/storage';
import fc from 'fast-check';
import { once } from 'node:events';
import { Agent, get as httpGet } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseArgs } from './cli.js';
import { startApiServer, type RunningApiServer } from './server.js';
import { client, cm, openWatch, testServer } from './testing/test-server.js';

/** Memory storage whose create of a `held` object waits until released: a write in progress. */
class HeldWriteStorage extends MemoryStorage {
  private gate: Promise<void> | undefined;
  release: () => void = () => undefined;

  hold(): void {
    this.gate = new Promise((resolve) => (this.release = resolve));
  }

  override async create(key: string, object: KubeObject): Promise<KubeObject> {
    if (key.endsWith('/held')) await this.gate;
    return super.create(key, object);
  }
}

describe('limits and bad input', () => {
  let server: RunningApiServer;
  const storage = new HeldWriteStorage({ compactionInterval: 0 });
  beforeAll(async () => {
    server = await testServer(storage, { maxMutatingRequestsInflight: 1 });
  });
  afterAll(() => server.close());

  it('past --max-mutating-requests-inflight a write is 429 with Retry-After, and watches are not counted', async () => {
    // Hold the only mutating slot with a write that storage has not finished.
    storage.hold();
    const held = client(server.url).post('/api/v1/namespaces/default/configmaps', cm('held'));
    const inflight = async () => (await fetch(`${server.url}/metrics`)).text();
    await expect
      .poll(inflight)
      .toMatch(/apiserver_current_inflight_requests\{request_kind="mutating"\} 1/);
    const watch = openWatch(server.url, '/api/v1/namespaces/default/configmaps?watch=1');
    const res = await client(server.url).post<Status>(
      '/api/v1/namespaces/default/configmaps',
      cm('x'),
    );
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.body.reason).toBe('TooManyRequests');
    storage.release();
    expect((await held).status).toBe(201);
    await watch.close();
    expect(
      (await client(server.url).post('/api/v1/namespaces/default/configmaps', cm('y'))).status,
    ).toBe(201);
  });

  it('a client that resets its connection before sending a byte never takes the server down', async () => {
    for (let i = 0; i < 20; i++) {
      const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
      await once(socket, 'connect');
      socket.resetAndDestroy();
    }
    await new Promise((r) => setTimeout(r, 100));
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('fuzzed paths, queries, headers and bodies always get a Status with a 4xx code and the server keeps serving', async () => {
    const api = client(server.url);
    const segment = fc.oneof(
      fc.constantFrom(
        'api',
        'apis',
        'v1',
        'apps',
        'namespaces',
        'default',
        'pods',
        'configmaps',
        'watch',
        'status',
        'binding',
        '..',
        '%2F',
        '%',
        'x',
      ),
      fc.webSegment(),
    );
    const query = fc.dictionary(
      fc.constantFrom(
        'watch',
        'resourceVersion',
        'resourceVersionMatch',
        'limit',
        'continue',
        'labelSelector',
        'fieldSelector',
        'timeoutSeconds',
        'sendInitialEvents',
        'allowWatchBookmarks',
        'dryRun',
      ),
      fc.oneof(
        fc.string(),
        fc.constantFrom('0', '1', 'true', 'Exact', 'NotOlderThan', '-1', '99999999999999999999'),
      ),
      { maxKeys: 4 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(segment, { minLength: 1, maxLength: 7 }),
        query,
        fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'),
        fc.oneof(fc.string(), fc.json()),
        fc.constantFrom(
          'application/json',
          'application/merge-patch+json',
          'application/json-patch+json',
          'application/strategic-merge-patch+json',
          'application/cbor',
          'text/plain',
          '',
        ),
        fc.constantFrom(
          'application/json',
          'application/cbor',
          '*/*',
          'text/html',
          'application/json;as=Table;v=v1;g=meta.k8s.io',
          '',
        ),
        async (segments, params, method, body, contentType, accept) => {
          const qs = new URLSearchParams(params);
          qs.set('timeoutSeconds', '1');
          const path = `/${segments.join('/')}?${qs.toString()}`;
          const res = await fetch(`${server.url}${path}`, {
            method,
            headers: {
              ...(contentType ? { 'Content-Type': contentType } : {}),
              ...(accept ? { Accept: accept } : {}),
            },
            ...(method === 'GET' ? {} : { body }),
            signal: AbortSignal.timeout(5000),
          });
          const text = await res.text();
          expect(res.status).toBeLessThan(500);
          if (
            res.status >= 400 &&
            res.headers.get('content-type')?.startsWith('application/json')
          ) {
            expect(JSON.parse(text)).toMatchObject({ kind: 'Status', code: res.status });
          }
        },
      ),
      { numRuns: 300 },
    );
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    // The cache still agrees with storage.
    const fromCache = await api.get<{ items: KubeObject[] }>(
      '/api/v1/configmaps?resourceVersion=0',
    );
    const fromStorage = await server.storage.list('/registry/configmaps/');
    expect(fromCache.body.items.map((o) => o.metadata.name).sort()).toEqual(
      fromStorage.items.map((o) => o.metadata.name).sort(),
    );
  });
});

describe('the watch cache disabled (--default-watch-cache-size 0)', () => {
  it('serves lists and watches straight from storage', async () => {
    const server = await testServer(new MemoryStorage({ compactionInterval: 0 }), {
      defaultWatchCacheSize: 0,
    });
    try {
      const api = client(server.url);
      const watch = openWatch(
        server.url,
        '/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=0',
      );
      await api.post('/api/v1/namespaces/default/configmaps', cm('a'));
      expect((await watch.take(1))[0]?.type).toBe('ADDED');
      expect(
        (await api.get<{ items: unknown[] }>('/api/v1/namespaces/default/configmaps')).body.items,
      ).toHaveLength(1);
      await watch.close();
    } finally {
      await server.close();
    }
  });
});

describe('embedded', () => {
  it('is quiet by default: starting, serving and stopping write nothing to stderr (warnings would)', async () => {
    const written: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = (chunk: string | Uint8Array, ...rest: never[]) => {
      written.push(String(chunk));
      return write(chunk, ...rest);
    };
    try {
      const server = await startApiServer({ port: 0, storageBackend: 'memory' });
      expect((await fetch(`${server.url}/api/v1/namespaces`)).status).toBe(200);
      await server.close();
    } finally {
      process.stderr.write = write;
    }
    expect(written).toEqual([]);
  });
});

describe('shutdown', () => {
  it('closes keep-alive connections too: no request reaches the closed storage afterwards', async () => {
    const server = await testServer(new MemoryStorage({ compactionInterval: 0 }));
    const agent = new Agent({ keepAlive: true });
    const get = () =>
      new Promise<number>((resolve, reject) =>
        httpGet(`${server.url}/api/v1/namespaces`, { agent }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        }).on('error', reject),
      );
    expect(await get()).toBe(200);
    await server.close();
    await expect(get()).rejects.toThrow();
    agent.destroy();
  });
});

describe('pnpm apiserver', () => {
  it('parses kube-apiserver flag names, durations included, and rejects unknown flags', () => {
    const { options } = parseArgs([
      '--port=0',
      '--storage-backend',
      'memory',
      '--etcd-compaction-interval=2s',
      '--default-watch-cache-size',
      '50',
      '--etcd-servers=http://a:1,http://b:2',
      '--watch-cache-list-encodings=false',
    ]);
    expect(options).toMatchObject({
      port: 0,
      storageBackend: 'memory',
      etcdCompactionInterval: 2000,
      defaultWatchCacheSize: 50,
      etcdServers: ['http://a:1', 'http://b:2'],
      watchCacheListEncodings: false,
    });
    expect(() => parseArgs(['--nope=1'])).toThrow(/unknown flag: --nope/);
    expect(() => parseArgs(['--watch-cache-list-encodings=maybe'])).toThrow(
      /watch-cache-list-encodings: must be true or false/,
    );
    expect(() => parseArgs(['--storage-backend=mysql'])).toThrow(/storage-backend/);
  });

  it('ignores one leading literal -- (what `pnpm apiserver -- --port 0` passes on)', () => {
    expect(parseArgs(['--', '--port', '0', '--storage-backend=memory']).options).toMatchObject({
      port: 0,
      storageBackend: 'memory',
    });
    expect(parseArgs(['--', '--help']).help).toBe(true);
    expect(() => parseArgs(['--port=0', '--', '--help'])).toThrow(/unknown flag: --$/);
  });
});
