import { MemoryStorage } from '@listwatch/storage';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApiServer } from '../server.js';
import { testServer } from '../testing/test-server.js';

// Every Status on the wire in metav1.Status's field order, as Go's encoding/json writes it
// (apimachinery pkg/apis/meta/v1/types.go): clients compare the text, the Python client's e2e
// suite among them (test_utils.py expects `..."message":...,"reason":...,"details":...,"code":409}`).

const STATUS_KEYS = [
  'kind',
  'apiVersion',
  'metadata',
  'status',
  'message',
  'reason',
  'details',
  'code',
];

describe('Status bodies in kube field order', () => {
  let server: RunningApiServer;
  const text = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { code: res.status, text: await res.text() };
  };

  beforeAll(async () => {
    server = await testServer(new MemoryStorage({ compactionInterval: 0 }));
  });
  afterAll(() => server.close());

  it('a 404 is byte for byte what kube-apiserver writes', async () => {
    const res = await text('GET', '/api/v1/namespaces/default/pods/x');
    expect(res.code).toBe(404);
    expect(res.text).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \\"x\\" not found","reason":"NotFound","details":{"name":"x","kind":"pods"},"code":404}\n',
    );
  });

  it('a 409 AlreadyExists is the text the Python client e2e suite compares', async () => {
    const deployment = {
      metadata: { name: 'triple-nginx' },
      spec: {
        selector: { matchLabels: { app: 'n' } },
        template: {
          metadata: { labels: { app: 'n' } },
          spec: { containers: [{ name: 'n', image: 'nginx' }] },
        },
      },
    };
    const path = '/apis/apps/v1/namespaces/default/deployments';
    expect((await text('POST', path, deployment)).code).toBe(201);
    const again = await text('POST', path, deployment);
    expect(again.code).toBe(409);
    expect(again.text).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deployments.apps \\"triple-nginx\\" already exists","reason":"AlreadyExists","details":{"name":"triple-nginx","group":"apps","kind":"deployments"},"code":409}\n',
    );
  });

  it('a delete answers a Success Status with details name, kind, uid in that order', async () => {
    const created = await text('POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'gone' },
    });
    const uid = (JSON.parse(created.text) as { metadata: { uid: string } }).metadata.uid;
    const res = await text('DELETE', '/api/v1/namespaces/default/configmaps/gone');
    expect(res.text).toBe(
      `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{"name":"gone","kind":"configmaps","uid":"${uid}"},"code":200}\n`,
    );
  });

  it('an error whose details storage adds after building it (504 too large resourceVersion) is in order', async () => {
    const res = await text('GET', '/api/v1/namespaces/default/configmaps?resourceVersion=99999');
    expect(res.code).toBe(504);
    const status = JSON.parse(res.text) as Record<string, unknown>;
    expect(Object.keys(status)).toEqual(STATUS_KEYS);
    expect(Object.keys(status['details'] as object)).toEqual(['causes', 'retryAfterSeconds']);
  });

  it('a watch ERROR event (410 Expired) carries its Status in kube order', async () => {
    // A server started on history compacted before it: a watch from revision 1 is one ERROR.
    const storage = new MemoryStorage({ compactionInterval: 0 });
    for (const name of ['a', 'b']) {
      await storage.create(`${storage.prefix}/configmaps/default/${name}`, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace: 'default' },
      });
    }
    await storage.compact(await storage.currentRevision());
    const compacted = await testServer(storage);
    try {
      const res = await fetch(
        `${compacted.url}/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=1`,
      );
      const line = (await res.text()).split('\n')[0]!;
      expect(line).toMatch(
        /^\{"type":"ERROR","object":\{"kind":"Status","apiVersion":"v1","metadata":\{\},"status":"Failure","message":"[^"]+","reason":"Expired","code":410\}\}$/,
      );
    } finally {
      await compacted.close();
    }
  });

  it('a refused WebSocket upgrade answers its Status in kube order', async () => {
    const { code, body } = await new Promise<{ code: number; body: string }>((resolve, reject) => {
      const req = request(`${server.url}/api/v1/namespaces/default/configmaps?watch=1`, {
        headers: {
          Connection: 'Upgrade',
          Upgrade: 'websocket',
          'Sec-WebSocket-Version': '12',
          'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
          Origin: 'http://localhost',
        },
      });
      req.on('response', (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (data += chunk));
        res.on('end', () => resolve({ code: res.statusCode ?? 0, body: data }));
      });
      req.on('upgrade', () => reject(new Error('upgraded')));
      req.on('error', reject);
      req.end();
    });
    expect(code).toBe(400);
    const status = JSON.parse(body) as Record<string, unknown>;
    expect(Object.keys(status)).toEqual(STATUS_KEYS.filter((k) => k !== 'details'));
  });
});

describe('a resourceVersion above 2^53', () => {
  let server: RunningApiServer;
  beforeAll(async () => {
    server = await testServer(new MemoryStorage({ compactionInterval: 0 }));
  });
  afterAll(() => server.close());

  it('is named exactly in the 504 of an Exact list and of a GET, never rounded', async () => {
    for (const path of [
      '/api/v1/namespaces/default/configmaps?resourceVersion=9007199254740993&resourceVersionMatch=Exact',
      '/api/v1/namespaces/default/configmaps/x?resourceVersion=9007199254740993',
    ]) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(504);
      const status = (await res.json()) as { message: string };
      expect(status.message).toMatch(
        /^Timeout: Too large resource version: 9007199254740993, current: \d+$/,
      );
    }
  });
});
