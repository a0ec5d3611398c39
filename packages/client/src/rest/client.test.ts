import {
  ApiError,
  findBuiltinResource,
  jsonLineLogger,
  type KubeObject,
  type ResourceDefinition,
} from '@listwatch/api';
import { encodeCbor, encodeProtobuf } from '@listwatch/codec';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionError } from './errors.js';
import { bearerToken } from '../clientcmd/credentials.js';
import { FakeClock } from '../util/fake-clock.js';
import { RestClient } from './client.js';
import type { RestClientOptions } from './config.js';
import type { ResourceClient } from './resource-client.js';
import { eventually } from '../testing/eventually.js';
import { configMap } from '../testing/fixtures.js';
import { json, startStream, statusBody, TestServer } from '../testing/test-server.js';
import { makeTestPki, type TestPki } from '../testing/tls.js';

const def = (plural: string): ResourceDefinition => findBuiltinResource(plural)!;
const NO_WAIT = { backoff: { initialMs: 1, maxMs: 2 } };

describe('RestClient over HTTP', () => {
  let server: TestServer;
  const clients: RestClient[] = [];
  const make = (options: Partial<RestClientOptions> = {}): RestClient => {
    const c = new RestClient({ server: server.url, retry: NO_WAIT, ...options });
    clients.push(c);
    return c;
  };
  const cms = (c: RestClient): ResourceClient => c.resource(def('configmaps')).namespace('ns');

  beforeAll(async () => {
    server = await TestServer.start();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    server.requests.length = 0;
  });
  afterAll(async () => {
    await server.close();
  });

  it('sends JSON with Accept application/json and the bearer token, and decodes the reply', async () => {
    server.handle((req, res) =>
      json(res, 201, {
        ...JSON.parse(req.body),
        metadata: { name: 'a', namespace: 'ns', resourceVersion: '7' },
      }),
    );
    const created = await cms(make({ credentials: bearerToken('s3cret') })).create(
      configMap('ns', 'a'),
    );
    expect(created.metadata.resourceVersion).toBe('7');
    const [req] = server.requests;
    expect(req).toMatchObject({ method: 'POST', url: '/api/v1/namespaces/ns/configmaps' });
    expect(req?.headers).toMatchObject({
      accept: 'application/json',
      'content-type': 'application/json',
      authorization: 'Bearer s3cret',
    });
  });

  it('turns a Status response into an ApiError with its code, reason and details', async () => {
    server.handle((_req, res) =>
      json(
        res,
        409,
        statusBody(409, 'Conflict', 'Operation cannot be fulfilled', {
          name: 'a',
          kind: 'configmaps',
        }),
      ),
    );
    const err = await cms(make())
      .update(configMap('ns', 'a'))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({
      code: 409,
      reason: 'Conflict',
      message: 'Operation cannot be fulfilled',
    });
    expect((err as ApiError).status.details?.name).toBe('a');
  });

  it('turns a response that is not a Status into an ApiError with the HTTP code', async () => {
    server.handle((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html>bad gateway</html>');
    });
    const err = await cms(make({ retry: { maxRetries: 0 } }))
      .get('a')
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 502, message: '<html>bad gateway</html>' });
    server.handle((_req, res) => {
      res.writeHead(404);
      res.end();
    });
    const notFound = await cms(make())
      .get('a')
      .catch((e: unknown) => e);
    expect(notFound).toMatchObject({
      code: 404,
      reason: 'NotFound',
      message: 'the server could not find the requested resource',
    });
  });

  it('retries a GET after 429, honouring Retry-After', async () => {
    let calls = 0;
    server.handle((_req, res) => {
      if (++calls < 3)
        return json(res, 429, statusBody(429, 'TooManyRequests', 'slow down'), {
          'retry-after': '0',
        });
      json(res, 200, configMap('ns', 'a'));
    });
    const got = await cms(make()).get('a');
    expect(got.metadata.name).toBe('a');
    expect(server.requests).toHaveLength(3);
  });

  it('retries a GET on a 5xx only when the server sent Retry-After', async () => {
    server.handle((req, res) =>
      server.requests.length === 1
        ? json(res, 503, statusBody(503, 'ServiceUnavailable', 'starting'), { 'retry-after': '0' })
        : json(res, 200, configMap('ns', req.url.endsWith('/b') ? 'b' : 'a')),
    );
    await cms(make()).get('a');
    expect(server.requests).toHaveLength(2);
    server.requests.length = 0;
    server.handle((_req, res) => json(res, 500, statusBody(500, 'InternalError', 'boom')));
    await expect(cms(make()).get('b')).rejects.toMatchObject({ code: 500 });
    expect(server.requests).toHaveLength(1);
  });

  it('gives up after maxRetries', async () => {
    server.handle((_req, res) =>
      json(res, 429, statusBody(429, 'TooManyRequests', 'no'), { 'retry-after': '0' }),
    );
    await expect(cms(make({ retry: { maxRetries: 2 } })).get('a')).rejects.toMatchObject({
      code: 429,
      retryAfterSeconds: 0,
    });
    expect(server.requests).toHaveLength(3);
  });

  it('never sends a POST or a PATCH twice once answered, whatever the status', async () => {
    for (const code of [429, 503]) {
      server.handle((_req, res) =>
        json(
          res,
          code,
          statusBody(code, code === 429 ? 'TooManyRequests' : 'ServiceUnavailable', 'no'),
          { 'retry-after': '0' },
        ),
      );
      server.requests.length = 0;
      await expect(cms(make()).create(configMap('ns', 'a'))).rejects.toMatchObject({ code });
      expect(server.requests).toHaveLength(1);
      server.requests.length = 0;
      await expect(cms(make()).patch('a', { data: { k: 'v' } })).rejects.toMatchObject({ code });
      expect(server.requests).toHaveLength(1);
    }
  });

  it('retries the idempotent writes, PUT and DELETE, after 429 or a 5xx with Retry-After', async () => {
    for (const code of [429, 503]) {
      let answered = 0;
      server.handle((_req, res) =>
        ++answered % 2 === 1
          ? json(res, code, statusBody(code, 'TooManyRequests', 'later'), { 'retry-after': '0' })
          : json(res, 200, configMap('ns', 'a')),
      );
      server.requests.length = 0;
      await cms(make()).update(configMap('ns', 'a', '3'));
      await cms(make()).delete('a');
      expect(server.requests.map((r) => r.method)).toEqual(['PUT', 'PUT', 'DELETE', 'DELETE']);
    }
  });

  it('waits as long as Retry-After says before retrying, not its own shorter backoff', async () => {
    const clock = new FakeClock();
    server.handle((_req, res) =>
      server.requests.length === 1
        ? json(res, 429, statusBody(429, 'TooManyRequests', 'later'), { 'retry-after': '7' })
        : json(res, 200, configMap('ns', 'a')),
    );
    const got = cms(make({ clock })).get('a');
    await eventually(() => expect(clock.hasWaiters()).toBe(true));
    // The clock fires timers as it steps: the retry's timer is still pending 1 ms early.
    clock.step(6_999);
    expect(clock.hasWaiters()).toBe(true);
    expect(server.requests).toHaveLength(1);
    clock.step(1);
    expect(clock.hasWaiters()).toBe(false);
    expect((await got).metadata.name).toBe('a');
    expect(server.requests).toHaveLength(2);
  });

  it('retries any verb when the connection was refused, as the request was never sent', async () => {
    const port = server.port;
    await server.close();
    let restarted: Promise<void> | undefined;
    const logger = jsonLineLogger({
      level: 'info',
      write: (line) => {
        if (line.includes('retrying request after connection error'))
          restarted ??= server.listen(port);
      },
    });
    server.handle((_req, res) => json(res, 201, configMap('ns', 'a')));
    const created = await cms(
      make({ logger, retry: { backoff: { initialMs: 20, maxMs: 50 } } }),
    ).create(configMap('ns', 'a'));
    expect(created.metadata.name).toBe('a');
    expect(server.requests.map((r) => r.method)).toEqual(['POST']);
  });

  it('retries a GET whose connection was reset, but not a POST', async () => {
    server.handle((req, res) => {
      if (server.requests.length === 1 || req.method === 'POST') return void res.destroy();
      json(res, 200, configMap('ns', 'a'));
    });
    await cms(make()).get('a');
    expect(server.requests).toHaveLength(2);
    server.requests.length = 0;
    await expect(cms(make()).create(configMap('ns', 'a'))).rejects.toBeInstanceOf(ConnectionError);
    expect(server.requests).toHaveLength(1);
  });

  it('times out a request that gets no answer with a 504 Timeout', async () => {
    server.handle(() => undefined);
    await expect(cms(make({ timeoutMs: 50 })).get('a')).rejects.toMatchObject({
      code: 504,
      reason: 'Timeout',
    });
    server.dropConnections();
  });

  for (const http2 of [false, true]) {
    it(`serves other requests while watches hold connections of their own, even with a pool of one${http2 ? ' (http2 asked for, but the server speaks HTTP/1.1)' : ''}`, async () => {
      server.handle((req, res) => {
        if (req.url.includes('watch=1')) {
          startStream(res);
          return;
        }
        json(res, 200, configMap('ns', 'a'));
      });
      const c = make({ maxConnections: 1, http2, timeoutMs: 2000 });
      const first = await cms(c).get('a');
      const watches = [
        await cms(c).watch({ resourceVersion: '1' }),
        await cms(c).watch({ resourceVersion: '1' }),
      ];
      const second = await cms(c).get('a');
      expect([first.metadata.name, second.metadata.name]).toEqual(['a', 'a']);
      for (const w of watches) w.close();
    });
  }

  it('lets a LIST body that keeps flowing take longer than the request timeout, and fails one that stalls for it with 504', async () => {
    const items = Array.from({ length: 8 }, (_, i) => JSON.stringify(configMap('ns', `cm-${i}`)));
    server.handle(async (req, res) => {
      startStream(res);
      res.write(
        '{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":[',
      );
      for (const [i, item] of items.entries()) {
        // 8 × 100 ms in all, each gap well inside the 400 ms timeout; `stall` stops half-way.
        if (req.url.includes('stall') && i === 4) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
        res.write(`${i ? ',' : ''}${item}`);
      }
      res.end(']}');
    });
    const c = make({ timeoutMs: 400 });
    const list = await cms(c).list();
    expect(list.items).toHaveLength(8);
    await expect(cms(c).list({ labelSelector: 'stall' })).rejects.toMatchObject({
      code: 504,
      reason: 'Timeout',
    });
    server.dropConnections();
  });

  it('times out a request still waiting for a pooled connection, without waiting for one to free', async () => {
    server.handle((req, res) => {
      if (req.url.endsWith('/hang')) return; // holds the only connection
      json(res, 200, configMap('ns', 'a'));
    });
    const c = make({ maxConnections: 1, retry: { maxRetries: 0 }, timeoutMs: 300 });
    const path = '/api/v1/namespaces/ns/configmaps/hang';
    void c.request({ method: 'GET', path, timeoutMs: 0 }).catch(() => undefined);
    await eventually(() => expect(server.requests).toHaveLength(1));
    // Queued behind a request that never ends: only its own deadline can end it.
    await expect(cms(c).get('a')).rejects.toMatchObject({ code: 504, reason: 'Timeout' });
    expect(server.requests).toHaveLength(1);
    server.dropConnections();
  });

  it('pages through a list and falls back to one full list when the continue token expired', async () => {
    server.handle((req, res) => {
      const q = new URL(req.url, 'http://x').searchParams;
      const list = (names: string[], cont?: string) => ({
        kind: 'ConfigMapList',
        apiVersion: 'v1',
        metadata: { resourceVersion: '10', ...(cont ? { continue: cont } : {}) },
        items: names.map((n) => configMap('ns', n, '5')),
      });
      if (q.get('continue') === 'page2') return json(res, 200, list(['c', 'd'], 'page3'));
      if (q.get('continue') === 'page3')
        return json(
          res,
          410,
          statusBody(410, 'Expired', 'The provided continue parameter is too old'),
        );
      if (q.get('limit') === '2') return json(res, 200, list(['a', 'b'], 'page2'));
      json(res, 200, list(['a', 'b', 'c', 'd', 'e']));
    });
    const all = await cms(make()).listAll({ resourceVersion: '0' }, { pageSize: 2 });
    expect(all.items.map((i) => i.metadata.name)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(all.metadata).toEqual({ resourceVersion: '10' });
    expect(server.requests.map((r) => new URL(r.url, 'http://x').search)).toEqual([
      '?resourceVersion=0&limit=2',
      '?limit=2&continue=page2',
      '?limit=2&continue=page3',
      '?resourceVersion=0',
    ]);
  });

  it('decodes a LIST as it streams in, whatever the chunks, and retries one whose connection broke mid-body', async () => {
    const list = {
      kind: 'ConfigMapList',
      apiVersion: 'v1',
      metadata: { resourceVersion: '10' },
      items: Array.from({ length: 50 }, (_, i) => ({
        ...configMap('ns', `cm-${i}`, String(i)),
        data: { text: 'é😀"\\'.repeat(i) },
      })),
    };
    const body = Buffer.from(JSON.stringify(list));
    let attempts = 0;
    server.handle(async (_req, res) => {
      startStream(res);
      // Odd-sized chunks cut through items, strings and multi-byte characters.
      for (let at = 0; at < body.length; at += 333) {
        if (attempts === 0 && at > body.length / 2) {
          attempts++;
          return void res.destroy();
        }
        res.write(body.subarray(at, at + 333));
        await new Promise((resolve) => setImmediate(resolve));
      }
      res.end();
    });
    expect(await cms(make()).list()).toEqual(list);
    expect(server.requests).toHaveLength(2);
  });

  it('a LIST decodes to the same items with slimLists as without: slimming is opt-in and invisible', async () => {
    const list = {
      kind: 'ConfigMapList',
      apiVersion: 'v1',
      metadata: { resourceVersion: '10' },
      // Long repeated strings and empty objects: what the slimmer shares and replaces.
      items: Array.from({ length: 30 }, (_, i) => ({
        ...configMap('ns', `cm-${i}`, String(i)),
        data: { image: 'registry.example.com/shop/checkout:1.8.1', empty: {} },
      })),
    };
    server.handle((_req, res) => json(res, 200, list));
    for (const slimLists of [false, true]) {
      const items = (await cms(make({ slimLists })).list()).items;
      expect(items).toEqual(list.items);
      for (const item of items) {
        const empty = (item as unknown as { data: { empty: object } }).data.empty;
        expect(Object.getPrototypeOf(empty)).toBe(Object.prototype);
        expect(Object.isExtensible(empty)).toBe(true);
      }
    }
  });

  it('fails a LIST whose body turns malformed mid-stream with a 500 InternalError, without retrying it, and frees its connection', async () => {
    const items = Array.from({ length: 20 }, (_, i) => configMap('ns', `cm-${i}`, String(i)));
    const good = JSON.stringify({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: {}, items });
    // Cut inside the last item and go on with a stray bracket: valid up to there.
    const body = `${good.slice(0, good.length - 40)}]}`;
    server.handle(async (req, res) => {
      if (req.url?.includes('/configmaps/a')) return void json(res, 200, configMap('ns', 'a'));
      startStream(res);
      for (let at = 0; at < body.length; at += 500) {
        res.write(body.slice(at, at + 500));
        await new Promise((resolve) => setImmediate(resolve));
      }
      res.end();
    });
    const client = make({ maxConnections: 1 });
    const err = await cms(client)
      .list()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 500, reason: 'InternalError' });
    expect((err as ApiError).message).toMatch(/cannot decode the list/);
    expect(server.requests).toHaveLength(1);
    // The one connection of the pool is free for the next request.
    expect(await cms(client).get('a')).toMatchObject({ metadata: { name: 'a' } });
  });

  it('sends each patch flavour with its content type, and DeleteOptions with a delete', async () => {
    server.handle((_req, res) => json(res, 200, configMap('ns', 'a')));
    const c = cms(make());
    await c.patch('a', { data: { x: '1' } });
    await c.patch('a', [{ op: 'add', path: '/data/x', value: '1' }], 'json');
    await c.patch('a', { data: { x: '1' } }, 'strategic', { fieldManager: 'me', dryRun: true });
    await c.delete('a', {
      propagationPolicy: 'Foreground',
      preconditions: { resourceVersion: '3' },
    });
    expect(server.requests.map((r) => [r.method, r.headers['content-type'], r.url])).toEqual([
      ['PATCH', 'application/merge-patch+json', '/api/v1/namespaces/ns/configmaps/a'],
      ['PATCH', 'application/json-patch+json', '/api/v1/namespaces/ns/configmaps/a'],
      [
        'PATCH',
        'application/strategic-merge-patch+json',
        '/api/v1/namespaces/ns/configmaps/a?dryRun=All&fieldManager=me',
      ],
      ['DELETE', 'application/json', '/api/v1/namespaces/ns/configmaps/a'],
    ]);
    expect(JSON.parse(server.requests[3]!.body)).toEqual({
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      propagationPolicy: 'Foreground',
      preconditions: { resourceVersion: '3' },
    });
  });

  it('asks for CBOR when configured and decodes it', async () => {
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/cbor' });
      res.end(Buffer.from(encodeCbor(configMap('ns', 'a', '9'))));
    });
    const got = await cms(make({ encoding: 'cbor' })).get('a');
    expect(got.metadata).toMatchObject({ name: 'a', resourceVersion: '9' });
    expect(server.requests[0]?.headers.accept).toContain('application/cbor');
  });

  it('asks for protobuf with JSON as the fallback when configured, and decodes whichever comes', async () => {
    server.handle((req, res) => {
      if (req.url?.endsWith('/configmaps/a')) {
        res.writeHead(200, { 'content-type': 'application/vnd.kubernetes.protobuf' });
        res.end(Buffer.from(encodeProtobuf(configMap('ns', 'a', '9'))));
      } else json(res, 200, configMap('ns', 'b', '10'));
    });
    const client = cms(make({ encoding: 'protobuf' }));
    expect((await client.get('a')).metadata).toMatchObject({ name: 'a', resourceVersion: '9' });
    expect((await client.get('b')).metadata).toMatchObject({ name: 'b', resourceVersion: '10' });
    expect(server.requests[0]?.headers.accept).toBe(
      'application/vnd.kubernetes.protobuf, application/json',
    );
  });

  it('reads a protobuf Status as the error it carries', async () => {
    server.handle((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/vnd.kubernetes.protobuf' });
      res.end(
        Buffer.from(
          encodeProtobuf({
            apiVersion: 'v1',
            kind: 'Status',
            status: 'Failure',
            reason: 'NotFound',
            message: 'configmaps "a" not found',
            code: 404,
          }),
        ),
      );
    });
    await expect(cms(make({ encoding: 'protobuf' })).get('a')).rejects.toMatchObject({
      code: 404,
      message: 'configmaps "a" not found',
    });
  });
});

