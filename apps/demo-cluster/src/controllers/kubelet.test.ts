import type { Lease } from '@listwatch/client';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { startTestApiServer, type TestApiServer } from '../testing/test-apiserver.js';
import { Kubelet, NODE_LEASE_NAMESPACE } from './kubelet.js';
import { isPodReady, resources, type Node, type Pod } from './objects.js';

let api: TestApiServer;
const stops: (() => Promise<void>)[] = [];

beforeAll(async () => {
  api = await startTestApiServer();
});
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});
afterAll(async () => {
  await api?.close();
});

async function startKubelet(nodeName: string, index: number, leaseRenewMs = 10_000) {
  const kubelet = new Kubelet({ client: api.client, nodeName, index, leaseRenewMs });
  await kubelet.register();
  const abort = new AbortController();
  const running = kubelet.run(abort.signal);
  stops.push(async () => {
    abort.abort();
    await running;
  });
  return kubelet;
}

function pod(name: string, nodeName?: string): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: {
      ...(nodeName ? { nodeName } : {}),
      containers: [
        { name: 'app', image: 'nginx' },
        { name: 'sidecar', image: 'busybox' },
      ],
    },
  };
}

it('registers its Node as Ready with the address and port its kubelet endpoint serves on, its pod CIDR, and holds a Lease in kube-node-lease', async () => {
  const kubelet = await startKubelet('kubelet-reg', 4);
  const node = await api.client.resource<Node>(resources.nodes).get('kubelet-reg');
  expect(node.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
  // 127.0.0.<2+index> where the host routes it (Linux), else 127.0.0.1.
  expect(kubelet.hostIP).toMatch(/^127\.0\.0\.(6|1)$/);
  expect(node.status?.addresses).toEqual([{ type: 'InternalIP', address: kubelet.hostIP }]);
  expect(node.status?.daemonEndpoints).toEqual({ kubeletEndpoint: { Port: kubelet.port } });
  expect(kubelet.port).toBeGreaterThan(0);
  expect(node.spec?.podCIDR).toBe('10.244.4.0/24');
  const lease = await api.client
    .resource<Lease>(resources.leases)
    .namespace(NODE_LEASE_NAMESPACE)
    .get('kubelet-reg');
  expect(lease.spec?.holderIdentity).toBe('kubelet-reg');
  expect(lease.spec?.leaseDurationSeconds).toBe(40);
  expect(lease.metadata.ownerReferences?.[0]).toMatchObject({
    kind: 'Node',
    uid: node.metadata.uid,
  });
});

it('renews its node Lease periodically (the node heartbeat)', async () => {
  await startKubelet('kubelet-heartbeat', 5, 50);
  const leases = api.client.resource<Lease>(resources.leases).namespace(NODE_LEASE_NAMESPACE);
  const first = (await leases.get('kubelet-heartbeat')).spec?.renewTime;
  await expect
    .poll(async () => (await leases.get('kubelet-heartbeat')).spec?.renewTime, { interval: 50 })
    .not.toBe(first);
});

it('runs the pods bound to its node — Running, a pod IP of its CIDR, every container ready, applied as the kubelet — and only those', async () => {
  const kubelet = await startKubelet('kubelet-a', 1);
  const ns = await api.namespace();
  const pods = api.client.resource<Pod>(resources.pods).namespace(ns);
  await pods.create(pod('mine-1', 'kubelet-a'));
  await pods.create(pod('mine-2', 'kubelet-a'));
  await pods.create(pod('elsewhere', 'some-other-node'));
  await pods.create(pod('unbound'));
  await expect
    .poll(
      async () =>
        (await pods.list()).items
          .filter((p) => p.status?.phase === 'Running' && isPodReady(p))
          .map((p) => p.metadata.name)
          .sort(),
      { timeout: 20_000, interval: 100 },
    )
    .toEqual(['mine-1', 'mine-2']);
  const mine = (await pods.list()).items.filter((p) => p.spec?.nodeName === 'kubelet-a');
  const ips = mine.map((p) => p.status?.podIP);
  expect(new Set(ips).size).toBe(2);
  for (const p of mine) {
    expect(p.status?.podIP).toMatch(/^10\.244\.1\.\d+$/);
    expect(p.status?.hostIP).toBe(kubelet.hostIP);
    expect(p.status?.containerStatuses?.map((c) => [c.name, c.ready, c.restartCount])).toEqual([
      ['app', true, 0],
      ['sidecar', true, 0],
    ]);
    // Reported by server-side apply, owned by the kubelet's field manager.
    expect(p.metadata.managedFields).toContainEqual(
      expect.objectContaining({ manager: 'kubelet', operation: 'Apply', subresource: 'status' }),
    );
  }
  expect((await pods.get('elsewhere')).status?.phase).toBe('Pending');
  expect((await pods.get('unbound')).status?.phase).toBe('Pending');
});

it('a pod bound after the kubelet started is run too, and a deleted pod frees its IP', async () => {
  await startKubelet('kubelet-b', 2);
  const ns = await api.namespace();
  const pods = api.client.resource<Pod>(resources.pods).namespace(ns);
  await pods.create(pod('first', 'kubelet-b'));
  await expect
    .poll(async () => (await pods.get('first')).status?.podIP, { timeout: 20_000, interval: 100 })
    .toBe('10.244.2.2');
  await pods.delete('first');
  // Terminating until the kubelet has stopped it: its IP is free once it is gone.
  await expect
    .poll(async () => (await pods.list()).items.map((p) => p.metadata.name), {
      timeout: 20_000,
      interval: 100,
    })
    .toEqual([]);
  await pods.create(pod('second', 'kubelet-b'));
  await expect
    .poll(async () => (await pods.get('second')).status?.podIP, { timeout: 20_000, interval: 100 })
    .toBe('10.244.2.2');
});

it('a pod deleted from its node is Terminating until the kubelet stops it and confirms with a zero-grace delete', async () => {
  await startKubelet('kubelet-c', 3);
  const ns = await api.namespace();
  const pods = api.client.resource<Pod>(resources.pods).namespace(ns);
  await pods.create(pod('web', 'kubelet-c'));
  await pods.create(pod('orphan', 'no-kubelet-here'));
  await expect
    .poll(async () => (await pods.get('web')).status?.phase, { timeout: 20_000, interval: 100 })
    .toBe('Running');
  const marked = (await pods.delete('web')) as Pod;
  expect(marked.metadata.deletionTimestamp).toBeTruthy();
  expect(marked.metadata.deletionGracePeriodSeconds).toBe(30);
  await expect
    .poll(async () => (await pods.list()).items.map((p) => p.metadata.name), {
      timeout: 20_000,
      interval: 100,
    })
    .toEqual(['orphan']);
  // No kubelet runs the other node: its pod stays Terminating, as on a cluster. A pod of
  // kubelet-c deleted after it and gone is the kubelet having handled every delete before it.
  await pods.delete('orphan');
  await pods.create(pod('after', 'kubelet-c'));
  await expect
    .poll(async () => (await pods.get('after')).status?.phase, { timeout: 20_000, interval: 100 })
    .toBe('Running');
  await pods.delete('after');
  await expect
    .poll(async () => (await pods.list()).items.map((p) => p.metadata.name), {
      timeout: 20_000,
      interval: 100,
    })
    .toEqual(['orphan']);
  expect((await pods.get('orphan')).metadata.deletionTimestamp).toBeTruthy();
});
