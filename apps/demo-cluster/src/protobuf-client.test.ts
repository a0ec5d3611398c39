import { RestClient } from '@listwatch/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { resources, type Pod, type ReplicaSet } from './controllers/objects.js';
import { DemoCluster } from './demo-cluster.js';
import {
  expectRunningPods,
  startTestApiServer,
  type TestApiServer,
} from './testing/test-apiserver.js';
import { webReplicaSet } from './web-workload.js';

// The client speaking application/vnd.kubernetes.protobuf (client-go's ContentConfig) to the
// real apiserver: reads and watches of built-in kinds travel in protobuf.

let api: TestApiServer;
let client: RestClient;

beforeAll(async () => {
  api = await startTestApiServer();
  client = new RestClient({ server: api.server.url, encoding: 'protobuf' });
});
afterAll(async () => {
  await client?.close();
  await api?.close();
});

it('a protobuf client gets, lists and watches ConfigMaps: the watch delivers every change', async () => {
  const ns = await api.namespace();
  const configMaps = client.resource(resources.configmaps).namespace(ns);
  const created = await configMaps.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'a' },
    data: { k: 'v' },
  });
  expect(await configMaps.get('a')).toMatchObject({ kind: 'ConfigMap', data: { k: 'v' } });
  const list = await configMaps.list();
  expect(list.items.map((i) => (i.metadata as { name?: string }).name)).toEqual(['a']);

  const watch = await configMaps.watch({
    resourceVersion: created.metadata.resourceVersion ?? '',
  });
  const seen: string[] = [];
  const done = (async () => {
    for await (const event of watch) {
      const object = event.object as { metadata?: { name?: string }; data?: unknown };
      seen.push(`${event.type} ${object.metadata?.name} ${JSON.stringify(object.data ?? null)}`);
      if (event.type === 'DELETED') break;
    }
  })();
  await configMaps.patch('a', { data: { k: 'w' } });
  await configMaps.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'b' },
  });
  await configMaps.delete('a');
  await done;
  watch.close();
  expect(seen).toEqual(['MODIFIED a {"k":"w"}', 'ADDED b null', 'DELETED a {"k":"w"}']);

  // What travelled was protobuf: the server answers a client that asks as this one does so.
  const res = await fetch(`${api.server.url}/api/v1/namespaces/${ns}/configmaps`, {
    headers: { Accept: 'application/vnd.kubernetes.protobuf, application/json' },
  });
  expect(res.headers.get('content-type')).toBe('application/vnd.kubernetes.protobuf');
});

it('a protobuf watch over a WebSocket delivers events, one WatchEvent per binary message', async () => {
  const ws = new RestClient({
    server: api.server.url,
    encoding: 'protobuf',
    watchTransport: 'websocket',
  });
  try {
    const ns = await api.namespace();
    const configMaps = ws.resource(resources.configmaps).namespace(ns);
    const watch = await configMaps.watch();
    await configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ws' } });
    for await (const event of watch) {
      expect(event.type).toBe('ADDED');
      expect(event.object).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'ws' } });
      break;
    }
    watch.close();
  } finally {
    await ws.close();
  }
});

it('the demo cluster runs its controllers over a protobuf client: a ReplicaSet gets its running pods', async () => {
  const cluster = new DemoCluster({ client, nodes: ['node-1'], report: () => {} });
  try {
    await cluster.start();
    const ns = await api.namespace();
    await client
      .resource<ReplicaSet>(resources.replicasets)
      .namespace(ns)
      .create(webReplicaSet(ns, 'web', 2));
    await expectRunningPods(client.resource<Pod>(resources.pods), ns, 2);
  } finally {
    await cluster.stop();
  }
});
