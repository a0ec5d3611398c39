import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { demoClusterForFile, expectRunningPods, listPods } from '../testing/test-apiserver.js';
import { webReplicaSet } from '../web-workload.js';
import { resources, type Pod, type ReplicaSet } from './objects.js';
import { calculateStatus, podsToDelete, slowStartBatch } from './replicaset-controller.js';

// The rules of kubernetes pkg/controller/replicaset/replica_set.go, against a real apiserver with
// the scheduler and kubelets of the demo running beside the controller.
describe('the ReplicaSet controller with the scheduler and two kubelets', () => {
  const nodes = ['node-a', 'node-b'];

  const demo = demoClusterForFile(nodes);

  const clients = () => ({
    pods: demo.api.client.resource<Pod>(resources.pods),
    replicaSets: demo.api.client.resource<ReplicaSet>(resources.replicasets),
  });

  const expectStatus = async (namespace: string, name: string, replicas: number) =>
    expect
      .poll(
        async () => {
          const rs = await clients().replicaSets.namespace(namespace).get(name);
          return [rs.status?.replicas, rs.status?.readyReplicas, rs.status?.observedGeneration];
        },
        { timeout: 20_000, interval: 100 },
      )
      .toEqual([
        replicas,
        replicas,
        (await clients().replicaSets.namespace(namespace).get(name)).metadata.generation,
      ]);

  it('a ReplicaSet converges to spec.replicas Running pods on nodes, owned by it and named <rs>-<5 chars>', async () => {
    const ns = await demo.api.namespace();
    const { pods, replicaSets } = clients();
    const rs = await replicaSets.namespace(ns).create(webReplicaSet(ns, 'web', 3));
    const running = await expectRunningPods(pods, ns, 3);
    for (const pod of running) {
      expect(pod.metadata.name).toMatch(/^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      expect(pod.metadata.labels).toEqual({ app: 'web' });
      expect(pod.metadata.ownerReferences).toEqual([
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: 'web',
          uid: rs.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
      expect(nodes).toContain(pod.spec?.nodeName);
      expect(pod.status?.containerStatuses?.map((c) => c.ready)).toEqual([true]);
    }
    // The scheduler spreads: 3 pods over 2 nodes is 2 + 1.
    const perNode = nodes.map((n) => running.filter((p) => p.spec?.nodeName === n).length).sort();
    expect(perNode).toEqual([1, 2]);
    await expectStatus(ns, 'web', 3);
    // The status is written by server-side apply, owned by the controller's field manager.
    const managers = (await replicaSets.namespace(ns).get('web')).metadata.managedFields ?? [];
    expect(managers).toContainEqual(
      expect.objectContaining({
        manager: 'replicaset-controller',
        operation: 'Apply',
        subresource: 'status',
      }),
    );
  });

  it('scaling up and then down through a merge patch of spec.replicas converges to each new count', async () => {
    const ns = await demo.api.namespace();
    const { pods, replicaSets } = clients();
    await replicaSets.namespace(ns).create(webReplicaSet(ns, 'web', 2));
    await expectRunningPods(pods, ns, 2);
    await replicaSets.namespace(ns).patch('web', { spec: { replicas: 5 } });
    await expectRunningPods(pods, ns, 5);
    await expectStatus(ns, 'web', 5);
    await replicaSets.namespace(ns).patch('web', { spec: { replicas: 1 } });
    await expectRunningPods(pods, ns, 1);
    await expectStatus(ns, 'web', 1);
  });

  it('a deleted pod is replaced by a new one', async () => {
    const ns = await demo.api.namespace();
    const { pods, replicaSets } = clients();
    await replicaSets.namespace(ns).create(webReplicaSet(ns, 'web', 2));
    const before = await expectRunningPods(pods, ns, 2);
    const victim = before[0]!.metadata.name!;
    await pods.namespace(ns).delete(victim);
    await expect
      .poll(
        async () => {
          const now = await listPods(pods, ns);
          return now.filter((p) => p.status?.phase === 'Running').map((p) => p.metadata.name);
        },
        { timeout: 20_000, interval: 100 },
      )
      .toSatisfy((names: (string | undefined)[]) => names.length === 2 && !names.includes(victim));
    await expectRunningPods(pods, ns, 2);
  });

  it('pods of another ReplicaSet, or of none, are left alone', async () => {
    const ns = await demo.api.namespace();
    const { pods, replicaSets } = clients();
    const stray = await pods.namespace(ns).create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'stray', labels: { app: 'web' } },
      spec: { containers: [{ name: 'c', image: 'busybox' }] },
    });
    await replicaSets.namespace(ns).create(webReplicaSet(ns, 'web', 1));
    await replicaSets.namespace(ns).create(webReplicaSet(ns, 'api', 1));
    await expectRunningPods(pods, ns, 3);
    const names = (await listPods(pods, ns)).map((p) => p.metadata.name ?? '').sort();
    expect(names[0]).toMatch(/^api-/);
    expect(names[1]).toBe('stray');
    expect(names[2]).toMatch(/^web-/);
    expect((await pods.namespace(ns).get('stray')).metadata.uid).toBe(stray.metadata.uid);
  });
});

