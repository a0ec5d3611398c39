import { getEventListeners } from 'node:events';
import { ApiError, findBuiltinResource, type KubeObject, type WatchEvent } from '@listwatch/api';
import type { RunningApiServer } from '@listwatch/apiserver';
import { encodeCborWatchEvent } from '@listwatch/codec';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionError, WatchIdleError } from './errors.js';
import type { CredentialProvider } from '../clientcmd/credentials.js';
import { RestClient } from './client.js';
import type { RestClientOptions } from './config.js';
import { eventually } from '../testing/eventually.js';
import { configMap } from '../testing/fixtures.js';
import {
  acceptWebSocket,
  json,
  startStream,
  statusBody,
  TestServer,
  webSocketClose,
  webSocketFrame,
} from '../testing/test-server.js';
import { startTlsApiServer } from '../testing/tls-apiserver.js';
import type { TestPki } from '../testing/tls.js';
import {
  bearerSubprotocol,
  DEFAULT_BOOKMARK_IDLE_TIMEOUT_MS,
  defaultIdleTimeoutMs,
  type WatchStream,
} from './watch-stream.js';

const configmaps = findBuiltinResource('configmaps')!;

const event = (type: 'ADDED' | 'MODIFIED' | 'DELETED', name: string, rv: string): WatchEvent => ({
  type,
  object: configMap('ns', name, rv),
});

async function collect(stream: WatchStream): Promise<string[]> {
  const seen: string[] = [];
  for await (const e of stream) {
    const meta = e.object.metadata;
    seen.push(`${e.type} ${meta.name ?? ''}@${meta.resourceVersion}`);
  }
  return seen;
}

describe('defaultIdleTimeoutMs', () => {
  it('allows one late bookmark when bookmarks were asked for, else waits past timeoutSeconds', () => {
    expect(defaultIdleTimeoutMs(true, 300)).toBe(DEFAULT_BOOKMARK_IDLE_TIMEOUT_MS);
    expect(DEFAULT_BOOKMARK_IDLE_TIMEOUT_MS).toBeGreaterThan(60_000);
    expect(defaultIdleTimeoutMs(false, 300)).toBe(330_000);
    expect(defaultIdleTimeoutMs(false)).toBe(0);
  });
});

