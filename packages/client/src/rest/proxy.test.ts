import { findBuiltinResource, isApiError, jsonLineLogger, type KubeObject } from '@listwatch/api';
import type { RunningApiServer } from '@listwatch/apiserver';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeConfig } from '../clientcmd/kubeconfig.js';
import { checkProxyUrl, proxyFor, redactProxyUrl } from './proxy.js';
import { RestClient } from './client.js';
import type { RestClientOptions } from './config.js';
import { ConnectProxy } from '../testing/connect-proxy.js';
import { Socks5Proxy } from '../testing/socks5-proxy.js';
import { configMap } from '../testing/fixtures.js';
import { json, TestServer } from '../testing/test-server.js';
import { startTlsApiServer } from '../testing/tls-apiserver.js';
import type { TestPki } from '../testing/tls.js';

const https = new URL('https://api.example.com:6443');
const http = new URL('http://api.example.com');

describe('choosing a proxy (client-go: proxy-url, else Go http.ProxyFromEnvironment)', () => {
  it("takes the cluster's proxy-url over the environment, for any server, loopback included", () => {
    const env = { HTTPS_PROXY: 'http://env:3128' };
    expect(proxyFor(https, 'socks5://kc:1080', env)).toBe('socks5://kc:1080');
    expect(proxyFor(new URL('https://127.0.0.1:6443'), 'http://kc:3128', env)).toBe(
      'http://kc:3128',
    );
  });

  it('reads HTTPS_PROXY for https servers and HTTP_PROXY for http ones, upper case before lower', () => {
    const env = { HTTPS_PROXY: 'http://s:1', https_proxy: 'http://lower:1', HTTP_PROXY: 'p:2' };
    expect(proxyFor(https, undefined, env)).toBe('http://s:1');
    expect(proxyFor(https, undefined, { https_proxy: 'http://lower:1' })).toBe('http://lower:1');
    // A bare host:port is an http proxy.
    expect(proxyFor(http, undefined, env)).toBe('http://p:2');
    expect(proxyFor(http, undefined, { HTTPS_PROXY: 'http://s:1' })).toBeUndefined();
  });

  it('never proxies localhost or loopback addresses from the environment', () => {
    const env = { HTTPS_PROXY: 'http://s:1', HTTP_PROXY: 'http://s:1' };
    for (const server of [
      'https://localhost:6443',
      'http://127.0.0.1:8080',
      'https://[::1]:6443',
    ]) {
      expect(proxyFor(new URL(server), undefined, env)).toBeUndefined();
    }
  });

  it.each([
    ['*', 'https://anything.test', true],
    ['example.com', 'https://api.example.com', true],
    ['example.com', 'https://example.com', true],
    ['.example.com', 'https://example.com', false],
    ['.example.com', 'https://api.example.com', true],
    ['*.example.com', 'https://api.example.com', true],
    ['ample.com', 'https://api.example.com', false],
    ['api.example.com:6443', 'https://api.example.com:6443', true],
    ['api.example.com:443', 'https://api.example.com:6443', false],
    ['10.0.0.1', 'https://10.0.0.1', true],
    ['10.0.0.0/8', 'https://10.20.30.40:6443', true],
    ['10.0.0.0/8', 'https://11.0.0.1', false],
    ['fd00::/8', 'https://[fd12::1]', true],
    ['[fd12::1]:443', 'https://[fd12::1]', true],
    [' other.test , API.EXAMPLE.COM ', 'https://api.example.com', true],
  ])('NO_PROXY %j exempts %s: %s', (noProxy, server, exempt) => {
    const chosen = proxyFor(new URL(server), undefined, {
      HTTPS_PROXY: 'http://s:1',
      NO_PROXY: noProxy,
    });
    expect(chosen).toBe(exempt ? undefined : 'http://s:1');
  });

  it('reads any NO_PROXY without throwing, and a host it lists exactly is never proxied', () => {
    const label = fc.stringMatching(/^[a-z]([a-z0-9-]{0,8}[a-z0-9])?$/);
    const host = fc.array(label, { minLength: 1, maxLength: 4 }).map((l) => l.join('.'));
    fc.assert(
      fc.property(fc.array(fc.string()), host, fc.nat(4), (junk, h, at) => {
        const server = new URL(`https://${h}:6443`);
        const env = { HTTPS_PROXY: 'http://s:1', NO_PROXY: junk.join(',') };
        expect(() => proxyFor(server, undefined, env)).not.toThrow();
        const listed = [...junk];
        listed.splice(Math.min(at, listed.length), 0, h);
        expect(proxyFor(server, undefined, { ...env, NO_PROXY: listed.join(',') })).toBe(undefined);
      }),
    );
  });

  it('refuses a proxy URL client-go refuses, without echoing its password', () => {
    for (const bad of ['ftp://user:secret@p:21', 'not a url', '']) {
      let err: unknown;
      try {
        checkProxyUrl(bad);
      } catch (e) {
        err = e;
      }
      expect(isApiError(err) && err.code).toBe(400);
      expect(String((err as Error).message)).not.toContain('secret');
    }
    expect(redactProxyUrl('http://user:secret@p:3128')).toBe('http://p:3128/');
    expect(() => new RestClient({ server: 'https://x', proxyUrl: 'ftp://p' })).toThrow(/proxy/);
  });

  it('carries the kubeconfig cluster proxy-url into the RestConfig', () => {
    const kc = KubeConfig.fromString(`
current-context: c
clusters: [{name: c, cluster: {server: 'https://x', proxy-url: 'socks5://p:1080'}}]
contexts: [{name: c, context: {cluster: c}}]
`);
    expect(kc.restConfig().proxyUrl).toBe('socks5://p:1080');
  });
});

