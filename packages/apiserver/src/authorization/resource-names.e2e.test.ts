import type { KubeObject, WatchEvent } from '@listwatch/api';
import { decodeWatchStream } from '@listwatch/codec';
import { KUBECTL, RunningProcess } from '@listwatch/testing';
import { spawn } from 'node:child_process';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  binding,
  RBAC,
  role,
  startRbacCluster,
  type RbacCluster,
} from './rbac-cluster.test-helper.js';

// A Role limited by resourceNames: [p1] reads p1 and nothing else, by any path (requestinfo.go).
// A name in the path makes a GET a `get` whatever its query says (watch=true answers the object);
// only the collection path or the legacy /watch/ path watches, the latter that one name only; a
// list or watch with an exact `metadata.name=` field selector is a request for that name.

const NS = 'sec';
const PODS = `/api/v1/namespaces/${NS}/pods`;
const LEGACY = `/api/v1/watch/namespaces/${NS}/pods`;

let cluster: RbacCluster;

const pod = (name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: NS },
  spec: { containers: [{ name: 'c', image: 'busybox' }] },
});

async function relabel(name: string, value: string): Promise<void> {
  const res = await cluster.send(
    'admin',
    'PATCH',
    `${PODS}/${name}`,
    {
      metadata: { labels: { step: value } },
    },
    { 'content-type': 'application/merge-patch+json' },
  );
  let text = '';
  for await (const chunk of res as AsyncIterable<Buffer>) text += chunk.toString();
  expect(res.statusCode, text).toBe(200);
}

/** The names of the watch events a response streams, as they arrive. */
function eventNames(res: IncomingMessage): { names: string[]; next(n: number): Promise<void> } {
  const names: string[] = [];
  let wake: (() => void) | undefined;
  void (async () => {
    for await (const event of decodeWatchStream(res as AsyncIterable<Uint8Array>, 'json')) {
      names.push(`${event.type} ${(event.object as KubeObject).metadata.name ?? ''}`);
      wake?.();
    }
  })().catch(() => undefined);
  return {
    names,
    async next(n) {
      while (names.length < n) await new Promise<void>((resolve) => (wake = resolve));
    },
  };
}

/** A WebSocket as `alice` (bearer subprotocol); `upgraded` or the plain response it got. */
function aliceSocket(
  path: string,
): Promise<
  | { upgraded: true; ws: WebSocket; messages: WatchEvent[] }
  | { upgraded: false; status: number; body: string }
> {
  const token = Buffer.from(cluster.token('alice')).toString('base64url');
  const ws = new WebSocket(
    `${cluster.server.url.replace('https', 'wss')}${path}`,
    [`base64url.bearer.authorization.k8s.io.${token}`],
    { ca: cluster.ca.cert, origin: cluster.server.url },
  );
  const messages: WatchEvent[] = [];
  ws.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString()) as WatchEvent));
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ upgraded: true, ws, messages }));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ upgraded: false, status: res.statusCode ?? 0, body }));
    });
    ws.once('error', reject);
  });
}

beforeAll(async () => {
  cluster = await startRbacCluster();
  expect(
    (await cluster.as('admin', 'POST', '/api/v1/namespaces', { metadata: { name: NS } })).status,
  ).toBe(201);
  for (const name of ['p1', 'p2'])
    expect((await cluster.as('admin', 'POST', PODS, pod(name))).status).toBe(201);
  const rules = [
    {
      apiGroups: [''],
      resources: ['pods'],
      resourceNames: ['p1'],
      verbs: ['get', 'list', 'watch'],
    },
  ];
  expect(
    (
      await cluster.as(
        'admin',
        'POST',
        `/apis/${RBAC}/v1/namespaces/${NS}/roles`,
        role('p1-only', NS, rules),
      )
    ).status,
  ).toBe(201);
  const bound = binding('p1-only', NS, { kind: 'Role', name: 'p1-only' }, ['alice']);
  expect(
    (await cluster.as('admin', 'POST', `/apis/${RBAC}/v1/namespaces/${NS}/rolebindings`, bound))
      .status,
  ).toBe(201);
}, 60_000);

afterAll(() => cluster?.close());

