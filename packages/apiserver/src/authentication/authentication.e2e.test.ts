import { MemoryStorage } from '@listwatch/storage';
import { TestCa, tempDir } from '@listwatch/testing';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { request, type RequestOptions } from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { KUBECTL } from '../e2e/e2e.test-helper.js';
import { startApiServer, type RunningApiServer } from '../server.js';
import { BEARER_PROTOCOL_PREFIX } from './request-authenticator.js';

// kube-apiserver's authentication (k8s.io/apiserver pkg/authentication): x509 client
// certificates (--client-ca-file), static tokens (--token-auth-file), anonymous requests
// (--anonymous-auth); a credential that fails is 401, never anonymous.

interface Logged {
  path?: string;
  user?: string;
  code?: number;
}

describe('an apiserver with client certificates and a token file', () => {
  let ca: TestCa;
  let foreign: TestCa;
  let dir: { path: string; remove(): void };
  let server: RunningApiServer;
  const logged: Logged[] = [];
  const logger = {
    debug: (_msg: string, fields?: Record<string, unknown>) => logged.push(fields as Logged),
    info() {},
    warn() {},
    error() {},
  };

  beforeAll(async () => {
    ca = new TestCa();
    foreign = new TestCa('someone-else');
    dir = tempDir('listwatch-authn-');
    const tokens = join(dir.path, 'tokens.csv');
    writeFileSync(tokens, 's3cret-token,bob,1002,"dev,ops"\n');
    const serving = ca.server();
    server = await startApiServer({
      storage: new MemoryStorage({ compactionInterval: 0 }),
      port: 0,
      logger,
      tlsCert: serving.cert,
      tlsKey: serving.key,
      clientCA: ca.cert,
      tokenAuthFile: tokens,
    });
  });
  afterAll(async () => {
    await server.close();
    ca.remove();
    foreign.remove();
    dir.remove();
  });

  /** GET over HTTPS with the given credentials; the status and the user the access log saw. */
  async function get(
    path: string,
    options: RequestOptions = {},
  ): Promise<{ status: number; body: string; user: string | undefined }> {
    const { status, body } = await new Promise<{ status: number; body: string }>(
      (resolve, reject) => {
        const req = request(`${server.url}${path}`, { ca: ca.cert, ...options }, (res) => {
          let body = '';
          res.setEncoding('utf8').on('data', (d: string) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject).end();
      },
    );
    await expect.poll(() => logged.some((l) => l.path === path)).toBe(true);
    const user = logged.findLast((l) => l.path === path)?.user;
    logged.length = 0;
    return { status, body, user };
  }

  it('a client certificate from the client CA is its CN, in the groups of its O', async () => {
    const alice = ca.client('alice', ['dev', 'ops']);
    const res = await get('/api/v1/namespaces', { cert: alice.cert, key: alice.key });
    expect(res.status).toBe(200);
    expect(res.user).toBe('alice');
  });

  it.each([
    ['signed by another CA', () => foreign.client('mallory')],
    [
      'expired',
      () => ca.client('old', [], { notBefore: '20200101000000Z', notAfter: '20200102000000Z' }),
    ],
    [
      'not for client authentication',
      () => ca.issue({ subject: '/CN=server-only', extensions: 'extendedKeyUsage=serverAuth' }),
    ],
  ])('a client certificate %s is 401 Unauthorized', async (_what, make) => {
    const cert = make();
    const res = await get('/api/v1/namespaces', { cert: cert.cert, key: cert.key });
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body)).toMatchObject({
      kind: 'Status',
      reason: 'Unauthorized',
      code: 401,
      message: 'Unauthorized',
    });
  });

  it('a bearer token from the token file is its user; an unknown one is 401, never anonymous', async () => {
    const good = await get('/api/v1/namespaces', {
      headers: { authorization: 'Bearer s3cret-token' },
    });
    expect(good.status).toBe(200);
    expect(good.user).toBe('bob');
    const bad = await get('/api/v1/namespaces', { headers: { authorization: 'Bearer nope' } });
    expect(bad.status).toBe(401);
    expect(bad.user).toBeUndefined();
  });

  it('no credentials at all is system:anonymous (--anonymous-auth defaults to true)', async () => {
    const res = await get('/api/v1/namespaces');
    expect(res.status).toBe(200);
    expect(res.user).toBe('system:anonymous');
  });

  it('the host filter applies to anonymous requests only: a token-bearing request may name any Host', async () => {
    const anonymous = await get('/api/v1/namespaces', {
      headers: { host: 'evil.example' },
      servername: 'localhost',
    });
    expect(anonymous.status).toBe(403);
    const withToken = await get('/api/v1/namespaces', {
      headers: { host: 'cluster.example', authorization: 'Bearer s3cret-token' },
      servername: 'localhost',
    });
    expect(withToken.status).toBe(200);
  });

  it('a WebSocket watch authenticates with the bearer-token subprotocol: a wrong token is 401', async () => {
    const open = (token: string) =>
      new Promise<number>((resolve, reject) => {
        const ws = new WebSocket(
          `${server.url.replace('https', 'wss')}/api/v1/configmaps?watch=1`,
          [`${BEARER_PROTOCOL_PREFIX}${Buffer.from(token).toString('base64url')}`],
          {
            ca: ca.cert,
            origin: 'https://dashboard.example',
            headers: { host: 'cluster.example' },
          },
        );
        ws.once('open', () => {
          ws.close();
          resolve(101);
        });
        ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.once('error', reject);
      });
    expect(await open('s3cret-token')).toBe(101);
    expect(await open('wrong')).toBe(401);
  });

  it('kubectl authenticates with a client certificate or a token from its kubeconfig, and reports a bad token', async () => {
    const alice = ca.client('alice', ['dev']);
    const kubeconfig = (user: string) => {
      const path = join(dir.path, `kubeconfig-${logged.length}-${Math.random()}`);
      writeFileSync(
        path,
        [
          'apiVersion: v1',
          'kind: Config',
          `clusters: [{name: c, cluster: {server: "${server.url}", certificate-authority: "${ca.certFile}"}}]`,
          `users: [{name: u, user: ${user}}]`,
          'contexts: [{name: c, context: {cluster: c, user: u}}]',
          'current-context: c',
          '',
        ].join('\n'),
      );
      return path;
    };
    const kubectl = (config: string) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
        execFile(
          KUBECTL,
          ['get', 'namespaces', '-o', 'name'],
          { env: { PATH: process.env['PATH'] ?? '', HOME: dir.path, KUBECONFIG: config } },
          (err, stdout, stderr) => resolve({ code: err ? 1 : 0, stdout, stderr }),
        ),
      );
    const viaCert = await kubectl(
      kubeconfig(`{client-certificate: "${alice.certFile}", client-key: "${alice.keyFile}"}`),
    );
    expect(viaCert.stdout).toContain('namespace/default');
    const viaToken = await kubectl(kubeconfig('{token: s3cret-token}'));
    expect(viaToken.stdout).toContain('namespace/kube-system');
    const wrong = await kubectl(kubeconfig('{token: wrong}'));
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toMatch(/You must be logged in to the server \(Unauthorized\)/);
  });
});

describe('--anonymous-auth=false and plain HTTP', () => {
  it('requests without credentials are 401', async () => {
    const server = await startApiServer({
      storage: new MemoryStorage({ compactionInterval: 0 }),
      port: 0,
      logger: { debug() {}, info() {}, warn() {}, error() {} },
      anonymousAuth: false,
    });
    try {
      expect((await fetch(`${server.url}/api/v1/namespaces`)).status).toBe(401);
    } finally {
      await server.close();
    }
  });

  it('a token file without TLS refuses to start unless the server binds to loopback', async () => {
    const dir = tempDir('listwatch-authn-');
    try {
      const tokens = join(dir.path, 'tokens.csv');
      writeFileSync(tokens, 't,u,1\n');
      await expect(
        startApiServer({
          storage: new MemoryStorage({ compactionInterval: 0 }),
          port: 0,
          bindAddress: '0.0.0.0',
          tokenAuthFile: tokens,
          // Not anonymous cluster-admin, which is refused off loopback before this.
          anonymousAuth: false,
        }),
      ).rejects.toThrow(/bearer tokens over plain HTTP/);
    } finally {
      dir.remove();
    }
  });
});
