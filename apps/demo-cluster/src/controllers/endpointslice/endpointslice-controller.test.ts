import { describe, expect, it } from 'vitest';
import { demoClusterForFile, expectRunningPods } from '../../testing/test-apiserver.js';
import { webReplicaSet } from '../../web-workload.js';
import { resources, type Pod, type ReplicaSet } from '../objects.js';
import {
  CONTROLLER_NAME,
  MANAGED_BY_LABEL,
  SERVICE_NAME_LABEL,
  type EndpointSlice,
  type Service,
} from './endpointslice-controller.js';

// The rules of kubernetes pkg/controller/endpointslice/endpointslice_controller.go: a Service
// with a selector gets an EndpointSlice of the pods it selects, following them.
describe('the EndpointSlice controller', () => {
  const demo = demoClusterForFile();
  const poll = { timeout: 20_000, interval: 100 };

  const services = () => demo.api.client.resource<Service>(resources.services);
  const slices = () => demo.api.client.resource<EndpointSlice>(resources.endpointslices);
  const pods = () => demo.api.client.resource<Pod>(resources.pods);
  const replicaSets = () => demo.api.client.resource<ReplicaSet>(resources.replicasets);

  const sliceOf = async (ns: string, service: string) =>
    (
      await slices()
        .namespace(ns)
        .list({ labelSelector: `${SERVICE_NAME_LABEL}=${service}` })
    ).items;
  const readyIPs = async (ns: string, service: string) =>
    (await sliceOf(ns, service))
      .flatMap((s) => s.endpoints ?? [])
      .filter((e) => e.conditions.ready)
      .flatMap((e) => e.addresses)
      .sort();
  const podIPs = async (ns: string) =>
    (await pods().namespace(ns).list()).items
      .filter((p) => !p.metadata.deletionTimestamp)
      .map((p) => p.status?.podIP ?? '')
      .sort();

  it('a Service with a selector gets one EndpointSlice, owned by it, listing the ready pods it selects and the target port; it follows scaling', async () => {
    const ns = await demo.api.namespace();
    await replicaSets()
      .namespace(ns)
      .create(webReplicaSet(ns, 'web', 2));
    await expectRunningPods(pods(), ns, 2);
    const service = await services()
      .namespace(ns)
      .create({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'web' },
        spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
      });
    await expect.poll(() => readyIPs(ns, 'web'), poll).toEqual(await podIPs(ns));
    const [slice, ...more] = await sliceOf(ns, 'web');
    expect(more).toEqual([]);
    expect(slice?.metadata.name).toMatch(/^web-[a-z0-9]{5}$/);
    expect(slice?.metadata.labels?.[MANAGED_BY_LABEL]).toBe(CONTROLLER_NAME);
    expect(slice?.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'Service', name: 'web', uid: service.metadata.uid }),
    ]);
    expect(slice?.addressType).toBe('IPv4');
    expect(slice?.ports).toEqual([{ name: 'http', port: 8080, protocol: 'TCP' }]);
    expect(slice?.endpoints?.[0]).toMatchObject({
      conditions: { ready: true, serving: true, terminating: false },
      targetRef: { kind: 'Pod', namespace: ns },
    });

    await replicaSets()
      .namespace(ns)
      .patch('web', { spec: { replicas: 4 } });
    await expectRunningPods(pods(), ns, 4);
    await expect.poll(() => readyIPs(ns, 'web'), poll).toEqual(await podIPs(ns));
    await replicaSets()
      .namespace(ns)
      .patch('web', { spec: { replicas: 1 } });
    await expectRunningPods(pods(), ns, 1);
    await expect.poll(() => readyIPs(ns, 'web'), poll).toEqual(await podIPs(ns));
  });

  it('a slice deleted by hand comes back; a Service without a selector gets none; a deleted Service takes its slice with it', async () => {
    const ns = await demo.api.namespace();
    await replicaSets()
      .namespace(ns)
      .create(webReplicaSet(ns, 'web', 1));
    await expectRunningPods(pods(), ns, 1);
    await services()
      .namespace(ns)
      .create({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'web' },
        spec: { selector: { app: 'web' }, ports: [{ port: 80 }] },
      });
    await services()
      .namespace(ns)
      .create({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'manual' },
        spec: { ports: [{ port: 80 }] },
      });
    await expect.poll(async () => (await sliceOf(ns, 'web')).length, poll).toBe(1);
    const [first] = await sliceOf(ns, 'web');
    await slices()
      .namespace(ns)
      .delete(first?.metadata.name ?? '');
    await expect
      .poll(async () => (await sliceOf(ns, 'web')).map((s) => s.metadata.name), poll)
      .toEqual([expect.not.stringMatching(`^${first?.metadata.name ?? ''}$`)]);
    expect(await readyIPs(ns, 'web')).toEqual(await podIPs(ns));
    expect(await sliceOf(ns, 'manual')).toEqual([]);
    await services().namespace(ns).delete('web');
    await expect.poll(async () => (await sliceOf(ns, 'web')).length, poll).toBe(0);
  });
});
