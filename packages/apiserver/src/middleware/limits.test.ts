import { MemoryStorage } from '@listwatch/storage';
import { tempDir } from '@listwatch/testing';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { parseArgs, usage } from '../cli.js';
import type { RunningApiServer } from '../server.js';
import { client, openWatch, testServer } from '../testing/test-server.js';

// The limits on what one request or user may take: an object's size (etcd's 1.5 MiB request
// limit), watches per user (not a kube limit: --max-watches-per-user), the request line and
// headers (kube-apiserver's MaxHeaderBytes, 1 MiB).

let server: RunningApiServer;
let dir: { path: string; remove(): void };
const TOKENS = { u1: 'token-one', u2: 'token-two' };
const auth = (token: string) => ({ authorization: `Bearer ${token}` });

beforeAll(async () => {
  dir = tempDir('listwatch-limits-');
  const tokens = join(dir.path, 'tokens.csv');
  writeFileSync(tokens, `${TOKENS.u1},one,1\n${TOKENS.u2},two,2\n`);
  // Bearer tokens over plain HTTP are allowed on loopback.
  server = await testServer(new MemoryStorage({ compactionInterval: 0 }), {
    tokenAuthFile: tokens,
    maxWatchesPerUser: 2,
  });
});
afterAll(async () => {
  await server.close();
  dir.remove();
});

describe('object size', () => {
  const api = () => client(server.url);
  // A Role: no validation rule bounds its size (a ConfigMap's or Secret's data is 422 past
  // 1 MiB, before storage), so storage's limit is what refuses it.
  const PATH = '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles';
  const role = (name: string, ...resourceNames: string[]) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name },
    rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames }],
  });

  it("an object over etcd's 1.5 MiB is 413 with etcd's words, whatever the backend; the body limit (3 MiB) is not reached", async () => {
    const res = await api().post(PATH, role('big', 'x'.repeat(2 * 1024 * 1024)));
    expect(res.status).toBe(413);
    expect(api().status(res)).toMatchObject({
      status: 'Failure',
      reason: 'RequestEntityTooLarge',
      message: 'etcdserver: request is too large',
      code: 413,
    });
    expect((await api().get(`${PATH}/big`)).status).toBe(404);
  });

  it('a patch that grows an object past the limit is 413 and leaves it as it was', async () => {
    expect((await api().post(PATH, role('grows', 'k'))).status).toBe(201);
    const half = 'y'.repeat(900 * 1024);
    const rules = (...names: string[]) => ({ rules: role('', ...names).rules });
    expect((await api().patch(`${PATH}/grows`, rules('k', half))).status).toBe(200);
    const res = await api().patch(`${PATH}/grows`, rules('k', half, half));
    expect(res.status).toBe(413);
    expect(api().status(res).message).toBe('etcdserver: request is too large');
    const stored = await api().get<{ rules: { resourceNames: string[] }[] }>(`${PATH}/grows`);
    expect(stored.body.rules[0]!.resourceNames.map((n) => n.length)).toEqual([1, half.length]);
  });
});

