import type { Lease } from '@listwatch/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { resources, type Pod, type ReplicaSet } from './controllers/objects.js';
import { CONTROLLERS_LEASE, DemoCluster } from './demo-cluster.js';
import {
  expectRunningPods,
  startTestApiServer,
  type TestApiServer,
} from './testing/test-apiserver.js';
import { webReplicaSet } from './web-workload.js';

let api: TestApiServer;

beforeAll(async () => {
  api = await startTestApiServer();
});
afterAll(async () => {
  await api?.close();
});

// Short terms so the hand-over happens within the test; the rules are client-go's
// tools/leaderelection (a released lease is free at once).
const ELECTION = { leaseDurationMs: 2_000, renewDeadlineMs: 1_500, retryPeriodMs: 200 };

it('of two demo clusters on one apiserver only one runs the controllers; when it stops, the other takes over and keeps reconciling', async () => {
  const lines: string[] = [];
  const cluster = (identity: string) =>
    new DemoCluster({
      client: api.client,
      nodes: ['node-1', 'node-2'],
      identity,
      leaderElection: ELECTION,
      report: (line) => lines.push(`${identity}: ${line}`),
    });
  const first = cluster('first');
  const second = cluster('second');
  const leases = api.client
    .resource<Lease>(resources.leases)
    .namespace(CONTROLLERS_LEASE.namespace);
  try {
    await first.start();
    await expect.poll(() => first.isLeading(), { timeout: 10_000 }).toBe(true);
    await second.start();
    await expect
      .poll(() => lines, { timeout: 10_000 })
      .toContain('second: controllers: standing by, first leads');
    expect(second.isLeading()).toBe(false);

    const ns = await api.namespace();
    const pods = api.client.resource<Pod>(resources.pods);
    const replicaSets = api.client.resource<ReplicaSet>(resources.replicasets).namespace(ns);
    await replicaSets.create(webReplicaSet(ns, 'web', 2));
    await expectRunningPods(pods, ns, 2);

    await first.stop();
    await expect.poll(() => second.isLeading(), { timeout: 10_000 }).toBe(true);
    expect((await leases.get(CONTROLLERS_LEASE.name)).spec?.holderIdentity).toBe('second');
    await replicaSets.patch('web', { spec: { replicas: 3 } });
    await expectRunningPods(pods, ns, 3);

    await second.stop();
    // A clean stop gives the lease up, so the next demo process need not wait for it to expire.
    expect((await leases.get(CONTROLLERS_LEASE.name)).spec?.holderIdentity).toBe('');
  } finally {
    await first.stop();
    await second.stop();
  }
});
