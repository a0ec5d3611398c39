import { describe, expect, it } from 'vitest';
import { demoClusterForFile, expectRunningPods } from '../../testing/test-apiserver.js';
import { webReplicaSet } from '../../web-workload.js';
import { resources, type Pod, type ReplicaSet } from '../objects.js';
import type { Namespace } from './namespace-controller.js';

// The rules of kubernetes pkg/controller/namespace/deletion/namespaced_resources_deleter.go,
// against a real apiserver with the demo's controllers and kubelets.
describe('the namespace controller', () => {
  const demo = demoClusterForFile(['node-a']);

  const namespaces = () => demo.api.client.resource<Namespace>(resources.namespaces);
  const configMaps = (ns: string) => demo.api.client.resource(resources.configmaps).namespace(ns);
  const poll = { timeout: 40_000, interval: 200 };
  const gone = async (ns: string) => {
    try {
      await namespaces().get(ns);
      return false;
    } catch {
      return true;
    }
  };

  it('a deleted namespace is emptied of every resource, then finalized and gone', async () => {
    const ns = await demo.api.namespace();
    for (const name of ['a', 'b'])
      await configMaps(ns).create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
    await demo.api.client
      .resource<ReplicaSet>(resources.replicasets)
      .namespace(ns)
      .create(webReplicaSet(ns, 'web', 2));
    await expectRunningPods(demo.api.client.resource<Pod>(resources.pods), ns, 2);
    await namespaces().delete(ns);
    await expect.poll(() => gone(ns), poll).toBe(true);
    for (const resource of [resources.configmaps, resources.replicasets, resources.pods])
      expect((await demo.api.client.resource(resource).namespace(ns).list()).items).toEqual([]);
  });

  it('content with a finalizer holds the namespace (Terminating, conditions say why) until the finalizer is removed; the controller applies them', async () => {
    const ns = await demo.api.namespace();
    await configMaps(ns).create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'held', finalizers: ['example.com/hold'] },
    });
    await namespaces().delete(ns);
    await expect
      .poll(
        async () =>
          (await namespaces().get(ns)).status?.conditions?.find(
            (c) => c.type === 'NamespaceFinalizersRemaining',
          )?.message,
        poll,
      )
      .toBe(
        'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances',
      );
    const held = await namespaces().get(ns);
    expect(held.status?.phase).toBe('Terminating');
    expect(held.spec?.finalizers).toEqual(['kubernetes']);
    expect(
      held.status?.conditions?.find((c) => c.type === 'NamespaceContentRemaining'),
    ).toMatchObject({
      status: 'True',
      reason: 'SomeResourcesRemain',
      message: 'Some resources are remaining: configmaps has 1 resource instances',
    });
    // The conditions are applied as the controller's field manager.
    expect(held.metadata.managedFields).toContainEqual(
      expect.objectContaining({
        manager: 'namespace-controller',
        operation: 'Apply',
        subresource: 'status',
      }),
    );
    // Marked for deletion, kept by its finalizer.
    expect((await configMaps(ns).get('held')).metadata.deletionTimestamp).toBeTruthy();
    await configMaps(ns).patch('held', { metadata: { finalizers: null } });
    await expect.poll(() => gone(ns), poll).toBe(true);
  });
});
