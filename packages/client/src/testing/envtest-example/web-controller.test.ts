import { startTestEnvironment, type TestEnvironment } from '@listwatch/apiserver/envtest';
import * as lw from '@listwatch/client';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { addWebController, webs } from './web-controller.js';

let env: TestEnvironment;
let client: lw.RestClient;
beforeAll(async () => {
  // An apiserver in this process, with the CRDs of ./crd established: no binaries to install.
  env = await startTestEnvironment({ crdDirectoryPaths: [new URL('crd', import.meta.url)] });
  client = new lw.RestClient(env.config);
});
afterAll(async () => {
  await client.close();
  await env.stop();
});

// Each test: a namespace of its own, and the controller running in it.
let namespace: string;
let metrics: lw.InMemoryMetrics;
let stop: () => Promise<void>;
beforeEach(async () => {
  namespace = await env.createNamespace();
  metrics = new lw.InMemoryMetrics();
  const manager = new lw.Manager({ client, namespace, metrics });
  const broadcaster = new lw.EventBroadcaster({ client });
  const recorder = broadcaster.newRecorder({ reportingController: 'example.com/web-controller' });
  addWebController(manager, recorder, 100); // looks again after 100 ms
  const abort = new AbortController();
  const done = manager.start(abort.signal);
  stop = async () => {
    abort.abort();
    await done;
    await broadcaster.shutdown();
  };
});
afterEach(() => stop());

const web = (name: string, replicas: number) => ({ metadata: { name }, spec: { replicas } });

it('creates a Deployment the Web owns, and records an Event about it', async () => {
  await client.resource(webs).namespace(namespace).create(web('shop', 2));
  const deployments = client.resource(lw.appsV1.deployments).namespace(namespace);
  const deployment = await vi.waitFor(() => deployments.get('shop'), { timeout: 10_000 });
  expect(deployment.spec?.replicas).toBe(2);
  expect(deployment.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'Web', name: 'shop' });
  await vi.waitFor(
    async () => {
      const events = await client.resource(lw.eventsV1.events).namespace(namespace).list();
      expect(events.items.map((e) => e.reason)).toContain('CreatedDeployment');
    },
    { timeout: 10_000 },
  );
});

it('scales the Deployment when the Web changes', async () => {
  const shop = client.resource(webs).namespace(namespace);
  const deployments = client.resource(lw.appsV1.deployments).namespace(namespace);
  await shop.create(web('shop', 1));
  await vi.waitFor(() => deployments.get('shop'), { timeout: 10_000 });
  await shop.patch('shop', { spec: { replicas: 3 } });
  await vi.waitFor(async () => expect((await deployments.get('shop')).spec?.replicas).toBe(3), {
    timeout: 10_000,
  });
});

it('looks at a Web again after the delay, with nothing changed', async () => {
  await client.resource(webs).namespace(namespace).create(web('quiet', 1));
  const requeued = () =>
    metrics.value('controller_runtime_reconcile_total', {
      controller: 'web',
      result: 'requeue_after',
    });
  await vi.waitFor(() => expect(requeued()).toBeGreaterThanOrEqual(3), { timeout: 10_000 });
});
