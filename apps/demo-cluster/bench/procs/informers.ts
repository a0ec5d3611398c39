// Child process: K cluster-wide pod informers (controllers' informers: a paginated LIST with
// limit=500, then a WATCH), each recording when it first saw each of the benchmark's pods
// Running: the end of clusterloader2's pod startup latency ("observed via watch").
import { RestClient, SharedIndexInformer } from '@listwatch/client';
import { serveParent, wallMs } from '../../../../bench/proc.js';
import { resources, type Pod } from '../../src/controllers/objects.js';
import { PodTimes, podIndex } from './density-common.js';

const informers: SharedIndexInformer<Pod>[] = [];
const running: PodTimes[] = [];
const counts: number[] = [];
let waiter: { count: number; resolve(): void } | undefined;

const done = (count: number) => counts.every((c) => c >= count);

serveParent({
  async start(args) {
    const { url, count } = args as { url: string; count: number };
    const t0 = wallMs();
    for (let k = 0; k < count; k++) {
      // One client each: separate connections, as separate controllers have.
      const client = new RestClient({ server: url, timeoutMs: 0 });
      const informer = new SharedIndexInformer<Pod>({
        listerWatcher: client.resource<Pod>(resources.pods).namespace('').listerWatcher(),
        resource: { group: '', resource: 'pods' },
        reflector: { pageSize: 500 },
      });
      const seen = new PodTimes();
      running.push(seen);
      counts.push(0);
      const onPod = (pod: Pod) => {
        if (pod.status?.phase !== 'Running') return;
        const i = podIndex(pod.metadata.name);
        if (i < 0 || !Number.isNaN(seen.get(i))) return;
        seen.set(i, wallMs());
        counts[k]!++;
        if (waiter && done(waiter.count)) waiter.resolve();
      };
      informer.addEventHandler({ onAdd: onPod, onUpdate: (_o, pod) => onPod(pod) });
      informer.start();
      informers.push(informer);
    }
    for (const informer of informers) await informer.waitForCacheSync();
    return { seconds: (wallMs() - t0) / 1000 };
  },
  /** Resolves once every informer has seen `count` pods Running, or after `timeoutMs`. */
  async waitRunning(args) {
    const { count, timeoutMs } = args as { count: number; timeoutMs: number };
    if (!done(count))
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        waiter = {
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        };
      });
    waiter = undefined;
    return { counts };
  },
  /** The least any informer has seen Running so far. */
  progress: () => Math.min(...counts),
  collect: () => ({ running: running.map((r) => r.toArray()) }),
  async stop() {
    await Promise.all(informers.map((i) => i.stop()));
    return null;
  },
});