function pod(
  name: string,
  options: { node?: string; phase?: 'Pending' | 'Running'; ready?: boolean; created?: string },
): Pod {
  return {
    metadata: {
      name,
      namespace: 'ns',
      creationTimestamp: options.created ?? '2024-01-01T00:00:00Z',
    },
    spec: { ...(options.node ? { nodeName: options.node } : {}), containers: [{ name: 'c' }] },
    status: {
      phase: options.phase ?? 'Pending',
      conditions: [{ type: 'Ready', status: options.ready ? 'True' : 'False' }],
    },
  };
}

const arbitraryPod = fc.record({
  node: fc.option(fc.constantFrom('n1', 'n2', 'n3'), { nil: undefined }),
  phase: fc.constantFrom('Pending' as const, 'Running' as const),
  ready: fc.boolean(),
  second: fc.integer({ min: 10, max: 59 }),
});

/** The first three criteria, as a comparable tuple: lower goes first. */
function rank(p: Pod): [number, number, number] {
  return [
    p.spec?.nodeName ? 1 : 0,
    p.status?.phase === 'Running' ? 1 : 0,
    p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? 1 : 0,
  ];
}

function before(a: [number, number, number], b: [number, number, number]): boolean {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return false;
}

describe('which pods a ReplicaSet deletes first (controller_utils.go ActivePodsWithRanks)', () => {
  it('an unscheduled pod goes before a scheduled one, pending before running, not ready before ready', () => {
    const pods = [
      pod('ready', { node: 'n1', phase: 'Running', ready: true }),
      pod('running', { node: 'n1', phase: 'Running' }),
      pod('pending', { node: 'n2' }),
      pod('unscheduled', {}),
    ];
    expect(podsToDelete(pods, 3).map((p) => p.metadata.name)).toEqual([
      'unscheduled',
      'pending',
      'running',
    ]);
  });

  it('among equals, a pod on a crowded node goes first, then the youngest', () => {
    const ready = { phase: 'Running' as const, ready: true };
    const pods = [
      pod('alone-old', { node: 'n1', ...ready, created: '2024-01-01T00:00:01Z' }),
      pod('crowded-old', { node: 'n2', ...ready, created: '2024-01-01T00:00:01Z' }),
      pod('crowded-young', { node: 'n2', ...ready, created: '2024-01-01T00:00:09Z' }),
      pod('alone-young', { node: 'n3', ...ready, created: '2024-01-01T00:00:09Z' }),
    ];
    expect(podsToDelete(pods, 3).map((p) => p.metadata.name)).toEqual([
      'crowded-young',
      'crowded-old',
      'alone-young',
    ]);
  });

  it('always picks `count` distinct pods of those given, never keeping one that ranks before a chosen one', () => {
    fc.assert(
      fc.property(fc.array(arbitraryPod, { maxLength: 12 }), fc.nat(14), (specs, count) => {
        const pods = specs.map((s, i) =>
          pod(`p${i}`, {
            phase: s.phase,
            ready: s.ready,
            created: `2024-01-01T00:00:${s.second}Z`,
            ...(s.node ? { node: s.node } : {}),
          }),
        );
        const chosen = podsToDelete(pods, count);
        expect(chosen.length).toBe(Math.min(count, pods.length));
        expect(new Set(chosen).size).toBe(chosen.length);
        for (const c of chosen) expect(pods).toContain(c);
        const kept = pods.filter((p) => !chosen.includes(p));
        for (const c of chosen) for (const k of kept) expect(before(rank(k), rank(c))).toBe(false);
      }),
    );
  });
});

describe('slowStartBatch (replica_set.go)', () => {
  it('calls in batches of 1, 2, 4, ... and stops after the batch in which a call fails', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 100 }),
        fc.option(fc.nat(120), { nil: undefined }),
        async (count, failAt) => {
          let calls = 0;
          const result = await slowStartBatch(count, 1, () => {
            const call = calls++;
            return call === failAt ? Promise.reject(new Error('quota')) : Promise.resolve();
          });
          // The batch boundaries: 1, 3, 7, 15, ... capped at count.
          let expectedCalls = count;
          if (failAt !== undefined && failAt < count) {
            let end = 0;
            for (let batch = 1; end <= failAt; batch *= 2) end = Math.min(count, end + batch);
            expectedCalls = end;
          }
          expect(calls).toBe(expectedCalls);
          const failed = failAt !== undefined && failAt < count;
          expect(result.successes).toBe(failed ? expectedCalls - 1 : count);
          expect(result.error !== undefined).toBe(failed);
        },
      ),
    );
  });
});

describe('calculateStatus (replica_set_utils.go)', () => {
  it('counts the pods, those carrying the template labels, the ready ones, and observes the generation', () => {
    const rs = webReplicaSet('ns', 'web', 3);
    rs.metadata.generation = 4;
    const labelled = (p: Pod) => ({ ...p, metadata: { ...p.metadata, labels: { app: 'web' } } });
    const status = calculateStatus(rs, [
      labelled(pod('a', { node: 'n1', phase: 'Running', ready: true })),
      labelled(pod('b', { node: 'n1' })),
      pod('c', { node: 'n2', phase: 'Running', ready: true }),
    ]);
    expect(status).toEqual({
      replicas: 3,
      fullyLabeledReplicas: 2,
      readyReplicas: 2,
      availableReplicas: 2,
      observedGeneration: 4,
    });
  });
});
