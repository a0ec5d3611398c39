import type { RunningApiServer } from '@listwatch/apiserver';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SharedInformerFactory } from '../cache/informer-factory.js';
import {
  addFinalizerWithPatch,
  removeFinalizerWithPatch,
  setControllerReference,
} from '../controllerutil/controllerutil.js';
import { LeaseLock, type Lease } from '../leaderelection/resource-lock.js';
import { Manager } from '../manager/manager.js';
import { InMemoryMetrics } from '../metrics/metrics.js';
import type { Request, Result } from '../reconcile/reconcile.js';
import { RestClient } from '../rest/client.js';
import { startTestApiServer } from '../testing/apiserver.js';
import { createFooCRD, foo, foos, type Foo } from '../testing/crd.js';
import { eventually } from '../testing/eventually.js';
import { findBuiltinResource } from '@listwatch/api';
import { appsV1, coreV1 } from '../typed/resources.js';
import type { Deployment } from '../typed/types.js';
import { FakeClock } from '../util/fake-clock.js';
import { silentLogger } from '@listwatch/api';
import { newControllerManagedBy } from './builder.js';

const FINALIZER = 'samplecontroller.k8s.io/cleanup';

function deploymentFor(owner: Foo): Deployment {
  const name = owner.spec!.deploymentName!;
  const d: Deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: owner.metadata!.namespace! },
    spec: {
      replicas: owner.spec!.replicas ?? 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'nginx', image: 'nginx:latest' }] },
      },
    },
  };
  setControllerReference(owner, d);
  return d;
}