describe('HTTP watch stream', () => {
  let server: TestServer;
  const clients: RestClient[] = [];
  const watchOf = (options: Partial<RestClientOptions> = {}) => {
    const c = new RestClient({ server: server.url, ...options });
    clients.push(c);
    return c.resource(configmaps).namespace('ns');
  };

  beforeAll(async () => {
    server = await TestServer.start();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    server.requests.length = 0;
    server.dropConnections();
  });
  afterAll(async () => {
    await server.close();
  });

  it('asks for a watch with the resourceVersion, bookmarks and timeout in the query', async () => {
    server.handle((_req, res) => {
      startStream(res);
      res.end();
    });
    await collect(
      await watchOf().watch({
        resourceVersion: '5',
        allowWatchBookmarks: true,
        timeoutSeconds: 300,
      }),
    );
    expect(server.requests[0]?.url).toBe(
      '/api/v1/namespaces/ns/configmaps?watch=1&resourceVersion=5&timeoutSeconds=300&allowWatchBookmarks=true',
    );
    expect(server.requests[0]?.headers.accept).toBe('application/json');
  });

  it('decodes newline-delimited JSON events however the bytes are split, and ends when the server ends', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(), { maxLength: 6 }), async (cuts) => {
        const events = [
          event('ADDED', 'a', '1'),
          event('MODIFIED', 'a', '2'),
          event('DELETED', 'a', '3'),
        ];
        const bytes = Buffer.from(events.map((e) => `${JSON.stringify(e)}\n`).join(''));
        const points = [...new Set(cuts.map((c) => c % bytes.length))].sort((x, y) => x - y);
        server.handle(async (_req, res) => {
          startStream(res);
          let from = 0;
          for (const to of [...points, bytes.length]) {
            res.write(bytes.subarray(from, to));
            from = to;
            await new Promise((resolve) => setImmediate(resolve));
          }
          res.end();
        });
        expect(await collect(await watchOf().watch())).toEqual([
          'ADDED a@1',
          'MODIFIED a@2',
          'DELETED a@3',
        ]);
      }),
      { numRuns: 15 },
    );
  });

  it('ends with the ApiError of an ERROR event: 410 is Expired', async () => {
    server.handle((_req, res) => {
      startStream(res);
      res.write(`${JSON.stringify(event('ADDED', 'a', '1'))}\n`);
      res.end(
        `${JSON.stringify({ type: 'ERROR', object: statusBody(410, 'Expired', 'too old resource version: 1 (9)') })}\n`,
      );
    });
    const stream = await watchOf().watch();
    const seen: string[] = [];
    const err = await (async () => {
      for await (const e of stream) seen.push(e.type);
    })().catch((e: unknown) => e);
    expect(seen).toEqual(['ADDED']);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 410, reason: 'Expired' });
  });

  it('fails to open with the ApiError of a non-200 response', async () => {
    server.handle((_req, res) =>
      json(res, 403, statusBody(403, 'Forbidden', 'configmaps is forbidden')),
    );
    await expect(watchOf().watch()).rejects.toMatchObject({ code: 403, reason: 'Forbidden' });
  });

  it('fails with a retryable WatchIdleError when no byte arrives for the idle timeout', async () => {
    server.handle((_req, res) => startStream(res));
    const stream = await watchOf().watch({}, { idleTimeoutMs: 50 });
    const err = await collect(stream).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WatchIdleError);
    expect(err).toBeInstanceOf(ConnectionError);
  });

  it('fails with a ConnectionError when the connection is cut mid-stream', async () => {
    server.handle((_req, res) => {
      startStream(res);
      res.write(`${JSON.stringify(event('ADDED', 'a', '1'))}\n`);
      setTimeout(() => server.dropConnections(), 10);
    });
    await expect(collect(await watchOf().watch())).rejects.toBeInstanceOf(ConnectionError);
  });

  it('ends quietly on close() and lets go of the connection', async () => {
    let closed = false;
    server.handle((_req, res) => {
      startStream(res);
      res.write(`${JSON.stringify(event('ADDED', 'a', '1'))}\n`);
      res.on('close', () => (closed = true));
    });
    const stream = await watchOf().watch();
    const seen: string[] = [];
    for await (const e of stream) {
      seen.push(e.type);
      stream.close();
    }
    expect(seen).toEqual(['ADDED']);
    await eventually(() => expect(closed).toBe(true));
  });

  it('decodes a CBOR sequence when CBOR is negotiated', async () => {
    server.handle((_req, res) => {
      startStream(res, 'application/cbor-seq');
      res.write(Buffer.from(encodeCborWatchEvent(event('ADDED', 'a', '1'))));
      res.end(Buffer.from(encodeCborWatchEvent(event('DELETED', 'a', '2'))));
    });
    expect(await collect(await watchOf({ encoding: 'cbor' }).watch())).toEqual([
      'ADDED a@1',
      'DELETED a@2',
    ]);
    expect(server.requests[0]?.headers.accept).toContain('application/cbor-seq');
  });

  it('asks the credential provider again after a 401 and retries once', async () => {
    let token = 'old';
    const credentials: CredentialProvider = {
      credentials: () => Promise.resolve({ authorization: `Bearer ${token}` }),
      unauthorized: () => ((token = 'new'), true),
    };
    server.handle((req, res) => {
      if (req.headers.authorization !== 'Bearer new')
        return json(res, 401, statusBody(401, 'Unauthorized', 'Unauthorized'));
      startStream(res);
      res.end();
    });
    await collect(await watchOf({ credentials }).watch());
    expect(server.requests.map((r) => r.headers.authorization)).toEqual([
      'Bearer old',
      'Bearer new',
    ]);
  });
});

