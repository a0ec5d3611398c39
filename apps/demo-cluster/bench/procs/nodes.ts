// Child process: the simulated nodes of the density benchmark (apps/demo-cluster/src/
// simulated-nodes.ts): N Nodes, their Leases renewed every 10 s and a watch each on their own
// pods, reporting each pod Running when it is delivered bound. Records the latency of every
// write it makes and, per pod, when its node's watch delivered it and when its Running status
// was answered.
import { isApiError } from '@listwatch/api';
import { RestClient } from '@listwatch/client';
import { wallMs, serveParent } from '../../../../bench/proc.js';
import { NODE_LEASE_NAMESPACE } from '../../src/controllers/kubelet.js';
import { SimulatedNodes } from '../../src/simulated-nodes.js';
import { CallLog, PodTimes, podIndex } from './density-common.js';

let fleet: SimulatedNodes | undefined;
const calls = new CallLog();
const delivered = new PodTimes();
const statusSent = new PodTimes();
const statusAcked = new PodTimes();

serveParent({
  async start(args) {
    const { url, count } = args as { url: string; count: number };
    const client = new RestClient({ server: url, maxConnections: 64, timeoutMs: 0 });
    try {
      await client.request({
        method: 'POST',
        path: '/api/v1/namespaces',
        body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NODE_LEASE_NAMESPACE } },
      });
    } catch (err) {
      if (!isApiError(err) || err.code !== 409) throw err;
    }
    fleet = new SimulatedNodes({
      client,
      count,
      onRequest: (r) => calls.record(r.verb, r.resource, r.ms, r.error),
      onPodDelivered: (pod, _node, at) => delivered.set(podIndex(pod.metadata.name), at),
      onPodRunning: (pod, _node, sentAt, ackAt) => {
        const i = podIndex(pod.metadata.name);
        statusSent.set(i, sentAt);
        statusAcked.set(i, ackAt);
      },
    });
    const t0 = wallMs();
    await fleet.register();
    fleet.start();
    await fleet.waitForSync();
    return { names: fleet.names, seconds: (wallMs() - t0) / 1000 };
  },
  arm() {
    calls.armed = true;
    return null;
  },
  running: () => statusAcked.count(),
  collect() {
    calls.armed = false;
    return {
      ...calls.take(),
      delivered: delivered.toArray(),
      statusSent: statusSent.toArray(),
      statusAcked: statusAcked.toArray(),
    };
  },
  async stop() {
    await fleet?.stop();
    return null;
  },
});