// controller-runtime's Reconciler, builder (For/Owns/Watches), controllerutil finalizers and the
// manager's graceful shutdown, against the in-process apiserver.
describe('the reconciler runtime against an apiserver', () => {
  let apiserver: RunningApiServer;
  let client: RestClient;
  const stops: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    apiserver = await startTestApiServer();
    client = new RestClient({ server: apiserver.url });
    await createFooCRD(client);
  });
  afterEach(async () => {
    for (const s of stops.splice(0)) await s();
  });
  afterAll(async () => {
    await client.close();
    await apiserver.close();
  });

  async function namespace(name: string): Promise<string> {
    await client.resource(coreV1.namespaces).create({ metadata: { name } });
    return name;
  }

  function run(manager: Manager): { stop: () => Promise<void>; done: Promise<void> } {
    const abort = new AbortController();
    const done = manager.start(abort.signal);
    const stop = async () => {
      abort.abort();
      await done;
    };
    stops.push(stop);
    return { stop, done };
  }

  it('for(Foo).owns(Deployment): creates a Deployment per Foo, recreates it when deleted (owner reference → owner key), and clears its finalizer on delete', async () => {
    const ns = await namespace('owns');
    const metrics = new InMemoryMetrics();
    const manager = new Manager({ client, namespace: ns, metrics, logger: silentLogger });
    const fooLister = manager.informers.informerFor(foos).lister();
    const deployLister = manager.informers.informerFor(appsV1.deployments).lister();
    const fooClient = client.resource(foos).namespace(ns);
    const deployClient = client.resource(appsV1.deployments).namespace(ns);
    const seen: string[] = [];
    newControllerManagedBy(manager)
      .for(foos)
      .owns(appsV1.deployments)
      .complete(async (req: Request) => {
        seen.push(`${req.namespace}/${req.name}`);
        const cached = fooLister.namespace(req.namespace).tryGet(req.name);
        if (!cached) return;
        if (cached.metadata?.deletionTimestamp) {
          await removeFinalizerWithPatch(fooClient, cached, FINALIZER);
          return;
        }
        const current = await addFinalizerWithPatch(fooClient, structuredClone(cached), FINALIZER);
        if (!deployLister.namespace(req.namespace).tryGet(current.spec!.deploymentName!))
          await deployClient.create(deploymentFor(current));
      });
    run(manager);

    await fooClient.create(foo(ns, 'web', 2));
    const d = await eventually(() => deployClient.get('web-deployment'));
    expect(d.metadata?.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'Foo', name: 'web', controller: true }),
    ]);
    expect((await fooClient.get('web')).metadata?.finalizers).toEqual([FINALIZER]);

    // The Deployment's delete maps to its owner, whose reconcile creates it again.
    await deployClient.delete('web-deployment');
    await eventually(async () => {
      const again = await deployClient.get('web-deployment');
      expect(again.metadata?.uid).not.toBe(d.metadata?.uid);
    });

    // Deleting the Foo waits for the finalizer; the reconcile removes it and the Foo goes.
    await fooClient.delete('web');
    await eventually(async () => {
      await expect(fooClient.get('web')).rejects.toMatchObject({ code: 404 });
    });
    expect(seen.every((k) => k === 'owns/web')).toBe(true);
    expect(
      metrics.value('controller_runtime_reconcile_total', { controller: 'foo', result: 'success' }),
    ).toBeGreaterThanOrEqual(3);
    expect(metrics.count('controller_runtime_reconcile_time_seconds', { controller: 'foo' })).toBe(
      seen.length,
    );
    expect(metrics.value('workqueue_adds_total', { name: 'foo' })).toBeGreaterThanOrEqual(3);
  });

  it('watches(kind, mapFn): a ConfigMap maps to the request its function names; requeueAfter reconciles again once the delay passes on the queue clock, not before', async () => {
    const ns = await namespace('requeue');
    const clock = new FakeClock();
    // The informers on the real clock; the controller's queue on the fake one.
    const informers = new SharedInformerFactory({ client, namespace: ns, logger: silentLogger });
    stops.push(() => informers.shutdown());
    const manager = new Manager({ client, informers, clock });
    const calls: Request[] = [];
    newControllerManagedBy(manager)
      .named('configmap-poller')
      .for(foos)
      .watches(coreV1.configmaps, (cm) => [
        { namespace: cm.metadata?.namespace ?? '', name: `for-${cm.metadata?.name ?? ''}` },
      ])
      .complete((req): Result => {
        calls.push(req);
        return { requeueAfter: 30_000 };
      });
    run(manager);
    await client
      .resource(coreV1.configmaps)
      .namespace(ns)
      .create({ metadata: { name: 'settings', namespace: ns } });
    await eventually(() => expect(calls).toEqual([{ namespace: ns, name: 'for-settings' }]));
    await eventually(() => expect(clock.hasWaiters()).toBe(true));
    expect(calls).toHaveLength(1);
    clock.step(29_999);
    expect(calls).toHaveLength(1);
    clock.step(1);
    await eventually(() => expect(calls).toHaveLength(2));
  });

  it("a manager given a shared factory leaves its informers running when it stops (they are the caller's, as the client)", async () => {
    const ns = await namespace('shared-factory');
    const informers = new SharedInformerFactory({ client, namespace: ns, logger: silentLogger });
    stops.push(() => informers.shutdown());
    const manager = new Manager({ client, informers, logger: silentLogger });
    newControllerManagedBy(manager)
      .for(foos)
      .complete(() => {});
    const { stop } = run(manager);
    const lister = informers.informerFor<Foo>(foos).lister();
    await client.resource(foos).namespace(ns).create(foo(ns, 'before'));
    await eventually(() => expect(lister.list().map((f) => f.metadata?.name)).toEqual(['before']));
    await stop();
    // Another controller of the process still reads a live cache.
    await client.resource(foos).namespace(ns).create(foo(ns, 'after'));
    await eventually(() =>
      expect(
        lister
          .list()
          .map((f) => f.metadata?.name)
          .sort(),
      ).toEqual(['after', 'before']),
    );
  });

  it('a thrown error requeues with the rate limiter and counts in controller_runtime_reconcile_errors_total', async () => {
    const ns = await namespace('errors');
    const metrics = new InMemoryMetrics();
    const manager = new Manager({ client, namespace: ns, metrics, logger: silentLogger });
    let attempts = 0;
    newControllerManagedBy(manager)
      .named('flaky')
      .for(foos)
      .complete(() => {
        if (++attempts < 3) throw new Error('not yet');
      });
    run(manager);
    await client.resource(foos).namespace(ns).create(foo(ns, 'flaky'));
    const labels = { controller: 'flaky' };
    await eventually(() =>
      expect(
        metrics.value('controller_runtime_reconcile_total', { ...labels, result: 'success' }),
      ).toBe(1),
    );
    expect(attempts).toBe(3);
    expect(
      metrics.value('controller_runtime_reconcile_total', { ...labels, result: 'error' }),
    ).toBe(2);
    expect(metrics.value('controller_runtime_reconcile_errors_total', labels)).toBe(2);
    expect(metrics.value('workqueue_retries_total', { name: 'flaky' })).toBe(2);
    expect(metrics.value('controller_runtime_max_concurrent_reconciles', labels)).toBe(1);
  });

  it('maxConcurrentReconciles: 2 runs two keys at once; shutdown waits for the reconciles in flight', async () => {
    const ns = await namespace('concurrent');
    const manager = new Manager({ client, namespace: ns, logger: silentLogger });
    const inFlight = new Set<string>();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let finished = 0;
    newControllerManagedBy(manager)
      .named('parallel')
      .for(foos)
      .withOptions({ maxConcurrentReconciles: 2 })
      .complete(async (req) => {
        inFlight.add(req.name);
        await gate; // both must be in flight together: one worker would never get here twice
        finished++;
      });
    const { stop } = run(manager);
    const fooClient = client.resource(foos).namespace(ns);
    await fooClient.create(foo(ns, 'a'));
    await fooClient.create(foo(ns, 'b'));
    await eventually(() => expect([...inFlight].sort()).toEqual(['a', 'b']));

    const stopped = stop();
    let stoppedFirst = false;
    void stopped.then(() => (stoppedFirst = finished < 2));
    setImmediate(release);
    await stopped;
    expect(stoppedFirst).toBe(false);
    expect(finished).toBe(2);
  });

  it('with leaderElection, only the manager holding the lease reconciles; the other takes over when the leader stops', async () => {
    const ns = await namespace('leader');
    const reconciledBy: string[] = [];
    const managers = ['one', 'two'].map((identity) => {
      const manager = new Manager({
        client,
        namespace: ns,
        logger: silentLogger,
        leaderElection: {
          lock: new LeaseLock(
            client.resource<Lease>(findBuiltinResource('leases')!),
            ns,
            'foo-controller',
            identity,
          ),
          leaseDurationMs: 2_000,
          renewDeadlineMs: 1_500,
          retryPeriodMs: 200,
          releaseOnCancel: true,
        },
      });
      newControllerManagedBy(manager)
        .named(`leader-${identity}`)
        .for(foos)
        .complete((req) => {
          reconciledBy.push(`${identity}:${req.name}`);
        });
      return { identity, ...run(manager) };
    });
    const fooClient = client.resource(foos).namespace(ns);
    await fooClient.create(foo(ns, 'a'));
    await eventually(() => expect(reconciledBy).toHaveLength(1));
    const leader = reconciledBy[0]!.split(':')[0]!;
    const follower = managers.find((m) => m.identity !== leader)!;
    await managers.find((m) => m.identity === leader)!.stop(); // releases the lease
    await fooClient.create(foo(ns, 'b'));
    await eventually(() => expect(reconciledBy).toContain(`${follower.identity}:b`), 20_000);
    expect(reconciledBy.filter((r) => r.startsWith(`${leader}:`))).toEqual([`${leader}:a`]);
  });
});