describe('a named path is a get, whatever its query says (requestinfo.go)', () => {
  it('a named GET with watch=true answers the object, never the collection', async () => {
    const res = await cluster.as('alice', 'GET', `${PODS}/p1?watch=true`);
    expect(res.status).toBe(200);
    expect(res.body.kind).toBe('Pod');
    expect(res.body.metadata.name).toBe('p1');
  });

  it('a WebSocket on the named path is no watch: the object as plain HTTP, no 101', async () => {
    const reply = await aliceSocket(`${PODS}/p1?watch=true`);
    expect(reply.upgraded).toBe(false);
    if (reply.upgraded) return;
    expect(reply.status).toBe(200);
    const body = JSON.parse(reply.body) as KubeObject;
    expect([body.kind, body.metadata.name]).toEqual(['Pod', 'p1']);
  });

  it('the collection path watches, and is refused to a Role that names one pod', async () => {
    expect((await cluster.as('alice', 'GET', `${PODS}?watch=true`)).status).toBe(403);
    expect((await cluster.as('alice', 'GET', PODS)).status).toBe(403);
    expect((await cluster.as('alice', 'GET', LEGACY)).status).toBe(403);
    expect((await cluster.as('alice', 'GET', `${PODS}/p2?watch=true`)).status).toBe(403);
    expect((await cluster.as('alice', 'GET', `${LEGACY}/p2`)).status).toBe(403);
    for (const path of [`${PODS}?watch=true`, LEGACY, `${LEGACY}/p2`, `${PODS}/p2?watch=true`]) {
      const reply = await aliceSocket(path);
      expect(reply.upgraded ? 101 : reply.status, path).toBe(403);
    }
  });

  it('the legacy /watch/ path of one name streams that name only, over HTTP and WebSocket', async () => {
    const res = await cluster.send('alice', 'GET', `${LEGACY}/p1`);
    expect(res.statusCode).toBe(200);
    const http = eventNames(res);
    await http.next(1);
    const socket = await aliceSocket(`${LEGACY}/p1`);
    expect(socket.upgraded).toBe(true);
    if (!socket.upgraded) return;
    // p2 changes first: had it leaked, its event would come before p1's.
    await relabel('p2', 'a');
    await relabel('p1', 'a');
    await http.next(2);
    while (socket.messages.length < 2) await new Promise((r) => socket.ws.once('message', r));
    socket.ws.close();
    res.destroy();
    expect(http.names.slice(0, 2)).toEqual(['ADDED p1', 'MODIFIED p1']);
    expect(
      socket.messages
        .slice(0, 2)
        .map((e) => `${e.type} ${(e.object as KubeObject).metadata.name ?? ''}`),
    ).toEqual(['ADDED p1', 'MODIFIED p1']);
  });
});

describe('an exact metadata.name field selector names the request (requestinfo.go)', () => {
  it('a list or watch selecting p1 by name is allowed; another name or none is 403', async () => {
    const list = await cluster.as('alice', 'GET', `${PODS}?fieldSelector=metadata.name%3Dp1`);
    expect(list.status).toBe(200);
    expect(
      (list.body as unknown as { items: KubeObject[] }).items.map((p) => p.metadata.name),
    ).toEqual(['p1']);
    expect(
      (await cluster.as('alice', 'GET', `${PODS}?fieldSelector=metadata.name%3D%3Dp1`)).status,
    ).toBe(200);
    expect(
      (await cluster.as('alice', 'GET', `${PODS}?fieldSelector=metadata.name%3Dp2`)).status,
    ).toBe(403);
    expect(
      (await cluster.as('alice', 'GET', `${PODS}?fieldSelector=metadata.name!%3Dp2`)).status,
    ).toBe(403);
    const watch = await cluster.send(
      'alice',
      'GET',
      `${PODS}?watch=1&fieldSelector=metadata.name%3Dp1`,
    );
    expect(watch.statusCode).toBe(200);
    const events = eventNames(watch);
    await events.next(1);
    watch.destroy();
    expect(events.names[0]).toBe('ADDED p1');
  });

  it('`kubectl get pod p1 -w` works under a Role naming p1, while listing every pod is refused', async () => {
    // Writes alice's kubeconfig too.
    const all = await cluster.kubectl('alice', 'get', 'pods', '-n', NS);
    expect(all.code).not.toBe(0);
    expect(all.stderr).toContain('Forbidden');
    const watch = new RunningProcess(
      spawn(KUBECTL, ['get', 'pod', 'p1', '-n', NS, '-w', '--output-watch-events'], {
        env: {
          PATH: process.env['PATH'] ?? '',
          HOME: cluster.dir,
          KUBECONFIG: join(cluster.dir, 'kubeconfig-alice'),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    try {
      await watch.waitForLine(/p1/);
      // The watch itself is allowed: a change of p1 arrives as a second line.
      await relabel('p1', 'kubectl');
      await watch.waitForLine(/MODIFIED\s+p1/);
      expect(watch.stderr).not.toContain('Forbidden');
    } finally {
      await watch.stop();
    }
  });
});