describe('WebSocket watch stream', () => {
  let server: TestServer;
  let client: RestClient;
  beforeAll(async () => {
    server = await TestServer.start();
  });
  afterEach(async () => {
    await client.close();
    server.dropConnections();
  });
  afterAll(async () => {
    await server.close();
  });

  it('carries the bearer token as a subprotocol and reads one event per message until a normal close', async () => {
    let protocols = '';
    let origin = '';
    server.onUpgrade((req, socket) => {
      protocols = String(req.headers['sec-websocket-protocol'] ?? '');
      origin = String(req.headers.origin ?? '');
      acceptWebSocket(req, socket, protocols);
      socket.write(webSocketFrame(1, Buffer.from(`${JSON.stringify(event('ADDED', 'a', '1'))}\n`)));
      socket.write(
        webSocketFrame(1, Buffer.from(`${JSON.stringify(event('MODIFIED', 'a', '2'))}\n`)),
      );
      socket.end(webSocketClose(1000));
    });
    client = new RestClient({
      server: server.url,
      credentials: { credentials: () => Promise.resolve({ authorization: 'Bearer tok.en' }) },
    });
    const stream = await client
      .resource(configmaps)
      .namespace('ns')
      .watch({}, { transport: 'websocket' });
    expect(await collect(stream)).toEqual(['ADDED a@1', 'MODIFIED a@2']);
    expect(protocols).toBe(bearerSubprotocol('tok.en'));
    expect(protocols).toBe(
      `base64url.bearer.authorization.k8s.io.${Buffer.from('tok.en').toString('base64url')}`,
    );
    expect(origin).toBe(server.url);
  });

  it("lets go of the caller's abort signal once a watch has ended, as a reflector reuses one signal for every watch", async () => {
    server.onUpgrade((req, socket) => {
      acceptWebSocket(req, socket);
      socket.end(webSocketClose(1000));
    });
    client = new RestClient({ server: server.url });
    const signal = new AbortController().signal;
    for (let i = 0; i < 3; i++) {
      const stream = await client
        .resource(configmaps)
        .namespace('ns')
        .watch({}, { transport: 'websocket', signal });
      expect(await collect(stream)).toEqual([]);
    }
    await eventually(() => expect(getEventListeners(signal, 'abort')).toHaveLength(0));
  });

  it('fails with WatchIdleError when the socket goes silent', async () => {
    server.onUpgrade((req, socket) => acceptWebSocket(req, socket));
    client = new RestClient({ server: server.url });
    const stream = await client
      .resource(configmaps)
      .namespace('ns')
      .watch({}, { transport: 'websocket', idleTimeoutMs: 50 });
    await expect(collect(stream)).rejects.toBeInstanceOf(WatchIdleError);
  });
});

describe('watching kube-apiserver over HTTP/2 and WebSocket (listwatch apiserver)', () => {
  let tls: Awaited<ReturnType<typeof startTlsApiServer>>;
  let pki: TestPki;
  let apiserver: RunningApiServer;
  beforeAll(async () => {
    tls = await startTlsApiServer();
    ({ pki, apiserver } = tls);
  });
  afterAll(() => tls.close());

  for (const [name, options] of [
    ['HTTP/2', { http2: true }],
    ['WebSocket', { watchTransport: 'websocket' }],
  ] as const) {
    it(`streams changes over ${name}`, async () => {
      const client = new RestClient({ server: apiserver.url, tls: { ca: pki.ca }, ...options });
      try {
        const cms = client.resource<KubeObject>(configmaps).namespace('default');
        const list = await cms.list();
        const stream = await cms.watch({
          resourceVersion: list.metadata.resourceVersion!,
          allowWatchBookmarks: true,
        });
        await cms.create({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `via-${name.replace('/', '')}`.toLowerCase() },
        });
        let added: unknown;
        for await (const e of stream) {
          if (e.type === 'BOOKMARK') continue;
          added = e;
          break;
        }
        stream.close();
        // Undefined if the stream ended without an event.
        expect(added).toMatchObject({
          type: 'ADDED',
          object: { metadata: { namespace: 'default' } },
        });
      } finally {
        await client.close();
      }
    });
  }
});
