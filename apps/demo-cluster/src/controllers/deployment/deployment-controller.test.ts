import { describe, expect, it } from 'vitest';
import { demoClusterForFile, expectRunningPods, listPods } from '../../testing/test-apiserver.js';
import { resources, type Deployment, type Pod, type ReplicaSet } from '../objects.js';

// The rules of kubernetes pkg/controller/deployment (sync.go, rolling.go, recreate.go,
// progress.go), against a real apiserver with the demo's ReplicaSet controller, scheduler,
// kubelets and garbage collector running beside it.
describe('the Deployment controller', () => {
  const demo = demoClusterForFile();

  const pods = () => demo.api.client.resource<Pod>(resources.pods);
  const replicaSets = () => demo.api.client.resource<ReplicaSet>(resources.replicasets);
  const deployments = () => demo.api.client.resource<Deployment>(resources.deployments);
  const poll = { timeout: 30_000, interval: 100 };

  const deployment = (
    ns: string,
    name: string,
    replicas: number,
    image = 'nginx:1.27',
    spec: Deployment['spec'] = {},
  ): Deployment => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: ns },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'web', image }] },
      },
      ...spec,
    },
  });

  const ownedReplicaSets = async (ns: string) =>
    (await replicaSets().namespace(ns).list()).items.sort((a, b) =>
      (a.metadata.annotations?.['deployment.kubernetes.io/revision'] ?? '').localeCompare(
        b.metadata.annotations?.['deployment.kubernetes.io/revision'] ?? '',
      ),
    );

  /** Waits for the rollout to be complete as kubectl rollout status judges it. */
  const expectRolledOut = async (ns: string, name: string, replicas: number) =>
    expect
      .poll(async () => {
        const d = await deployments().namespace(ns).get(name);
        const s = d.status ?? {};
        const progressing = s.conditions?.find((c) => c.type === 'Progressing');
        return {
          observed: (s.observedGeneration ?? 0) >= (d.metadata.generation ?? 0),
          replicas: s.replicas ?? 0,
          updated: s.updatedReplicas ?? 0,
          ready: s.readyReplicas ?? 0,
          available: s.availableReplicas ?? 0,
          progressing: progressing?.reason,
        };
      }, poll)
      .toEqual({
        observed: true,
        replicas,
        updated: replicas,
        ready: replicas,
        available: replicas,
        progressing: 'NewReplicaSetAvailable',
      });

  it('a Deployment owns one ReplicaSet named <deployment>-<pod-template-hash>, labelled and annotated as kube does, and reports its pods in a status it applies', async () => {
    const ns = await demo.api.namespace();
    const d = await deployments()
      .namespace(ns)
      .create(deployment(ns, 'web', 3));
    await expectRolledOut(ns, 'web', 3);
    const [rs, ...others] = await ownedReplicaSets(ns);
    expect(others).toEqual([]);
    const hash = rs?.metadata.labels?.['pod-template-hash'] ?? '';
    expect(hash).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{1,10}$/);
    expect(rs?.metadata.name).toBe(`web-${hash}`);
    expect(rs?.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        name: 'web',
        uid: d.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(rs?.metadata.annotations).toEqual({
      'deployment.kubernetes.io/revision': '1',
      'deployment.kubernetes.io/desired-replicas': '3',
      'deployment.kubernetes.io/max-replicas': '4',
    });
    expect(rs?.spec?.selector?.matchLabels).toEqual({ app: 'web', 'pod-template-hash': hash });
    const current = await deployments().namespace(ns).get('web');
    expect(current.metadata.annotations?.['deployment.kubernetes.io/revision']).toBe('1');
    expect(current.status?.conditions?.find((c) => c.type === 'Available')).toMatchObject({
      status: 'True',
      reason: 'MinimumReplicasAvailable',
    });
    // Status (and the revision annotation) by server-side apply, owned by the controller.
    expect(current.metadata.managedFields).toContainEqual(
      expect.objectContaining({
        manager: 'deployment-controller',
        operation: 'Apply',
        subresource: 'status',
      }),
    );
    for (const pod of await expectRunningPods(pods(), ns, 3))
      expect(pod.metadata.labels).toEqual({ app: 'web', 'pod-template-hash': hash });
  });

  it('a template change rolls out a new ReplicaSet (revision 2) and scales the old one to zero, never exceeding replicas + maxSurge', async () => {
    const ns = await demo.api.namespace();
    await deployments()
      .namespace(ns)
      .create(
        deployment(ns, 'web', 4, 'nginx:1.27', {
          strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
        }),
      );
    await expectRolledOut(ns, 'web', 4);
    let most = 0;
    const watching = setInterval(() => {
      void listPods(pods(), ns).then((list) => {
        most = Math.max(most, list.filter((p) => !p.metadata.deletionTimestamp).length);
      });
    }, 50);
    try {
      await deployments()
        .namespace(ns)
        .patch('web', {
          spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.28' }] } } },
        });
      await expectRolledOut(ns, 'web', 4);
    } finally {
      clearInterval(watching);
    }
    expect(most).toBeLessThanOrEqual(5);
    const [first, second] = await ownedReplicaSets(ns);
    expect(first?.spec?.replicas).toBe(0);
    expect(second?.metadata.annotations?.['deployment.kubernetes.io/revision']).toBe('2');
    expect(second?.spec?.replicas).toBe(4);
    const running = await expectRunningPods(pods(), ns, 4);
    for (const pod of running) expect((pod.spec?.containers ?? [])[0]?.image).toBe('nginx:1.28');
  });

  it('Recreate scales the old ReplicaSet to zero and waits for its pods to go before the new one starts', async () => {
    const ns = await demo.api.namespace();
    await deployments()
      .namespace(ns)
      .create(deployment(ns, 'web', 2, 'nginx:1.27', { strategy: { type: 'Recreate' } }));
    await expectRolledOut(ns, 'web', 2);
    const images = new Set<string>();
    const watching = setInterval(() => {
      void listPods(pods(), ns).then((list) => {
        images.add(
          [...new Set(list.map((p) => (p.spec?.containers ?? [])[0]?.image))].sort().join('+'),
        );
      });
    }, 20);
    try {
      await deployments()
        .namespace(ns)
        .patch('web', {
          spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.28' }] } } },
        });
      await expectRolledOut(ns, 'web', 2);
    } finally {
      clearInterval(watching);
    }
    expect([...images].filter((s) => s.includes('+'))).toEqual([]);
  });

  it('scaling a Deployment scales its ReplicaSet and the desired-replicas annotation', async () => {
    const ns = await demo.api.namespace();
    await deployments()
      .namespace(ns)
      .create(deployment(ns, 'web', 1));
    await expectRolledOut(ns, 'web', 1);
    await deployments()
      .namespace(ns)
      .patch('web', { spec: { replicas: 3 } });
    await expectRolledOut(ns, 'web', 3);
    const [rs] = await ownedReplicaSets(ns);
    expect(rs?.metadata.annotations?.['deployment.kubernetes.io/desired-replicas']).toBe('3');
    await deployments()
      .namespace(ns)
      .patch('web', { spec: { replicas: 0 } });
    await expect.poll(async () => (await listPods(pods(), ns)).length, poll).toBe(0);
  });

  it('old ReplicaSets past revisionHistoryLimit are deleted, oldest revision first', async () => {
    const ns = await demo.api.namespace();
    await deployments()
      .namespace(ns)
      .create(deployment(ns, 'web', 1, 'nginx:1', { revisionHistoryLimit: 1 }));
    await expectRolledOut(ns, 'web', 1);
    for (const image of ['nginx:2', 'nginx:3']) {
      await deployments()
        .namespace(ns)
        .patch('web', {
          spec: { template: { spec: { containers: [{ name: 'web', image }] } } },
        });
      await expectRolledOut(ns, 'web', 1);
    }
    await expect
      .poll(
        async () =>
          (await ownedReplicaSets(ns)).map(
            (rs) => rs.metadata.annotations?.['deployment.kubernetes.io/revision'],
          ),
        poll,
      )
      .toEqual(['2', '3']);
  });

  it('deleting a Deployment deletes its ReplicaSets and their pods (background cascade)', async () => {
    const ns = await demo.api.namespace();
    await deployments()
      .namespace(ns)
      .create(deployment(ns, 'web', 2));
    await expectRolledOut(ns, 'web', 2);
    await deployments().namespace(ns).delete('web');
    await expect
      .poll(
        async () => [
          (await replicaSets().namespace(ns).list()).items.length,
          (await listPods(pods(), ns)).length,
        ],
        poll,
      )
      .toEqual([0, 0]);
  });
});
