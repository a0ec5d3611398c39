import type { KubeObject, Status } from '@listwatch/api';
import { MemoryStorage } from '@listwatch/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { RunningApiServer } from '../server.js';
import { client, testServer } from '../testing/test-server.js';

// Only a watch upgrades to a WebSocket watch. Any other request asking for WebSocket — pods/exec,
// attach, portforward, log, status, binding, a named GET — is answered as kube's handler for it
// answers: a Status or the object over plain HTTP, never 101 and watch events. exec, attach and
// portforward of a pod no node runs are kube's 400 "does not have a host assigned"
// (pkg/registry/core/pod/strategy.go streamLocation); this apiserver connects to no container
// runtime, so a pod on a node is a 400 saying so.

const NS = '/api/v1/namespaces/default';
let server: RunningApiServer;

/** A WebSocket as kubectl and the Python client open one: its 101, or the plain answer. */
function socket(
  path: string,
  protocols = ['v4.channel.k8s.io'],
): Promise<{ status: number; body: string; events: number }> {
  const ws = new WebSocket(`${server.url.replace('http', 'ws')}${path}`, protocols, {
    origin: server.url,
  });
  return new Promise((resolve, reject) => {
    ws.once('upgrade', () => {
      // A watch: take its first message as proof, then leave.
      ws.once('message', () => {
        ws.close();
        resolve({ status: 101, body: '', events: 1 });
      });
    });
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, events: 0 }));
    });
    ws.once('error', reject);
  });
}

beforeAll(async () => {
  server = await testServer(new MemoryStorage({ compactionInterval: 0 }));
  const api = client(server.url);
  const pod = (name: string, nodeName?: string) => ({
    metadata: { name },
    spec: { containers: [{ name: 'c', image: 'busybox' }], ...(nodeName ? { nodeName } : {}) },
  });
  expect((await api.post(`${NS}/pods`, pod('x'))).status).toBe(201);
  expect((await api.post(`${NS}/pods`, pod('on-node', 'n1'))).status).toBe(201);
});

afterAll(() => server?.close());

describe('only a watch upgrades to a WebSocket watch', () => {
  it.each(['exec?command=ls&stdout=true', 'attach?stdout=true', 'portforward?ports=80'])(
    'a WebSocket to pods/x/%s is a 400 Status naming the pod without a host, never 101',
    async (sub) => {
      const reply = await socket(`${NS}/pods/x/${sub}`);
      expect(reply.status).toBe(400);
      const status = JSON.parse(reply.body) as Status;
      expect(status.kind).toBe('Status');
      expect(status.message).toBe('pod x does not have a host assigned');
    },
  );

  it('a plain POST or GET of pods/x/exec answers the same Status', async () => {
    const api = client(server.url);
    for (const method of ['GET', 'POST']) {
      const res = await api.call(method, `${NS}/pods/x/exec?command=ls&stdout=true`);
      expect(res.status, method).toBe(400);
      expect(api.status(res).message).toBe('pod x does not have a host assigned');
    }
  });

  it('exec of a pod on a node says no container runtime is connected; of no pod, 404', async () => {
    const onNode = await socket(`${NS}/pods/on-node/exec?command=ls&stdout=true`);
    expect(onNode.status).toBe(400);
    expect((JSON.parse(onNode.body) as Status).message).toContain(
      'connects to no container runtime',
    );
    const missing = await socket(`${NS}/pods/nope/exec?command=ls&stdout=true`);
    expect(missing.status).toBe(404);
    expect((JSON.parse(missing.body) as Status).message).toBe('pods "nope" not found');
  });

  it('log, status, binding and a named GET over WebSocket answer as plain HTTP, no watch', async () => {
    const log = await socket(`${NS}/pods/x/log`);
    expect([log.status, log.body, log.events]).toEqual([200, '', 0]);
    for (const path of [`${NS}/pods/x/status`, `${NS}/pods/x`, `${NS}/pods/x?watch=true`]) {
      const reply = await socket(path, []);
      expect(reply.status, path).toBe(200);
      const pod = JSON.parse(reply.body) as KubeObject;
      expect([pod.kind, pod.metadata.name], path).toEqual(['Pod', 'x']);
    }
    expect((await socket(`${NS}/pods/x/binding`, [])).status).toBe(405);
  });

  it('the collection with watch=true and the legacy /watch/ path still upgrade to a watch', async () => {
    expect((await socket(`${NS}/pods?watch=true`, [])).status).toBe(101);
    expect((await socket('/api/v1/watch/namespaces/default/pods/x', [])).status).toBe(101);
  });
});
