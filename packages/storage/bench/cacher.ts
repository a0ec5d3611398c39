// `cacher`: watch-cache fan-out in one process, without HTTP: one storage write stream delivered
// to 1000 watchers, each event encoded once and shared (kube's cachingObject) vs encoded again
// for every watcher — the ratio in one run.
import { findBuiltinResource, type KubeObject } from '@listwatch/api';
import type { Scenario } from '../../../bench/lib.js';
import { encodeWatchEvent } from '@listwatch/codec';
import { samplePod } from '@listwatch/testing';
import { Cacher, MemoryStorage, type CacheWatcher } from '../src/index.js';

const WATCHERS = 1000;
let EVENTS = 200;
const pods = findBuiltinResource('pods')!;

type Mode = 'encode once' | 'encode per watcher';

async function run(mode: Mode): Promise<{ seconds: number; bytes: number; deliveries: number }> {
  const storage = new MemoryStorage({ compactionInterval: 0 });
  const cacher = new Cacher({
    storage,
    definition: pods,
    watcherCapacity: EVENTS + 10,
    blockedBudgetMs: 60_000,
  });
  await cacher.start();
  const watchers: CacheWatcher[] = [];
  for (let i = 0; i < WATCHERS; i++)
    watchers.push(await cacher.watch({ resourceVersion: String(cacher.revision) }));
  const objects: KubeObject[] = Array.from({ length: EVENTS }, (_, i) => samplePod(i));
  for (const o of objects) delete o.metadata.resourceVersion;
  let bytes = 0;
  let deliveries = 0;
  const start = performance.now();
  for (const [i, o] of objects.entries())
    await storage.create(`/registry/pods/${o.metadata.namespace}/${o.metadata.name ?? i}`, o);
  // Every watcher drains its events into "the socket": the bytes it would write.
  await Promise.all(
    watchers.map(async (w) => {
      let got = 0;
      while (got < EVENTS) {
        const batch = await w.nextBatch();
        if (!batch) break;
        for (const e of batch) {
          const out =
            mode === 'encode once'
              ? e.encoded.bytes('json')
              : encodeWatchEvent(e.encoded.event, 'json');
          bytes += out.length;
        }
        got += batch.length;
        deliveries += batch.length;
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  await cacher.stop();
  await storage.close();
  return { seconds, bytes, deliveries };
}

export const scenario: Scenario = {
  name: 'cacher',
  title: `watch cache fan-out to ${WATCHERS} in-process watchers: encode once vs per watcher`,
  processes: () => 'the runner alone (Cacher on memory storage, in-process)',
  rounds: (ctx) => (ctx.quick ? 1 : 3),
  open(ctx) {
    EVENTS = ctx.quick ? 50 : 200;
    return Promise.resolve({
      async round() {
        const perWatcher = await run('encode per watcher');
        const once = await run('encode once');
        const rate = (r: typeof once) => r.deliveries / r.seconds;
        return {
          metrics: {
            encode_per_watcher_deliveries_per_s: rate(perWatcher),
            encode_once_deliveries_per_s: rate(once),
            encode_once_mb_per_s: once.bytes / 1e6 / once.seconds,
          },
          ratios: { encode_once_vs_per_watcher: rate(once) / rate(perWatcher) },
        };
      },
      close: () => Promise.resolve(),
    });
  },
};