describe('watches per user (--max-watches-per-user)', () => {
  const WATCH = '/api/v1/namespaces/default/configmaps?watch=1';

  async function watchStatus(
    token: string,
  ): Promise<{ status: number; headers: Headers; body: string }> {
    const abort = new AbortController();
    const res = await fetch(`${server.url}${WATCH}`, {
      headers: auth(token),
      signal: abort.signal,
    });
    const body = res.status === 200 ? '' : await res.text();
    abort.abort();
    return { status: res.status, headers: res.headers, body };
  }

  it("a user's watches past the limit are 429 with Retry-After; other users are not affected; a closed watch frees its place", async () => {
    const watches = [0, 1].map(() => openWatch(server.url, WATCH));
    // openWatch is anonymous: it counts against system:anonymous, not u1.
    const held = await Promise.all(
      [0, 1].map(() =>
        fetch(`${server.url}${WATCH}`, { headers: auth(TOKENS.u1) }).then((res) => {
          expect(res.status).toBe(200);
          return res;
        }),
      ),
    );
    const refused = await watchStatus(TOKENS.u1);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(JSON.parse(refused.body)).toMatchObject({
      kind: 'Status',
      reason: 'TooManyRequests',
      message: 'too many watches open for user "one": the limit is 2 (--max-watches-per-user)',
      details: { retryAfterSeconds: 1 },
    });
    // A WebSocket watch counts against the same limit.
    const ws = new WebSocket(`${server.url.replace('http', 'ws')}${WATCH}`, {
      headers: { ...auth(TOKENS.u1), origin: server.url },
    });
    const [, wsResponse] = (await once(ws, 'unexpected-response')) as [
      unknown,
      { statusCode: number },
    ];
    expect(wsResponse.statusCode).toBe(429);
    ws.on('error', () => undefined).terminate();
    // u2 and anonymous watches are counted apart.
    expect((await watchStatus(TOKENS.u2)).status).toBe(200);
    expect((await watchStatus(TOKENS.u2)).status).toBe(200);
    await held[0]!.body?.cancel();
    await expect.poll(async () => (await watchStatus(TOKENS.u1)).status).toBe(200);
    await held[1]!.body?.cancel();
    await Promise.all(watches.map((w) => w.close()));
  });

  it('a named GET with watch=true is a get (requestinfo.go), not a watch: it answers at once and takes no watch place', async () => {
    // Hold watches until u1 is at its limit (places the test above freed may still be closing).
    const held: Response[] = [];
    for (;;) {
      const res = await fetch(`${server.url}${WATCH}`, { headers: auth(TOKENS.u1) });
      if (res.status !== 200) {
        expect(res.status).toBe(429);
        await res.body?.cancel();
        break;
      }
      held.push(res);
    }
    const named = await fetch(`${server.url}/api/v1/namespaces/default/configmaps/absent?watch=1`, {
      headers: auth(TOKENS.u1),
    });
    expect(named.status).toBe(404);
    expect(await named.json()).toMatchObject({ reason: 'NotFound' });
    for (const res of held) await res.body?.cancel();
  });

  it('--max-watches-per-user parses as a count, defaults to 0 (no limit, as kube-apiserver); its help says it is not a kube-apiserver flag', () => {
    expect(parseArgs(['--max-watches-per-user=5']).options.maxWatchesPerUser).toBe(5);
    expect(usage()).toContain('--max-watches-per-user (default 0)');
    expect(() => parseArgs(['--max-watches-per-user=x'])).toThrow(/non-negative integer/);
  });

  it('with the defaults one user holds 1,001 watches: kube-apiserver has no per-user cap (1,000 anonymous kubelets and an informer are one user)', async () => {
    const open = await testServer(new MemoryStorage({ compactionInterval: 0 }));
    const aborts: AbortController[] = [];
    try {
      const statuses = await Promise.all(
        Array.from({ length: 1001 }, async () => {
          const abort = new AbortController();
          aborts.push(abort);
          const res = await fetch(`${open.url}${WATCH}`, { signal: abort.signal });
          return res.status;
        }),
      );
      expect(statuses.filter((s) => s !== 200)).toEqual([]);
      expect(open.context.watchLimiter.count('system:anonymous')).toBe(1001);
    } finally {
      for (const abort of aborts) abort.abort();
      await open.close();
    }
  });
});

describe('request line and header size', () => {
  /** Sends one raw HTTP/1.1 request and returns the status line. */
  async function statusLine(head: string): Promise<string> {
    const socket = connect(server.port, '127.0.0.1');
    await once(socket, 'connect');
    let out = '';
    socket.setEncoding('latin1').on('data', (d: string) => (out += d));
    socket.write(`${head}\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    await once(socket, 'close');
    return out.split('\r\n')[0] ?? '';
  }

  it('headers and a URL up to 1 MiB are served, as kube-apiserver (MaxHeaderBytes); past it 431', async () => {
    const selector = `labelSelector=${'a'.repeat(20 * 1024)}`;
    expect(await statusLine(`GET /api/v1/namespaces/default/configmaps?${selector} HTTP/1.1`)).toBe(
      'HTTP/1.1 400 Bad Request',
    );
    const big = `X-Big: ${'b'.repeat(600 * 1024)}`;
    expect(await statusLine(`GET /version HTTP/1.1\r\n${big}`)).toBe('HTTP/1.1 200 OK');
    const tooBig = `X-Big: ${'b'.repeat(1024 * 1024 + 1)}`;
    expect(await statusLine(`GET /version HTTP/1.1\r\n${tooBig}`)).toBe(
      'HTTP/1.1 431 Request Header Fields Too Large',
    );
  });
});
