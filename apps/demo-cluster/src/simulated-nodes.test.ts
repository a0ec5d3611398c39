import { isApiError } from '@listwatch/api';
import type { Lease } from '@listwatch/client';
import { eventually } from '@listwatch/testing';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { NODE_LEASE_NAMESPACE } from './controllers/kubelet.js';
import { isPodReady, resources, type Node, type Pod } from './controllers/objects.js';
import { SimulatedNodes, type SimulatedNodesOptions } from './simulated-nodes.js';
import { startTestApiServer, type TestApiServer } from './testing/test-apiserver.js';

let api: TestApiServer;
const fleets: SimulatedNodes[] = [];

beforeAll(async () => {
  api = await startTestApiServer();
});
afterEach(async () => {
  for (const fleet of fleets.splice(0)) await fleet.stop();
});
afterAll(async () => {
  await api?.close();
});

async function startFleet(options: Omit<SimulatedNodesOptions, 'client'>) {
  const fleet = new SimulatedNodes({ client: api.client, ...options });
  fleets.push(fleet);
  await fleet.register();
  fleet.start();
  await fleet.waitForSync();
  return fleet;
}

/** An unbound pod, bound to `node` through pods/binding as a scheduler does. */
async function createBound(namespace: string, name: string, node: string): Promise<void> {
  await api.client
    .resource<Pod>(resources.pods)
    .namespace(namespace)
    .create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: { containers: [{ name: 'app', image: 'nginx' }] },
    });
  await api.client.request({
    method: 'POST',
    path: `/api/v1/namespaces/${namespace}/pods/${name}/binding`,
    body: {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name, namespace },
      target: { apiVersion: 'v1', kind: 'Node', name: node },
    },
  });
}

it('registers every node as a Ready Node with a Lease in kube-node-lease, and renews each Lease', async () => {
  const fleet = await startFleet({ count: 3, namePrefix: 'reg-', leaseRenewMs: 50 });
  expect(fleet.names).toEqual(['reg-0', 'reg-1', 'reg-2']);
  const leases = api.client.resource<Lease>(resources.leases).namespace(NODE_LEASE_NAMESPACE);
  const first = new Map<string, string | undefined>();
  for (const name of fleet.names) {
    const node = await api.client.resource<Node>(resources.nodes).get(name);
    expect(node.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    const lease = await leases.get(name);
    expect(lease.spec?.holderIdentity).toBe(name);
    expect(lease.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'Node', name });
    first.set(name, lease.metadata.resourceVersion);
  }
  await eventually(async () => {
    for (const name of fleet.names)
      if ((await leases.get(name)).metadata.resourceVersion === first.get(name)) return undefined;
    return true;
  }, 'every lease renewed');
});

it('a pod bound to a node is reported Running and Ready by that node, through its own watch', async () => {
  const namespace = await api.namespace();
  const running: string[] = [];
  const delivered: string[] = [];
  const fleet = await startFleet({
    count: 2,
    namePrefix: 'run-',
    onPodDelivered: (pod, node) => delivered.push(`${pod.metadata.name}@${node}`),
    onPodRunning: (pod, node, sentAt, ackAt) => {
      expect(ackAt).toBeGreaterThanOrEqual(sentAt);
      running.push(`${pod.metadata.name}@${node}`);
    },
  });
  await createBound(namespace, 'a', 'run-1');
  const pods = api.client.resource<Pod>(resources.pods).namespace(namespace);
  const pod = await eventually(async () => {
    const p = await pods.get('a');
    return p.status?.phase === 'Running' ? p : undefined;
  }, 'pod a Running');
  expect(isPodReady(pod)).toBe(true);
  expect(pod.status?.containerStatuses?.[0]).toMatchObject({ name: 'app', ready: true });
  await eventually(() => (running.length ? true : undefined), 'the Running write answered');
  expect(delivered).toEqual(['a@run-1']);
  expect(running).toEqual(['a@run-1']);
  expect(fleet.names).toContain('run-1');
});

it('a pod being deleted on a node is confirmed gone by it, as a kubelet does once nothing runs', async () => {
  const namespace = await api.namespace();
  await startFleet({ count: 1, namePrefix: 'del-' });
  await createBound(namespace, 'b', 'del-0');
  const pods = api.client.resource<Pod>(resources.pods).namespace(namespace);
  await eventually(
    async () => ((await pods.get('b')).status?.phase === 'Running' ? true : undefined),
    'pod b Running',
  );
  await pods.delete('b', { gracePeriodSeconds: 30 });
  await eventually(
    () =>
      pods.get('b').then(
        () => undefined,
        (err: unknown) => (isApiError(err) && err.code === 404 ? true : undefined),
      ),
    'pod b gone',
  );
});

it('registering again finds the Nodes and Leases of an earlier run', async () => {
  const once = await startFleet({ count: 2, namePrefix: 'again-' });
  await once.stop();
  await expect(startFleet({ count: 2, namePrefix: 'again-' })).resolves.toBeDefined();
});

it('a pod that runs to completion on a hollow node exits: Succeeded on exit code 0, Failed otherwise under Never', async () => {
  const namespace = await api.namespace();
  await startFleet({
    count: 1,
    namePrefix: 'run-',
    runToCompletion: (pod) => ({
      runMs: 10,
      exitCode: pod.metadata.name === 'fails' ? 3 : 0,
    }),
  });
  const pods = api.client.resource<Pod>(resources.pods).namespace(namespace);
  for (const name of ['completes', 'fails']) {
    await pods.create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: { restartPolicy: 'Never', containers: [{ name: 'app', image: 'busybox' }] },
    });
    await api.client.request({
      method: 'POST',
      path: `/api/v1/namespaces/${namespace}/pods/${name}/binding`,
      body: {
        apiVersion: 'v1',
        kind: 'Binding',
        metadata: { name, namespace },
        target: { apiVersion: 'v1', kind: 'Node', name: 'run-0' },
      },
    });
  }
  const phaseOf = async (name: string) => (await pods.get(name)).status?.phase;
  await eventually(
    async () => ((await phaseOf('completes')) === 'Succeeded' ? true : undefined),
    'the pod that exits 0 Succeeded',
  );
  await eventually(
    async () => ((await phaseOf('fails')) === 'Failed' ? true : undefined),
    'the pod that exits 3 Failed',
  );
  const done = await pods.get('completes');
  expect(done.status?.containerStatuses?.[0]?.state?.terminated).toMatchObject({
    exitCode: 0,
    reason: 'Completed',
  });
  expect(done.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('False');
});
