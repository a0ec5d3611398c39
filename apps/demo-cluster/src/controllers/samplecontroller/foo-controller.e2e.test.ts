import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubectlSession } from '@listwatch/testing';
import { demoClusterForFile } from '../../testing/test-apiserver.js';
import { exampleFoo, webDeployment } from '../../web-workload.js';
import { isPodReady, resources, type Deployment, type Pod } from '../objects.js';
import { FOO_READY, foos, resourceExistsMessage, type Foo } from './foo-controller.js';

// kubernetes/sample-controller's behaviour (controller.go syncHandler) against a real apiserver
// with the demo's control plane: the CRD the demo installs, a Foo's Deployment created, scaled
// and reported in its status (availableReplicas, a Ready condition), a foreign Deployment left alone, the Foo's deletion cascading
// through the garbage collector, and kubectl's view of Foos (printer columns, 422s).
describe('the sample-controller Foo', () => {
  let kubectl: KubectlSession;
  const poll = { timeout: 30_000, interval: 100 };

  const demo = demoClusterForFile();

  beforeAll(() => {
    kubectl = new KubectlSession(demo.api.server.url);
  });
  afterAll(() => {
    kubectl?.dispose();
  });

  const fooClient = (ns: string) => demo.api.client.resource<Foo>(foos).namespace(ns);
  const deployments = (ns: string) =>
    demo.api.client.resource<Deployment>(resources.deployments).namespace(ns);
  const runningPods = async (ns: string, foo: string) =>
    (
      await demo.api.client
        .resource<Pod>(resources.pods)
        .namespace(ns)
        .list({ labelSelector: `app=nginx,controller=${foo}` })
    ).items.filter((p) => p.status?.phase === 'Running' && isPodReady(p)).length;

  it('a Foo gets its Deployment with spec.replicas pods, follows a change of replicas, and reports availableReplicas', async () => {
    const ns = await demo.api.namespace();
    const foo = await fooClient(ns).create(exampleFoo(ns, 'example-foo', 2));
    await expect.poll(() => runningPods(ns, 'example-foo'), poll).toBe(2);
    const d = await deployments(ns).get('example-foo');
    expect(d.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'samplecontroller.k8s.io/v1alpha1',
        kind: 'Foo',
        name: 'example-foo',
        uid: foo.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    await expect
      .poll(async () => (await fooClient(ns).get('example-foo')).status?.availableReplicas, poll)
      .toBe(2);

    await fooClient(ns).patch('example-foo', { spec: { replicas: 3 } });
    await expect.poll(() => runningPods(ns, 'example-foo'), poll).toBe(3);
    await expect
      .poll(async () => (await fooClient(ns).get('example-foo')).status?.availableReplicas, poll)
      .toBe(3);
    expect((await deployments(ns).get('example-foo')).spec?.replicas).toBe(3);
    const synced = await fooClient(ns).get('example-foo');
    expect(synced.status?.conditions).toEqual([
      expect.objectContaining({
        type: FOO_READY,
        status: 'True',
        reason: 'Synced',
        observedGeneration: synced.metadata.generation,
      }),
    ]);
    // Status by server-side apply, as the controller's own field manager.
    expect((await fooClient(ns).get('example-foo')).metadata.managedFields).toContainEqual(
      expect.objectContaining({
        manager: 'sample-controller',
        operation: 'Apply',
        subresource: 'status',
      }),
    );
  });

  it('a Deployment of that name the Foo does not own is left alone (MessageResourceExists)', async () => {
    const ns = await demo.api.namespace();
    await deployments(ns).create(webDeployment(ns, 'taken', 1));
    await fooClient(ns).create(exampleFoo(ns, 'taken', 3));
    // Give the controller time to act, then check it did not.
    await expect.poll(() => runningPods(ns, 'taken'), { timeout: 1500 }).toBe(0);
    const d = await deployments(ns).get('taken');
    expect(d.spec?.replicas).toBe(1);
    expect(d.metadata.ownerReferences).toBeUndefined();
    expect((await fooClient(ns).get('taken')).status?.availableReplicas).toBeUndefined();
    // The refusal is in the Foo's Ready condition (meta.SetStatusCondition).
    await expect
      .poll(async () => (await fooClient(ns).get('taken')).status?.conditions, poll)
      .toEqual([
        expect.objectContaining({
          type: FOO_READY,
          status: 'False',
          reason: 'ErrResourceExists',
          message: resourceExistsMessage('taken'),
        }),
      ]);
    expect(resourceExistsMessage('taken')).toBe(
      'Resource "taken" already exists and is not managed by Foo',
    );
  });

  it('deleting a Foo deletes its Deployment and pods (the garbage collector follows the owner reference)', async () => {
    const ns = await demo.api.namespace();
    await fooClient(ns).create(exampleFoo(ns, 'short-lived', 1));
    await expect.poll(() => runningPods(ns, 'short-lived'), poll).toBe(1);
    await fooClient(ns).delete('short-lived');
    await expect
      .poll(async () => (await deployments(ns).list()).items.map((d) => d.metadata.name), poll)
      .toEqual([]);
    await expect.poll(() => runningPods(ns, 'short-lived'), poll).toBe(0);
  });

  it('kubectl shows Foos with their printer columns and refuses replicas over 10 with 422', async () => {
    const ns = await demo.api.namespace();
    await fooClient(ns).create(exampleFoo(ns, 'shown', 1));
    await expect
      .poll(async () => (await fooClient(ns).get('shown')).status?.availableReplicas, poll)
      .toBe(1);
    const get = await kubectl.run(['get', 'foos', '-n', ns]);
    expect(get.stderr).toBe('');
    expect(get.stdout).toMatch(/^NAME\s+DEPLOYMENT\s+REPLICAS\s+AVAILABLE\s+AGE$/m);
    expect(get.stdout).toMatch(/^shown\s+shown\s+1\s+1\s+\S+$/m);
    const file = kubectl.write(
      `too-many-${ns}.json`,
      JSON.stringify({ ...exampleFoo(ns, 'too-many', 11), metadata: { name: 'too-many' } }),
    );
    const apply = await kubectl.run(['apply', '-n', ns, '-f', file]);
    expect(apply.code).not.toBe(0);
    expect(apply.stderr).toMatch(/spec\.replicas/);
    expect(apply.stderr).toMatch(/Invalid value: 11|should be less than or equal to 10/);
  });
});
