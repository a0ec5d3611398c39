// Child process: the density benchmark's pod creator and scheduler. Pods are created at a fixed
// rate (open loop: a slow answer does not slow the next creation), unbound, as a ReplicaSet
// controller would; the scheduler-like binder watches unassigned pods (`spec.nodeName=`, as
// kube-scheduler's informer does) and binds each to the next node, round robin, with
// POST pods/<name>/binding. Records the latency of every write and, per pod, when its creation
// was sent and when its binding was answered.
import { isApiError, type KubeObject } from '@listwatch/api';
import { RestClient, SharedIndexInformer } from '@listwatch/client';
import { samplePod } from '@listwatch/testing';
import { serveParent, wallMs } from '../../../../bench/proc.js';
import { resources, type Pod } from '../../src/controllers/objects.js';
import {
  CallLog,
  NAMESPACES,
  PodTimes,
  podIndex,
  podName,
  podNamespace,
} from './density-common.js';

/** The creator's client (a ReplicaSet controller's). */
let client: RestClient;
/**
 * The binder's own client, as kube-scheduler is a process of its own: behind the creator's
 * backlog on a shared connection pool, bindings would wait for every queued creation.
 */
let schedulerClient: RestClient;
let nodes: readonly string[] = [];
let binder: SharedIndexInformer<Pod> | undefined;
let stopped = false;
const calls = new CallLog();
const createSent = new PodTimes();
const bindAcked = new PodTimes();
const bound = new Set<number>();
let nextNode = 0;

/** Pod `i` as a ReplicaSet controller creates it: samplePod's metadata and spec, unbound. */
function podObject(i: number): KubeObject {
  const sample = samplePod(i) as Pod;
  const { labels, annotations, ownerReferences } = sample.metadata;
  const spec = { ...sample.spec };
  delete spec.nodeName;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: podName(i),
      namespace: podNamespace(i),
      ...(labels ? { labels } : {}),
      ...(annotations ? { annotations } : {}),
      ...(ownerReferences ? { ownerReferences } : {}),
    },
    spec,
  };
}

async function timed<T>(verb: string, resource: string, call: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  try {
    const r = await call();
    calls.record(verb, resource, performance.now() - t0);
    return r;
  } catch (error) {
    calls.record(verb, resource, performance.now() - t0, error);
    throw error;
  }
}

async function createIgnoringConflict(path: string, body: KubeObject): Promise<void> {
  try {
    await client.request({ method: 'POST', path, body });
  } catch (err) {
    if (!isApiError(err) || err.code !== 409) throw err;
  }
}

function bind(pod: Pod): void {
  const i = podIndex(pod.metadata.name);
  if (i < 0 || bound.has(i) || pod.spec?.nodeName) return;
  bound.add(i);
  const node = nodes[nextNode++ % nodes.length]!;
  const ns = pod.metadata.namespace!;
  const name = pod.metadata.name!;
  const attempt = async (n: number): Promise<void> => {
    try {
      await timed('POST', 'pods/binding', () =>
        schedulerClient.request({
          method: 'POST',
          path: `/api/v1/namespaces/${ns}/pods/${name}/binding`,
          body: {
            apiVersion: 'v1',
            kind: 'Binding',
            metadata: { name, namespace: ns },
            target: { apiVersion: 'v1', kind: 'Node', name: node },
          },
        }),
      );
      bindAcked.set(i, wallMs());
    } catch (err) {
      // 409: bound already (a retry of an answered binding).
      if (isApiError(err) && err.code === 409) return bindAcked.set(i, wallMs());
      if (stopped || n >= 5) return;
      await new Promise((r) => setTimeout(r, 200 * 2 ** n));
      return attempt(n + 1);
    }
  };
  void attempt(0);
}

serveParent({
  async start(args) {
    const { url, nodeNames } = args as { url: string; nodeNames: string[] };
    nodes = nodeNames;
    client = new RestClient({ server: url, maxConnections: 64, timeoutMs: 0 });
    schedulerClient = new RestClient({ server: url, maxConnections: 64, timeoutMs: 0 });
    // The namespaces and the service accounts samplePod's pods run as (ServiceAccount admission).
    const accounts = new Set<string>();
    for (let i = 0; i < 64; i++)
      accounts.add((samplePod(i) as Pod).spec?.['serviceAccountName'] as string);
    for (let n = 0; n < NAMESPACES; n++) {
      const ns = podNamespace(n);
      await createIgnoringConflict('/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: ns },
      });
      for (const sa of accounts)
        await createIgnoringConflict(`/api/v1/namespaces/${ns}/serviceaccounts`, {
          apiVersion: 'v1',
          kind: 'ServiceAccount',
          metadata: { name: sa, namespace: ns },
        });
    }
    binder = new SharedIndexInformer<Pod>({
      listerWatcher: schedulerClient
        .resource<Pod>(resources.pods)
        .namespace('')
        .listerWatcher((params) => ({ ...params, fieldSelector: 'spec.nodeName=' })),
      resource: { group: '', resource: 'pods' },
    });
    binder.addEventHandler({ onAdd: bind, onUpdate: (_o, pod) => bind(pod) });
    binder.start();
    await binder.waitForCacheSync();
    return null;
  },
  /** Creates pods `from`…`to - 1` at `rate` per second; resolves when every creation is answered. */
  async create(args) {
    const { from, to, rate } = args as { from: number; to: number; rate: number };
    calls.armed = true;
    const start = performance.now();
    let next = from;
    let failed = 0;
    const inflight = new Set<Promise<void>>();
    const createOne = (i: number) => {
      createSent.set(i, wallMs());
      const pods = client.resource<Pod>(resources.pods).namespace(podNamespace(i));
      const p = timed('POST', 'pods', () => pods.create(podObject(i) as Pod))
        .then(() => undefined)
        .catch(() => void failed++)
        .finally(() => inflight.delete(p));
      inflight.add(p);
    };
    while (next < to) {
      const due = from + Math.floor(((performance.now() - start) / 1000) * rate) + 1;
      while (next < Math.min(due, to)) createOne(next++);
      await new Promise((r) => setTimeout(r, 5));
    }
    while (inflight.size) await Promise.all([...inflight]);
    return { failed, seconds: (performance.now() - start) / 1000 };
  },
  collect() {
    calls.armed = false;
    return { ...calls.take(), createSent: createSent.toArray(), bindAcked: bindAcked.toArray() };
  },
  async stop() {
    stopped = true;
    await binder?.stop();
    return null;
  },
});