describe('every connection goes through the proxy (HTTP CONNECT tunnels to a TLS apiserver)', () => {
  let tls: Awaited<ReturnType<typeof startTlsApiServer>>;
  let pki: TestPki;
  let apiserver: RunningApiServer;
  let proxy: ConnectProxy;
  const basic = `Basic ${Buffer.from('me:s3cret').toString('base64')}`;

  beforeAll(async () => {
    tls = await startTlsApiServer();
    ({ pki, apiserver } = tls);
    proxy = await ConnectProxy.start({ requireAuthorization: basic });
  });
  afterAll(async () => {
    await proxy.close();
    await tls.close();
  });

  const configmaps = findBuiltinResource('configmaps')!;

  /** Lists, opens a watch, creates `name` and expects the watch's next event to be its ADDED. */
  async function listWriteWatch(client: RestClient, name: string): Promise<void> {
    const cms = client.resource<KubeObject>(configmaps).namespace('default');
    const list = await cms.list();
    const stream = await cms.watch({ resourceVersion: list.metadata.resourceVersion! });
    try {
      await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
      const next = await stream[Symbol.asyncIterator]().next();
      expect(next.done).toBe(false);
      expect(next.value).toMatchObject({ type: 'ADDED', object: { metadata: { name } } });
    } finally {
      stream.close();
    }
  }

  for (const [name, options] of [
    ['HTTP/1.1', {}],
    ['HTTP/2', { http2: true }],
    ['WebSocket', { watchTransport: 'websocket' }],
  ] as const satisfies readonly [string, Partial<RestClientOptions>][]) {
    it(`lists, writes and watches over ${name}, authenticating to the proxy and logging no password`, async () => {
      const lines: string[] = [];
      const client = new RestClient({
        server: apiserver.url,
        tls: { ca: pki.ca },
        proxyUrl: proxy.url('me:s3cret'),
        logger: jsonLineLogger({ level: 'debug', write: (l) => lines.push(l) }),
        ...options,
      });
      const before = proxy.tunnels.length;
      try {
        await listWriteWatch(
          client,
          `via-proxy-${name.replace('/', '').replace('.', '')}`.toLowerCase(),
        );
      } finally {
        await client.close();
      }
      const tunnels = proxy.tunnels.slice(before);
      // The request pool and the watch's own connection: at least two tunnels, all authorized.
      expect(tunnels.length).toBeGreaterThanOrEqual(2);
      for (const t of tunnels) {
        expect(t).toEqual({ target: `127.0.0.1:${apiserver.port}`, proxyAuthorization: basic });
      }
      expect(lines.join('\n')).toContain('connecting through a proxy');
      expect(lines.join('\n')).not.toContain('s3cret');
    });
  }

  it('negotiates HTTP/2 with the server through the tunnel when asked to', async () => {
    const h2 = await TestServer.start({
      tls: { cert: pki.serverCert, key: pki.serverKey, ca: pki.ca },
      http2: true,
    });
    h2.handle((req, res) => json(res, 200, { ...configMap('ns', 'a'), protocol: req.protocol }));
    const client = new RestClient({
      server: h2.url,
      tls: { ca: pki.ca },
      proxyUrl: proxy.url('me:s3cret'),
      http2: true,
    });
    const before = proxy.tunnels.length;
    try {
      const got = await client.resource(configmaps).namespace('ns').get('a');
      expect(got).toMatchObject({ protocol: 'h2' });
      expect(proxy.tunnels.slice(before).map((t) => t.target)).toEqual([`127.0.0.1:${h2.port}`]);
    } finally {
      await client.close();
      await h2.close();
    }
  });

  it('goes through a SOCKS5 proxy-url, with its user and password, and watches through it too', async () => {
    const socks = await Socks5Proxy.start({ user: 'me', password: 's3cret' });
    const client = new RestClient({
      server: apiserver.url,
      tls: { ca: pki.ca },
      proxyUrl: socks.url('me:s3cret'),
    });
    try {
      await listWriteWatch(client, 'via-socks');
    } finally {
      await client.close();
      await socks.close();
    }
    expect(socks.connections.length).toBeGreaterThanOrEqual(2);
    for (const c of socks.connections) {
      expect(c).toEqual({ target: `127.0.0.1:${apiserver.port}`, user: 'me' });
    }
  });

  it('fails a request the proxy refuses with a clear error, not a hang', async () => {
    const client = new RestClient({
      server: apiserver.url,
      tls: { ca: pki.ca },
      proxyUrl: proxy.url('me:wrong'),
      retry: { maxRetries: 0 },
    });
    try {
      const err = await client
        .resource(configmaps)
        .namespace('default')
        .list()
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Error);
      expect(String((err as Error).message)).toMatch(/407/);
    } finally {
      await client.close();
    }
  });
});