describe('RestClient over TLS', () => {
  let pki: TestPki;
  let server: TestServer;
  const clients: RestClient[] = [];
  const make = (options: Partial<RestClientOptions>): RestClient => {
    const c = new RestClient({ server: server.url, retry: { maxRetries: 0 }, ...options });
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    pki = makeTestPki();
    server = await TestServer.start({
      tls: { cert: pki.serverCert, key: pki.serverKey, ca: pki.ca, requestCert: true },
      http2: true,
    });
    server.handle((req, res) =>
      json(res, 200, {
        ...configMap('ns', 'a'),
        seenAs: req.clientCN ?? 'anonymous',
        protocol: req.protocol,
      }),
    );
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });
  afterAll(async () => {
    await server.close();
    pki.remove();
  });

  const get = (c: RestClient): Promise<KubeObject> =>
    c.resource(def('configmaps')).namespace('ns').get('a');

  it('verifies the server against the CA and presents the client certificate', async () => {
    const got = await get(
      make({
        tls: { ca: pki.ca },
        credentials: {
          credentials: () =>
            Promise.resolve({ clientCertificate: { cert: pki.clientCert, key: pki.clientKey } }),
        },
      }),
    );
    expect(got).toMatchObject({ seenAs: 'test-user', protocol: 'http/1.1' });
  });

  it('keeps its connection while the certificate stays the same, and presents a rotated one on a new connection', async () => {
    const first = { cert: pki.clientCert, key: pki.clientKey };
    // Equal PEMs in a new object (a provider that rebuilds its credentials) are the same identity.
    const same = { ...first };
    const rotated = { cert: pki.rotatedClientCert, key: pki.rotatedClientKey };
    const handedOut = [first, first, same, rotated, rotated];
    const c = make({
      tls: { ca: pki.ca },
      maxConnections: 1,
      credentials: {
        credentials: () => Promise.resolve({ clientCertificate: handedOut.shift()! }),
      },
    });
    for (let i = 0; i < 5; i++) await get(c);
    const seen = server.requests.slice(-5).map((r) => [r.clientCN, r.clientPort] as const);
    expect(seen.map(([cn]) => cn)).toEqual([
      'test-user',
      'test-user',
      'test-user',
      'rotated-user',
      'rotated-user',
    ]);
    const ports = seen.map(([, port]) => port);
    expect(new Set(ports.slice(0, 3)).size).toBe(1);
    expect(new Set(ports.slice(3)).size).toBe(1);
    expect(ports[3]).not.toBe(ports[0]);
  });

  it('refuses a server its CA did not sign, unless told to skip verification', async () => {
    await expect(get(make({}))).rejects.toBeInstanceOf(ConnectionError);
    const got = await get(make({ tls: { insecureSkipTlsVerify: true } }));
    expect(got).toMatchObject({ seenAs: 'anonymous' });
  });

  it('checks the certificate against tls-server-name instead of the host', async () => {
    await expect(
      get(make({ tls: { ca: pki.ca, servername: 'apiserver.test' } })),
    ).resolves.toMatchObject({ seenAs: 'anonymous' });
    await expect(
      get(make({ tls: { ca: pki.ca, servername: 'elsewhere.test' } })),
    ).rejects.toBeInstanceOf(ConnectionError);
  });

  it('speaks HTTP/2 when asked to', async () => {
    await expect(get(make({ tls: { ca: pki.ca }, http2: true }))).resolves.toMatchObject({
      protocol: 'h2',
    });
  });
});
