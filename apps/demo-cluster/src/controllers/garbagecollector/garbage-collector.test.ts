import type { KubeObject, OwnerReference } from '@listwatch/api';
import { describe, expect, it } from 'vitest';
import { demoClusterForFile, expectRunningPods, listPods } from '../../testing/test-apiserver.js';
import { webReplicaSet } from '../../web-workload.js';
import { resources, type Pod, type ReplicaSet } from '../objects.js';

// The rules of kubernetes pkg/controller/garbagecollector (attemptToDeleteItem,
// processDeletingDependentsItem, attemptToOrphanWorker), against a real apiserver with the demo's
// ReplicaSet controller, scheduler and kubelets, the collector watching every resource over HTTP.
describe('the garbage collector', () => {
  const demo = demoClusterForFile();

  const pods = () => demo.api.client.resource<Pod>(resources.pods);
  const replicaSets = () => demo.api.client.resource<ReplicaSet>(resources.replicasets);
  const configMaps = () => demo.api.client.resource(resources.configmaps);
  const poll = { timeout: 20_000, interval: 100 };

  const ownerRef = (owner: KubeObject, extra: Partial<OwnerReference> = {}): OwnerReference => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    name: owner.metadata.name ?? '',
    uid: owner.metadata.uid ?? '',
    ...extra,
  });

  const configMap = (ns: string, name: string, owners: OwnerReference[] = []) =>
    configMaps()
      .namespace(ns)
      .create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, ...(owners.length ? { ownerReferences: owners } : {}) },
      });

  const exists = async (client: ReturnType<typeof configMaps>, ns: string, name: string) => {
    try {
      await client.namespace(ns).get(name);
      return true;
    } catch {
      return false;
    }
  };

  it('background: deleting a ReplicaSet deletes its pods', async () => {
    const ns = await demo.api.namespace();
    await replicaSets()
      .namespace(ns)
      .create(webReplicaSet(ns, 'web', 2));
    await expectRunningPods(pods(), ns, 2);
    await replicaSets().namespace(ns).delete('web', { propagationPolicy: 'Background' });
    await expect.poll(async () => (await listPods(pods(), ns)).length, poll).toBe(0);
  });

  it('orphan: the ReplicaSet goes, its pods stay and lose their owner reference', async () => {
    const ns = await demo.api.namespace();
    await replicaSets()
      .namespace(ns)
      .create(webReplicaSet(ns, 'web', 2));
    await expectRunningPods(pods(), ns, 2);
    await replicaSets().namespace(ns).delete('web', { propagationPolicy: 'Orphan' });
    await expect.poll(() => exists(replicaSets(), ns, 'web'), poll).toBe(false);
    const left = await listPods(pods(), ns);
    expect(left).toHaveLength(2);
    for (const pod of left) {
      expect(pod.metadata.ownerReferences ?? []).toEqual([]);
      expect(pod.metadata.deletionTimestamp).toBeUndefined();
    }
  });

  it('foreground: the ReplicaSet stays marked with foregroundDeletion until its pods are gone, then goes', async () => {
    const ns = await demo.api.namespace();
    await replicaSets()
      .namespace(ns)
      .create(webReplicaSet(ns, 'web', 2));
    await expectRunningPods(pods(), ns, 2);
    const marked = (await replicaSets()
      .namespace(ns)
      .delete('web', { propagationPolicy: 'Foreground' })) as ReplicaSet;
    expect(marked.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect(marked.metadata.deletionTimestamp).toBeTruthy();
    // Whenever the owner is seen gone, no pod is left.
    const seen: string[] = [];
    await expect
      .poll(async () => {
        const present = await exists(replicaSets(), ns, 'web');
        const count = (await listPods(pods(), ns)).length;
        seen.push(`${present}/${count}`);
        return present;
      }, poll)
      .toBe(false);
    expect(seen.filter((s) => s.startsWith('false/') && s !== 'false/0')).toEqual([]);
    expect(await listPods(pods(), ns)).toEqual([]);
  });

  it('every resource: a ConfigMap owned by a deleted ConfigMap is collected', async () => {
    const ns = await demo.api.namespace();
    const owner = await configMap(ns, 'owner');
    await configMap(ns, 'dependent', [ownerRef(owner)]);
    await configMaps().namespace(ns).delete('owner');
    await expect.poll(() => exists(configMaps(), ns, 'dependent'), poll).toBe(false);
  });

  it('a dependent whose owner never existed (an unknown uid) is collected', async () => {
    const ns = await demo.api.namespace();
    const ghost = { metadata: { name: 'ghost', uid: '00000000-0000-0000-0000-000000000001' } };
    await configMap(ns, 'dependent', [ownerRef(ghost)]);
    await expect.poll(() => exists(configMaps(), ns, 'dependent'), poll).toBe(false);
  });

  it('a dependent with a live owner left is kept, and loses only the reference to the gone one', async () => {
    const ns = await demo.api.namespace();
    const gone = await configMap(ns, 'gone');
    const kept = await configMap(ns, 'kept');
    await configMap(ns, 'dependent', [ownerRef(gone), ownerRef(kept)]);
    await configMaps().namespace(ns).delete('gone');
    await expect
      .poll(
        async () =>
          (await configMaps().namespace(ns).get('dependent')).metadata.ownerReferences?.map(
            (r) => r.name,
          ),
        poll,
      )
      .toEqual(['kept']);
  });

  it('foreground waits only for blocking dependents: a non-blocking one goes too, but does not hold the owner', async () => {
    const ns = await demo.api.namespace();
    const owner = await configMap(ns, 'owner');
    await configMap(ns, 'blocking', [ownerRef(owner, { blockOwnerDeletion: true })]);
    await configMap(ns, 'free', [ownerRef(owner)]);
    await configMaps()
      .namespace(ns)
      .patch('blocking', { metadata: { finalizers: ['example.com/hold'] } });
    await configMaps().namespace(ns).delete('owner', { propagationPolicy: 'Foreground' });
    await expect.poll(() => exists(configMaps(), ns, 'free'), poll).toBe(false);
    // The blocking dependent is marked, kept by its own finalizer, and so is the owner.
    await expect
      .poll(
        async () =>
          Boolean((await configMaps().namespace(ns).get('blocking')).metadata.deletionTimestamp),
        poll,
      )
      .toBe(true);
    expect((await configMaps().namespace(ns).get('owner')).metadata.finalizers).toEqual([
      'foregroundDeletion',
    ]);
    await configMaps()
      .namespace(ns)
      .patch('blocking', { metadata: { finalizers: null } });
    await expect.poll(() => exists(configMaps(), ns, 'owner'), poll).toBe(false);
  });

  it('a CRD created after start is rediscovered (Sync): its objects own and are owned like built-ins', async () => {
    const ns = await demo.api.namespace();
    const group = `gc${process.pid}.example.com`;
    await demo.api.client.request({
      method: 'POST',
      path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      body: {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: `widgets.${group}` },
        spec: {
          group,
          scope: 'Namespaced',
          names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: {
                openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              },
            },
          ],
        },
      },
    });
    const widgets = demo.api.client.resource({
      group,
      version: 'v1',
      plural: 'widgets',
      namespaced: true,
    });
    // Served once Established; the collector's monitors follow (garbagecollector.go Sync).
    const widget = await expect
      .poll(
        () =>
          widgets
            .namespace(ns)
            .create({ apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'owner' } })
            .catch(() => undefined),
        poll,
      )
      .toBeDefined();
    void widget;
    const owner = await widgets.namespace(ns).get('owner');
    await configMap(ns, 'of-widget', [
      { apiVersion: `${group}/v1`, kind: 'Widget', name: 'owner', uid: owner.metadata.uid ?? '' },
    ]);
    const cmOwner = await configMap(ns, 'cm-owner');
    await widgets.namespace(ns).create({
      apiVersion: `${group}/v1`,
      kind: 'Widget',
      metadata: { name: 'dependent', ownerReferences: [ownerRef(cmOwner)] },
    });
    await expect.poll(() => demo.cluster.isLeading(), poll).toBe(true);

    // A Widget's dependent goes with it…
    await widgets.namespace(ns).delete('owner', { propagationPolicy: 'Background' });
    await expect.poll(() => exists(configMaps(), ns, 'of-widget'), poll).toBe(false);
    // …and a Widget owned by a ConfigMap goes with the ConfigMap.
    await configMaps().namespace(ns).delete('cm-owner', { propagationPolicy: 'Background' });
    await expect.poll(() => exists(widgets, ns, 'dependent'), poll).toBe(false);
  });
});
